package dynamodb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestCommitCrash stops a document commit at each of its steps, as a killed
// process would, and checks what readers see then and after recovery
// (SettleCommits, then discarding what stays staged): the old version until
// the commit point, the new one from it on, never a mix.
func TestCommitCrash(t *testing.T) {
	ctx := context.Background()
	c, err := NewClient(ctx, ClientOptions{Endpoint: testenv.Get(t, "DYNAMODB_ENDPOINT"), AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	const org, doc = memorytest.OrgA, "doc-1"
	oldV, newV := []string{"old-1", "old-2"}, []string{"new-1", "new-2", "new-3"}
	steps := []struct {
		name string
		stop int // steps run: 1 tag, 2 publish (the commit point), 3 roll forward of part
		// what readers see after the stop, and after recovery
		visible, recovered []string
	}{
		{name: "after tagging", stop: 1, visible: oldV, recovered: oldV},
		{name: "after the commit point", stop: 2, visible: newV, recovered: newV},
		{name: "during the roll forward", stop: 3, visible: newV, recovered: newV},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			var b [4]byte
			rand.Read(b[:])
			table := "test-" + hex.EncodeToString(b[:])
			if err := CreateTable(ctx, c, table); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { DeleteTable(context.Background(), c, table) })
			s := New(c, table)
			var ms []*memory.Memory
			for i, id := range append(slices.Clone(oldV), newV...) {
				m := memorytest.New(org, "", memory.TypeFragment, "fragment "+id, int64(i+1)*1000)
				m.ID, m.DocumentID, m.Pending, m.ContentHash = id, doc, i >= len(oldV), memory.ContentHash(id)
				ms = append(ms, m)
			}
			// Another org's staged memory of a document of the same id.
			other := memorytest.New(memorytest.OrgB, "", memory.TypeFragment, "org b", 500)
			other.ID, other.DocumentID, other.Pending, other.ContentHash = "b-1", doc, true, memory.ContentHash("b-1")
			if _, err := s.Create(ctx, append(ms, other)); err != nil {
				t.Fatal(err)
			}
			dc := memory.DocumentCommit{OrgID: org, DocumentID: doc, Retire: oldV, RecordKind: "DOC", RecordID: doc,
				Record: map[string]string{"state": "indexed"}}
			var tags []tag
			for _, id := range newV {
				tags = append(tags, tag{id, roleShow})
			}
			for _, id := range oldV {
				tags = append(tags, tag{id, roleRetire})
			}
			const tok = "crash-token"
			if _, err := s.tagAll(ctx, org, doc, tok, tags); err != nil {
				t.Fatal(err)
			}
			if st.stop >= 2 {
				if err := s.publish(ctx, dc, tok); err != nil {
					t.Fatal(err)
				}
			}
			if st.stop >= 3 { // one shown and one retired memory flipped, then the crash
				if _, err := s.eachTag(ctx, []tag{tags[0], tags[len(tags)-1]}, func(tg tag) (*awsdynamodb.UpdateItemInput, error) {
					return s.flipTag(org, tok, tg), nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			check := func(when string, want []string) {
				t.Helper()
				p, err := s.List(ctx, memory.ListQuery{Filter: memory.Filter{OrgID: org}, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, m := range p.Memories {
					got = append(got, m.ID)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: visible %v, want %v", when, got, want)
				}
				if n, err := s.Count(ctx, memory.Filter{OrgID: org, DocumentID: doc}); err != nil || n != len(want) {
					t.Fatalf("%s: count %d %v, want %d", when, n, err, len(want))
				}
				for _, id := range append(slices.Clone(oldV), newV...) {
					m, err := s.Get(ctx, org, id)
					if memory.IsNotFound(err) {
						continue
					}
					if err != nil || m.Pending == slices.Contains(want, id) {
						t.Fatalf("%s: get %s: %+v %v", when, id, m, err)
					}
				}
				if m, err := s.Get(ctx, memorytest.OrgB, "b-1"); err != nil || !m.Pending {
					t.Fatalf("%s: org b's staged memory: %+v %v", when, m, err)
				}
			}
			check("after the crash", st.visible)
			// Recovery, as ingest.Recover runs it: settle, then discard
			// the staged memories of documents that are not committing.
			if _, err := s.SettleCommits(ctx, org); err != nil {
				t.Fatal(err)
			}
			if _, err := s.DeleteWhere(ctx, memory.Filter{OrgID: org, Pending: true, IncludeArchived: true}); err != nil {
				t.Fatal(err)
			}
			check("after recovery", st.recovered)
			if recs, _, err := s.ListRecords(ctx, org, kindCommit, "", 10); err != nil || len(recs) != 0 {
				t.Fatalf("commit markers left after recovery: %v %v", recs, err)
			}
			// The document commits again after any of these.
			more := memorytest.New(org, "", memory.TypeFragment, "fragment new-4", 9000)
			more.ID, more.DocumentID, more.Pending, more.ContentHash = "new-4", doc, true, memory.ContentHash("new-4")
			if _, err := s.Create(ctx, []*memory.Memory{more}); err != nil {
				t.Fatal(err)
			}
			if shown, err := s.CommitDocument(ctx, dc); err != nil || !slices.Equal(shown, []string{"new-4"}) {
				t.Fatalf("commit after recovery: %v %v", shown, err)
			}
			again := []string{"new-4"}
			for _, id := range st.recovered {
				if !slices.Contains(oldV, id) { // the commit retires the old version again
					again = append(again, id)
				}
			}
			slices.Sort(again)
			check("committed again", again)
		})
	}
}
