package service_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
)

// TestRelevanceFloor: an off-topic question ("Kubernetes" against an agent
// scope with nothing on it) gets an empty relevant section by default,
// where it used to get the nearest memories; a question on topic keeps
// its memory; a request can lower the floor, and an out-of-range floor is
// refused naming the field.
func TestRelevanceFloor(t *testing.T) {
	b := open(t)
	s := b.Service
	if s.RelevanceFloor() != retrieval.RelevanceFloor(s.Embedder().Model()) || s.RelevanceFloor() == 0 {
		t.Fatalf("floor %v for %s", s.RelevanceFloor(), s.Embedder().Model())
	}
	create(t, s, agentX,
		service.NewMemory{Type: memory.TypeFact, Content: text("Priya bakes sourdough bread every Sunday morning.")},
		service.NewMemory{Type: memory.TypeFact, Content: text("Our dog Max chewed through the sofa cushion.")},
		service.NewMemory{Type: memory.TypeFact, Content: text("The product launch moved to the second week of March.")},
	)
	zero := 0.0
	tests := []struct {
		name     string
		query    string
		minScore *float64
		want     int // items in the relevant-knowledge section
	}{
		{"off topic, default floor", "Kubernetes", nil, 0},
		{"off topic, a longer question", "How do I configure a Kubernetes ingress controller?", nil, 0},
		{"off topic, floor turned off", "Kubernetes", &zero, 3},
		{"on topic", "When is the product launch?", nil, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.BuildContext(ctx, agentX, service.ContextRequest{Query: tc.query, MinScore: tc.minScore, BudgetTokens: 1000})
			if err != nil {
				t.Fatal(err)
			}
			var items []service.ContextItem
			for _, sec := range res.Sections {
				if sec.Name == "knowledge" {
					items = sec.Items
				}
			}
			if len(items) != tc.want {
				t.Fatalf("%d relevant items, want %d: %s", len(items), tc.want, res.Context)
			}
		})
	}
	// The search keeps every result unless asked for a floor.
	for _, tc := range []struct {
		minScore float64
		want     int
	}{{0, 3}, {s.RelevanceFloor(), 0}} {
		res, err := s.SearchRanked(ctx, agentX, service.SearchRequest{Query: "Kubernetes", MinScore: tc.minScore})
		if err != nil || len(res.Results) != tc.want {
			t.Fatalf("search with minScore %v: %d results, want %d (%v)", tc.minScore, len(res.Results), tc.want, err)
		}
	}
	bad := 1.5
	if _, err := s.BuildContext(ctx, agentX, service.ContextRequest{Query: "Kubernetes", MinScore: &bad}); memory.ErrorCode(err) != memory.EINVALID ||
		memory.ErrorMessage(err) != "minScore: 1.5 is outside 0..1" {
		t.Fatalf("context with minScore 1.5: %v", err)
	}
	if _, err := s.SearchRanked(ctx, agentX, service.SearchRequest{Query: "Kubernetes", MinScore: -1}); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("search with minScore -1: %v", err)
	}
}
