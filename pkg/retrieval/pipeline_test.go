package retrieval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// fakeStore serves GetMany from a map; the rest of memory.Store is unused.
type fakeStore struct {
	memory.Store
	ms map[string]*memory.Memory
}

func (f fakeStore) GetMany(_ context.Context, org string, ids []string) (map[string]*memory.Memory, error) {
	out := map[string]*memory.Memory{}
	for _, id := range ids {
		if m := f.ms[id]; m != nil && m.OrgID == org {
			out[id] = m
		}
	}
	return out, nil
}

// fixedLists answers each list it names with fixed hits.
type fixedLists map[string][]memory.Hit

func (f fixedLists) Lists() []string {
	var out []string
	for _, l := range []string{ListKeyword, ListSemantic, ListKnowledge} {
		if _, ok := f[l]; ok {
			out = append(out, l)
		}
	}
	return out
}

func (f fixedLists) Retrieve(_ context.Context, _ *Query, lists []string) (map[string][]memory.Hit, error) {
	out := map[string][]memory.Hit{}
	for _, l := range lists {
		out[l] = f[l]
	}
	return out, nil
}

// scriptedReranker scores a document by the position of its text in order
// (first = most relevant), or fails.
type scriptedReranker struct {
	order []string
	err   error
	delay time.Duration
	calls int
	seen  int
}

func (r *scriptedReranker) Name() string { return "scripted" }

func (r *scriptedReranker) Rerank(ctx context.Context, _ string, docs []string) ([]float64, error) {
	r.calls++
	r.seen = len(docs)
	if r.delay > 0 {
		select {
		case <-time.After(r.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = math.Inf(-1)
		for j, o := range r.order {
			if d == o {
				out[i] = float64(len(r.order) - j)
			}
		}
	}
	return out, nil
}

var caller = memory.Caller{OrgID: "o"}

func corpus(ids ...string) fakeStore {
	ms := map[string]*memory.Memory{}
	for _, id := range ids {
		ms[id] = &memory.Memory{ID: id, OrgID: "o", Type: memory.TypeCustom, Content: memory.Content{Text: id}}
	}
	ms["secret"] = &memory.Memory{ID: "secret", OrgID: "o", AgentID: "other", Content: memory.Content{Text: "secret"}}
	return fakeStore{ms: ms}
}

func hits(ids ...string) []memory.Hit {
	out := make([]memory.Hit, len(ids))
	for i, id := range ids {
		out[i] = memory.Hit{ID: id, Score: float64(len(ids) - i)}
	}
	return out
}

func ids(rs []Result) string {
	var b []string
	for _, r := range rs {
		b = append(b, r.Memory.ID)
	}
	return strings.Join(b, ",")
}

func run(t *testing.T, p *Pipeline, lists []string, k int, rerank bool) *Response {
	t.Helper()
	res, err := p.Run(context.Background(), Request{Caller: memory.Caller{OrgID: "o", AgentID: "me"},
		Query: NewQuery("q", memory.Filter{OrgID: "o", Viewer: "me"}, 50, nil), Lists: lists, K: k, Rerank: rerank})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestListsAndFusion runs the pipeline with one, two and three lists.
func TestListsAndFusion(t *testing.T) {
	lists := fixedLists{
		ListKeyword:   hits("a", "b", "c"),
		ListSemantic:  hits("c", "a", "d"),
		ListKnowledge: hits("d", "e", "secret"),
	}
	p := &Pipeline{Retrievers: []Retriever{lists}, Store: corpus("a", "b", "c", "d", "e")}
	tests := []struct {
		lists []string
		want  string
	}{
		{[]string{ListKeyword}, "a,b,c"},
		{[]string{ListKeyword, ListSemantic}, "a,c,b,d"},
		{[]string{ListKeyword, ListSemantic, ListKnowledge}, "a,c,d,b,e"},
		{[]string{ListKnowledge}, "d,e"}, // the other agent's memory is never loaded
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(len(tc.lists), tc.lists), func(t *testing.T) {
			res := run(t, p, tc.lists, 10, false)
			if got := ids(res.Results); got != tc.want {
				t.Fatalf("order %s, want %s", got, tc.want)
			}
			r0 := res.Results[0]
			for _, l := range tc.lists {
				if _, ok := r0.Lists[l]; !ok && l != ListKnowledge {
					t.Fatalf("result a lacks its %s score: %+v", l, r0.Lists)
				}
			}
			if len(tc.lists) == 1 && r0.Score != r0.Lists[tc.lists[0]].Score {
				t.Fatalf("one list: the score is not the list's own (%v)", r0)
			}
		})
	}
	if _, err := p.Run(context.Background(), Request{Caller: caller, Query: NewQuery("q", memory.Filter{OrgID: "o"}, 50, nil),
		Lists: []string{"telepathy"}, K: 3}); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("unknown list: %v", err)
	}
}

// TestStagesTimeEachRetriever: each retriever's call is a stage within
// retrieve, named by the lists it was asked for, one per retriever.
func TestStagesTimeEachRetriever(t *testing.T) {
	p := &Pipeline{Retrievers: []Retriever{
		fixedLists{ListKeyword: hits("a"), ListSemantic: hits("b")},
		fixedLists{ListKnowledge: hits("c")},
	}, Store: corpus("a", "b", "c")}
	res := run(t, p, []string{ListSemantic, ListKnowledge, ListKeyword}, 10, false) // the retriever's order names the call
	var top, within []string
	for _, st := range res.Stages {
		if st.Within == "" {
			top = append(top, st.Name)
			continue
		}
		if st.Within != StageRetrieve {
			t.Errorf("stage %s within %q, want %q", st.Name, st.Within, StageRetrieve)
		}
		within = append(within, st.Name)
	}
	if got, want := strings.Join(within, ","), "list:keyword+semantic,list:knowledge"; got != want { // in the order first asked
		t.Errorf("retriever stages %s, want %s", got, want)
	}
	if len(top) == 0 || top[0] != StageRetrieve {
		t.Errorf("stages %v, want retrieve first", top)
	}
}

// TestWeights: a heavier list leads the fusion.
func TestWeights(t *testing.T) {
	lists := fixedLists{ListKeyword: hits("a", "b"), ListSemantic: hits("b", "a")}
	p := &Pipeline{Retrievers: []Retriever{lists}, Store: corpus("a", "b"), Weights: map[string]float64{ListSemantic: 2}}
	if got := ids(run(t, p, []string{ListKeyword, ListSemantic}, 2, false).Results); got != "b,a" {
		t.Fatalf("order %s", got)
	}
}

// busyProbe is a list that records whether its Foreground was busy while
// it was retrieved.
type busyProbe struct {
	fixedLists
	fg   *Foreground
	busy *bool
}

func (b busyProbe) Retrieve(ctx context.Context, q *Query, lists []string) (map[string][]memory.Hit, error) {
	*b.busy = b.fg.Busy()
	return b.fixedLists.Retrieve(ctx, q, lists)
}

// TestForegroundCountsRuns: a run is in flight for background work from
// its start to its end, and the foreground quiet Quiet after it.
func TestForegroundCountsRuns(t *testing.T) {
	fg := &Foreground{}
	var during bool
	probe := busyProbe{fixedLists{ListKeyword: hits("a", "b")}, fg, &during}
	p := &Pipeline{Retrievers: []Retriever{probe}, Store: corpus("a", "b"), Foreground: fg}
	run(t, p, []string{ListKeyword}, 2, false)
	if !during {
		t.Fatal("not busy during the run")
	}
	time.Sleep(Quiet + time.Millisecond)
	if fg.Busy() {
		t.Fatalf("still busy %v after the run", Quiet)
	}
}

// TestRerank: the reranker sees max(12, 2k) candidates, reorders them,
// unscored candidates keep their fused order after the scored ones, and
// the cut to k happens after the rerank.
func TestRerank(t *testing.T) {
	var all []string
	for i := range 30 {
		all = append(all, fmt.Sprintf("m%02d", i))
	}
	lists := fixedLists{ListKeyword: hits(all...)}
	rr := &scriptedReranker{order: []string{"m11", "m03"}}
	p := &Pipeline{Retrievers: []Retriever{lists}, Store: corpus(all...), Reranker: rr}
	res := run(t, p, []string{ListKeyword}, 3, true)
	if rr.seen != DefaultRerankMin {
		t.Fatalf("the reranker saw %d candidates, want %d", rr.seen, DefaultRerankMin)
	}
	if got := ids(res.Results); got != "m11,m03,m00" || !res.Reranked {
		t.Fatalf("reranked order %s (reranked %v)", got, res.Reranked)
	}
	if r := res.Results[0].Lists[StageRerank]; r == nil || r.Rank != 1 || res.Results[0].Lists[ListKeyword].Rank != 12 {
		t.Fatalf("scores of the first result: %+v", res.Results[0].Lists)
	}
	if res.Results[2].Lists[StageRerank] != nil {
		t.Fatal("an unscored candidate got a rerank score")
	}
	// 2k beats the minimum.
	run(t, p, []string{ListKeyword}, 10, true)
	if rr.seen != 20 {
		t.Fatalf("the reranker saw %d candidates for k=10", rr.seen)
	}
	// A search that turns reranking off does not call it.
	calls := rr.calls
	if res := run(t, p, []string{ListKeyword}, 3, false); res.Reranked || rr.calls != calls || ids(res.Results) != "m00,m01,m02" {
		t.Fatalf("rerank off: %s reranked=%v calls=%d", ids(res.Results), res.Reranked, rr.calls-calls)
	}
}

// TestRerankFallback: a failing or slow reranker leaves the fused order,
// says so, and is counted.
func TestRerankFallback(t *testing.T) {
	lists := fixedLists{ListKeyword: hits("a", "b", "c")}
	for _, tc := range []struct {
		name string
		rr   *scriptedReranker
	}{
		{"error", &scriptedReranker{err: memory.Errorf(memory.EUNAVAILABLE, "throttled")}},
		{"timeout", &scriptedReranker{order: []string{"c"}, delay: time.Second}},
		{"wrong count", &scriptedReranker{err: errors.New("3 scores for 2 documents")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Pipeline{Retrievers: []Retriever{lists}, Store: corpus("a", "b", "c"), Reranker: tc.rr, RerankTimeout: 20 * time.Millisecond}
			res := run(t, p, []string{ListKeyword}, 2, true)
			if ids(res.Results) != "a,b" || res.Reranked || res.RerankError == "" || p.RerankFailures() != 1 {
				t.Fatalf("fallback: %s reranked=%v error=%q failures=%d", ids(res.Results), res.Reranked, res.RerankError, p.RerankFailures())
			}
		})
	}
}

func TestThreshold(t *testing.T) {
	kw := []memory.Hit{{ID: "a", Score: 10}, {ID: "b", Score: 6}, {ID: "c", Score: 4}}
	sem := []memory.Hit{{ID: "a", Score: 0.9}, {ID: "b", Score: 0.5}, {ID: "c", Score: 0.2}}
	for _, tc := range []struct {
		list string
		hs   []memory.Hit
		t    float64
		want int
	}{
		{ListKeyword, kw, 0.5, 2},
		{ListSemantic, sem, 0.3, 2},
		{ListSemantic, sem, 0, 3},
		{ListKnowledge, sem, 0.9, 3},
	} {
		if got := threshold(tc.list, tc.hs, tc.t); len(got) != tc.want {
			t.Errorf("%s threshold %v kept %v", tc.list, tc.t, got)
		}
	}
}

func TestInterleave(t *testing.T) {
	tests := []struct {
		name  string
		lists [][]memory.Hit
		k     int
		want  string
	}{
		{"one list as it is", [][]memory.Hit{hits("a", "b", "c")}, 2, "a,b,c"},
		{"in turn", [][]memory.Hit{hits("a", "b", "c"), hits("x", "y")}, 10, "a,x,b,y,c"},
		{"each memory once", [][]memory.Hit{hits("a", "b"), hits("b", "a", "z")}, 10, "a,b,z"},
		{"at most k", [][]memory.Hit{hits("a", "b", "c"), hits("x", "y")}, 3, "a,x,b"},
		{"an empty list", [][]memory.Hit{nil, hits("x")}, 3, "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := interleave(tc.lists, tc.k)
			var ids []string
			for i, h := range got {
				ids = append(ids, h.ID)
				if i > 0 && len(tc.lists) > 1 && h.Score >= got[i-1].Score {
					t.Fatalf("scores do not fall with the rank: %v", got)
				}
			}
			if s := strings.Join(ids, ","); s != tc.want {
				t.Fatalf("interleave = %s, want %s", s, tc.want)
			}
		})
	}
}

func TestAsksEach(t *testing.T) {
	tests := []struct {
		q    string
		want bool
	}{
		{"Did Jon and Gina both participate in dance competitions?", true},
		{"What do Jon and Gina have in common?", true},
		{"What did each of them bring?", true},
		{"Did Jon and Gina dance together?", false},
		{"What did Jon tell Gina about the bothy?", false}, // a word, not "both"
	}
	for _, tc := range tests {
		if got := asksEach(tc.q); got != tc.want {
			t.Errorf("asksEach(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

// entityStore answers List from the entity ids of its messages and of
// its other memories, honouring the filter's types, and counts the reads;
// the rest of memory.Store is unused.
type entityStore struct {
	memory.Store
	speakers, subjects map[string]bool // entityIds of messages, of facts
	reads              int
	err                error
}

func (s *entityStore) List(_ context.Context, q memory.ListQuery) (memory.Page, error) {
	s.reads++
	if s.err != nil {
		return memory.Page{}, s.err
	}
	types := q.Filter.Types
	if len(types) == 0 {
		types = memory.Types
	}
	for _, t := range types {
		if (t == memory.TypeMessage && s.speakers[q.Filter.EntityID]) || (t == memory.TypeFact && s.subjects[q.Filter.EntityID]) {
			return memory.Page{Memories: []*memory.Memory{{ID: "m", Type: t, EntityID: q.Filter.EntityID}}}, nil
		}
	}
	return memory.Page{}, nil
}

func TestQuerySpeakers(t *testing.T) {
	o := memory.Filter{OrgID: "o"}
	tests := []struct {
		name   string
		text   string
		filter memory.Filter
		want   string
		reads  int
	}{
		{"one speaker among capitalized words", "What did Melanie paint in May?", o, "Melanie", 3},
		{"a possessive", "What are Melanie's kids like?", o, "Melanie", 2},
		{"two speakers in order", "Did Jon and Gina both dance?", o, "Jon,Gina", 3},
		{"no capitalized word, no read", "what did she paint?", o, "", 0},
		{"a name no memory carries", "What did Zed paint?", o, "", 2},
		{"a name only facts are about is not a speaker", "Where is Sweden?", o, "", 2},
		{"a filter bound to an entity names none", "What did Melanie paint?", memory.Filter{OrgID: "o", EntityID: "Jon"}, "", 0},
		{"a filter without messages names none", "What did Melanie paint?", memory.Filter{OrgID: "o", Types: []memory.Type{memory.TypeFact}}, "", 0},
		{"a filter with messages among its types", "What did Melanie paint?", memory.Filter{OrgID: "o", Types: []memory.Type{memory.TypeFact, memory.TypeMessage}}, "Melanie", 2},
		{"at most MaxEntityNames words read", "Did Ann Bo Cy Jon Gina meet?", o, "", MaxEntityNames},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &entityStore{speakers: map[string]bool{"Melanie": true, "Jon": true, "Gina": true}, subjects: map[string]bool{"Sweden": true, "Melanie": true}}
			q := NewQuery(tc.text, tc.filter, 10, nil)
			for range 2 { // the second call reads nothing more
				got, err := q.Speakers(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, ",") != tc.want || s.reads != tc.reads {
					t.Fatalf("Speakers = %q after %d reads, want %q after %d", got, s.reads, tc.want, tc.reads)
				}
			}
		})
	}
	s := &entityStore{err: memory.Errorf(memory.EUNAVAILABLE, "store down")}
	if _, err := NewQuery("What did Melanie say?", o, 10, nil).Speakers(context.Background(), s); memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("a failed read: %v, want it returned", err)
	}
}

// TestShareSpeakers: a query sharing another's speakers reads none of
// its own when both ask the same over the same filter, and all of its own
// otherwise.
func TestShareSpeakers(t *testing.T) {
	o := memory.Filter{OrgID: "o"}
	const text = "What did Melanie paint in May?" // 3 reads: What, Melanie, May
	tests := []struct {
		name   string
		text   string
		filter memory.Filter
		reads  int // by both queries
	}{
		{"same text and filter: read once", text, o, 3},
		{"another filter: read twice", text, memory.Filter{OrgID: "o", RoomID: "r"}, 6},
		{"another org: read twice", text, memory.Filter{OrgID: "p"}, 6},
		{"another text: read twice", "What did Melanie paint?", o, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &entityStore{speakers: map[string]bool{"Melanie": true}}
			first := NewQuery(text, o, 0, nil)
			second := NewQuery(tc.text, tc.filter, 10, nil).ShareSpeakers(first)
			for _, q := range []*Query{first, second} {
				got, err := q.Speakers(context.Background(), s)
				if err != nil || strings.Join(got, ",") != "Melanie" {
					t.Fatalf("Speakers = %q, %v", got, err)
				}
			}
			if s.reads != tc.reads {
				t.Fatalf("%d reads, want %d", s.reads, tc.reads)
			}
		})
	}
	if q := NewQuery(text, o, 10, nil).ShareSpeakers(nil); q == nil {
		t.Fatal("sharing with no query returned nil")
	}
}

func TestSaidBy(t *testing.T) {
	tests := []struct {
		name  string
		f     memory.Filter
		ok    bool
		types []memory.Type
	}{
		{"any type: messages", memory.Filter{OrgID: "o"}, true, []memory.Type{memory.TypeMessage}},
		{"messages among others: messages", memory.Filter{OrgID: "o", Types: []memory.Type{memory.TypeFact, memory.TypeMessage}}, true, []memory.Type{memory.TypeMessage}},
		{"no messages: none", memory.Filter{OrgID: "o", Types: []memory.Type{memory.TypeFact}}, false, []memory.Type{memory.TypeFact}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := SaidBy(tc.f, "Ana")
			if ok != tc.ok || !slices.Equal(got.Types, tc.types) || ok && (got.EntityID != "Ana" || got.OrgID != "o") {
				t.Fatalf("SaidBy = %+v, %v", got, ok)
			}
		})
	}
}
