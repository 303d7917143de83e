package service_test

import (
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
)

// TestWhenList: a question that asks when gets, in the when list, the
// memories that state a time or a duration among those keyword and
// semantic find, the ones matching its words first; a question that does
// not ask when gets none, and neither another agent's view nor another org
// sees a memory through it. (The hashing embedder's semantic list finds
// every memory, so every memory stating a time is in the list.)
func TestWhenList(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "acme"}
	res := create(t, b.Service, org,
		service.NewMemory{Type: memory.TypeMessage, EntityID: "Ana", Content: text("We moved to Lisbon last May, the flat is lovely")},
		service.NewMemory{Type: memory.TypeMessage, EntityID: "Bo", Content: text("Lisbon sounds lovely, I want to move to Lisbon too")},
		service.NewMemory{Type: memory.TypeMessage, EntityID: "Ana", Content: text("I have known my Lisbon friends for four years")},
		service.NewMemory{Type: memory.TypeMessage, EntityID: "Bo", Content: text("Went to a pottery class last Fri, loved the clay")},
	)
	tests := []struct {
		query string
		first []string // the list's first ids, in any order
	}{
		{"When did Ana move to Lisbon?", []string{res[0].ID, res[2].ID}},
		{"How long has Ana known her Lisbon friends?", []string{res[2].ID, res[0].ID}},
		{"Which day did Bo go to the pottery class?", []string{res[3].ID}},
		{"Where did Ana move?", nil},                      // not a question about time
		{"When I lived in Lisbon, what did I like?", nil}, // a clause of time, not a question
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			out, err := b.Service.Search(ctx, org, service.SearchRequest{Query: tc.query, Lists: []string{retrieval.ListWhen}, K: 5})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range out {
				got = append(got, r.Memory.ID)
			}
			if tc.first == nil {
				if len(got) != 0 {
					t.Fatalf("when list %v, want none", got)
				}
				return
			}
			all := slices.Sorted(slices.Values(got))
			if want := []string{res[0].ID, res[2].ID, res[3].ID}; !slices.Equal(all, slices.Sorted(slices.Values(want))) {
				t.Fatalf("when list %v, want the memories that state a time %v", got, want)
			}
			head := slices.Sorted(slices.Values(got[:len(tc.first)]))
			if !slices.Equal(head, slices.Sorted(slices.Values(tc.first))) {
				t.Fatalf("when list %v, want %v first", got, tc.first)
			}
		})
	}
	x := memory.Caller{OrgID: "acme", AgentID: "x"}
	private := create(t, b.Service, memory.Caller{OrgID: "acme", AgentID: "y"},
		service.NewMemory{Type: memory.TypeMessage, Content: text("Dee sold the boat yesterday")})[0].ID
	out, err := b.Service.Search(ctx, x, service.SearchRequest{Query: "When did Dee sell the boat?", Lists: []string{retrieval.ListWhen}, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out {
		if r.Memory.ID == private {
			t.Fatalf("agent x sees agent y's memory through the when list")
		}
	}
	other := memory.Caller{OrgID: "globex"}
	if out, err = b.Service.Search(ctx, other, service.SearchRequest{Query: "When did Ana move to Lisbon?", Lists: []string{retrieval.ListWhen}, K: 5}); err != nil || len(out) != 0 {
		t.Fatalf("another org's when list: %d results, err %v", len(out), err)
	}
}
