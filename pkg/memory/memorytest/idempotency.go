package memorytest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// IdempotencySuite runs the IdempotencyStore contract against stores made
// by open; each subtest gets a fresh, empty store.
func IdempotencySuite(t *testing.T, open func(t *testing.T) memory.IdempotencyStore) {
	ctx := context.Background()
	now := time.UnixMilli(Base)
	rec := func(org, scope, key, fp string) memory.IdempotencyRecord {
		return memory.IdempotencyRecord{OrgID: org, Scope: scope, Key: key, Fingerprint: fp,
			LeaseUntil: now.Add(time.Minute).UnixMilli(), ExpiresAt: now.Add(memory.IdempotencyTTL).UnixMilli()}
	}
	done := func(r memory.IdempotencyRecord, status int, body string) memory.IdempotencyRecord {
		r.Done, r.Status, r.Body = true, status, []byte(body)
		r.Header = map[string]string{"Content-Type": "application/json", "Location": "/v1/memories/m1"}
		return r
	}
	reserve := func(t *testing.T, s memory.IdempotencyStore, r memory.IdempotencyRecord, at time.Time) *memory.IdempotencyRecord {
		t.Helper()
		got, err := s.Reserve(ctx, r, at)
		if err != nil {
			t.Fatalf("reserve %s/%s/%s: %v", r.OrgID, r.Scope, r.Key, err)
		}
		return got
	}

	t.Run("reserve, in flight, complete, replay", func(t *testing.T) {
		s := open(t)
		r := rec(OrgA, "", "k1", "fp1")
		if got := reserve(t, s, r, now); got != nil {
			t.Fatalf("a fresh key is held already: %+v", got)
		}
		got := reserve(t, s, r, now)
		if got == nil || got.Done || got.Fingerprint != "fp1" {
			t.Fatalf("a reserved key answers %+v, want the reservation in flight", got)
		}
		if err := s.Complete(ctx, done(r, 201, `{"id":"m1"}`)); err != nil {
			t.Fatal(err)
		}
		for _, at := range []time.Time{now, now.Add(time.Hour)} { // the lease no longer matters
			got = reserve(t, s, rec(OrgA, "", "k1", "fp-other"), at)
			if got == nil || !got.Done || got.Status != 201 || string(got.Body) != `{"id":"m1"}` || got.Fingerprint != "fp1" ||
				got.Header["Location"] != "/v1/memories/m1" || got.Header["Content-Type"] != "application/json" {
				t.Fatalf("completed key answers %+v", got)
			}
		}
		g, err := s.Get(ctx, OrgA, "", "k1", now)
		if err != nil || !g.Done || g.Status != 201 || string(g.Body) != `{"id":"m1"}` {
			t.Fatalf("get: %+v %v", g, err)
		}
	})

	t.Run("keys are per org and per scope", func(t *testing.T) {
		s := open(t)
		if err := s.Complete(ctx, done(rec(OrgA, AgentX, "k", "fp"), 201, "x")); !memory.IsNotFound(err) {
			t.Fatalf("complete without a reservation: %v", err)
		}
		reserve(t, s, rec(OrgA, AgentX, "k", "fp"), now)
		if err := s.Complete(ctx, done(rec(OrgA, AgentX, "k", "fp"), 201, "x")); err != nil {
			t.Fatal(err)
		}
		for _, other := range []memory.IdempotencyRecord{rec(OrgB, AgentX, "k", "fp"), rec(OrgA, AgentY, "k", "fp"), rec(OrgA, "", "k", "fp")} {
			if _, err := s.Get(ctx, other.OrgID, other.Scope, "k", now); !memory.IsNotFound(err) {
				t.Fatalf("%s/%s sees %s/%s's key: %v", other.OrgID, other.Scope, OrgA, AgentX, err)
			}
			if got := reserve(t, s, other, now); got != nil {
				t.Fatalf("%s/%s is answered with another scope's record %+v", other.OrgID, other.Scope, got)
			}
		}
		if g, err := s.Get(ctx, OrgA, AgentX, "k", now); err != nil || string(g.Body) != "x" {
			t.Fatalf("the owner's record changed: %+v %v", g, err)
		}
	})

	t.Run("expired records are absent and can be taken again", func(t *testing.T) {
		s := open(t)
		r := rec(OrgA, "", "k", "fp1")
		reserve(t, s, r, now)
		if err := s.Complete(ctx, done(r, 200, "old")); err != nil {
			t.Fatal(err)
		}
		later := now.Add(memory.IdempotencyTTL + time.Second)
		if _, err := s.Get(ctx, OrgA, "", "k", later); !memory.IsNotFound(err) {
			t.Fatalf("an expired record: %v", err)
		}
		r2 := rec(OrgA, "", "k", "fp2")
		r2.LeaseUntil, r2.ExpiresAt = later.Add(time.Minute).UnixMilli(), later.Add(memory.IdempotencyTTL).UnixMilli()
		if got := reserve(t, s, r2, later); got != nil {
			t.Fatalf("an expired key is still held: %+v", got)
		}
		if g, err := s.Get(ctx, OrgA, "", "k", later); err != nil || g.Done || g.Fingerprint != "fp2" {
			t.Fatalf("after taking over: %+v %v", g, err)
		}
	})

	t.Run("a reservation past its lease is taken over", func(t *testing.T) {
		s := open(t)
		reserve(t, s, rec(OrgA, "", "k", "fp1"), now)
		past := now.Add(2 * time.Minute)
		r2 := rec(OrgA, "", "k", "fp2")
		r2.LeaseUntil = past.Add(time.Minute).UnixMilli()
		if got := reserve(t, s, r2, past); got != nil {
			t.Fatalf("a stale reservation still holds the key: %+v", got)
		}
		// The first holder cannot complete what it no longer holds.
		if err := s.Complete(ctx, done(rec(OrgA, "", "k", "fp1"), 201, "late")); !memory.IsNotFound(err) {
			t.Fatalf("completing a lost reservation: %v", err)
		}
		if err := s.Complete(ctx, done(r2, 201, "second")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("release lets a retry run, and leaves a completed key", func(t *testing.T) {
		s := open(t)
		r := rec(OrgA, "", "k", "fp")
		reserve(t, s, r, now)
		if err := s.Release(ctx, OrgA, "", "k", "fp"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, OrgA, "", "k", now); !memory.IsNotFound(err) {
			t.Fatalf("a released key: %v", err)
		}
		if got := reserve(t, s, r, now); got != nil {
			t.Fatalf("a released key is held: %+v", got)
		}
		if err := s.Complete(ctx, done(r, 201, "kept")); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, OrgA, "", "k", "fp"); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, OrgA, "", "absent", "fp"); err != nil {
			t.Fatalf("releasing an absent key: %v", err)
		}
		if g, err := s.Get(ctx, OrgA, "", "k", now); err != nil || string(g.Body) != "kept" {
			t.Fatalf("release dropped a completed key: %+v %v", g, err)
		}
	})

	t.Run("a response too large is refused", func(t *testing.T) {
		s := open(t)
		r := rec(OrgA, "", "k", "fp")
		reserve(t, s, r, now)
		big := done(r, 200, "")
		big.Body = bytes.Repeat([]byte("a"), memory.MaxIdempotentResponse+1)
		if err := s.Complete(ctx, big); memory.ErrorCode(err) != memory.ETOOLARGE {
			t.Fatalf("complete with %d bytes: %v", len(big.Body), err)
		}
		exact := done(r, 200, "")
		exact.Body = bytes.Repeat([]byte("b"), memory.MaxIdempotentResponse)
		if err := s.Complete(ctx, exact); err != nil {
			t.Fatalf("complete with the largest body: %v", err)
		}
		if g, err := s.Get(ctx, OrgA, "", "k", now); err != nil || !bytes.Equal(g.Body, exact.Body) {
			t.Fatalf("the largest body did not round-trip: %v", err)
		}
	})

	t.Run("concurrent reservations: one holds the key", func(t *testing.T) {
		s := open(t)
		const n = 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		holders, errs := 0, []error{}
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := s.Reserve(ctx, rec(OrgA, "", "race", fmt.Sprint("fp", i)), now)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
				} else if got == nil {
					holders++
				}
			}()
		}
		wg.Wait()
		if len(errs) > 0 || holders != 1 {
			t.Fatalf("%d of %d reservations hold the key (errors %v), want 1", holders, n, errs)
		}
	})
}
