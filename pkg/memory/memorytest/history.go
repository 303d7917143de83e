package memorytest

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// historyCases is the HistoryStore part of the Store contract, run for
// stores that keep history.
func historyCases(t *testing.T, open func(t *testing.T) memory.Store) {
	ctx := context.Background()
	hist := func(t *testing.T) (memory.Store, memory.HistoryStore) {
		s := open(t)
		h, ok := s.(memory.HistoryStore)
		if !ok {
			t.Skip("the store keeps no history")
		}
		return s, h
	}
	update := func(t *testing.T, s memory.Store, m *memory.Memory, text string, at int64, by memory.Actor) {
		t.Helper()
		m.Content.Text, m.ContentHash, m.UpdatedAt = text, memory.ContentHash(text), at
		m.Metadata = []byte(fmt.Sprintf(`{"rev":%q}`, text))
		m.Change = &memory.Change{Op: memory.OpUpdate, By: by}
		if err := s.Update(ctx, m); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("history keeps every version with who changed it", func(t *testing.T) {
		s, h := hist(t)
		m := New(OrgA, AgentX, memory.TypeFact, "likes tea", Base)
		m.Change = &memory.Change{Op: memory.OpCreate, By: memory.Actor{KeyID: "key_1", AgentID: AgentX}}
		mustCreate(t, s, m)
		update(t, s, m, "likes coffee", Base+1000, memory.Actor{KeyID: "key_2"})
		m.Change = nil // an unattributed pipeline write
		m.Importance, m.UpdatedAt = 0.9, Base+2000
		if err := s.Update(ctx, m); err != nil {
			t.Fatal(err)
		}
		revs, err := h.History(ctx, OrgA, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			version int64
			op      string
			at      int64
			by      memory.Actor
			text    string
		}{
			{1, memory.OpCreate, Base, memory.Actor{KeyID: "key_1", AgentID: AgentX}, "likes tea"},
			{2, memory.OpUpdate, Base + 1000, memory.Actor{KeyID: "key_2"}, "likes coffee"},
			{3, memory.OpUpdate, Base + 2000, memory.Actor{}, "likes coffee"},
		}
		if len(revs) != len(want) {
			t.Fatalf("%d revisions, want %d: %+v", len(revs), len(want), revs)
		}
		for i, w := range want {
			r := revs[i]
			if r.Version != w.version || r.Op != w.op || r.At != w.at || r.By != w.by || r.Memory == nil ||
				r.Memory.Content.Text != w.text || r.Memory.Version != w.version || r.Memory.ID != m.ID {
				t.Fatalf("revision %d = %+v (memory %+v), want %+v", i, r, r.Memory, w)
			}
		}
		if revs[2].Memory.Importance != 0.9 || string(revs[1].Memory.Metadata) != `{"rev":"likes coffee"}` {
			t.Fatalf("revisions lost fields: %+v / %s", revs[2].Memory, revs[1].Memory.Metadata)
		}
	})

	t.Run("a redaction drops the earlier versions", func(t *testing.T) {
		s, h := hist(t)
		m := New(OrgA, "", memory.TypeMessage, "see you then", Base)
		m.Context = "bo: my card is 4111"
		mustCreate(t, s, m)
		update(t, s, m, "see you then!", Base+1, memory.Actor{})
		m.Context, m.UpdatedAt = "", Base+2
		m.Change = &memory.Change{Op: memory.OpRedact}
		if err := s.Update(ctx, m); err != nil {
			t.Fatal(err)
		}
		revs, err := h.History(ctx, OrgA, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(revs) != 1 || revs[0].Version != 3 || revs[0].Op != memory.OpRedact || revs[0].Memory.Context != "" {
			t.Fatalf("history after a redaction: %+v", revs)
		}
	})

	t.Run("history of another org's memory is not found", func(t *testing.T) {
		s, h := hist(t)
		m := New(OrgA, "", memory.TypeCustom, "org a's secret", Base)
		mustCreate(t, s, m)
		if _, err := h.History(ctx, OrgB, m.ID); !memory.IsNotFound(err) {
			t.Fatalf("history from org b: %v", err)
		}
		if _, err := h.History(ctx, OrgA, "missing"); !memory.IsNotFound(err) {
			t.Fatalf("history of a missing memory: %v", err)
		}
	})

	t.Run("deleting a memory deletes its history", func(t *testing.T) {
		for _, how := range []string{"delete", "delete where"} {
			t.Run(how, func(t *testing.T) {
				s, h := hist(t)
				m := New(OrgA, "", memory.TypeCustom, "first words", Base)
				m.RoomID = "gone"
				mustCreate(t, s, m)
				update(t, s, m, "second words", Base+1, memory.Actor{})
				if how == "delete" {
					if err := s.Delete(ctx, OrgA, m.ID); err != nil {
						t.Fatal(err)
					}
				} else if _, err := s.DeleteWhere(ctx, memory.Filter{OrgID: OrgA, RoomID: "gone"}); err != nil {
					t.Fatal(err)
				}
				if _, err := h.History(ctx, OrgA, m.ID); !memory.IsNotFound(err) {
					t.Fatalf("history after delete: %v", err)
				}
				// The same id again starts a new history: nothing of the
				// deleted versions is left behind.
				again := New(OrgA, "", memory.TypeCustom, "new words", Base+2)
				again.ID = m.ID
				mustCreate(t, s, again)
				revs, err := h.History(ctx, OrgA, m.ID)
				if err != nil {
					t.Fatal(err)
				}
				if len(revs) != 1 || revs[0].Memory.Content.Text != "new words" {
					t.Fatalf("history of the re-created id: %+v", revs)
				}
			})
		}
	})
}
