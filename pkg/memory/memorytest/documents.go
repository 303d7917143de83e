package memorytest

import (
	"context"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// DocumentStore is a store that stages documents and commits them
// atomically, with the status records the commit writes.
type DocumentStore interface {
	memory.Store
	memory.DocumentCommitter
	memory.RecordStore
}

// DocumentSuite runs the staged-document contract (memory.DocumentCommitter):
// staged memories are invisible to the visible filters of List, Count and
// DeleteWhere and marked Pending by Get and GetMany; a commit shows the new
// version, hides the retired memories and writes the status record in one
// step; discarding (a rollback) removes only staged memories; and another
// org's or agent's memories are never touched or shown.
func DocumentSuite(t *testing.T, open func(t *testing.T) DocumentStore) {
	ctx := context.Background()
	const doc = "doc-1"
	mk := func(org, agent, id string, pending bool) *memory.Memory {
		m := New(org, agent, memory.TypeFragment, "fragment "+id+" of "+org, int64(len(id))*1000)
		m.ID, m.DocumentID, m.Pending = id, doc, pending
		m.ContentHash = memory.ContentHash(org + id)
		return m
	}
	type view struct {
		visible, pending []string
	}
	look := func(t *testing.T, s DocumentStore, f memory.Filter) view {
		t.Helper()
		var v view
		for _, pending := range []bool{false, true} {
			f.Pending = pending
			p, err := s.List(ctx, memory.ListQuery{Filter: f, Limit: 100})
			if err != nil {
				t.Fatalf("list pending=%v: %v", pending, err)
			}
			var ids []string
			for _, m := range p.Memories {
				if m.Pending != pending || m.OrgID != f.OrgID {
					t.Fatalf("list pending=%v of %s returned %s (org %s, pending %v)", pending, f.OrgID, m.ID, m.OrgID, m.Pending)
				}
				ids = append(ids, m.ID)
			}
			slices.Sort(ids)
			if n, err := s.Count(ctx, f); err != nil || n != len(ids) {
				t.Fatalf("count pending=%v: %d %v, list has %d", pending, n, err, len(ids))
			}
			got, err := s.GetMany(ctx, f.OrgID, ids)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if m := got[id]; m == nil || m.Pending != pending {
					t.Fatalf("get many %s: %+v, want pending=%v", id, m, pending)
				}
				if m, err := s.Get(ctx, f.OrgID, id); err != nil || m.Pending != pending {
					t.Fatalf("get %s: %+v %v, want pending=%v", id, m, err, pending)
				}
			}
			if pending {
				v.pending = ids
			} else {
				v.visible = ids
			}
		}
		return v
	}
	want := func(t *testing.T, step string, got, exp view) {
		t.Helper()
		if !slices.Equal(got.visible, exp.visible) || !slices.Equal(got.pending, exp.pending) {
			t.Fatalf("%s: visible %v pending %v, want visible %v pending %v", step, got.visible, got.pending, exp.visible, exp.pending)
		}
	}
	filters := func(org string) []memory.Filter {
		return []memory.Filter{
			{OrgID: org},                  // the org's whole list
			{OrgID: org, DocumentID: doc}, // the document
			{OrgID: org, Types: []memory.Type{memory.TypeFragment}}, // by type
		}
	}

	t.Run("staged invisible, commit shows all at once, rollback", func(t *testing.T) {
		s := open(t)
		mustCreate(t, s, mk(OrgA, "", "old-1", false), mk(OrgA, "", "old-2", false),
			mk(OrgA, "", "new-1", true), mk(OrgA, "", "new-2", true),
			mk(OrgB, "", "b-old", false), mk(OrgB, "", "b-new", true))
		staged := view{visible: []string{"old-1", "old-2"}, pending: []string{"new-1", "new-2"}}
		for _, f := range filters(OrgA) {
			want(t, "staged", look(t, s, f), staged)
		}
		shown, err := s.CommitDocument(ctx, memory.DocumentCommit{OrgID: OrgA, DocumentID: doc, Retire: []string{"old-2"},
			RecordKind: "DOC", RecordID: doc, Record: map[string]string{"state": "indexed"}})
		slices.Sort(shown)
		if err != nil || !slices.Equal(shown, []string{"new-1", "new-2"}) {
			t.Fatalf("commit: %v %v", shown, err)
		}
		var rec map[string]string
		if _, err := s.GetRecord(ctx, OrgA, "DOC", doc, &rec); err != nil || rec["state"] != "indexed" {
			t.Fatalf("the commit's record: %v %v", rec, err)
		}
		committed := view{visible: []string{"new-1", "new-2", "old-1"}, pending: []string{"old-2"}}
		for _, f := range filters(OrgA) {
			want(t, "committed", look(t, s, f), committed)
		}
		// Org B's document of the same id is untouched by org A's commit.
		for _, f := range filters(OrgB) {
			want(t, "org b after org a's commit", look(t, s, f), view{visible: []string{"b-old"}, pending: []string{"b-new"}})
		}
		if _, err := s.GetRecord(ctx, OrgB, "DOC", doc, &rec); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("org a's commit wrote a record of org b: %v", err)
		}
		// The retired memory is discarded; visible ones stay.
		gone, err := s.DeleteWhere(ctx, memory.Filter{OrgID: OrgA, DocumentID: doc, Pending: true, IncludeArchived: true})
		if err != nil || !slices.Equal(gone, []string{"old-2"}) {
			t.Fatalf("discard the retired: %v %v", gone, err)
		}
		// A new version staged, then rolled back: the committed one stays.
		mustCreate(t, s, mk(OrgA, "", "new-3", true))
		want(t, "restaged", look(t, s, memory.Filter{OrgID: OrgA, DocumentID: doc}),
			view{visible: []string{"new-1", "new-2", "old-1"}, pending: []string{"new-3"}})
		gone, err = s.DeleteWhere(ctx, memory.Filter{OrgID: OrgA, DocumentID: doc, Pending: true, IncludeArchived: true})
		if err != nil || !slices.Equal(gone, []string{"new-3"}) {
			t.Fatalf("rollback: %v %v", gone, err)
		}
		want(t, "rolled back", look(t, s, memory.Filter{OrgID: OrgA, DocumentID: doc}),
			view{visible: []string{"new-1", "new-2", "old-1"}})
		if _, err := s.Get(ctx, OrgA, "new-3"); !memory.IsNotFound(err) {
			t.Fatalf("a rolled-back memory is still there: %v", err)
		}
		// Org B's staged memory survived org A's discards.
		want(t, "org b at the end", look(t, s, memory.Filter{OrgID: OrgB, DocumentID: doc}),
			view{visible: []string{"b-old"}, pending: []string{"b-new"}})
		// A visible delete never removes staged memories.
		gone, err = s.DeleteWhere(ctx, memory.Filter{OrgID: OrgB, DocumentID: doc})
		if err != nil || !slices.Equal(gone, []string{"b-old"}) {
			t.Fatalf("visible delete: %v %v", gone, err)
		}
	})

	t.Run("agents see only their own and the org's, staged or not", func(t *testing.T) {
		s := open(t)
		mustCreate(t, s, mk(OrgA, "x", "x-old", false), mk(OrgA, "x", "x-new", true), mk(OrgA, "", "org-new", true))
		if _, err := s.CommitDocument(ctx, memory.DocumentCommit{OrgID: OrgA, DocumentID: doc}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			viewer string
			want   view
		}{
			{"x", view{visible: []string{"org-new", "x-new", "x-old"}}},
			{"y", view{visible: []string{"org-new"}}},
		} {
			want(t, "viewer "+c.viewer, look(t, s, memory.Filter{OrgID: OrgA, Viewer: c.viewer}), c.want)
		}
	})

	t.Run("an empty commit changes nothing but the record", func(t *testing.T) {
		s := open(t)
		mustCreate(t, s, mk(OrgA, "", "old-1", false))
		shown, err := s.CommitDocument(ctx, memory.DocumentCommit{OrgID: OrgA, DocumentID: doc, RecordKind: "DOC", RecordID: doc, Record: map[string]int{"n": 1}})
		if err != nil || len(shown) != 0 {
			t.Fatalf("commit: %v %v", shown, err)
		}
		want(t, "after", look(t, s, memory.Filter{OrgID: OrgA}), view{visible: []string{"old-1"}})
		var rec map[string]int
		if v, err := s.GetRecord(ctx, OrgA, "DOC", doc, &rec); err != nil || rec["n"] != 1 || v != 1 {
			t.Fatalf("record: %v %d %v", rec, v, err)
		}
	})
}
