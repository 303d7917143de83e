package memory

import (
	"sort"
	"strings"
)

// Visibility is who, inside an org, may read a memory. It is data: stored
// with the memory as its Audience and pushed down by every store, index
// and term index, so that a read acting for a room or an end user never
// loads what they may not see.
//
//   - shared: the whole org (ElizaOS "shared"; the old org scope);
//   - world: the rooms of one world (WorldID);
//   - room: one room (RoomID);
//   - user: one end user, an entity id (UserID), in every room they use;
//   - agent: one agent (AgentID; ElizaOS "private", the old agent scope).
//
// The agent dimension is kept apart: a room, world or user memory written
// by an agent-bound key also carries that agent's AgentID, so another
// agent's key never sees it (Caller.CanSee).
type Visibility string

// The visibilities.
const (
	VisibilityShared Visibility = "shared"
	VisibilityWorld  Visibility = "world"
	VisibilityRoom   Visibility = "room"
	VisibilityUser   Visibility = "user"
	VisibilityAgent  Visibility = "agent"
)

// Visibilities lists every valid Visibility.
var Visibilities = []Visibility{VisibilityShared, VisibilityWorld, VisibilityRoom, VisibilityUser, VisibilityAgent}

// visibilityAliases maps the names other APIs use to ours: ElizaOS's
// "private" and this API's older scope names "org" and "agent".
var visibilityAliases = map[string]Visibility{"private": VisibilityAgent, "org": VisibilityShared}

// ParseVisibility reads a visibility or one of its aliases ("private" for
// agent, "org" for shared); "" is no visibility given. field names the
// request field in the error.
func ParseVisibility(field, s string) (Visibility, error) {
	if s == "" {
		return "", nil
	}
	if v, ok := visibilityAliases[s]; ok {
		return v, nil
	}
	for _, v := range Visibilities {
		if string(v) == s {
			return v, nil
		}
	}
	return "", Errorf(EINVALID, "%s: %q is not one of %s (or private, org)", field, s, joinEnum(Visibilities))
}

// The audience keys. A memory's Audience is "" for shared and agent
// memories (the agent dimension decides those), or one of these prefixes
// followed by the id that its visibility names.
const (
	audienceWorld = "world:"
	audienceRoom  = "room:"
	audienceUser  = "user:"
)

// AudienceOf returns the audience key of a memory with visibility v and
// these ids: "" for shared and agent, "room:<roomID>", "world:<worldID>"
// or "user:<userID>" otherwise.
func AudienceOf(v Visibility, roomID, worldID, userID string) string {
	switch v {
	case VisibilityRoom:
		return audienceRoom + roomID
	case VisibilityWorld:
		return audienceWorld + worldID
	case VisibilityUser:
		return audienceUser + userID
	}
	return ""
}

// RoomAudience, WorldAudience and UserAudience are the audience keys of a
// room, a world and an end user.
func RoomAudience(id string) string  { return audienceRoom + id }
func WorldAudience(id string) string { return audienceWorld + id }
func UserAudience(id string) string  { return audienceUser + id }

// Audience is m's audience key (see AudienceOf). A memory stored before
// visibilities existed has none and reads as shared or agent by its
// AgentID, as it always did.
func (m *Memory) Audience() string { return AudienceOf(m.Visibility, m.RoomID, m.WorldID, m.UserID) }

// EffectiveVisibility is m's visibility, reading a memory stored before
// visibilities existed as shared (no agent) or agent.
func (m *Memory) EffectiveVisibility() Visibility {
	if m.Visibility != "" {
		return m.Visibility
	}
	if m.AgentID != "" {
		return VisibilityAgent
	}
	return VisibilityShared
}

// validVisibility checks that m's visibility names what it needs: a room,
// a world or a user id; an agent for agent; no agent for shared.
func (m *Memory) validVisibility() error {
	switch m.Visibility {
	case "":
		return nil
	case VisibilityShared:
		if m.AgentID != "" {
			return Errorf(EINVALID, "visibility: \"shared\" cannot be combined with agentId %q", m.AgentID)
		}
	case VisibilityAgent:
		if m.AgentID == "" {
			return Errorf(EINVALID, "visibility: \"agent\" needs an agent (agentId, or an agent key)")
		}
	case VisibilityRoom:
		if m.RoomID == "" {
			return Errorf(EINVALID, "visibility: \"room\" needs roomId")
		}
	case VisibilityWorld:
		if m.WorldID == "" {
			return Errorf(EINVALID, "visibility: \"world\" needs worldId")
		}
	case VisibilityUser:
		if m.UserID == "" {
			return Errorf(EINVALID, "visibility: \"user\" needs userId")
		}
	default:
		_, err := ParseVisibility("visibility", string(m.Visibility))
		return err
	}
	return nil
}

// DefaultVisibility is the visibility of a new memory whose writer named
// none: a message said in a room stays in that room; anything else keeps
// the scope rule it always had, the agent's when it has one, else shared.
func (m *Memory) DefaultVisibility() Visibility {
	switch {
	case m.Type == TypeMessage && m.RoomID != "":
		return VisibilityRoom
	case m.AgentID != "":
		return VisibilityAgent
	}
	return VisibilityShared
}

// Inherit gives d, a memory derived from srcs (a fact, a summary, a
// knowledge description), a visibility no wider than its sources', so that
// nobody reads d who may not read each source:
//
//   - sources in one room, of which exactly one end user (UserID) said
//     some: d is that user's. What Bob says is Bob's, in every room he
//     uses and to nobody else; Bob takes part in the room, so he may read
//     every source.
//   - sources that share one audience: d takes it (and its ids).
//   - sources of one room said by several users: d stays in that room.
//
// Otherwise no single visibility is narrower than each source's, Inherit
// reports false, and d must not be written as one memory. For a shared or
// agent result d keeps its AgentID, which the writer sets as before.
func (d *Memory) Inherit(srcs ...*Memory) bool {
	if len(srcs) == 0 {
		return true
	}
	users := map[string]bool{}
	sameRoom, sameAudience := true, true
	for _, s := range srcs {
		if s.UserID != "" {
			users[s.UserID] = true
		}
		sameRoom = sameRoom && s.RoomID == srcs[0].RoomID
		sameAudience = sameAudience && s.Audience() == srcs[0].Audience() && s.AgentID == srcs[0].AgentID
	}
	first := srcs[0]
	switch {
	case len(users) == 1 && sameRoom:
		for u := range users {
			d.Visibility, d.UserID = VisibilityUser, u
		}
		d.RoomID, d.WorldID = first.RoomID, first.WorldID
	case sameAudience:
		d.Visibility = first.EffectiveVisibility()
		d.RoomID, d.WorldID, d.UserID = first.RoomID, first.WorldID, first.UserID
		if d.Visibility == VisibilityShared || d.Visibility == VisibilityAgent {
			d.Visibility = ""
		}
	case sameRoom && first.RoomID != "":
		d.Visibility, d.RoomID, d.WorldID = VisibilityRoom, first.RoomID, first.WorldID
	default:
		return false
	}
	for _, s := range srcs {
		if !d.MayHold(s) { // one user's own turn among a room's several
			return false
		}
	}
	return true
}

// ReaderAudiences returns the audience keys that every reader of m sees,
// sorted: a room memory's readers see the room and its world; an end
// user's see the user, and the room and world the memory was said in
// (the user takes part in them, as Inherit holds); a world memory's see
// the world. It is empty, not nil, for shared and agent memories, whose
// readers share no audience: as a Filter's Audiences it lets through only
// memories without one.
func (m *Memory) ReaderAudiences() []string {
	var a Acting
	switch m.Visibility {
	case VisibilityRoom:
		a = Acting{RoomID: m.RoomID, WorldID: m.WorldID}
	case VisibilityUser:
		a = Acting{UserID: m.UserID, RoomID: m.RoomID, WorldID: m.WorldID}
	case VisibilityWorld:
		a = Acting{WorldID: m.WorldID}
	}
	return a.Audiences()
}

// MayHold reports whether every reader of d may also read src, so that d
// may carry src's text: a message's Context (the turn before it, see
// ReaderAudiences), a fact drawn from turns (Inherit). Alice's turn that
// only she may read is never the context of Bob's reply that the room
// reads. The agent dimension is the writer's (Caller's scope rules), not
// decided here.
func (d *Memory) MayHold(src *Memory) bool {
	a := src.Audience()
	if a == "" {
		return true
	}
	for _, r := range d.ReaderAudiences() {
		if r == a {
			return true
		}
	}
	return false
}

// Acting is whom a read serves: the conversation (a room, and the world it
// belongs to) and the end user. A read that names either sees shared and
// agent memories (as its key allows), and only the room, world and user
// memories of the audiences Acting names. Nil Acting is an org key's admin
// view, which sees every audience.
type Acting struct {
	// UserID is the end user served, an entity id.
	UserID string `json:"userId,omitempty"`
	// RoomID is the conversation served.
	RoomID string `json:"roomId,omitempty"`
	// WorldID is the world served: the room's, or named by the request.
	WorldID string `json:"worldId,omitempty"`
	// Rooms are the other rooms the user takes part in (the room
	// registry's participants), read when no room is named so that a user
	// sees their own conversations; resolved by the service.
	Rooms []string `json:"-"`
	// Worlds are the worlds of Rooms, resolved with them.
	Worlds []string `json:"-"`
}

// MaxActingRooms bounds how many rooms a user's reads resolve (Acting.Rooms).
const MaxActingRooms = 200

// Empty reports whether a names nobody.
func (a *Acting) Empty() bool {
	return a == nil || (a.UserID == "" && a.RoomID == "" && a.WorldID == "")
}

// Validate checks a's ids.
func (a *Acting) Validate() error {
	if a == nil {
		return nil
	}
	for _, p := range []struct{ name, v string }{{"userId", a.UserID}, {"roomId", a.RoomID}, {"worldId", a.WorldID}} {
		if err := ValidID(p.name, p.v); err != nil {
			return err
		}
	}
	return nil
}

// Audiences returns the audience keys that a sees, sorted and distinct:
// its user's, its room's, its world's, and the rooms and worlds it
// resolved. Nil for a nil Acting (every audience).
func (a *Acting) Audiences() []string {
	if a == nil {
		return nil
	}
	set := map[string]bool{}
	if a.UserID != "" {
		set[UserAudience(a.UserID)] = true
	}
	if a.RoomID != "" {
		set[RoomAudience(a.RoomID)] = true
	}
	if a.WorldID != "" {
		set[WorldAudience(a.WorldID)] = true
	}
	for _, r := range a.Rooms {
		set[RoomAudience(r)] = true
	}
	for _, w := range a.Worlds {
		set[WorldAudience(w)] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Narrow applies a request's acting fields (req) to a's binding, which
// comes from the credentials (an end-user token): a field the binding sets
// may be repeated but never changed, so a request can narrow a binding
// and never widen it. A nil binding takes the request as it is.
func (a *Acting) Narrow(req Acting) (*Acting, error) {
	if a == nil {
		if req.Empty() {
			return nil, nil
		}
		r := req
		r.Rooms, r.Worlds = nil, nil
		return &r, nil
	}
	out := *a
	for _, p := range []struct {
		name       string
		bound, got string
		set        *string
	}{
		{"userId", a.UserID, req.UserID, &out.UserID},
		{"roomId", a.RoomID, req.RoomID, &out.RoomID},
		{"worldId", a.WorldID, req.WorldID, &out.WorldID},
	} {
		switch {
		case p.got == "" || p.got == p.bound:
		case p.bound != "":
			return nil, Errorf(EFORBIDDEN, "%s: this token is bound to %s %q", p.name, strings.TrimSuffix(p.name, "Id"), p.bound)
		default:
			*p.set = p.got // narrowing within the binding; the service checks that the user takes part
		}
	}
	out.Rooms, out.Worlds = nil, nil
	return &out, nil
}
