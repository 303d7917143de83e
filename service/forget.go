package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentmem/agentmem/memory"
)

// Forgetting. Deleting a memory removes every copy of its content that the
// service derived from it:
//   - the memory itself, in the store and in the index;
//   - the Context of the turn that followed a deleted message (the deleted
//     text was copied there for retrieval): it is recomputed from the turn
//     before the deleted one, re-embedded and re-indexed;
//   - facts whose only source it was (their caused_by relations all point
//     to deleted memories), forgotten in turn; facts with other sources
//     lose the reference (metadata "sources", relation provenance);
//   - its relations (the store deletes them with the memory);
//   - its Structured RAG refs (the Forgetter hooks, for example the term
//     index).

// Forgotten counts what one deletion removed or rewrote. It carries ids and
// counts, never content, so it can be logged and audited.
type Forgotten struct {
	Memories int `json:"memories"` // memories deleted, dependent facts included
	// Facts is how many of Memories were facts whose only sources were
	// deleted.
	Facts int `json:"facts"`
	// ContextsRewritten counts following turns whose Context held deleted
	// text and was recomputed.
	ContextsRewritten int `json:"contextsRewritten"`
	// ReferencesRemoved counts facts that kept other sources and lost the
	// reference to a deleted one.
	ReferencesRemoved int `json:"referencesRemoved"`
}

// Forgetter removes what an adapter derived from memories that are being
// deleted, for example their semantic refs. It is called after the memories
// are gone from the store; it must be idempotent.
type Forgetter interface {
	Forget(ctx context.Context, orgID string, ids []string) error
}

// WithForgetter adds a Forgetter that Delete and DeleteWhere call.
func WithForgetter(f Forgetter) Option {
	return func(s *Service) { s.forgetters = append(s.forgetters, f) }
}

// maxForgetRounds bounds the cascade through facts derived from facts.
const maxForgetRounds = 8

// forget deletes ms (memories of c's org already checked visible) and
// every derived copy of their content.
func (s *Service) forget(ctx context.Context, c memory.Caller, ms []*memory.Memory) (Forgotten, error) {
	var out Forgotten
	gone := map[string]bool{}
	for round := 0; len(ms) > 0; round++ {
		if round == maxForgetRounds {
			return out, memory.Errorf(memory.EINTERNAL, "forget: facts derived from facts deeper than %d levels", maxForgetRounds)
		}
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.ID
			gone[m.ID] = true
		}
		// Facts derived from these memories, read before the store drops
		// the relations with the memories.
		dependents, err := s.dependents(ctx, c.OrgID, ids)
		if err != nil {
			return out, err
		}
		for _, m := range ms {
			if err := s.store.Delete(ctx, c.OrgID, m.ID); err != nil && !memory.IsNotFound(err) {
				return out, fmt.Errorf("forget: delete %s: %w", m.ID, err)
			}
			out.Memories++
			if m.Type == memory.TypeFact && round > 0 {
				out.Facts++
			}
		}
		if err := s.index.Delete(ctx, c.OrgID, ids); err != nil {
			// The store is the truth and results are loaded from it, so a
			// stale entry is never shown; the start-up check repairs it.
			s.log.ErrorContext(ctx, "index delete failed", "op", "forget", "org", c.OrgID, "count", len(ids), "err", err)
		}
		for _, f := range s.forgetters {
			if err := f.Forget(ctx, c.OrgID, ids); err != nil {
				return out, fmt.Errorf("forget: derived data: %w", err)
			}
		}
		n, err := s.rethread(ctx, ms, gone)
		out.ContextsRewritten += n
		if err != nil {
			return out, err
		}
		// Dependent facts: forgotten when no source is left, otherwise
		// stripped of the deleted references.
		var next []*memory.Memory
		for _, id := range dependents {
			if gone[id] {
				continue
			}
			drop, err := s.unsource(ctx, c.OrgID, id, gone)
			if err != nil {
				return out, err
			}
			if drop != nil {
				next = append(next, drop)
			} else {
				out.ReferencesRemoved++
			}
		}
		ms = next
	}
	return out, nil
}

// dependents returns the ids of the memories derived from ids: those with a
// caused_by relation to one of them.
func (s *Service) dependents(ctx context.Context, orgID string, ids []string) ([]string, error) {
	rs, ok := s.store.(memory.RelationStore)
	if !ok {
		return nil, nil
	}
	var out []string
	for _, id := range ids {
		rels, err := rs.Relations(ctx, orgID, id)
		if err != nil {
			return nil, fmt.Errorf("forget: relations of %s: %w", id, err)
		}
		for _, r := range rels {
			if r.Type == memory.RelCausedBy && r.ToID == id && !slices.Contains(out, r.FromID) {
				out = append(out, r.FromID)
			}
		}
	}
	return out, nil
}

// unsource removes the deleted sources from fact id. It returns the fact
// when no source is left, for the caller to forget it; nil when the fact
// keeps another source (or is gone already).
func (s *Service) unsource(ctx context.Context, orgID, id string, gone map[string]bool) (*memory.Memory, error) {
	rs := s.store.(memory.RelationStore) // dependents found it one
	for attempt := 1; ; attempt++ {
		m, err := s.store.Get(ctx, orgID, id)
		if memory.IsNotFound(err) {
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("forget: get %s: %w", id, err)
		}
		rels, err := rs.Relations(ctx, orgID, id)
		if err != nil {
			return nil, fmt.Errorf("forget: relations of %s: %w", id, err)
		}
		left := 0
		var rewrite []memory.Relation
		for _, r := range rels {
			if r.FromID == id && r.Type == memory.RelCausedBy && !gone[r.ToID] {
				left++
			}
			if kept := slices.DeleteFunc(slices.Clone(r.Provenance), func(p string) bool { return gone[p] }); len(kept) != len(r.Provenance) && !gone[r.FromID] && !gone[r.ToID] {
				r.Provenance = kept
				rewrite = append(rewrite, r)
			}
		}
		if left == 0 {
			return m, nil
		}
		if len(rewrite) > 0 {
			if err := rs.PutRelations(ctx, rewrite); err != nil {
				return nil, fmt.Errorf("forget: relations of %s: %w", id, err)
			}
		}
		meta, changed := withoutSources(m.Metadata, gone)
		if !changed {
			return nil, nil
		}
		m.Metadata = meta
		m.UpdatedAt = s.now().UnixMilli()
		err = s.store.Update(ctx, m)
		if memory.IsConflict(err) && attempt < maxUpdateAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("forget: update %s: %w", id, err)
		}
		return nil, s.index.Upsert(ctx, []*memory.Memory{m})
	}
}

// withoutSources drops the gone ids from the "sources" array of a metadata
// object; it reports whether anything changed.
func withoutSources(meta json.RawMessage, gone map[string]bool) (json.RawMessage, bool) {
	if len(meta) == 0 {
		return meta, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(meta, &obj) != nil {
		return meta, false
	}
	var srcs []string
	if json.Unmarshal(obj["sources"], &srcs) != nil || len(srcs) == 0 {
		return meta, false
	}
	kept := slices.DeleteFunc(srcs, func(id string) bool { return gone[id] })
	if len(kept) == len(srcs) {
		return meta, false
	}
	obj["sources"], _ = json.Marshal(kept)
	out, err := json.Marshal(obj)
	if err != nil {
		return meta, false
	}
	return out, true
}

// rethread recomputes the Context of the turns that followed deleted
// messages: each such turn's Context was the deleted text, and becomes the
// turn before the deleted one (or nothing). It returns how many turns it
// rewrote.
func (s *Service) rethread(ctx context.Context, deleted []*memory.Memory, gone map[string]bool) (int, error) {
	n := 0
	for _, d := range deleted {
		if conversation(d) == "" {
			continue
		}
		next, err := s.nextTurns(ctx, d, gone)
		if err != nil {
			return n, err
		}
		for _, m := range next {
			ok, err := s.recontext(ctx, m.OrgID, m.ID, gone)
			if err != nil {
				return n, err
			}
			if ok {
				n++
			}
		}
	}
	return n, nil
}

// nextTurns returns the surviving messages of d's conversation and scope,
// created at or after it, whose Context is d's turn. A conversation is
// read newest first down to d's time: deleting an old turn of a long
// conversation reads the rest of it.
func (s *Service) nextTurns(ctx context.Context, d *memory.Memory, gone map[string]bool) ([]*memory.Memory, error) {
	f := memory.Filter{OrgID: d.OrgID, AgentID: d.AgentID, Types: []memory.Type{memory.TypeMessage}, Start: d.CreatedAt, IncludeArchived: true}
	if f.AgentID == "" {
		f.AgentID = memory.OrgScope
	}
	if d.RoomID != "" {
		f.RoomID = d.RoomID
	} else {
		f.SessionID = d.SessionID
	}
	line := turnLine(d)
	var out []*memory.Memory
	var cur *memory.Cursor
	for {
		p, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: memory.MaxListLimit, Cursor: cur})
		if err != nil {
			return nil, fmt.Errorf("forget: following turns of %s: %w", d.ID, err)
		}
		for _, m := range p.Memories {
			if !gone[m.ID] && m.Context == line {
				out = append(out, m)
			}
		}
		if p.Next == nil {
			return out, nil
		}
		cur = p.Next
	}
}

// recontext recomputes the Context of message id from the store as it is
// now, re-embeds and re-indexes it; it reports whether it changed.
func (s *Service) recontext(ctx context.Context, orgID, id string, gone map[string]bool) (bool, error) {
	for attempt := 1; ; attempt++ {
		m, err := s.store.Get(ctx, orgID, id)
		if memory.IsNotFound(err) {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("forget: get %s: %w", id, err)
		}
		old := m.Context
		m.Context = ""
		if err := s.threadContext(ctx, []*memory.Memory{m}); err != nil {
			return false, err
		}
		if m.Context == old {
			return false, nil
		}
		if err := s.embed(ctx, []*memory.Memory{m}); err != nil {
			return false, err
		}
		err = s.store.Update(ctx, m)
		if memory.IsConflict(err) && attempt < maxUpdateAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return false, err
			}
			continue
		}
		if err != nil {
			return false, fmt.Errorf("forget: update %s: %w", id, err)
		}
		if err := s.index.Upsert(ctx, []*memory.Memory{m}); err != nil {
			return false, unavailable("index", err)
		}
		return true, nil
	}
}
