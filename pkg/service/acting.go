package service

import (
	"context"
	"slices"

	"github.com/agentmem/agentmem/pkg/memory"
)

// WithRoomDirectory lets the service resolve whom a read serves from the
// room registry (a room's world, the rooms a user takes part in) and
// record who takes part in a room when an end user's message is written.
func WithRoomDirectory(d memory.RoomDirectory) Option { return func(s *Service) { s.rooms = d } }

// Act returns c acting for req: the room, world and end user a read names
// (its roomId, worldId and userId), applied to what c's credentials bind
// it to (an end-user token's binding, which a request narrows and never
// widens). Every read that c then makes (Caller.Bind, Caller.CanSee) sees
// shared and agent memories as its key allows, and the room, world and
// user memories of those audiences only. An org key that names nobody
// keeps the admin view.
//
// With a room directory:
//   - a named room brings its world; a worldId that is not the room's is
//     EINVALID;
//   - a user named without a room also sees the rooms they take part in,
//     and those rooms' worlds (at most memory.MaxActingRooms);
//   - a token bound to a user but not to a room may name a room only if
//     its user takes part in it, and a world only if it is that room's
//     (EFORBIDDEN otherwise).
func (s *Service) Act(ctx context.Context, c memory.Caller, req memory.Acting) (memory.Caller, error) {
	if err := req.Validate(); err != nil {
		return c, err
	}
	a, err := c.Binding.Narrow(req)
	if err != nil || a == nil {
		c.Acting = a
		return c, err
	}
	bound := c.Binding != nil
	if a.RoomID != "" {
		room, err := s.room(ctx, c.OrgID, a.RoomID)
		if err != nil {
			return c, err
		}
		if bound && c.Binding.RoomID == "" && (room == nil || !slices.Contains(room.Participants, c.Binding.UserID)) {
			return c, memory.Errorf(memory.EFORBIDDEN, "roomId: user %q of this token takes no part in room %q", c.Binding.UserID, a.RoomID)
		}
		if room != nil && room.WorldID != "" {
			switch {
			case a.WorldID == "":
				a.WorldID = room.WorldID
			case a.WorldID != room.WorldID:
				return c, memory.Errorf(memory.EINVALID, "worldId: room %q is in world %q, not %q", a.RoomID, room.WorldID, a.WorldID)
			}
		} else if bound && c.Binding.WorldID == "" && a.WorldID != "" {
			return c, memory.Errorf(memory.EFORBIDDEN, "worldId: this token is not bound to world %q", a.WorldID)
		}
	} else if bound && c.Binding.WorldID == "" && a.WorldID != "" {
		return c, memory.Errorf(memory.EFORBIDDEN, "worldId: this token is not bound to world %q", a.WorldID)
	}
	if a.UserID != "" && a.RoomID == "" && s.rooms != nil {
		rooms, err := s.rooms.RoomsOf(ctx, c.OrgID, a.UserID, memory.MaxActingRooms)
		if err != nil {
			return c, unavailable("room directory", err)
		}
		for _, r := range rooms {
			a.Rooms = append(a.Rooms, r.ID)
			if r.WorldID != "" && !slices.Contains(a.Worlds, r.WorldID) {
				a.Worlds = append(a.Worlds, r.WorldID)
			}
		}
	}
	c.Acting = a
	return c, nil
}

// room reads a room of the directory; nil when there is no directory or no
// such room (a room that was never registered still scopes its messages).
func (s *Service) room(ctx context.Context, orgID, id string) (*memory.Room, error) {
	if s.rooms == nil {
		return nil, nil
	}
	r, err := s.rooms.Room(ctx, orgID, id)
	if memory.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable("room directory", err)
	}
	return r, nil
}

// join records that the end users of new messages take part in their
// rooms, so that their later reads find those rooms (Act). A failure is
// logged: the messages are stored, and the user names the room to read it.
func (s *Service) join(ctx context.Context, ms []*memory.Memory) {
	if s.rooms == nil {
		return
	}
	seen := map[[2]string]bool{}
	for _, m := range ms {
		k := [2]string{m.RoomID, m.UserID}
		if m.Type != memory.TypeMessage || m.RoomID == "" || m.UserID == "" || seen[k] {
			continue
		}
		seen[k] = true
		if err := s.rooms.Join(ctx, m.OrgID, m.RoomID, m.WorldID, m.UserID); err != nil {
			s.log.WarnContext(ctx, "recording a room's participant failed", "op", "join", "org", m.OrgID, "room", m.RoomID, "err", err)
		}
	}
}
