package service

import (
	"cmp"
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

// KeyScope is where a client's key is looked up: the agent scope (Scope
// and AgentID, resolved as for a create by Caller.WriteScope) and, since
// a key is unique per audience too (memory.DedupKey), the visibility and
// the room, world and end user the memory may belong to.
type KeyScope struct {
	Scope, Visibility, AgentID string
	RoomID, WorldID, UserID    string
}

// byKey finds the memory holding key in ks, as c sees it: under the one
// audience ks.Visibility names, or else under each audience ks's ids (and
// c's token binding) could give it, then under none (shared or agent),
// the first found. Errors: ENOTFOUND, EINVALID, EFORBIDDEN.
func (s *Service) byKey(ctx context.Context, c memory.Caller, ks KeyScope, key string) (*memory.Memory, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	scope, vis, err := memory.WriteScopeOf(ks.Scope, ks.Visibility)
	if err != nil {
		return nil, err
	}
	agent, err := c.WriteScope(scope, ks.AgentID)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, memory.Errorf(memory.EINVALID, "key: required")
	}
	for _, p := range []struct{ name, v string }{{"key", key}, {"roomId", ks.RoomID}, {"worldId", ks.WorldID}, {"userId", ks.UserID}} {
		if err := memory.ValidID(p.name, p.v); err != nil {
			return nil, err
		}
	}
	dl, ok := s.store.(memory.DedupLookup)
	if !ok {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "this store cannot find memories by key")
	}
	for _, at := range keyPlaces(c, ks, vis) {
		probe := &memory.Memory{AgentID: agent, ExternalID: key, Visibility: at.Visibility, RoomID: at.RoomID, WorldID: at.WorldID, UserID: at.UserID}
		m, err := dl.GetByDedupKey(ctx, c.OrgID, memory.DedupKey(probe))
		if memory.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if c.CanSeeMemory(m) && !m.Pending && m.AgentID == agent && m.ExternalID == key && m.Audience() == probe.Audience() {
			return m, nil
		}
	}
	return nil, memory.Errorf(memory.ENOTFOUND, "no memory has key %q in that scope", key)
}

// keyPlaces are the audiences a key of ks may be held under, in the order
// byKey tries them: the one vis names, or else each audience whose id ks
// (or c's token binding) gives, then none (shared or agent memories).
func keyPlaces(c memory.Caller, ks KeyScope, vis memory.Visibility) []memory.Memory {
	user, room := ks.UserID, ks.RoomID
	if b := c.Binding; b != nil {
		user, room = cmp.Or(user, b.UserID), cmp.Or(room, b.RoomID)
	}
	var out []memory.Memory
	for _, p := range []memory.Memory{
		{Visibility: memory.VisibilityUser, UserID: user},
		{Visibility: memory.VisibilityRoom, RoomID: room},
		{Visibility: memory.VisibilityWorld, WorldID: ks.WorldID},
	} {
		if (vis == "" || vis == p.Visibility) && cmp.Or(p.UserID, p.RoomID, p.WorldID) != "" {
			out = append(out, p)
		}
	}
	if vis == "" || vis == memory.VisibilityShared || vis == memory.VisibilityAgent {
		out = append(out, memory.Memory{})
	}
	return out
}

// GetByKey returns the memory holding key in ks. Errors: ENOTFOUND (also
// for a scope c cannot see), EINVALID, EFORBIDDEN.
func (s *Service) GetByKey(ctx context.Context, c memory.Caller, ks KeyScope, key string) (*memory.Memory, error) {
	return s.byKey(ctx, c, ks, key)
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
		old, err := s.byKey(ctx, c, keyScope(n, c, s.now().UnixMilli()), n.ExternalID)
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
	m, err := build(&n, c, now)
	if err != nil {
		return nil, err
	}
	m.ID, m.Version, m.IngestedAt = old.ID, old.Version, old.IngestedAt
	m.AccessCount, m.LastAccessedAt, m.Archived = old.AccessCount, old.LastAccessedAt, old.Archived
	if n.CreatedAt == 0 {
		m.CreatedAt = old.CreatedAt
	}
	if m.Type == old.Type && m.RoomID == old.RoomID && m.SessionID == old.SessionID && m.AgentID == old.AgentID && m.Audience() == old.Audience() {
		m.Context = old.Context // the turn before a message stays the one it had
	} // moved, or read by others: no context, rather than one its readers may not read
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

// keyScope is the one place n's key is held: the audience a create of n
// would give it (or, when n cannot be built, n's fields as given, for
// byKey's own errors).
func keyScope(n NewMemory, c memory.Caller, now int64) KeyScope {
	ks := KeyScope{Scope: n.Scope, Visibility: n.Visibility, AgentID: n.AgentID, RoomID: n.RoomID, WorldID: n.WorldID, UserID: n.UserID}
	if m, err := build(&n, c, now); err == nil {
		ks.Visibility = string(m.EffectiveVisibility())
		ks.RoomID, ks.WorldID, ks.UserID = m.RoomID, m.WorldID, m.UserID
	}
	return ks
}
