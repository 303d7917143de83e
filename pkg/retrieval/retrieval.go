// Package retrieval is the retrieval pipeline: named ranked lists are
// retrieved (keyword, semantic, knowledge...), fused by weighted reciprocal
// rank fusion blended with the lists' scores (memory.FuseScores), loaded
// from the store and checked for visibility, reranked, and expanded with
// related memories. The service runs it for searches and
// for the prompt context; recording accesses stays with the service, which
// alone knows what it returned or placed.
//
// A new list is one Retriever and one line of wiring; a new stage is one
// function of Pipeline.Run.
package retrieval

import (
	"context"
	"reflect"
	"sync"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The names of the ranked lists and of the rerank stage, as they appear in
// a result's scores.
const (
	ListKeyword   = "keyword"   // BM25 over the memories' keyword text
	ListSemantic  = "semantic"  // cosine similarity of embeddings
	ListKnowledge = "knowledge" // Structured RAG: memories whose knowledge matches the query
	ListTime      = "time"      // keyword and semantic within the time the query names
	StageRerank   = "rerank"    // the reranker's relevance score
)

// Query is what every list retrieves for. Filter is already bound to the
// caller (org and view).
type Query struct {
	Text   string
	Filter memory.Filter
	// K is how many candidates each list returns.
	K int

	embed  func(context.Context) ([]float32, error)
	once   sync.Once
	vector []float32
	err    error

	who *speakers // Speakers, resolved once, shareable (ShareSpeakers)
}

// speakers is the memo of Query.Speakers.
type speakers struct {
	once  sync.Once
	names []string
	err   error
}

// NewQuery returns a query whose vector, if a list asks for it, comes from
// embed, called at most once.
func NewQuery(text string, f memory.Filter, k int, embed func(context.Context) ([]float32, error)) *Query {
	return &Query{Text: text, Filter: f, K: k, embed: embed, who: &speakers{}}
}

// ShareSpeakers makes q resolve the speakers it names (Speakers) through
// o's memo when both ask the same text over the same filter, so that two
// readers of one question (a context build's structured section and its
// search) read them from the store once. It returns q. Call it before q
// resolves them.
func (q *Query) ShareSpeakers(o *Query) *Query {
	if o != nil && o.Text == q.Text && reflect.DeepEqual(o.Filter, q.Filter) {
		q.who = o.who
	}
	return q
}

// Vector is the query's embedding, computed on first use.
func (q *Query) Vector(ctx context.Context) ([]float32, error) {
	q.once.Do(func() {
		if q.embed == nil {
			q.err = memory.Errorf(memory.EINTERNAL, "retrieval: the query has no embedder")
			return
		}
		q.vector, q.err = q.embed(ctx)
	})
	return q.vector, q.err
}

// Retriever answers one or more named lists. Several lists come from one
// retriever when one backend call serves them (OpenSearch answers keyword
// and semantic in one _msearch).
type Retriever interface {
	// Lists names the lists it can answer.
	Lists() []string
	// Retrieve returns the requested lists (a subset of Lists), each best
	// first, among memories matching q.Filter.
	Retrieve(ctx context.Context, q *Query, lists []string) (map[string][]memory.Hit, error)
}

// IndexLists answers keyword and semantic from a memory.Index in one call.
type IndexLists struct{ Index memory.Index }

// Lists implements Retriever.
func (IndexLists) Lists() []string { return []string{ListKeyword, ListSemantic} }

// Retrieve implements Retriever.
func (x IndexLists) Retrieve(ctx context.Context, q *Query, lists []string) (map[string][]memory.Hit, error) {
	iq := memory.IndexQuery{Filter: q.Filter, K: q.K}
	for _, l := range lists {
		switch l {
		case ListKeyword:
			iq.Text = q.Text
		case ListSemantic:
			v, err := q.Vector(ctx)
			if err != nil {
				return nil, err
			}
			iq.Vector = v
		}
	}
	res, err := x.Index.Search(ctx, iq)
	if err != nil {
		return nil, err
	}
	out := map[string][]memory.Hit{}
	if iq.Text != "" {
		out[ListKeyword] = res.Keyword
	}
	if iq.Vector != nil {
		out[ListSemantic] = res.Semantic
	}
	return out, nil
}

// hybridWithin is the inner search of the lists that narrow keyword and
// semantic (the time, entity and when lists): the query's text and vector
// searched within f, the two lists fused as the pipeline's (RRFK,
// ScoreShare) at equal weights, the best
// q.K kept. With keep set, the fused memories are read from the store and
// only those keep accepts are returned, in fused order (a memory the store
// no longer has is dropped).
func hybridWithin(ctx context.Context, ix memory.Index, store memory.Store, q *Query, f memory.Filter, keep func(*memory.Memory) bool) ([]memory.Hit, error) {
	v, err := q.Vector(ctx)
	if err != nil {
		return nil, err
	}
	res, err := ix.Search(ctx, memory.IndexQuery{Filter: f, Text: q.Text, Vector: v, K: q.K})
	if err != nil {
		return nil, err
	}
	fused := memory.FuseScores(RRFK, ScoreShare, memory.RankedList{Name: ListKeyword, Hits: res.Keyword, Weight: 1},
		memory.RankedList{Name: ListSemantic, Hits: res.Semantic, Weight: 1})
	fused = fused[:min(len(fused), q.K)]
	var got map[string]*memory.Memory
	if keep != nil && len(fused) > 0 {
		ids := make([]string, len(fused))
		for i, x := range fused {
			ids[i] = x.ID
		}
		if got, err = store.GetMany(ctx, f.OrgID, ids); err != nil {
			return nil, err
		}
	}
	hits := make([]memory.Hit, 0, len(fused))
	for _, x := range fused {
		if keep != nil {
			if m := got[x.ID]; m == nil || !keep(m) {
				continue
			}
		}
		hits = append(hits, memory.Hit{ID: x.ID, Score: x.Score})
	}
	return hits, nil
}
