package memorytest

import (
	"context"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// RelationStore is a store that also keeps relations.
type RelationStore interface {
	memory.Store
	memory.RelationStore
}

// RelationSuite runs the RelationStore contract.
func RelationSuite(t *testing.T, open func(t *testing.T) RelationStore) {
	ctx := context.Background()
	t.Run("both directions, idempotent, org-scoped, deleted with the memory", func(t *testing.T) {
		s := open(t)
		old := New(OrgA, "", memory.TypeFact, "prefers coffee", Base)
		cur := New(OrgA, "", memory.TypeFact, "prefers tea now", Base+1)
		msg := New(OrgA, "", memory.TypeMessage, "actually I switched to tea", Base+1)
		mustCreate(t, s, old, cur, msg)
		rels := []memory.Relation{
			{OrgID: OrgA, FromID: cur.ID, Type: memory.RelSupersedes, ToID: old.ID, Confidence: 0.9, Provenance: []string{msg.ID}, CreatedAt: Base + 2},
			{OrgID: OrgA, FromID: cur.ID, Type: memory.RelCausedBy, ToID: msg.ID, Confidence: 1, CreatedAt: Base + 2},
		}
		if err := s.PutRelations(ctx, rels); err != nil {
			t.Fatal(err)
		}
		if err := s.PutRelations(ctx, rels[:1]); err != nil { // redelivery
			t.Fatal(err)
		}
		got, err := s.Relations(ctx, OrgA, cur.ID)
		if err != nil || len(got) != 2 || got[0].Type != memory.RelCausedBy || got[1].Type != memory.RelSupersedes ||
			got[1].ToID != old.ID || len(got[1].Provenance) != 1 || got[1].Provenance[0] != msg.ID || got[1].Confidence != 0.9 {
			t.Fatalf("relations of the new fact: %+v %v", got, err)
		}
		in, err := s.Relations(ctx, OrgA, old.ID)
		if err != nil || len(in) != 1 || in[0].FromID != cur.ID || in[0].Type != memory.RelSupersedes {
			t.Fatalf("incoming relations of the old fact: %+v %v", in, err)
		}
		if other, err := s.Relations(ctx, OrgB, cur.ID); err != nil || len(other) != 0 {
			t.Fatalf("org b sees org a's relations: %+v %v", other, err)
		}
		if err := s.PutRelations(ctx, []memory.Relation{{OrgID: OrgA, FromID: cur.ID, Type: "likes", ToID: old.ID}}); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("bad relation type: %v", err)
		}
		// Deleting one edge removes it from both ends, in its org only; an
		// absent edge is not an error.
		if err := s.DeleteRelation(ctx, OrgB, cur.ID, memory.RelCausedBy, msg.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Relations(ctx, OrgA, msg.ID); err != nil || len(got) != 1 {
			t.Fatalf("org b deleted org a's relation: %+v %v", got, err)
		}
		if err := s.DeleteRelation(ctx, OrgA, cur.ID, memory.RelCausedBy, msg.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteRelation(ctx, OrgA, cur.ID, memory.RelCausedBy, msg.ID); err != nil {
			t.Fatalf("deleting an absent relation: %v", err)
		}
		if got, err := s.Relations(ctx, OrgA, msg.ID); err != nil || len(got) != 0 {
			t.Fatalf("relations of the message after deleting its edge: %+v %v", got, err)
		}
		if got, err := s.Relations(ctx, OrgA, cur.ID); err != nil || len(got) != 1 || got[0].Type != memory.RelSupersedes {
			t.Fatalf("relations of the new fact after deleting one edge: %+v %v", got, err)
		}
		if err := s.Delete(ctx, OrgA, cur.ID); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{cur.ID, old.ID, msg.ID} {
			if left, err := s.Relations(ctx, OrgA, id); err != nil || len(left) != 0 {
				t.Fatalf("relations of %s after deleting the new fact: %+v %v", id, left, err)
			}
		}
	})
}
