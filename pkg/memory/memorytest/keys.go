package memorytest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// testKey builds a valid key record of org for secret.
func testKey(org, agent, id, secret string, g memory.Grants) memory.APIKey {
	sum := sha256.Sum256([]byte(secret))
	return memory.APIKey{ID: id, Hash: hex.EncodeToString(sum[:]), OrgID: org, AgentID: agent, Name: "test " + id,
		Grants: g, Prefix: secret[:8], CreatedAt: time.UnixMilli(Base).UTC()}
}

// KeySuite runs the KeyStore contract against stores made by open; each
// subtest gets a fresh, empty store.
func KeySuite(t *testing.T, open func(t *testing.T) memory.KeyStore) {
	ctx := context.Background()

	t.Run("create, look up by hash, list per org", func(t *testing.T) {
		s := open(t)
		a := testKey(OrgA, "", "key_a1", "secret-a1-0123456789", memory.AllGrants)
		x := testKey(OrgA, AgentX, "key_a2", "secret-a2-0123456789", memory.GrantRead|memory.GrantWrite)
		b := testKey(OrgB, "", "key_b1", "secret-b1-0123456789", memory.GrantRead)
		for _, k := range []memory.APIKey{a, x, b} {
			if err := s.CreateKey(ctx, k); err != nil {
				t.Fatalf("create %s: %v", k.ID, err)
			}
		}
		for _, want := range []memory.APIKey{a, x, b} {
			got, err := s.KeyByHash(ctx, want.Hash)
			if err != nil {
				t.Fatalf("by hash %s: %v", want.ID, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("by hash:\n got %+v\nwant %+v", got, want)
			}
		}
		if _, err := s.KeyByHash(ctx, testKey(OrgA, "", "k", "secret-none-0123456", 1).Hash); !memory.IsNotFound(err) {
			t.Fatalf("unknown hash: %v", err)
		}
		list, err := s.ListKeys(ctx, OrgA)
		if err != nil || len(list) != 2 || list[0].ID != "key_a1" || list[1].ID != "key_a2" {
			t.Fatalf("list org a: %+v %v", list, err)
		}
		list, err = s.ListKeys(ctx, "org-empty")
		if err != nil || len(list) != 0 {
			t.Fatalf("list of an org without keys: %+v %v", list, err)
		}
	})

	t.Run("a hash or an id is never stored twice", func(t *testing.T) {
		s := open(t)
		k := testKey(OrgA, "", "key_1", "secret-1-0123456789", memory.GrantRead)
		if err := s.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		again := k
		again.OrgID, again.ID = OrgB, "key_other"
		if err := s.CreateKey(ctx, again); !memory.IsConflict(err) {
			t.Fatalf("same hash in another org: %v", err)
		}
		sameID := testKey(OrgA, "", "key_1", "secret-2-0123456789", memory.GrantRead)
		if err := s.CreateKey(ctx, sameID); !memory.IsConflict(err) {
			t.Fatalf("same id in the org: %v", err)
		}
		if got, err := s.KeyByHash(ctx, k.Hash); err != nil || got.OrgID != OrgA {
			t.Fatalf("the first key changed: %+v %v", got, err)
		}
	})

	t.Run("invalid keys are refused", func(t *testing.T) {
		s := open(t)
		bad := []memory.APIKey{
			testKey("", "", "key_1", "secret-1-0123456789", memory.GrantRead),
			testKey(OrgA, AgentX, "key_2", "secret-2-0123456789", memory.GrantAdmin),
			testKey(OrgA, "", "key_3", "secret-3-0123456789", 0),
			testKey(OrgA, memory.OrgScope, "key_4", "secret-4-0123456789", memory.GrantRead),
		}
		for _, k := range bad {
			if err := s.CreateKey(ctx, k); memory.ErrorCode(err) != memory.EINVALID {
				t.Errorf("%s: %v, want invalid", k.ID, err)
			}
		}
	})

	t.Run("revoke within the org only, first time kept", func(t *testing.T) {
		s := open(t)
		k := testKey(OrgA, AgentX, "key_1", "secret-1-0123456789", memory.GrantRead)
		if err := s.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		at := time.UnixMilli(Base + 60_000).UTC()
		if _, err := s.RevokeKey(ctx, OrgB, k.ID, at); !memory.IsNotFound(err) {
			t.Fatalf("revoke from another org: %v", err)
		}
		if got, _ := s.KeyByHash(ctx, k.Hash); got.RevokedAt != nil {
			t.Fatal("another org revoked the key")
		}
		got, err := s.RevokeKey(ctx, OrgA, k.ID, at)
		if err != nil || got.RevokedAt == nil || !got.RevokedAt.Equal(at) || got.ID != k.ID {
			t.Fatalf("revoke: %+v %v", got, err)
		}
		if got, err = s.RevokeKey(ctx, OrgA, k.ID, at.Add(time.Hour)); err != nil || !got.RevokedAt.Equal(at) {
			t.Fatalf("second revoke: %+v %v", got, err)
		}
		if got, err = s.KeyByHash(ctx, k.Hash); err != nil || got.RevokedAt == nil || !got.RevokedAt.Equal(at) {
			t.Fatalf("by hash after revoke: %+v %v", got, err)
		}
		list, err := s.ListKeys(ctx, OrgA)
		if err != nil || len(list) != 1 || list[0].RevokedAt == nil {
			t.Fatalf("list after revoke: %+v %v", list, err)
		}
		if _, err := s.RevokeKey(ctx, OrgA, "key_nope", at); !memory.IsNotFound(err) {
			t.Fatalf("revoke unknown: %v", err)
		}
	})
}

// UsageStore is a Store that reports usage.
type UsageStore interface {
	memory.Store
	memory.UsageCounter
}

// UsageSuite runs the UsageCounter contract: usage follows creates,
// updates and deletes, per org, also under concurrent writers.
func UsageSuite(t *testing.T, open func(t *testing.T) UsageStore) {
	ctx := context.Background()
	usage := func(t *testing.T, s UsageStore, org string) memory.OrgUsage {
		t.Helper()
		u, err := s.Usage(ctx, org)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}

	t.Run("follows creates, updates and deletes", func(t *testing.T) {
		s := open(t)
		if u := usage(t, s, OrgA); u != (memory.OrgUsage{}) {
			t.Fatalf("empty org: %+v", u)
		}
		m1 := New(OrgA, "", memory.TypeCustom, "héllo", Base) // 6 bytes
		m2 := New(OrgA, AgentX, memory.TypeDocument, "a document", Base+1)
		m3 := New(OrgB, "", memory.TypeCustom, "other org", Base+2)
		dup := New(OrgA, "", memory.TypeCustom, "héllo", Base+3)
		mustCreate(t, s, m1, m2, m3)
		if res, err := s.Create(ctx, []*memory.Memory{dup}); err != nil || !res[0].Duplicate {
			t.Fatalf("duplicate: %+v %v", res, err)
		}
		if u, want := usage(t, s, OrgA), (memory.OrgUsage{Memories: 2, Bytes: 6 + 10, Documents: 1}); u != want {
			t.Fatalf("org a: %+v, want %+v", u, want)
		}
		if u, want := usage(t, s, OrgB), (memory.OrgUsage{Memories: 1, Bytes: 9}); u != want {
			t.Fatalf("org b: %+v, want %+v", u, want)
		}
		m1.Content.Text = "hello, world"
		m1.ContentHash = memory.ContentHash(m1.Content.Text)
		if err := s.Update(ctx, m1); err != nil {
			t.Fatal(err)
		}
		if u, want := usage(t, s, OrgA), (memory.OrgUsage{Memories: 2, Bytes: 12 + 10, Documents: 1}); u != want {
			t.Fatalf("after update: %+v, want %+v", u, want)
		}
		if err := s.Delete(ctx, OrgA, m2.ID); err != nil {
			t.Fatal(err)
		}
		if u, want := usage(t, s, OrgA), (memory.OrgUsage{Memories: 1, Bytes: 12}); u != want {
			t.Fatalf("after delete: %+v, want %+v", u, want)
		}
		if _, err := s.DeleteWhere(ctx, memory.Filter{OrgID: OrgA, Types: []memory.Type{memory.TypeCustom}}); err != nil {
			t.Fatal(err)
		}
		if u := usage(t, s, OrgA); u != (memory.OrgUsage{}) {
			t.Fatalf("after delete where: %+v", u)
		}
		if u, want := usage(t, s, OrgB), (memory.OrgUsage{Memories: 1, Bytes: 9}); u != want {
			t.Fatalf("org b after org a's deletes: %+v, want %+v", u, want)
		}
	})

	t.Run("exact under concurrent writers", func(t *testing.T) {
		s := open(t)
		const writers, each = 4, 10
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					m := New(OrgA, "", memory.TypeCustom, fmt.Sprintf("w%d-%02d", w, i), Base+int64(w*each+i))
					if _, err := s.Create(ctx, []*memory.Memory{m}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if u, want := usage(t, s, OrgA), (memory.OrgUsage{Memories: writers * each, Bytes: writers * each * 5}); u != want {
			t.Fatalf("after concurrent creates: %+v, want %+v", u, want)
		}
	})
}
