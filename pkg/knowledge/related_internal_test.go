package knowledge

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge/query"
)

// TestKeepMostSimilar: a question's related terms are cut to the n with
// the greatest weight, the alphabetically first among equals, whatever
// the query word each stands for; n or fewer are left as they are.
func TestKeepMostSimilar(t *testing.T) {
	many := map[string]relatedTo{}
	for i := range query.MaxRelatedPerQuery + 15 {
		many[fmt.Sprintf("t%02d", i)] = relatedTo{word: fmt.Sprintf("w%d", i%5), weight: float64(i%20) / 20}
	}
	tests := []struct {
		name string
		rel  map[string]relatedTo
		n    int
		want string
	}{
		{"under the bound", map[string]relatedTo{"a": {"x", 0.2}, "b": {"y", 0.9}}, 3, "a,b"},
		{"at the bound", map[string]relatedTo{"a": {"x", 0.2}, "b": {"y", 0.9}}, 2, "a,b"},
		{"the most similar, across words", map[string]relatedTo{"a": {"x", 0.2}, "b": {"y", 0.9}, "c": {"x", 0.5}}, 2, "b,c"},
		{"ties by term", map[string]relatedTo{"d": {"x", 0.5}, "c": {"y", 0.5}, "b": {"x", 0.5}, "a": {"y", 0.1}}, 2, "b,c"},
		{"nothing", map[string]relatedTo{}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keepMostSimilar(tc.rel, tc.n)
			if got := strings.Join(slices.Sorted(maps.Keys(tc.rel)), ","); got != tc.want {
				t.Fatalf("kept %s, want %s", got, tc.want)
			}
		})
	}
	all := maps.Clone(many)
	keepMostSimilar(many, query.MaxRelatedPerQuery)
	if len(many) != query.MaxRelatedPerQuery {
		t.Fatalf("kept %d, want %d", len(many), query.MaxRelatedPerQuery)
	}
	for term, r := range all {
		if _, kept := many[term]; kept {
			continue
		}
		for k, q := range many {
			if q.weight < r.weight {
				t.Fatalf("kept %s at %.2f, left out %s at %.2f", k, q.weight, term, r.weight)
			}
		}
	}
}
