package service

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
)

// Mode is how a search ranks: which ranked lists it retrieves and fuses.
type Mode string

// The search modes.
const (
	// ModeFull runs every list the service has (keyword, semantic and,
	// when Structured RAG is wired, knowledge), fused, then the reranker
	// when one is configured. It is what a search without a mode does.
	ModeFull      Mode = "full"
	ModeHybrid    Mode = "hybrid"    // keyword and semantic fused by RRF
	ModeSemantic  Mode = "semantic"  // vectors only
	ModeKeyword   Mode = "keyword"   // BM25 only
	ModeKnowledge Mode = "knowledge" // the Structured RAG list only
)

// SearchRequest is one search. Filter is bound to the caller by the service.
type SearchRequest struct {
	Query string
	// Embedding, when given, is the query's vector (ElizaOS's
	// searchMemories({embedding})): the semantic list (and every list that
	// searches by vector) uses it instead of embedding Query. It must have
	// the embedder's dimensions and finite values, and is scaled to unit
	// length. With an Embedding, Query may be empty: then only the lists
	// that need no text run (semantic), and the rerank stage, which reads
	// the query, does not.
	Embedding []float32
	Mode      Mode
	// Lists, instead of Mode, names the ranked lists to fuse, in order of
	// trust (see retrieval.List*).
	Lists []string
	K     int
	// Threshold in 0..1 drops weak candidates before fusion: semantic hits
	// below this cosine similarity, keyword hits below this fraction of the
	// best BM25 score.
	Threshold float64
	// MinScore in 0..1 is the relevance floor: a result only the semantic
	// list found is left out when its cosine similarity is below it (see
	// retrieval.Request.MinScore). 0, the default of a search, keeps
	// every result; RelevanceFloor is the embedder's calibrated floor,
	// the default of a context.
	MinScore float64
	Filter   memory.Filter
	// ExpandRelations appends, after the ranked results, the memories
	// related to them (supports, supersedes, ...) that are not results
	// already, each marked with the relation that brought it.
	ExpandRelations bool
	// Rerank false turns the rerank stage off; nil runs it when a reranker
	// is configured.
	Rerank *bool

	// similar is set by Similar, the pipelines' comparison of memories.
	similar *memory.SimilarRequest
	// speakersOf, set by BuildContext, is the question its structured
	// section read: the search shares the speakers it resolved.
	speakersOf *retrieval.Query
}

// SearchResult is one ranked memory (memory.SearchResult, named here for
// the service's callers).
type SearchResult = memory.SearchResult

// SearchResponse is a search's results and how they were ranked.
type SearchResponse struct {
	Results []SearchResult `json:"results"`
	// Lists are the ranked lists that were fused.
	Lists []string `json:"lists"`
	// Reranked tells whether the rerank stage reordered the results;
	// RerankError, when a rerank was due, why it did not.
	Reranked    bool   `json:"reranked"`
	RerankError string `json:"rerankError,omitempty"`
	// Stages are the pipeline stages' durations (not serialized).
	Stages []retrieval.Stage `json:"-"`
}

// DefaultK is how many results a search returns when K is not given.
const DefaultK = 10

func (r *SearchRequest) normalize(dims int) error {
	r.Query = strings.TrimSpace(r.Query)
	if r.Query == "" && r.Embedding == nil {
		return memory.Errorf(memory.EINVALID, "query: required and must not be blank (or give an embedding)")
	}
	if r.Embedding != nil {
		if err := checkEmbedding(r.Embedding, dims); err != nil {
			return err
		}
		v := slices.Clone(r.Embedding) // the caller's slice is theirs
		memory.Normalize(v)
		r.Embedding = v
	}
	if len(r.Query) > memory.MaxQueryBytes {
		return memory.Errorf(memory.EINVALID, "query: %d bytes exceeds the limit of %d", len(r.Query), memory.MaxQueryBytes)
	}
	if !utf8.ValidString(r.Query) {
		return memory.Errorf(memory.EINVALID, "query: not valid UTF-8")
	}
	if r.Mode != "" && len(r.Lists) > 0 {
		return memory.Errorf(memory.EINVALID, "mode and lists: give one or the other")
	}
	switch r.Mode {
	case "", ModeFull, ModeHybrid, ModeSemantic, ModeKeyword, ModeKnowledge:
	default:
		return memory.Errorf(memory.EINVALID, "mode: %q is not one of full, hybrid, semantic, keyword, knowledge", r.Mode)
	}
	if r.Query == "" {
		for _, l := range r.lists(nil) {
			if l != retrieval.ListSemantic {
				return memory.Errorf(memory.EINVALID, "query: required by the %s list (with only an embedding, only the semantic list runs)", l)
			}
		}
	}
	if r.K == 0 {
		r.K = DefaultK
	}
	if r.K < 1 || r.K > memory.MaxK {
		return memory.Errorf(memory.EINVALID, "k: must be between 1 and %d", memory.MaxK)
	}
	if err := memory.ValidUnit("threshold", r.Threshold); err != nil {
		return err
	}
	return memory.ValidUnit("minScore", r.MinScore)
}

// RelevanceFloor is the calibrated relevance floor of the service's
// embedder (retrieval.RelevanceFloor): what a context leaves out unless
// its request sets minScore.
func (s *Service) RelevanceFloor() float64 { return retrieval.RelevanceFloor(s.embedder.Model()) }

// checkEmbedding checks a caller's query vector: dims values (the
// embedder's), each finite, not all zero.
func checkEmbedding(v []float32, dims int) error {
	if len(v) != dims {
		return memory.Errorf(memory.EINVALID, "embedding: %d dimensions, the service's embedder has %d", len(v), dims)
	}
	zero := true
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return memory.Errorf(memory.EINVALID, "embedding[%d]: not a finite number (float32)", i)
		}
		zero = zero && x == 0
	}
	if zero {
		return memory.Errorf(memory.EINVALID, "embedding: the zero vector has no direction")
	}
	return nil
}

// lists resolves the request's lists: Lists as given, or the Mode's, or
// (available, nil for the request's own check) every list the service
// has. A query of an embedding alone runs, of the Mode's or the
// service's lists, the semantic list only.
func (r *SearchRequest) lists(available []string) []string {
	if len(r.Lists) > 0 {
		return r.Lists
	}
	if r.Query == "" && (r.Mode == "" || r.Mode == ModeFull || r.Mode == ModeHybrid || r.Mode == ModeSemantic) {
		return []string{retrieval.ListSemantic}
	}
	switch r.Mode {
	case ModeHybrid:
		return []string{retrieval.ListKeyword, retrieval.ListSemantic}
	case ModeSemantic:
		return []string{retrieval.ListSemantic}
	case ModeKeyword:
		return []string{retrieval.ListKeyword}
	case ModeKnowledge:
		return []string{retrieval.ListKnowledge}
	}
	return available
}

// lists resolves r's lists against the service's.
func (s *Service) lists(r SearchRequest) []string { return r.lists(s.retrieval.Available()) }

// queryVector is r.Query embedded as a question, or for Similar the stored
// vector given, or the text embedded as a stored text.
func (s *Service) queryVector(ctx context.Context, r SearchRequest) ([]float32, error) {
	if r.Embedding != nil {
		return r.Embedding, nil // checked and normalised by normalize
	}
	p := memory.PurposeQuery
	if r.similar != nil {
		if v := r.similar.Vector; v != nil {
			if len(v) != s.embedder.Dimensions() {
				return nil, memory.Errorf(memory.EINVALID, "vector: %d dimensions, the embedder's have %d", len(v), s.embedder.Dimensions())
			}
			return v, nil
		}
		p = memory.PurposeDocument
	}
	vs, err := s.embedder.Embed(ctx, []string{r.Query}, p)
	if err != nil {
		return nil, unavailable("embedder", err)
	}
	return vs[0], nil
}

// Search ranks the memories c can see against r.Query. Returned memories
// count as accessed. Errors: EINVALID, EFORBIDDEN, EUNAVAILABLE.
func (s *Service) Search(ctx context.Context, c memory.Caller, r SearchRequest) ([]SearchResult, error) {
	res, err := s.SearchRanked(ctx, c, r)
	if err != nil {
		return nil, err
	}
	return res.Results, nil
}

// SearchRanked is Search, with how the results were ranked.
func (s *Service) SearchRanked(ctx context.Context, c memory.Caller, r SearchRequest) (*SearchResponse, error) {
	res, err := s.search(ctx, c, r)
	if err != nil {
		return nil, err
	}
	if r.similar == nil {
		s.touch(ctx, c, res.Results)
	}
	return res, nil
}

// search runs the retrieval pipeline for r without recording accesses.
func (s *Service) search(ctx context.Context, c memory.Caller, r SearchRequest) (*SearchResponse, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	if err := r.normalize(s.embedder.Dimensions()); err != nil {
		return nil, err
	}
	f, err := c.Bind(r.Filter)
	if err != nil {
		return nil, err
	}
	lists := s.lists(r)
	k := min(max(r.K*retrieval.OverFetch, retrieval.MinCandidates), retrieval.MaxCandidates)
	q := retrieval.NewQuery(r.Query, f, k, func(ctx context.Context) ([]float32, error) { return s.queryVector(ctx, r) }).ShareSpeakers(r.speakersOf)
	rerank := r.similar == nil && r.Query != "" && (r.Rerank == nil || *r.Rerank)
	run, err := s.retrieval.Run(ctx, retrieval.Request{Caller: c, Query: q, Lists: lists, K: r.K, Threshold: r.Threshold,
		MinScore: r.MinScore, Rerank: rerank, ExpandRelations: r.ExpandRelations})
	if err != nil {
		return nil, err
	}
	out := &SearchResponse{Lists: lists, Reranked: run.Reranked, RerankError: run.RerankError, Stages: run.Stages,
		Results: make([]SearchResult, len(run.Results))}
	for i, h := range run.Results {
		out.Results[i] = SearchResult{Memory: h.Memory, Score: h.Score, Scores: h.Lists, RelatedTo: h.RelatedTo,
			Keyword: h.Lists[retrieval.ListKeyword], Semantic: h.Lists[retrieval.ListSemantic]}
	}
	return out, nil
}

// touch records the access to the returned memories. It is best effort: a
// failure is logged and does not fail the search.
func (s *Service) touch(ctx context.Context, c memory.Caller, rs []SearchResult) {
	if len(rs) == 0 {
		return
	}
	now := s.now().UnixMilli()
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.Memory.ID
		r.Memory.AccessCount++
		r.Memory.LastAccessedAt = now
	}
	s.record(ctx, accessBatch{org: c.OrgID, ids: ids, at: now})
}

// touchIDs records an access to each of ids (best effort, as touch).
func (s *Service) touchIDs(ctx context.Context, c memory.Caller, ids []string) {
	if len(ids) > 0 {
		s.record(ctx, accessBatch{org: c.OrgID, ids: ids, at: s.now().UnixMilli()})
	}
}
