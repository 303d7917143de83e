package service

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The pipelines' API: what extraction and consolidation need of the service
// beyond what API callers use. None of it counts as an access.

// SimilarRequest asks for the memories closest in meaning to a stored text.
// The pipelines compare a memory with memories, where similarity must be
// symmetric for their duplicate thresholds to mean the same under every
// embedder: Text is embedded as a stored text (PurposeDocument), never as a
// question (bge-small puts an instruction before questions, which moves a
// text's vector to cosine about 0.92 with itself). Vector, when set, is a
// stored memory's own embedding, used instead of embedding Text again.
type SimilarRequest struct {
	Text   string
	Vector []float32
	Filter memory.Filter
	K      int
}

// Similar returns up to r.K memories that c can see, most similar first, by
// cosine similarity (SearchResult.Semantic). It records no access. Errors:
// EINVALID, EFORBIDDEN, EUNAVAILABLE.
func (s *Service) Similar(ctx context.Context, c memory.Caller, r SimilarRequest) ([]SearchResult, error) {
	return s.Search(ctx, c, SearchRequest{Query: r.Text, Mode: ModeSemantic, K: r.K, Filter: r.Filter, similar: &r})
}

// Now is the service's clock (fixed in tests).
func (s *Service) Now() time.Time { return s.now() }
