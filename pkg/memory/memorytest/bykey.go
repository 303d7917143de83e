package memorytest

import (
	"context"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// DedupLookupStore is a Store that finds memories by their DedupKey.
type DedupLookupStore interface {
	memory.Store
	memory.DedupLookup
}

// DedupLookupSuite runs the DedupLookup contract against stores made by
// open: a memory is found by its key within its own org only, by its
// client key (ExternalID) in its own scope only, and not after it is
// deleted or its content moved it to another key.
func DedupLookupSuite(t *testing.T, open func(t *testing.T) DedupLookupStore) {
	ctx := context.Background()
	s := open(t)
	keyed := func(org, agent, ext, text string) *memory.Memory {
		m := New(org, agent, memory.TypeCustom, text, Base)
		m.ExternalID = ext
		return m
	}
	a := keyed(OrgA, "", "k1", "org a, org scope")
	x := keyed(OrgA, AgentX, "k1", "org a, agent x")
	b := keyed(OrgB, "", "k1", "org b, org scope")
	plain := New(OrgA, "", memory.TypeFact, "no client key", Base)
	if _, err := s.Create(ctx, []*memory.Memory{a, x, b, plain}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []*memory.Memory{a, x, b, plain} {
		got, err := s.GetByDedupKey(ctx, want.OrgID, memory.DedupKey(want))
		if err != nil || got.ID != want.ID || got.Content.Text != want.Content.Text {
			t.Fatalf("lookup of %q: %+v %v", want.Content.Text, got, err)
		}
	}
	// Org a's key is not found from org b, nor agent y's from agent x.
	if _, err := s.GetByDedupKey(ctx, OrgB, memory.DedupKey(x)); !memory.IsNotFound(err) {
		t.Fatalf("org b finds org a's agent key: %v", err)
	}
	if _, err := s.GetByDedupKey(ctx, OrgA, memory.DedupKey(keyed(OrgA, AgentY, "k1", "?"))); !memory.IsNotFound(err) {
		t.Fatalf("agent y's scope finds agent x's key: %v", err)
	}
	// A content change keeps a client key's memory where it is; a delete
	// frees the key.
	x.Content.Text, x.ContentHash = "changed", memory.ContentHash("changed")
	if err := s.Update(ctx, x); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetByDedupKey(ctx, OrgA, memory.DedupKey(x)); err != nil || got.Content.Text != "changed" {
		t.Fatalf("after the update: %+v %v", got, err)
	}
	if err := s.Delete(ctx, OrgA, x.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetByDedupKey(ctx, OrgA, memory.DedupKey(x)); !memory.IsNotFound(err) {
		t.Fatalf("after the delete: %v", err)
	}
}
