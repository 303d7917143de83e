package service

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Worker is the service's second face: what the pipelines (ingestion,
// extraction, consolidation) need of it beyond the caller API, which it
// carries too (the embedded Service). Callers' requests never reach these
// methods, and none of them counts as an access. Each pipeline declares the
// part it uses as an interface of its own.
type Worker struct {
	*Service
}

// Pipelines returns the face of s the pipelines drive.
func (s *Service) Pipelines() *Worker { return &Worker{Service: s} }

// Similar returns up to r.K memories that c can see, most similar first, by
// cosine similarity (SearchResult.Semantic). It records no access. Errors:
// EINVALID, EFORBIDDEN, EUNAVAILABLE.
func (s *Worker) Similar(ctx context.Context, c memory.Caller, r memory.SimilarRequest) ([]SearchResult, error) {
	return s.Search(ctx, c, SearchRequest{Query: r.Text, Mode: ModeSemantic, K: r.K, Filter: r.Filter, similar: &r})
}

// Now is the service's clock (fixed in tests).
func (s *Worker) Now() time.Time { return s.now() }

// Orgs lists every org of the store, for scheduled jobs. The wiring checks
// at start that the store can (memory.OrgLister); a store that cannot
// gives EINTERNAL here.
func (s *Worker) Orgs(ctx context.Context) ([]string, error) {
	l, ok := s.store.(memory.OrgLister)
	if !ok {
		return nil, memory.Errorf(memory.EINTERNAL, "the store cannot list its orgs")
	}
	return l.Orgs(ctx)
}

// SetImportance sets a memory's importance and metadata without touching
// its content, retrying lost races; consolidation uses it.
func (s *Worker) SetImportance(ctx context.Context, c memory.Caller, id string, importance float64, metadata json.RawMessage) error {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	for attempt := 1; ; attempt++ {
		m, err := s.Get(ctx, c, id)
		if err != nil {
			return err
		}
		m.Importance, m.Metadata, m.UpdatedAt = importance, metadata, s.now().UnixMilli()
		err = s.store.Update(ctx, m)
		if memory.IsConflict(err) && attempt < maxUpdateAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		return err
	}
}
