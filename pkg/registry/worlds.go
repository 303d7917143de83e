package registry

import (
	"context"
	"encoding/json"

	"github.com/agentmem/agentmem/pkg/memory"
)

// NewWorld is the body of a create: the id (made when empty), an
// optional name and server id (the platform's: a Discord guild), metadata
// and the owner.
type NewWorld struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name,omitempty"`
	ServerID string          `json:"serverId,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Owner
}

// WorldPatch is the body of an update: the fields given replace the
// stored ones ("" removes a name or server id).
type WorldPatch struct {
	Name     *string          `json:"name,omitempty"`
	ServerID *string          `json:"serverId,omitempty"`
	Metadata *json.RawMessage `json:"metadata,omitempty"`
}

// CreateWorld stores a new world for c. Errors: EINVALID (naming the
// field), EFORBIDDEN, ECONFLICT (the id is taken).
func (r *Registry) CreateWorld(ctx context.Context, c memory.Caller, in NewWorld) (*memory.World, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	now := r.now()
	w := &memory.World{ID: in.ID, Name: in.Name, ServerID: in.ServerID}
	if w.ID == "" {
		w.ID = memory.NewID(now)
	}
	if err := memory.ValidID("id", w.ID); err != nil {
		return nil, err
	}
	if err := checkOptionalName("name", w.Name); err != nil {
		return nil, err
	}
	if err := memory.ValidID("serverId", w.ServerID); err != nil {
		return nil, err
	}
	var err error
	if w.Metadata, err = normMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if w.AgentID, err = in.Owner.resolve(c, "world", w.ID); err != nil {
		return nil, err
	}
	return w, r.worlds.create(ctx, c.OrgID, w, now.UnixMilli())
}

// GetWorld returns world id as c sees it. Errors: ENOTFOUND.
func (r *Registry) GetWorld(ctx context.Context, c memory.Caller, id string) (*memory.World, error) {
	return r.worlds.get(ctx, c, id)
}

// ListWorlds returns a page of the worlds c sees, in id order, and the
// cursor of the next page ("" at the end). Errors: EINVALID.
func (r *Registry) ListWorlds(ctx context.Context, c memory.Caller, p Page) ([]*memory.World, string, error) {
	return r.worlds.list(ctx, c, p)
}

// UpdateWorld applies p to world id; with ifVersion > 0 only over that
// version. Errors: ENOTFOUND, EINVALID, EFORBIDDEN, ECONFLICT.
func (r *Registry) UpdateWorld(ctx context.Context, c memory.Caller, id string, p WorldPatch, ifVersion int64) (*memory.World, error) {
	if p.Name == nil && p.ServerID == nil && p.Metadata == nil {
		return nil, memory.Errorf(memory.EINVALID, "patch: nothing to update (name, serverId or metadata)")
	}
	if p.Name != nil {
		if err := checkOptionalName("name", *p.Name); err != nil {
			return nil, err
		}
	}
	if p.ServerID != nil {
		if err := memory.ValidID("serverId", *p.ServerID); err != nil {
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
	_, w, err := r.worlds.update(ctx, c, id, ifVersion, r.millis, func(_, w *memory.World) error {
		if p.Name != nil {
			w.Name = *p.Name
		}
		if p.ServerID != nil {
			w.ServerID = *p.ServerID
		}
		if p.Metadata != nil {
			w.Metadata = meta
		}
		return nil
	})
	return w, err
}

// DeleteWorld removes world id; with ifVersion > 0 only at that version.
// A world that rooms still name is not deleted (ECONFLICT): delete them,
// or move them to another world, first. Rooms that other agents keep
// count too, so that no room is left naming a world that is gone, and
// the message names none of them. Errors: ENOTFOUND, EFORBIDDEN,
// ECONFLICT.
func (r *Registry) DeleteWorld(ctx context.Context, c memory.Caller, id string, ifVersion int64) error {
	w, err := r.worlds.get(ctx, c, id)
	if err != nil {
		return err
	}
	if err := mayChange(c, w.AgentID, "world", id); err != nil {
		return err
	}
	rooms, _, err := r.worldRooms(ctx, c.OrgID, id, "", 1)
	if err != nil {
		return err
	}
	if len(rooms) > 0 {
		return memory.Errorf(memory.ECONFLICT, "world %q still has rooms: delete them or move them to another world first", id)
	}
	_, err = r.worlds.remove(ctx, c, id, ifVersion)
	return err
}
