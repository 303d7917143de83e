package service

import (
	"context"

	"github.com/agentmem/agentmem/pkg/memory"
)

// History returns every version of memory id that c can see, oldest
// first, with who made it (the key and its agent), when and how (create,
// update, import). Errors: ENOTFOUND when c cannot see the memory (the
// same for another org's id), EINVALID when the store keeps no history.
func (s *Service) History(ctx context.Context, c memory.Caller, id string) ([]memory.Revision, error) {
	if _, err := s.Get(ctx, c, id); err != nil {
		return nil, err
	}
	hs, ok := s.store.(memory.HistoryStore)
	if !ok {
		return nil, memory.Errorf(memory.EINVALID, "history: this deployment's store keeps no history")
	}
	revs, err := hs.History(ctx, c.OrgID, id)
	if err != nil {
		return nil, err
	}
	for _, r := range revs {
		// The org and scope of a memory never change; check them anyway.
		if r.Memory == nil || !c.CanSeeMemory(r.Memory) {
			return nil, memory.ErrNotFound(id)
		}
		r.Memory.Embedding, r.Memory.EmbeddingModel = nil, ""
	}
	if revs == nil {
		revs = []memory.Revision{}
	}
	return revs, nil
}
