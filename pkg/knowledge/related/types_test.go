package related_test

import (
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge/related"
)

// TestTypeInference: the is-a table's narrower kinds and broader types,
// plurals and unions (an activity is any hobby or sport) included, each
// kind listed once.
func TestTypeInference(t *testing.T) {
	tests := []struct {
		term     string
		has      []string // among NarrowerTypes(term)
		hasNot   []string
		broader  string // InferTypes of has[0] includes it ("" to skip)
		noKindOf bool   // the term names no type
	}{
		{term: "people", has: []string{"person", "artist", "sister"}, broader: "person"},
		{term: "activities", has: []string{"activity", "pottery", "camping", "swimming", "running", "painting", "shopping"}, hasNot: []string{"person", "concert"}},
		{term: "activity", has: []string{"hiking", "yoga", "chess"}, broader: "activity"},
		{term: "pastimes", has: []string{"hobby", "knitting"}},
		{term: "hobbies", has: []string{"pottery"}, hasNot: []string{"tennis"}, broader: "hobby"},
		{term: "events", has: []string{"event", "parade", "workshop"}},
		{term: "melanie", noKindOf: true},
	}
	for _, tc := range tests {
		t.Run(tc.term, func(t *testing.T) {
			got := related.NarrowerTypes(tc.term)
			if tc.noKindOf {
				if got != nil {
					t.Fatalf("NarrowerTypes(%q) = %v, want none", tc.term, got)
				}
				return
			}
			for _, w := range tc.has {
				if !slices.Contains(got, w) {
					t.Fatalf("NarrowerTypes(%q) lacks %q: %v", tc.term, w, got)
				}
			}
			for _, w := range tc.hasNot {
				if slices.Contains(got, w) {
					t.Fatalf("NarrowerTypes(%q) has %q", tc.term, w)
				}
			}
			if c := slices.Compact(slices.Clone(got)); len(c) != len(got) {
				t.Fatalf("NarrowerTypes(%q) repeats a kind: %v", tc.term, got)
			}
			if tc.broader != "" {
				if b := related.InferTypes(tc.has[len(tc.has)-1]); !slices.Contains(b, tc.broader) {
					t.Fatalf("InferTypes(%q) = %v, want %q among them", tc.has[len(tc.has)-1], b, tc.broader)
				}
			}
		})
	}
}
