package service

import (
	"context"
	"encoding/json"
	"github.com/agentmem/agentmem/pkg/memory"
)

func (s *Service) relationStore() (memory.RelationStore, error) {
	rs, ok := s.store.(memory.RelationStore)
	if !ok {
		return nil, memory.Errorf(memory.EINTERNAL, "the store keeps no relations")
	}
	return rs, nil
}

// Relate stores relations between memories c can see; ENOTFOUND names a
// memory that is absent or not visible, so no edge can reach another
// tenant's memory.
func (s *Service) Relate(ctx context.Context, c memory.Caller, rels []memory.Relation) error {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	rs, err := s.relationStore()
	if err != nil {
		return err
	}
	ids := map[string]bool{}
	for i := range rels {
		rels[i].OrgID = c.OrgID
		if rels[i].CreatedAt == 0 {
			rels[i].CreatedAt = s.now().UnixMilli()
		}
		if err := rels[i].Validate(); err != nil {
			return err
		}
		ids[rels[i].FromID], ids[rels[i].ToID] = true, true
	}
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	got, err := s.store.GetMany(ctx, c.OrgID, list)
	if err != nil {
		return err
	}
	for _, id := range list {
		if m := got[id]; m == nil || !c.CanSeeMemory(m) {
			return memory.ErrNotFound(id)
		}
	}
	return rs.PutRelations(ctx, rels)
}

// CreateRelation stores the relation r (its fromId, toId and type; a
// confidence of 0 is 1) between two memories c can see, and returns it
// with its id. Creating an edge that exists replaces it. Errors:
// EINVALID (naming the field), ENOTFOUND (either end absent or not
// visible to c).
func (s *Service) CreateRelation(ctx context.Context, c memory.Caller, r memory.Relation) (*memory.Relation, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, v string }{{"fromId", r.FromID}, {"toId", r.ToID}} {
		if f.v == "" {
			return nil, memory.Errorf(memory.EINVALID, "%s: required", f.name)
		}
		if err := memory.ValidID(f.name, f.v); err != nil {
			return nil, err
		}
	}
	if r.Type == "" {
		return nil, memory.Errorf(memory.EINVALID, "type: required")
	}
	if r.Confidence == 0 {
		r.Confidence = 1
	}
	r.ID, r.CreatedAt = "", 0
	rels := []memory.Relation{r}
	if err := s.Relate(ctx, c, rels); err != nil {
		return nil, err
	}
	out := rels[0]
	out.ID = memory.RelationID(out.FromID, out.Type, out.ToID)
	return &out, nil
}

// DeleteRelation removes the relation id (memory.RelationID) between two
// memories c can see. Errors: EINVALID, ENOTFOUND (no such relation, or
// either end not visible to c).
func (s *Service) DeleteRelation(ctx context.Context, c memory.Caller, id string) error {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	if err := c.Valid(); err != nil {
		return err
	}
	from, typ, to, err := memory.ParseRelationID("id", id)
	if err != nil {
		return err
	}
	rs, err := s.relationStore()
	if err != nil {
		return err
	}
	got, err := s.store.GetMany(ctx, c.OrgID, []string{from, to})
	if err != nil {
		return err
	}
	notFound := memory.Errorf(memory.ENOTFOUND, "relation %q not found", id)
	if !c.CanSeeMemory(got[from]) || !c.CanSeeMemory(got[to]) {
		return notFound
	}
	all, err := rs.Relations(ctx, c.OrgID, from)
	if err != nil {
		return err
	}
	for _, r := range all {
		if r.FromID == from && r.Type == typ && r.ToID == to {
			return rs.DeleteRelation(ctx, c.OrgID, from, typ, to)
		}
	}
	return notFound
}

// Relations returns the relations of memory id that c can see, both ends.
func (s *Service) Relations(ctx context.Context, c memory.Caller, id string) ([]memory.Relation, error) {
	if _, err := s.Get(ctx, c, id); err != nil {
		return nil, err
	}
	rs, err := s.relationStore()
	if err != nil {
		return nil, err
	}
	all, err := rs.Relations(ctx, c.OrgID, id)
	if err != nil {
		return nil, err
	}
	other := make([]string, 0, len(all))
	for _, r := range all {
		if r.FromID == id {
			other = append(other, r.ToID)
		} else {
			other = append(other, r.FromID)
		}
	}
	got, err := s.store.GetMany(ctx, c.OrgID, other)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for i, r := range all {
		if m := got[other[i]]; m != nil && c.CanSeeMemory(m) {
			r.ID = memory.RelationID(r.FromID, r.Type, r.ToID)
			out = append(out, r)
		}
	}
	return out, nil
}

// Archive marks memory id archived (it leaves search, stays readable by
// id) with the reason and time recorded in its metadata ("archivedReason",
// "archivedAt").
func (s *Service) Archive(ctx context.Context, c memory.Caller, id, reason string) error {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	for attempt := 1; ; attempt++ {
		m, err := s.Get(ctx, c, id)
		if err != nil {
			return err
		}
		if m.Archived {
			return nil
		}
		meta := map[string]any{}
		if len(m.Metadata) > 0 {
			json.Unmarshal(m.Metadata, &meta)
		}
		meta["archivedReason"] = reason
		meta["archivedAt"] = s.now().UnixMilli()
		m.Metadata, _ = json.Marshal(meta)
		m.Archived = true
		m.UpdatedAt = s.now().UnixMilli()
		m.Change = memory.ChangeBy(c, memory.OpArchive)
		err = s.store.Update(ctx, m)
		if memory.IsConflict(err) && attempt < maxUpdateAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		return s.index.Upsert(ctx, []*memory.Memory{m})
	}
}

// Restore un-archives memory id (it returns to search), recorded in its
// history as a memory.OpRestore version; the archive's reason and time
// leave its metadata. Restoring a memory that is not archived changes
// nothing. It takes the same rights as archiving: c must see the memory
// and may change it (memory.Caller.CanChange). Errors: ENOTFOUND,
// EFORBIDDEN.
func (s *Service) Restore(ctx context.Context, c memory.Caller, id string) (*memory.Memory, error) {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	for attempt := 1; ; attempt++ {
		m, err := s.Get(ctx, c, id)
		if err != nil {
			return nil, err
		}
		if err := c.CanChange(m); err != nil {
			return nil, err
		}
		if !m.Archived {
			return m, nil
		}
		if len(m.Metadata) > 0 {
			meta := map[string]any{}
			if json.Unmarshal(m.Metadata, &meta) == nil {
				delete(meta, "archivedReason")
				delete(meta, "archivedAt")
				m.Metadata = nil
				if len(meta) > 0 {
					m.Metadata, _ = json.Marshal(meta)
				}
			}
		}
		m.Archived = false
		m.UpdatedAt = s.now().UnixMilli()
		m.Change = memory.ChangeBy(c, memory.OpRestore)
		err = s.store.Update(ctx, m)
		if memory.IsConflict(err) && attempt < maxUpdateAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		m.Change = nil
		return m, s.index.Upsert(ctx, []*memory.Memory{m})
	}
}
