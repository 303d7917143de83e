package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agentmem/agentmem/internal/retry"
	"github.com/agentmem/agentmem/pkg/memory"
)

// NewRoom is the body of a create: the id (made when empty), an optional
// name, the world it belongs to (registered and visible to the caller),
// where it comes from (source: "discord") and its type ("DM", "GROUP"...),
// the entities taking part (any entity ids, registered or not), metadata
// and the owner.
type NewRoom struct {
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	WorldID      string          `json:"worldId,omitempty"`
	Source       string          `json:"source,omitempty"`
	Type         string          `json:"type,omitempty"`
	Participants []string        `json:"participants,omitempty"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
	Owner
}

// RoomPatch is the body of an update: the fields given replace the
// stored ones ("" removes one; worldId "" takes the room out of its
// world). Participants change through AddParticipant and
// RemoveParticipant.
type RoomPatch struct {
	Name     *string          `json:"name,omitempty"`
	WorldID  *string          `json:"worldId,omitempty"`
	Source   *string          `json:"source,omitempty"`
	Type     *string          `json:"type,omitempty"`
	Metadata *json.RawMessage `json:"metadata,omitempty"`
}

// ref is the value of an index record: the room it points at.
type ref struct {
	RoomID string `json:"roomId"`
}

// indexConcurrency bounds the record reads and writes of one index
// operation in flight at once.
const indexConcurrency = 16

// CreateRoom stores a new room for c. Errors: EINVALID (naming the field,
// including a worldId c has no world of), EFORBIDDEN, ECONFLICT (the id
// is taken).
func (r *Registry) CreateRoom(ctx context.Context, c memory.Caller, in NewRoom) (*memory.Room, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	now := r.now()
	room := &memory.Room{ID: in.ID, Name: in.Name, WorldID: in.WorldID, Source: in.Source, Type: in.Type}
	if room.ID == "" {
		room.ID = memory.NewID(now)
	}
	if err := memory.ValidID("id", room.ID); err != nil {
		return nil, err
	}
	if err := checkOptionalName("name", room.Name); err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, v string }{{"source", room.Source}, {"type", room.Type}} {
		if err := memory.ValidID(f.name, f.v); err != nil {
			return nil, err
		}
	}
	var err error
	if room.Participants, err = checkParticipants(in.Participants); err != nil {
		return nil, err
	}
	if room.Metadata, err = normMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if room.AgentID, err = in.Owner.resolve(c, "room", room.ID); err != nil {
		return nil, err
	}
	if err := r.checkWorld(ctx, c, room.WorldID); err != nil {
		return nil, err
	}
	return room, r.createRoom(ctx, c.OrgID, room, now.UnixMilli())
}

// createRoom stores room, checked, in org: its index entries first.
func (r *Registry) createRoom(ctx context.Context, org string, room *memory.Room, now int64) error {
	if err := r.index(ctx, org, room.ID, room.WorldID, room.Participants...); err != nil {
		return err
	}
	return r.rooms.create(ctx, org, room, now)
}

// checkParticipants checks the participants of a new room and returns
// them without repeats, in their order.
func checkParticipants(ids []string) ([]string, error) {
	var out []string
	for i, id := range ids {
		if err := checkID(fmt.Sprintf("participants[%d]", i), id); err != nil {
			return nil, err
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) > memory.MaxParticipants {
		return nil, memory.Errorf(memory.EINVALID, "participants: %d exceeds the limit of %d", len(out), memory.MaxParticipants)
	}
	return out, nil
}

// checkWorld checks that c has the world a room names ("" is none).
func (r *Registry) checkWorld(ctx context.Context, c memory.Caller, id string) error {
	if id == "" {
		return nil
	}
	if err := memory.ValidID("worldId", id); err != nil {
		return err
	}
	if _, err := r.worlds.get(ctx, c, id); memory.IsNotFound(err) {
		return memory.Errorf(memory.EINVALID, "worldId: there is no world %q (create it first)", id)
	} else if err != nil {
		return err
	}
	return nil
}

// GetRoom returns room id as c sees it. Errors: ENOTFOUND.
func (r *Registry) GetRoom(ctx context.Context, c memory.Caller, id string) (*memory.Room, error) {
	return r.rooms.get(ctx, c, id)
}

// ListRooms returns a page of the rooms c sees, in id order, and the
// cursor of the next page ("" at the end); with worldID, of that world's
// only (read through the world's index, not a scan of every room).
// Errors: EINVALID.
func (r *Registry) ListRooms(ctx context.Context, c memory.Caller, worldID string, p Page) ([]*memory.Room, string, error) {
	if worldID == "" {
		return r.rooms.list(ctx, c, p)
	}
	if err := c.Valid(); err != nil {
		return nil, "", err
	}
	if err := memory.ValidID("worldId", worldID); err != nil {
		return nil, "", err
	}
	limit, err := p.limit()
	if err != nil {
		return nil, "", err
	}
	return r.indexed(ctx, c.OrgID, kindWorldRooms+worldID, p.Cursor, limit, func(room *memory.Room) bool {
		return room.WorldID == worldID && sees(c, room.AgentID)
	})
}

// UpdateRoom applies p to room id; with ifVersion > 0 only over that
// version. A new world must be one c has. Errors: ENOTFOUND, EINVALID,
// EFORBIDDEN, ECONFLICT.
func (r *Registry) UpdateRoom(ctx context.Context, c memory.Caller, id string, p RoomPatch, ifVersion int64) (*memory.Room, error) {
	if p.Name == nil && p.WorldID == nil && p.Source == nil && p.Type == nil && p.Metadata == nil {
		return nil, memory.Errorf(memory.EINVALID, "patch: nothing to update (name, worldId, source, type or metadata)")
	}
	if p.Name != nil {
		if err := checkOptionalName("name", *p.Name); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"source", p.Source}, {"type", p.Type}} {
		if f.v != nil {
			if err := memory.ValidID(f.name, *f.v); err != nil {
				return nil, err
			}
		}
	}
	var meta json.RawMessage
	if p.Metadata != nil {
		var err error
		if meta, err = normMetadata(*p.Metadata); err != nil {
			return nil, err
		}
	}
	if p.WorldID != nil {
		if err := r.checkWorld(ctx, c, *p.WorldID); err != nil {
			return nil, err
		}
	}
	old, room, err := r.rooms.update(ctx, c, id, ifVersion, r.millis, func(old, room *memory.Room) error {
		for _, f := range []struct{ from, to *string }{{p.Name, &room.Name}, {p.Source, &room.Source}, {p.Type, &room.Type}, {p.WorldID, &room.WorldID}} {
			if f.from != nil {
				*f.to = *f.from
			}
		}
		if p.Metadata != nil {
			room.Metadata = meta
		}
		if room.WorldID != old.WorldID {
			return r.index(ctx, c.OrgID, id, room.WorldID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if old.WorldID != room.WorldID {
		if err := r.unindex(ctx, c.OrgID, id, old.WorldID); err != nil {
			return nil, err
		}
	}
	return room, nil
}

// DeleteRoom removes room id, then its index entries (its participants'
// and its world's); with ifVersion > 0 only at that version. Errors:
// ENOTFOUND, EFORBIDDEN, ECONFLICT.
func (r *Registry) DeleteRoom(ctx context.Context, c memory.Caller, id string, ifVersion int64) error {
	room, err := r.rooms.remove(ctx, c, id, ifVersion)
	if err != nil {
		return err
	}
	return r.unindex(ctx, c.OrgID, id, room.WorldID, room.Participants...)
}

// Participants returns the entity ids taking part in room id as c sees
// it. Errors: ENOTFOUND.
func (r *Registry) Participants(ctx context.Context, c memory.Caller, roomID string) ([]string, error) {
	room, err := r.rooms.get(ctx, c, roomID)
	if err != nil {
		return nil, err
	}
	if room.Participants == nil {
		return []string{}, nil
	}
	return room.Participants, nil
}

// AddParticipant records that entityID takes part in room roomID, and
// returns the room; adding a participant again changes nothing. Errors:
// ENOTFOUND (the room), EINVALID, EFORBIDDEN, ECONFLICT (the room has
// memory.MaxParticipants already).
func (r *Registry) AddParticipant(ctx context.Context, c memory.Caller, roomID, entityID string) (*memory.Room, error) {
	if err := checkID("entityId", entityID); err != nil {
		return nil, err
	}
	indexed := false
	_, room, err := r.rooms.update(ctx, c, roomID, 0, r.millis, func(old, room *memory.Room) error {
		if slices.Contains(old.Participants, entityID) {
			return errUnchanged
		}
		if len(old.Participants) >= memory.MaxParticipants {
			return memory.Errorf(memory.ECONFLICT, "participants: room %q has %d participants, the limit", roomID, memory.MaxParticipants)
		}
		room.Participants = append(slices.Clip(old.Participants), entityID)
		if indexed {
			return nil
		}
		indexed = true
		return r.index(ctx, c.OrgID, roomID, "", entityID)
	})
	return room, err
}

// RemoveParticipant records that entityID no longer takes part in room
// roomID, and returns the room. Errors: ENOTFOUND (the room, or entityID
// is not a participant), EINVALID, EFORBIDDEN.
func (r *Registry) RemoveParticipant(ctx context.Context, c memory.Caller, roomID, entityID string) (*memory.Room, error) {
	if err := checkID("entityId", entityID); err != nil {
		return nil, err
	}
	_, room, err := r.rooms.update(ctx, c, roomID, 0, r.millis, func(old, room *memory.Room) error {
		i := slices.Index(old.Participants, entityID)
		if i < 0 {
			return memory.Errorf(memory.ENOTFOUND, "entity %q does not take part in room %q", entityID, roomID)
		}
		room.Participants = slices.Delete(slices.Clone(old.Participants), i, i+1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return room, r.unindex(ctx, c.OrgID, roomID, "", entityID)
}

// Room implements memory.RoomDirectory: room id of org, whoever it
// belongs to. Errors: ENOTFOUND, EINVALID.
func (r *Registry) Room(ctx context.Context, orgID, id string) (*memory.Room, error) {
	if err := (memory.Caller{OrgID: orgID}).Valid(); err != nil {
		return nil, err
	}
	if err := checkID("roomId", id); err != nil {
		return nil, err
	}
	return r.rooms.read(ctx, orgID, id)
}

// RoomsOf implements memory.RoomDirectory: up to limit rooms of org that
// entityID takes part in, in room id order, read through the entity's
// index (at most limit room reads when no entry is stale). Errors:
// EINVALID.
func (r *Registry) RoomsOf(ctx context.Context, orgID, entityID string, limit int) ([]*memory.Room, error) {
	if err := (memory.Caller{OrgID: orgID}).Valid(); err != nil {
		return nil, err
	}
	if err := checkID("entityId", entityID); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	rooms, _, err := r.indexed(ctx, orgID, kindRoomsOf+entityID, "", min(limit, MaxLimit), func(room *memory.Room) bool {
		return slices.Contains(room.Participants, entityID)
	})
	return rooms, err
}

// Join implements memory.RoomDirectory: entityID takes part in roomID of
// org from now on; a room the org does not have is created, org-wide, in
// worldID (which need not be registered: the world of a conversation is
// known before anyone registers it). Joining again changes nothing.
// Errors: EINVALID, ECONFLICT (the room is full).
func (r *Registry) Join(ctx context.Context, orgID, roomID, worldID, entityID string) error {
	c := memory.Caller{OrgID: orgID}
	if err := c.Valid(); err != nil {
		return err
	}
	if err := checkID("roomId", roomID); err != nil {
		return err
	}
	if err := memory.ValidID("worldId", worldID); err != nil {
		return err
	}
	if err := checkID("entityId", entityID); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		_, err := r.AddParticipant(ctx, c, roomID, entityID)
		if !memory.IsNotFound(err) {
			return err
		}
		err = r.createRoom(ctx, orgID, &memory.Room{ID: roomID, WorldID: worldID, Participants: []string{entityID}}, r.millis())
		if !memory.IsConflict(err) || attempt == maxUpdateAttempts {
			return err // created, or failed; a conflict is a room created meanwhile: join it
		}
		if err := retry.Wait(ctx, attempt, time.Millisecond, 64*time.Millisecond); err != nil {
			return err
		}
	}
}

// index writes the index entries of room roomID: its world's (worldID,
// when not "") and its participants'.
func (r *Registry) index(ctx context.Context, org, roomID, worldID string, participants ...string) error {
	return r.eachIndex(ctx, worldID, participants, func(ctx context.Context, kind string) error {
		_, err := r.records.PutRecord(ctx, org, kind, roomID, ref{RoomID: roomID}, 0)
		return err
	})
}

// unindex removes the index entries that index wrote.
func (r *Registry) unindex(ctx context.Context, org, roomID, worldID string, participants ...string) error {
	return r.eachIndex(ctx, worldID, participants, func(ctx context.Context, kind string) error {
		return r.records.DeleteRecord(ctx, org, kind, roomID)
	})
}

// eachIndex calls f with the index kind of worldID (when not "") and of
// each participant, a few at once; the first error cancels the rest.
func (r *Registry) eachIndex(ctx context.Context, worldID string, participants []string, f func(ctx context.Context, kind string) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(indexConcurrency)
	if worldID != "" {
		g.Go(func() error { return f(ctx, kindWorldRooms+worldID) })
	}
	for _, p := range participants {
		g.Go(func() error { return f(ctx, kindRoomsOf+p) })
	}
	return g.Wait()
}

// indexed reads up to limit rooms through the index kind, after the room
// id after, keeping those for which keep holds: an entry whose room is
// gone, or no longer holds what the entry says (keep), is stale and
// skipped. It returns the rooms and the cursor of the next page.
func (r *Registry) indexed(ctx context.Context, org, kind, after string, limit int, keep func(*memory.Room) bool) ([]*memory.Room, string, error) {
	out := []*memory.Room{}
	for range maxScanPages {
		recs, next, err := r.records.ListRecords(ctx, org, kind, after, limit-len(out))
		if err != nil {
			return nil, "", err
		}
		rooms := make([]*memory.Room, len(recs))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(indexConcurrency)
		for i, rec := range recs {
			g.Go(func() error {
				room, err := r.rooms.read(gctx, org, rec.ID)
				if memory.IsNotFound(err) {
					return nil
				}
				rooms[i] = room
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, "", err
		}
		for _, room := range rooms {
			if room != nil && keep(room) {
				out = append(out, room)
			}
		}
		after = next
		if next == "" || len(out) == limit {
			break
		}
	}
	return out, after, nil
}

// worldRooms is indexed for the rooms of world id, whoever they belong to.
func (r *Registry) worldRooms(ctx context.Context, org, id, after string, limit int) ([]*memory.Room, string, error) {
	return r.indexed(ctx, org, kindWorldRooms+id, after, limit, func(room *memory.Room) bool { return room.WorldID == id })
}
