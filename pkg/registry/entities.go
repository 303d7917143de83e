package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentmem/agentmem/pkg/memory"
)

// NewEntity is the body of a create: the id (made when empty: an end
// user's userId is an entity id, so callers usually name it), at least
// one name (the first is the display name), metadata, and the owner.
type NewEntity struct {
	ID       string          `json:"id,omitempty"`
	Names    []string        `json:"names"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Owner
}

// EntityPatch is the body of an update: the fields given replace the
// stored ones.
type EntityPatch struct {
	Names    *[]string        `json:"names,omitempty"`
	Metadata *json.RawMessage `json:"metadata,omitempty"`
}

// checkNames checks an entity's names: 1 to MaxNames of them, each a
// name.
func checkNames(names []string) error {
	if len(names) == 0 {
		return memory.Errorf(memory.EINVALID, "names: at least one name is required")
	}
	if len(names) > MaxNames {
		return memory.Errorf(memory.EINVALID, "names: %d exceeds the limit of %d", len(names), MaxNames)
	}
	for i, n := range names {
		if err := checkName(fmt.Sprintf("names[%d]", i), n); err != nil {
			return err
		}
	}
	return nil
}

// CreateEntity stores a new entity for c. Errors: EINVALID (naming the
// field), EFORBIDDEN (another agent, or an org-wide entity by an
// agent-bound caller), ECONFLICT (the id is taken).
func (r *Registry) CreateEntity(ctx context.Context, c memory.Caller, in NewEntity) (*memory.EntityProfile, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	now := r.now()
	e := &memory.EntityProfile{ID: in.ID, Names: in.Names}
	if e.ID == "" {
		e.ID = memory.NewID(now)
	}
	if err := memory.ValidID("id", e.ID); err != nil {
		return nil, err
	}
	if err := checkNames(e.Names); err != nil {
		return nil, err
	}
	var err error
	if e.Metadata, err = normMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if e.AgentID, err = in.Owner.resolve(c, "entity", e.ID); err != nil {
		return nil, err
	}
	defer r.names.drop(c.OrgID)
	return e, r.entities.create(ctx, c.OrgID, e, now.UnixMilli())
}

// GetEntity returns entity id as c sees it. Errors: ENOTFOUND.
func (r *Registry) GetEntity(ctx context.Context, c memory.Caller, id string) (*memory.EntityProfile, error) {
	return r.entities.get(ctx, c, id)
}

// ListEntities returns a page of the entities c sees, in id order, and
// the cursor of the next page ("" at the end). Errors: EINVALID.
func (r *Registry) ListEntities(ctx context.Context, c memory.Caller, p Page) ([]*memory.EntityProfile, string, error) {
	return r.entities.list(ctx, c, p)
}

// UpdateEntity applies p to entity id; with ifVersion > 0 only over that
// version. Errors: ENOTFOUND, EINVALID, EFORBIDDEN, ECONFLICT (a stale
// ifVersion).
func (r *Registry) UpdateEntity(ctx context.Context, c memory.Caller, id string, p EntityPatch, ifVersion int64) (*memory.EntityProfile, error) {
	if p.Names == nil && p.Metadata == nil {
		return nil, memory.Errorf(memory.EINVALID, "patch: nothing to update (names or metadata)")
	}
	if p.Names != nil {
		if err := checkNames(*p.Names); err != nil {
			return nil, err
		}
	}
	var meta json.RawMessage
	if p.Metadata != nil {
		var err error
		if meta, err = normMetadata(*p.Metadata); err != nil {
			return nil, err
		}
	}
	defer r.names.drop(c.OrgID)
	_, e, err := r.entities.update(ctx, c, id, ifVersion, r.millis, func(_, e *memory.EntityProfile) error {
		if p.Names != nil {
			e.Names = *p.Names
		}
		if p.Metadata != nil {
			e.Metadata = meta
		}
		return nil
	})
	return e, err
}

// DeleteEntity removes entity id; with ifVersion > 0 only at that
// version. The rooms it takes part in keep it as a participant: a
// participant is any entity id, registered or not (an end user's userId
// often is not), and leaves a room through RemoveParticipant. Errors:
// ENOTFOUND, EFORBIDDEN, ECONFLICT (a stale ifVersion).
func (r *Registry) DeleteEntity(ctx context.Context, c memory.Caller, id string, ifVersion int64) error {
	defer r.names.drop(c.OrgID)
	_, err := r.entities.remove(ctx, c, id, ifVersion)
	return err
}

// millis is now in Unix milliseconds.
func (r *Registry) millis() int64 { return r.now().UnixMilli() }
