package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

var ctx = context.Background()

// Every memory.TermIndex is an Index and a RefLoader: no adapter needed.
var (
	_ Index     = memory.TermIndex(nil)
	_ RefLoader = memory.TermIndex(nil)
)

const org = "o1"

func at(d int) int64 { return day(2024, 3, d).UnixMilli() }

func person(name string, facets ...memory.Facet) memory.Entity {
	return memory.Entity{Name: name, Types: []string{"person"}, Facets: facets}
}

// world is a small org: Ana and Bo talk in room r1 (Bo's travel note is in
// room r2), an agent-private memory of a2, and another org.
func world() *fakeIndex {
	f := newFakeIndex()
	attrs := func(d int, room, agent string) memory.Attrs {
		return memory.Attrs{OrgID: org, Type: memory.TypeMessage, RoomID: room, AgentID: agent, CreatedAt: at(d)}
	}
	f.put("m1", attrs(1, "r1", ""), memory.Knowledge{
		Entities: []memory.Entity{person("Ana"), {Name: "Lisbon", Types: []string{"place", "city"}}},
		Actions: []memory.Action{{Verbs: []string{"move"}, Subject: "Ana", IndirectObject: "Lisbon", Tense: "past",
			Params: []memory.ActionParam{{Name: "time", Value: "May 2023"}}}}})
	f.put("m2", attrs(5, "r1", ""), memory.Knowledge{
		Entities: []memory.Entity{person("Ana"), {Name: "fencing", Types: []string{"sport"}}},
		Actions:  []memory.Action{{Verbs: []string{"try"}, Subject: "Ana", Object: "fencing", Tense: "past"}},
		Topics:   []string{"fencing class"}})
	f.put("m3", attrs(8, "r1", ""), memory.Knowledge{
		Entities: []memory.Entity{person("Bo"), {Name: "climbing", Types: []string{"sport"}}},
		Actions:  []memory.Action{{Verbs: []string{"try"}, Subject: "Bo", Object: "climbing", Tense: "past"}}})
	f.put("m4", attrs(10, "r2", ""), memory.Knowledge{
		Entities: []memory.Entity{person("Bo", memory.Facet{Name: "diet", Value: "vegetarian"})},
		Topics:   []string{"travel"}})
	f.put("m5", attrs(12, "r1", ""), memory.Knowledge{
		Entities: []memory.Entity{person("Ana"), {Name: "jazz", Types: []string{"music"}}},
		Actions: []memory.Action{{Verbs: []string{"like"}, Subject: "Ana", Object: "jazz", Tense: "present",
			SubjectFacet: &memory.Facet{Name: "likes", Value: "jazz"}}}})
	f.put("m6", attrs(12, "r1", "a2"), memory.Knowledge{
		Entities: []memory.Entity{{Name: "fencing", Types: []string{"sport"}}}})
	f.put("x1", memory.Attrs{OrgID: "o2", Type: memory.TypeMessage, CreatedAt: at(12)}, memory.Knowledge{
		Entities: []memory.Entity{{Name: "fencing", Types: []string{"sport"}}}, Topics: []string{"travel"}})
	return f
}

// base is the caller's filter: org o1, seen by agent a1.
var base = memory.Filter{OrgID: org, Viewer: "a1"}

// fakeRelated relates terms by a fixed table.
type fakeRelated struct {
	m    map[string][]Related
	fail error
	n    int
}

func (r *fakeRelated) Related(_ context.Context, _, term string) ([]Related, error) {
	r.n++
	return r.m[term], r.fail
}

func ids(res *Result) []string {
	var out []string
	for _, m := range res.Memories {
		out = append(out, m.ID)
	}
	return out
}

func mustParse(t *testing.T, src string) *Expr {
	t.Helper()
	x, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return x
}

func TestEvaluate(t *testing.T) {
	related := &fakeRelated{m: map[string][]Related{
		"athletics": {{"fencing", 0.9}, {"climbing", 0.5}},
		"activity":  {{"fencing", 0.8}},
	}}
	tests := []struct {
		name     string
		expr     string
		filter   *memory.Filter
		noLoader bool
		want     []string // in rank order
	}{
		{name: "entity type", expr: `{"select": {"entity": {"types": ["sport"]}}}`, want: []string{"m3", "m2"}},
		{name: "another org and another agent's memories are not seen", expr: `{"terms": ["fencing"]}`, want: []string{"m2"}},
		{name: "an org-level caller sees every agent", expr: `{"terms": ["fencing"]}`,
			filter: &memory.Filter{OrgID: org}, want: []string{"m6", "m2"}},
		{name: "action parts on the same ref", expr: `{"select": {"action": {"verbs": ["tried"], "subject": "Ana"}}}`, want: []string{"m2"}},
		{name: "action subject", expr: `{"select": {"action": {"verbs": ["try"], "subject": "bo"}}}`, want: []string{"m3"}},
		{name: "action indirect object", expr: `{"select": {"action": {"subject": "Ana", "indirectObject": "Lisbon"}}}`, want: []string{"m1"}},
		{name: "entity name and type must be one ref", expr: `{"select": {"entity": {"name": "Ana", "types": ["sport"]}}}`, want: nil},
		{name: "and over refs of one memory", expr: `{"select": {"and": [{"entity": {"name": "Ana"}}, {"entity": {"types": ["sport"]}}]}}`, want: []string{"m2"}},
		{name: "or", expr: `{"select": {"or": [{"entity": {"name": "Bo"}}, {"topic": "travel"}]}}`, want: []string{"m4", "m3"}},
		{name: "and not", expr: `{"select": {"and": [{"entity": {"types": ["sport"]}}, {"not": {"entity": {"name": "Ana"}}}]}}`, want: []string{"m3"}},
		{name: "or with a not inside an and", expr: `{"select": {"and": [{"entity": {"types": ["person"]}}, {"or": [{"topic": "travel"}, {"not": {"entity": {"name": "Bo"}}}]}]}}`,
			want: []string{"m4", "m5", "m2", "m1"}},
		{name: "not beside free terms", expr: `{"select": {"not": {"entity": {"name": "Bo"}}}, "terms": ["try"]}`, want: []string{"m2"}},
		{name: "property", expr: `{"select": {"property": {"name": "diet", "value": "vegetarian"}}}`, want: []string{"m4"}},
		{name: "entity facet value", expr: `{"select": {"entity": {"name": "Bo", "facets": [{"name": "Diet", "value": "Vegetarian"}]}}}`, want: []string{"m4"}},
		{name: "entity facet name only", expr: `{"select": {"entity": {"facets": [{"name": "diet"}]}}}`, want: []string{"m4"}},
		{name: "an action's subject facet", expr: `{"select": {"entity": {"name": "Ana", "facets": [{"name": "likes", "value": "jazz"}]}}}`, want: []string{"m5"}},
		{name: "topic role", expr: `{"select": {"topic": "fencing"}}`, want: []string{"m2"}},
		{name: "topic word is not an entity name", expr: `{"select": {"entity": {"name": "class"}}}`, want: nil},
		{name: "free terms select without a select", expr: `{"terms": ["travel", "jazz"]}`, want: []string{"m5", "m4"}},
		{name: "free terms only rank a select", expr: `{"select": {"entity": {"types": ["sport"]}}, "terms": ["ana", "travel"]}`, want: []string{"m2", "m3"}},
		{name: "time range", expr: `{"select": {"entity": {"types": ["person"]}}, "time": {"start": "2024-03-04T00:00:00Z", "end": "2024-03-09T00:00:00Z"}}`,
			want: []string{"m3", "m2"}},
		{name: "time expression", expr: `{"select": {"entity": {"types": ["person"]}}, "time": {"expression": "last week"}}`,
			want: []string{"m4", "m3", "m2"}},
		{name: "time expression yesterday", expr: `{"terms": ["ana", "bo"], "time": {"expression": "yesterday"}}`, want: []string{"m5"}},
		{name: "scope room", expr: `{"select": {"entity": {"types": ["person"]}}, "scope": {"roomId": "r2"}}`, want: []string{"m4"}},
		{name: "scope agent", expr: `{"terms": ["fencing"], "scope": {"agentId": "a2"}}`, filter: &memory.Filter{OrgID: org}, want: []string{"m6"}},
		{name: "scope contradicting the caller's", expr: `{"terms": ["travel"], "scope": {"roomId": "r2"}}`,
			filter: &memory.Filter{OrgID: org, RoomID: "r1"}, want: nil},
		{name: "time outside the caller's range", expr: `{"terms": ["travel"], "time": {"end": "2024-03-02T00:00:00Z"}}`,
			filter: &memory.Filter{OrgID: org, Start: at(5)}, want: nil},
		{name: "before an anchor", expr: `{"terms": ["ana", "bo"], "time": {"relation": "before", "anchor": ["fencing"]}}`, want: []string{"m1"}},
		{name: "after an anchor", expr: `{"select": {"action": {"verbs": ["try"]}}, "time": {"relation": "after", "anchor": ["lisbon", "move"]}}`,
			want: []string{"m3", "m2"}},
		{name: "an unknown anchor leaves time open", expr: `{"select": {"action": {"verbs": ["try"]}}, "time": {"relation": "after", "anchor": ["wedding"]}}`,
			want: []string{"m3", "m2"}},
		{name: "tense checked on loaded refs", expr: `{"select": {"action": {"verbs": ["try"], "tense": "future"}}}`, want: nil},
		{name: "tense ignored without a loader", expr: `{"select": {"action": {"verbs": ["try"], "tense": "future"}}}`, noLoader: true,
			want: []string{"m3", "m2"}},
		{name: "ties: newest first", expr: `{"terms": ["ana"]}`, want: []string{"m5", "m2", "m1"}},
		{name: "askTime prefers timed actions", expr: `{"terms": ["ana"], "askTime": true}`, want: []string{"m1", "m5", "m2"}},
		{name: "askTime needs a loader", expr: `{"terms": ["ana"], "askTime": true}`, noLoader: true, want: []string{"m5", "m2", "m1"}},
		{name: "related terms", expr: `{"terms": ["athletics"]}`, want: []string{"m2", "m3"}},
		{name: "related terms off", expr: `{"terms": ["athletics"], "relatedTerms": false}`, want: nil},
		{name: "types expand to names", expr: `{"select": {"entity": {"types": ["activity"]}}}`, want: []string{"m2"}},
		{name: "names are not expanded", expr: `{"select": {"entity": {"name": "athletics"}}}`, want: nil},
		{name: "limit", expr: `{"terms": ["ana"], "limit": 2}`, want: []string{"m5", "m2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base
			if tt.filter != nil {
				f = *tt.filter
			}
			var idx Index = world()
			if tt.noLoader {
				idx = lookupsOnly{idx}
			}
			ev := &Evaluator{Index: idx, Related: related, Now: func() time.Time { return now }}
			res, err := ev.Evaluate(ctx, f, mustParse(t, tt.expr))
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(res); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v\n%+v", got, tt.want, res.Memories)
			}
			checkResult(t, res)
		})
	}
}

// checkResult checks the invariants of a result: memories and refs best
// first, refs only of returned memories, scores positive and finite.
func checkResult(t *testing.T, res *Result) {
	t.Helper()
	returned := map[string]bool{}
	for i, m := range res.Memories {
		returned[m.ID] = true
		if i > 0 && m.Score > res.Memories[i-1].Score {
			t.Fatalf("memories not best first: %+v", res.Memories)
		}
		if math.IsNaN(m.Score) || math.IsInf(m.Score, 0) || m.Score < 0 {
			t.Fatalf("score %v", m.Score)
		}
	}
	for i, r := range res.Refs {
		if !returned[r.Ref.MemoryID] {
			t.Fatalf("ref %+v of a memory not returned", r)
		}
		if i > 0 && r.Score > res.Refs[i-1].Score {
			t.Fatalf("refs not best first: %+v", res.Refs)
		}
	}
}

func TestScores(t *testing.T) {
	ev := &Evaluator{Index: world(), Related: &fakeRelated{m: map[string][]Related{"athletics": {{"fencing", 0.9}, {"climbing", 0.5}}}}}
	// fencing: m2 (entity name, topic word); climbing: m3. N = 2, df = 1.
	res, err := ev.Evaluate(ctx, base, mustParse(t, `{"terms": ["fencing", "climbing"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) != 2 || math.Abs(res.Memories[0].Score-math.Log(3)) > 1e-12 || res.Memories[0].Score != res.Memories[1].Score {
		t.Fatalf("idf: %+v, want two memories scoring log(1 + 2/1)", res.Memories)
	}
	// Related terms weigh similarity × 0.5.
	res, err = ev.Evaluate(ctx, base, mustParse(t, `{"terms": ["athletics"]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []ScoredMemory{{ID: "m2", Score: 0.45 * math.Log(3), Terms: []string{"fencing"}, CreatedAt: at(5)},
		{ID: "m3", Score: 0.25 * math.Log(3), Terms: []string{"climbing"}, CreatedAt: at(8)}}
	for i := range want {
		if i >= len(res.Memories) || math.Abs(res.Memories[i].Score-want[i].Score) > 1e-12 ||
			!reflect.DeepEqual(res.Memories[i].Terms, want[i].Terms) || res.Memories[i].CreatedAt != want[i].CreatedAt {
			t.Fatalf("related: got %+v, want %+v", res.Memories, want)
		}
	}
	// A leaf's ref scores the sum of its parts; the memory its best ref.
	// try: m2, m3 (df 2); ana as subject: m1, m2, m5 (df 3); N = 4.
	res, err = ev.Evaluate(ctx, base, mustParse(t, `{"select": {"action": {"verbs": ["try"], "subject": "ana"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	sum := math.Log(1+4.0/2) + math.Log(1+4.0/3)
	if len(res.Memories) != 1 || math.Abs(res.Memories[0].Score-sum) > 1e-12 ||
		!reflect.DeepEqual(res.Memories[0].Terms, []string{"ana", "try"}) {
		t.Fatalf("leaf: got %+v, want m2 scoring %v", res.Memories, sum)
	}
	if len(res.Refs) != 1 || res.Refs[0].Ref != (memory.RefKey{MemoryID: "m2", Ordinal: 2}) ||
		res.Refs[0].Kind != memory.KnowledgeAction || math.Abs(res.Refs[0].Score-sum) > 1e-12 {
		t.Fatalf("refs: %+v", res.Refs)
	}
}

func TestEvaluateLookups(t *testing.T) {
	idx := world()
	ev := &Evaluator{Index: idx, Related: NoRelated{}, Postings: 7}
	x := mustParse(t, `{"select": {"or": [{"entity": {"name": "Ana", "types": ["person", "city"]}}, {"action": {"verbs": ["try"]}},
		{"entity": {"facets": [{"name": "diet", "value": "vegetarian"}]}}]}, "terms": ["travel", "ana"],
		"scope": {"roomId": "r1"}, "time": {"start": "2024-03-02T00:00:00Z"}}`)
	if _, err := ev.Evaluate(ctx, base, x); err != nil {
		t.Fatal(err)
	}
	// One lookup per role set, every one with the caller's filter, the
	// scope and the time.
	want := memory.Filter{OrgID: org, Viewer: "a1", RoomID: "r1", Start: at(2)}
	got := map[string][]string{}
	for _, q := range idx.lookups {
		if !reflect.DeepEqual(q.Filter, want) || q.Limit != 7 {
			t.Fatalf("lookup filter %+v limit %d, want %+v", q.Filter, q.Limit, want)
		}
		got[strings.Join(q.Roles, ",")] = q.Terms
	}
	wantTerms := map[string][]string{"": {"ana", "travel"}, "name": {"ana"}, "type": {"city", "person"}, "verb": {"try"}}
	if !reflect.DeepEqual(got, wantTerms) {
		t.Fatalf("lookups %v, want %v", got, wantTerms)
	}
	if len(idx.props) != 1 || idx.props[0].Name != "diet" || !reflect.DeepEqual(idx.props[0].Filter, want) {
		t.Fatalf("property lookups %+v", idx.props)
	}
}

func TestEvaluateManyTermsInBatches(t *testing.T) {
	idx := world()
	var terms []string
	for i := range MaxTerms {
		terms = append(terms, `"t`+strings.Repeat("x", i)+`"`)
	}
	related := &fakeRelated{m: map[string][]Related{"t": {{"fencing", 1}}}}
	ev := &Evaluator{Index: idx, Related: related}
	res, err := ev.Evaluate(ctx, base, mustParse(t, `{"terms": [`+strings.Join(terms, ",")+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.lookups) != 2 || len(idx.lookups[0].Terms) != memory.MaxQueryTerms {
		t.Fatalf("%d lookups, the first of %d terms", len(idx.lookups), len(idx.lookups[0].Terms))
	}
	if got := ids(res); !reflect.DeepEqual(got, []string{"m2"}) || related.n != MaxTerms {
		t.Fatalf("got %v after %d related calls", got, related.n)
	}
}

func TestEvaluateErrors(t *testing.T) {
	idx := world()
	idx.fail = memory.Errorf(memory.EUNAVAILABLE, "the store is down")
	ev := &Evaluator{Index: idx}
	if _, err := ev.Evaluate(ctx, base, mustParse(t, `{"terms": ["x"]}`)); memory.ErrorCode(err) != memory.EUNAVAILABLE ||
		!strings.Contains(err.Error(), "query: look up terms") {
		t.Fatalf("index down: %v", err)
	}
	ev = &Evaluator{Index: world()}
	if _, err := ev.Evaluate(ctx, base, &Expr{}); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("empty expression: %v", err)
	}
	if _, err := ev.Evaluate(ctx, memory.Filter{}, &Expr{Terms: []string{"x"}}); err == nil {
		t.Fatal("a filter without an org was accepted")
	}
	// A related-terms failure is logged and the terms are not expanded.
	ev = &Evaluator{Index: world(), Related: &fakeRelated{fail: errors.New("embedder down")}}
	res, err := ev.Evaluate(ctx, base, mustParse(t, `{"terms": ["fencing"]}`))
	if err != nil || !reflect.DeepEqual(ids(res), []string{"m2"}) {
		t.Fatalf("related down: %v %v", res, err)
	}
	// A done context stops the evaluation.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ev.Evaluate(cctx, base, mustParse(t, `{"terms": ["fencing"]}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
}

func TestEvaluateDoesNotChangeItsExpression(t *testing.T) {
	x := &Expr{Terms: []string{"Fencing!"}, Select: &Node{Action: &ActionLeaf{Verbs: []string{"Tried"}}}}
	ev := &Evaluator{Index: world()}
	if _, err := ev.Evaluate(ctx, base, x); err != nil {
		t.Fatal(err)
	}
	if x.Terms[0] != "Fencing!" || x.Select.Action.Verbs[0] != "Tried" {
		t.Fatalf("the expression was changed: %s", x)
	}
}

// TestRelatedBoundedPerQuery: an expression's related terms are bounded at
// MaxRelatedPerQuery across all its terms, the most similar kept whichever
// term they stand for, as the knowledge list bounds a question's; a term
// the expression names is never dropped, even when it is also another's
// related term.
func TestRelatedBoundedPerQuery(t *testing.T) {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}
	rel := map[string][]Related{}
	weight := map[string]float64{}
	for i, w := range words {
		for j := range MaxRelatedPerTerm {
			term := fmt.Sprintf("%s%d", w, j)
			sim := 0.99 - float64(j*len(words)+i)/100 // distinct, interleaved across words
			rel[w] = append(rel[w], Related{Term: term, Weight: sim})
			weight[term] = sim
		}
	}
	rel["alpha"] = append(rel["alpha"], Related{Term: "bravo", Weight: 0.01}) // named by the expression too
	tests := []struct {
		name  string
		terms []string
		want  int // related terms asked for
	}{
		{"under the bound", words[:3], 3 * MaxRelatedPerTerm},
		{"over the bound", words, MaxRelatedPerQuery},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx := world()
			ev := &Evaluator{Index: idx, Related: &fakeRelated{m: rel}}
			q, _ := json.Marshal(map[string]any{"terms": tc.terms})
			if _, err := ev.Evaluate(ctx, base, mustParse(t, string(q))); err != nil {
				t.Fatal(err)
			}
			asked := map[string]bool{}
			for _, l := range idx.lookups {
				for _, term := range l.Terms {
					asked[term] = true
				}
			}
			for _, w := range tc.terms {
				if !asked[w] {
					t.Fatalf("the expression's own term %q was not looked up", w)
				}
				delete(asked, w)
			}
			if len(asked) != tc.want {
				t.Fatalf("%d related terms looked up, want %d", len(asked), tc.want)
			}
			for term := range weight {
				if asked[term] || !slices.Contains(tc.terms, strings.TrimRight(term, "0123456789")) {
					continue // kept, or not related to the expression's terms
				}
				for kept := range asked {
					if weight[kept] < weight[term] {
						t.Fatalf("kept %s (%.2f), dropped the more similar %s (%.2f)", kept, weight[kept], term, weight[term])
					}
				}
			}
		})
	}
}
