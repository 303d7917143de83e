package service

import (
	"context"
	"github.com/agentmem/agentmem/memory"
	"strings"

	"unicode/utf8"
)

// Mode is how a search ranks.
type Mode string

// The search modes.
const (
	ModeHybrid   Mode = "hybrid"   // keyword and semantic fused by RRF
	ModeSemantic Mode = "semantic" // vectors only
	ModeKeyword  Mode = "keyword"  // BM25 only
)

// SearchRequest is one search. Filter is bound to the caller by the service.
type SearchRequest struct {
	Query string
	Mode  Mode
	K     int
	// Threshold in 0..1 drops weak candidates before fusion: semantic hits
	// below this cosine similarity, keyword hits below this fraction of the
	// best BM25 score.
	Threshold float64
	Filter    memory.Filter
	// ExpandRelations appends, after the ranked results, the memories
	// related to them (supports, supersedes, ...) that are not results
	// already, each marked with the relation that brought it.
	ExpandRelations bool

	// similar is set by Similar, the pipelines' comparison of memories.
	similar *SimilarRequest
}

// SearchResult is one ranked memory. Score is the fused RRF score in hybrid
// mode, the BM25 score in keyword mode and the cosine similarity in semantic
// mode; Keyword and Semantic keep each mode's own score and rank.
type SearchResult struct {
	Memory   *memory.Memory    `json:"memory"`
	Score    float64           `json:"score"`
	Keyword  *memory.ModeScore `json:"keyword,omitempty"`
	Semantic *memory.ModeScore `json:"semantic,omitempty"`
	// RelatedTo is set on a memory added by ExpandRelations: the result it
	// is related to and how.
	RelatedTo *memory.Relation `json:"relatedTo,omitempty"`
}

// Default and bound values of searches.
const (
	DefaultK       = 10
	minCandidates  = 50  // per mode, before fusion
	maxCandidates  = 400 // per mode, before fusion
	overFetchRatio = 4
)

func (r *SearchRequest) normalize() error {
	r.Query = strings.TrimSpace(r.Query)
	if r.Query == "" {
		return memory.Errorf(memory.EINVALID, "query: required and must not be blank")
	}
	if len(r.Query) > memory.MaxQueryBytes {
		return memory.Errorf(memory.EINVALID, "query: %d bytes exceeds the limit of %d", len(r.Query), memory.MaxQueryBytes)
	}
	if !utf8.ValidString(r.Query) {
		return memory.Errorf(memory.EINVALID, "query: not valid UTF-8")
	}
	switch r.Mode {
	case "":
		r.Mode = ModeHybrid
	case ModeHybrid, ModeSemantic, ModeKeyword:
	default:
		return memory.Errorf(memory.EINVALID, "mode: %q is not one of hybrid, semantic, keyword", r.Mode)
	}
	if r.K == 0 {
		r.K = DefaultK
	}
	if r.K < 1 || r.K > memory.MaxK {
		return memory.Errorf(memory.EINVALID, "k: must be between 1 and %d", memory.MaxK)
	}
	return memory.ValidUnit("threshold", r.Threshold)
}

// queryVector is r.Query embedded as a question, or for Similar the stored
// vector given, or the text embedded as a stored text.
func (s *Service) queryVector(ctx context.Context, r SearchRequest) ([]float32, error) {
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
	if err := c.Valid(); err != nil {
		return nil, err
	}
	if err := r.normalize(); err != nil {
		return nil, err
	}
	f, err := c.Bind(r.Filter)
	if err != nil {
		return nil, err
	}
	q := memory.IndexQuery{Filter: f, K: min(max(r.K*overFetchRatio, minCandidates), maxCandidates)}
	if r.Mode != ModeSemantic {
		q.Text = r.Query
	}
	if r.Mode != ModeKeyword {
		if q.Vector, err = s.queryVector(ctx, r); err != nil {
			return nil, err
		}
	}
	res, err := s.index.Search(ctx, q)
	if err != nil {
		return nil, unavailable("index", err)
	}
	kw, sem := thresholdKeyword(res.Keyword, r.Threshold), thresholdSemantic(res.Semantic, r.Threshold)
	fused := memory.Fuse(kw, sem, 1, 1)
	out, err := s.load(ctx, c, f, fused, r.K)
	if err != nil {
		return nil, err
	}
	for i := range out {
		switch r.Mode {
		case ModeKeyword:
			out[i].Score = out[i].Keyword.Score
		case ModeSemantic:
			out[i].Score = out[i].Semantic.Score
		}
	}
	if r.similar == nil {
		s.touch(ctx, c, out)
	}
	if r.ExpandRelations {
		out = s.expand(ctx, c, out)
	}
	return out, nil
}

// expand appends the related memories of results (best effort: relation
// lookups that fail are logged and skipped).
func (s *Service) expand(ctx context.Context, c memory.Caller, out []SearchResult) []SearchResult {
	seen := map[string]bool{}
	for _, r := range out {
		seen[r.Memory.ID] = true
	}
	n := len(out)
	for i := 0; i < n; i++ {
		rels, err := s.Relations(ctx, c, out[i].Memory.ID)
		if err != nil {
			s.log.WarnContext(ctx, "expanding relations", "org", c.OrgID, "err", err)
			continue
		}
		for _, rel := range rels {
			other := rel.ToID
			if other == out[i].Memory.ID {
				other = rel.FromID
			}
			if seen[other] {
				continue
			}
			m, err := s.Get(ctx, c, other)
			if err != nil {
				continue
			}
			seen[other] = true
			rel := rel
			out = append(out, SearchResult{Memory: m, RelatedTo: &rel})
		}
	}
	return out
}

func thresholdKeyword(hs []memory.Hit, t float64) []memory.Hit {
	if t == 0 || len(hs) == 0 {
		return hs
	}
	floor := t * hs[0].Score
	for i, h := range hs {
		if h.Score < floor {
			return hs[:i]
		}
	}
	return hs
}

func thresholdSemantic(hs []memory.Hit, t float64) []memory.Hit {
	if t == 0 {
		return hs
	}
	for i, h := range hs {
		if h.Score < t {
			return hs[:i]
		}
	}
	return hs
}

// load fetches fused hits from the store, the source of truth, until k are
// found, skipping ids the store no longer has and re-checking visibility and
// the filter so a stale index can never show what the caller may not see.
func (s *Service) load(ctx context.Context, c memory.Caller, f memory.Filter, fused []memory.Fused, k int) ([]SearchResult, error) {
	out := make([]SearchResult, 0, k)
	for start := 0; start < len(fused) && len(out) < k; {
		end := min(len(fused), start+k-len(out)+5)
		ids := make([]string, 0, end-start)
		for _, h := range fused[start:end] {
			ids = append(ids, h.ID)
		}
		got, err := s.store.GetMany(ctx, c.OrgID, ids)
		if err != nil {
			return nil, err
		}
		for _, h := range fused[start:end] {
			m := got[h.ID]
			if m == nil || !c.CanSee(m.OrgID, m.AgentID) || !f.Match(m.Attrs()) || len(out) == k {
				continue
			}
			out = append(out, SearchResult{Memory: m, Score: h.Score, Keyword: h.Keyword, Semantic: h.Semantic})
		}
		start = end
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
