package query

import (
	"math"
	"reflect"
	"strconv"
	"testing"
)

// TestPlanThenExpand: the plan step reads nothing (neither the index nor
// the related terms) and marks the terms the expression lets expand; the
// fetch step's expansion places each marked term's related terms right
// after it, in their own roles, weighted RelatedWeight times their
// similarity, and drops the repeats.
func TestPlanThenExpand(t *testing.T) {
	related := map[string][]Related{
		"sport": {{"fencing", 0.9}, {"climbing", 0.5}},
		"hobby": {{"climbing", 0.8}},
		"try":   {{"attempt", 0.6}},
	}
	tests := []struct {
		name, src string
		planned   [][]string // per part, leaves then free terms: term|roles, "+" when marked
		expanded  [][]string // the same after the expansion: term|roles@weight
	}{
		{"free term", `{"terms": ["sport"]}`,
			[][]string{{"sport|+"}},
			[][]string{{"sport|@1", "fencing|@0.45", "climbing|@0.25"}}},
		{"types share a part, a related term once at its best", `{"select": {"entity": {"types": ["sport", "hobby"]}}}`,
			[][]string{{"sport|type+", "hobby|type+"}},
			[][]string{{"sport|type@1", "fencing|name,type@0.45", "climbing|name,type@0.4", "hobby|type@1"}}},
		{"verbs and an exact subject", `{"select": {"action": {"verbs": ["try"], "subject": "Ana"}}}`,
			[][]string{{"try|verb+"}, {"ana|subject"}},
			[][]string{{"try|verb@1", "attempt|verb@0.3"}, {"ana|subject@1"}}},
		{"relatedTerms off", `{"select": {"topic": "sport"}, "relatedTerms": false}`,
			[][]string{{"sport|topic"}},
			[][]string{{"sport|topic@1"}}},
		{"a property has no alternatives", `{"select": {"property": {"name": "diet", "value": "vegetarian"}}}`,
			[][]string{{}},
			[][]string{{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := mustParse(t, tc.src).Normalized()
			if err != nil {
				t.Fatal(err)
			}
			idx, rel := world(), &fakeRelated{m: related}
			s := &evaluation{e: &Evaluator{Index: idx, Related: rel}, x: x, org: org}
			s.plan()
			if len(idx.lookups)+len(idx.props) != 0 || rel.n != 0 {
				t.Fatalf("the plan read: %d lookups, %d related calls", len(idx.lookups)+len(idx.props), rel.n)
			}
			show := func(a alt, weight bool) string {
				out := a.term + "|" + a.roles
				if weight {
					return out + "@" + formatWeight(a.weight)
				}
				if a.related {
					out += "+"
				}
				return out
			}
			parts := func(weight bool) [][]string {
				var out [][]string
				for _, p := range append(s.leafParts(), s.free...) {
					ss := []string{}
					for _, a := range p.alts {
						ss = append(ss, show(a, weight))
					}
					out = append(out, ss)
				}
				return out
			}
			if got := parts(false); !reflect.DeepEqual(got, tc.planned) {
				t.Fatalf("planned %q, want %q", got, tc.planned)
			}
			if err := s.expandRelated(ctx); err != nil {
				t.Fatal(err)
			}
			if got := parts(true); !reflect.DeepEqual(got, tc.expanded) {
				t.Fatalf("expanded %q, want %q", got, tc.expanded)
			}
			if len(idx.lookups)+len(idx.props) != 0 {
				t.Fatalf("the expansion read the index: %v %v", idx.lookups, idx.props)
			}
		})
	}
}

// leafParts is every leaf's parts, in the order of the leaves.
func (s *evaluation) leafParts() []part {
	var out []part
	for _, l := range s.leaves {
		out = append(out, l.parts...)
	}
	return out
}

// formatWeight shows a weight to two decimals, without trailing zeros.
func formatWeight(w float64) string {
	return strconv.FormatFloat(math.Round(w*100)/100, 'f', -1, 64)
}
