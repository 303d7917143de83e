package service

import (
	"context"
	"errors"

	"github.com/agentmem/agentmem/pkg/memory"
)

// A client's key (a memory's ExternalID) is unique per scope: the by-key
// operations find, replace and delete the memory holding it in the scope
// the request names (scope and agentId, resolved as for a create by
// Caller.WriteScope), through the store's DedupLookup.

// PutCondition makes a PutByKey conditional.
type PutCondition struct {
	// IfVersion, when non-zero, requires the memory to exist at that
	// version (If-Match).
	IfVersion int64
	// CreateOnly requires that no memory holds the key (If-None-Match: *).
	CreateOnly bool
}

// byKey finds the memory holding key in the scope of scope and agentID,
// as c sees it. Errors: ENOTFOUND, EINVALID, EFORBIDDEN.
func (s *Service) byKey(ctx context.Context, c memory.Caller, scope, agentID, key string) (*memory.Memory, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	agent, err := c.WriteScope(scope, agentID)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, memory.Errorf(memory.EINVALID, "key: required")
	}
	if err := memory.ValidID("key", key); err != nil {
		return nil, err
	}
	dl, ok := s.store.(memory.DedupLookup)
	if !ok {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "this store cannot find memories by key")
	}
	m, err := dl.GetByDedupKey(ctx, c.OrgID, memory.DedupKey(&memory.Memory{AgentID: agent, ExternalID: key}))
	if err == nil && (!c.CanSeeMemory(m) || m.Pending || m.AgentID != agent || m.ExternalID != key) {
		err = memory.Errorf(memory.ENOTFOUND, "")
	}
	if memory.IsNotFound(err) {
		return nil, memory.Errorf(memory.ENOTFOUND, "no memory has key %q in that scope", key)
	}
	return m, err
}

// GetByKey returns the memory holding key in the scope of scope and
// agentID. Errors: ENOTFOUND (also for a scope c cannot see), EINVALID,
// EFORBIDDEN.
func (s *Service) GetByKey(ctx context.Context, c memory.Caller, scope, agentID, key string) (*memory.Memory, error) {
	return s.byKey(ctx, c, scope, agentID, key)
}

// DeleteByKey deletes the memory holding key in the scope of scope and
// agentID, at version ifVersion when non-zero (EPRECONDITION otherwise),
// with every derived copy of its content. Errors: as GetByKey, and as
// DeleteIf.
func (s *Service) DeleteByKey(ctx context.Context, c memory.Caller, scope, agentID, key string, ifVersion int64) error {
	m, err := s.byKey(ctx, c, scope, agentID, key)
	if err != nil {
		return err
	}
	_, err = s.DeleteIf(ctx, c, m.ID, ifVersion)
	return err
}

// PutByKey creates or replaces the memory whose ExternalID is n.ExternalID
// in n's scope: created reports which. A replacement takes every field of
// n (what n leaves out gets its default, as on a create) and keeps the
// memory's id, its creation time unless n gives one, its access counts and
// its archived state; its version increases. Errors: EINVALID, EFORBIDDEN,
// EPRECONDITION (cond does not hold), ECONFLICT, EUNAVAILABLE.
func (s *Service) PutByKey(ctx context.Context, c memory.Caller, n NewMemory, cond PutCondition) (_ *memory.Memory, created bool, _ error) {
	if n.ExternalID == "" {
		return nil, false, memory.Errorf(memory.EINVALID, "key: required")
	}
	for attempt := 1; ; attempt++ {
		old, err := s.byKey(ctx, c, n.Scope, n.AgentID, n.ExternalID)
		switch {
		case memory.IsNotFound(err):
			if cond.IfVersion != 0 {
				return nil, false, memory.Errorf(memory.EPRECONDITION, "no memory has key %q in that scope: If-Match cannot hold", n.ExternalID)
			}
			res, err := s.Create(ctx, c, []NewMemory{n})
			if err != nil {
				return nil, false, err
			}
			if res[0].Duplicate { // a concurrent put created it first
				if cond.CreateOnly {
					return nil, false, memory.Errorf(memory.EPRECONDITION, "If-None-Match: a memory has key %q already", n.ExternalID)
				}
				if attempt < maxUpdateAttempts {
					continue
				}
				return nil, false, memory.Errorf(memory.ECONFLICT, "key %q: changed concurrently; retry", n.ExternalID)
			}
			m, err := s.Get(ctx, c, res[0].ID)
			return m, true, err
		case err != nil:
			return nil, false, err
		case cond.CreateOnly:
			return nil, false, memory.Errorf(memory.EPRECONDITION, "If-None-Match: a memory has key %q already (%q)", n.ExternalID, old.ID)
		case cond.IfVersion != 0 && cond.IfVersion != old.Version:
			return nil, false, stale(old.ID, old.Version, cond.IfVersion)
		}
		if err := c.CanChange(old); err != nil {
			return nil, false, err
		}
		m, err := s.replace(ctx, c, old, n)
		var dup *memory.DuplicateError
		if memory.IsConflict(err) && !errors.As(err, &dup) {
			if cond.IfVersion != 0 {
				return nil, false, memory.Errorf(memory.EPRECONDITION, "memory %q changed concurrently: it is no longer at version %d", old.ID, cond.IfVersion)
			}
			if attempt < maxUpdateAttempts {
				if err := backoff(ctx, attempt); err != nil {
					return nil, false, err
				}
				continue
			}
		}
		return m, false, err
	}
}

// replace writes n over old (same id, the version old has).
func (s *Service) replace(ctx context.Context, c memory.Caller, old *memory.Memory, n NewMemory) (*memory.Memory, error) {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	now := s.now().UnixMilli()
	m, err := n.build(c, now)
	if err != nil {
		return nil, err
	}
	m.ID, m.Version, m.IngestedAt = old.ID, old.Version, old.IngestedAt
	m.AccessCount, m.LastAccessedAt, m.Archived = old.AccessCount, old.LastAccessedAt, old.Archived
	if n.CreatedAt == 0 {
		m.CreatedAt = old.CreatedAt
	}
	if m.Type == old.Type && m.RoomID == old.RoomID {
		m.Context = old.Context // the turn before a message stays the one it had
	}
	textChanged := m.SearchText() != old.SearchText()
	if textChanged {
		if err := s.embed(ctx, []*memory.Memory{m}); err != nil {
			return nil, err
		}
	} else {
		m.Embedding, m.EmbeddingModel = old.Embedding, old.EmbeddingModel
	}
	if err := s.store.Update(ctx, m); err != nil {
		return nil, err
	}
	if err := s.index.Upsert(ctx, []*memory.Memory{m}); err != nil {
		// Put the previous version back so store and index agree.
		old.Version = m.Version
		if rerr := s.store.Update(ctx, old); rerr != nil {
			s.log.ErrorContext(ctx, "rollback after index failure", "org", c.OrgID, "id", old.ID, "err", rerr)
		}
		return nil, unavailable("index", err)
	}
	if textChanged {
		s.deriveKnowledge(ctx, c.OrgID, []*memory.Memory{m})
	}
	return m, nil
}
