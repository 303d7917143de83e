package memory

import (
	"context"
	"encoding/json"
)

// EntityProfile is a person, an agent or anything else an org knows by name
// (ElizaOS's entity): an end user's userId is an entity id. Names are what
// knowledge extraction resolves speakers and mentions by, the first being
// the display name.
type EntityProfile struct {
	ID        string          `json:"id"`
	AgentID   string          `json:"agentId,omitempty"`
	Names     []string        `json:"names"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	CreatedAt int64           `json:"createdAt"`
	UpdatedAt int64           `json:"updatedAt"`
	Version   int64           `json:"version"`
}

// World is a group of rooms (ElizaOS's world: a server, a workspace).
type World struct {
	ID        string          `json:"id"`
	AgentID   string          `json:"agentId,omitempty"`
	Name      string          `json:"name,omitempty"`
	ServerID  string          `json:"serverId,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	CreatedAt int64           `json:"createdAt"`
	UpdatedAt int64           `json:"updatedAt"`
	Version   int64           `json:"version"`
}

// Room is one conversation (ElizaOS's room: a channel, a DM, a thread),
// in at most one world, with the entities that take part in it.
type Room struct {
	ID           string          `json:"id"`
	AgentID      string          `json:"agentId,omitempty"`
	Name         string          `json:"name,omitempty"`
	WorldID      string          `json:"worldId,omitempty"`
	Source       string          `json:"source,omitempty"`
	Type         string          `json:"type,omitempty"`
	Participants []string        `json:"participants,omitempty"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
	CreatedAt    int64           `json:"createdAt"`
	UpdatedAt    int64           `json:"updatedAt"`
	Version      int64           `json:"version"`
}

// MaxParticipants bounds a room's participants.
const MaxParticipants = 1000

// RoomDirectory is what the service reads of the room registry to resolve
// whom a read serves (Acting): a room's world, and the rooms a user takes
// part in. Both are scoped to one org.
type RoomDirectory interface {
	// Room returns one room; ENOTFOUND if the org has no such room.
	Room(ctx context.Context, orgID, id string) (*Room, error)
	// RoomsOf returns up to limit rooms that entityID takes part in.
	RoomsOf(ctx context.Context, orgID, entityID string, limit int) ([]*Room, error)
	// Join records that entityID takes part in roomID, creating the room
	// (in worldID, if given) when the org has none of that id. Idempotent.
	Join(ctx context.Context, orgID, roomID, worldID, entityID string) error
}
