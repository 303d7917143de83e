package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// The registries: the org's entities (an end user's UserID is an entity
// id), worlds and rooms, and each room's participants (ElizaOS's session
// model). An agent-bound key sees its agent's items and the org-wide
// ones, and changes its own only. Each item has a Version: pass it as
// RequestOptions.IfMatch to update or delete only over that version.

// Entity is a person, an agent or anything else the org knows by name.
type Entity struct {
	ID string `json:"id"`
	// AgentID is the agent the entity belongs to; empty for an org-wide one.
	AgentID string `json:"agentId,omitempty"`
	// Names: the first is the display name, the others aliases.
	Names     []string        `json:"names"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	CreatedAt int64           `json:"createdAt"`
	UpdatedAt int64           `json:"updatedAt"`
	Version   int64           `json:"version"`
}

// NewEntity is an entity to create; ID is made when empty.
type NewEntity struct {
	ID       string          `json:"id,omitempty"`
	Names    []string        `json:"names"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Scope "org" makes an org-wide item (org-level keys only), "agent"
	// the agent's (the default of an agent-bound key).
	Scope   string `json:"scope,omitempty"`
	AgentID string `json:"agentId,omitempty"`
}

// EntityPatch changes an entity; nil fields are left as they are.
type EntityPatch struct {
	Names    []string         `json:"names,omitempty"`
	Metadata *json.RawMessage `json:"metadata,omitempty"`
}

// World is a group of rooms (a server, a workspace).
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

// NewWorld is a world to create; ID is made when empty.
type NewWorld struct {
	ID string `json:"id,omitempty"`
	// Name and ServerID (the platform's id, a Discord guild) are optional.
	Name     string          `json:"name,omitempty"`
	ServerID string          `json:"serverId,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Scope    string          `json:"scope,omitempty"`
	AgentID  string          `json:"agentId,omitempty"`
}

// WorldPatch changes a world; nil fields are left as they are, "" removes
// one.
type WorldPatch struct {
	Name     *string          `json:"name,omitempty"`
	ServerID *string          `json:"serverId,omitempty"`
	Metadata *json.RawMessage `json:"metadata,omitempty"`
}

// Room is one conversation (a channel, a DM, a thread), in at most one
// world, with the entities taking part.
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

// NewRoom is a room to create; ID is made when empty, WorldID must be a
// world the caller has.
type NewRoom struct {
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
	WorldID string `json:"worldId,omitempty"`
	// Source is where the conversation happens ("discord"), Type "DM",
	// "GROUP"...
	Source string `json:"source,omitempty"`
	Type   string `json:"type,omitempty"`
	// Participants are entity ids, registered or not.
	Participants []string        `json:"participants,omitempty"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
	Scope        string          `json:"scope,omitempty"`
	AgentID      string          `json:"agentId,omitempty"`
}

// RoomPatch changes a room; nil fields are left as they are, "" removes
// one (WorldID "" takes the room out of its world). Participants change
// with AddParticipant and RemoveParticipant.
type RoomPatch struct {
	Name     *string          `json:"name,omitempty"`
	WorldID  *string          `json:"worldId,omitempty"`
	Source   *string          `json:"source,omitempty"`
	Type     *string          `json:"type,omitempty"`
	Metadata *json.RawMessage `json:"metadata,omitempty"`
}

// Page selects one page of a registry listing: Limit items (0: the
// server's default of 100, at most 1000) after Cursor (a page's
// NextCursor).
type Page struct {
	Limit  int
	Cursor string
}

func (p Page) values() url.Values {
	q := url.Values{}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	return q
}

// EntityPage is one page of entities; NextCursor is empty on the last.
type EntityPage struct {
	Entities   []*Entity `json:"entities"`
	NextCursor string    `json:"nextCursor"`
}

// WorldPage is one page of worlds; NextCursor is empty on the last.
type WorldPage struct {
	Worlds     []*World `json:"worlds"`
	NextCursor string   `json:"nextCursor"`
}

// RoomPage is one page of rooms; NextCursor is empty on the last.
type RoomPage struct {
	Rooms      []*Room `json:"rooms"`
	NextCursor string  `json:"nextCursor"`
}

// Participants are a room's participants and its version.
type Participants struct {
	Participants []string `json:"participants"`
	Version      int64    `json:"version"`
}

// send is one registry call decoding its answer into a new T.
func send[T any](ctx context.Context, c *Client, cl call) (*T, error) {
	var out T
	if _, err := c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// item is the path of one registry item.
func item(base, id string) string { return base + "/" + url.PathEscape(id) }

// CreateEntity registers an entity.
func (c *Client) CreateEntity(ctx context.Context, e NewEntity, opts ...RequestOptions) (*Entity, error) {
	return send[Entity](ctx, c, call{op: "client.CreateEntity", write: true, method: http.MethodPost, path: "/v1/entities", body: e, opts: first(opts)})
}

// Entity returns entity id.
func (c *Client) Entity(ctx context.Context, id string) (*Entity, error) {
	return send[Entity](ctx, c, call{op: "client.Entity", method: http.MethodGet, path: item("/v1/entities", id)})
}

// Entities returns one page of the entities the key sees.
func (c *Client) Entities(ctx context.Context, p Page) (*EntityPage, error) {
	return send[EntityPage](ctx, c, call{op: "client.Entities", method: http.MethodGet, path: "/v1/entities", query: p.values()})
}

// UpdateEntity applies p to entity id (only over opts' IfMatch version
// when given).
func (c *Client) UpdateEntity(ctx context.Context, id string, p EntityPatch, opts ...RequestOptions) (*Entity, error) {
	return send[Entity](ctx, c, call{op: "client.UpdateEntity", method: http.MethodPatch, path: item("/v1/entities", id), body: p, opts: first(opts)})
}

// DeleteEntity deletes entity id (only over opts' IfMatch version when
// given).
func (c *Client) DeleteEntity(ctx context.Context, id string, opts ...RequestOptions) error {
	_, err := c.do(ctx, call{op: "client.DeleteEntity", method: http.MethodDelete, path: item("/v1/entities", id), opts: first(opts)}, nil)
	return err
}

// CreateWorld registers a world.
func (c *Client) CreateWorld(ctx context.Context, w NewWorld, opts ...RequestOptions) (*World, error) {
	return send[World](ctx, c, call{op: "client.CreateWorld", write: true, method: http.MethodPost, path: "/v1/worlds", body: w, opts: first(opts)})
}

// World returns world id.
func (c *Client) World(ctx context.Context, id string) (*World, error) {
	return send[World](ctx, c, call{op: "client.World", method: http.MethodGet, path: item("/v1/worlds", id)})
}

// Worlds returns one page of the worlds the key sees.
func (c *Client) Worlds(ctx context.Context, p Page) (*WorldPage, error) {
	return send[WorldPage](ctx, c, call{op: "client.Worlds", method: http.MethodGet, path: "/v1/worlds", query: p.values()})
}

// UpdateWorld applies p to world id.
func (c *Client) UpdateWorld(ctx context.Context, id string, p WorldPatch, opts ...RequestOptions) (*World, error) {
	return send[World](ctx, c, call{op: "client.UpdateWorld", method: http.MethodPatch, path: item("/v1/worlds", id), body: p, opts: first(opts)})
}

// DeleteWorld deletes world id.
func (c *Client) DeleteWorld(ctx context.Context, id string, opts ...RequestOptions) error {
	_, err := c.do(ctx, call{op: "client.DeleteWorld", method: http.MethodDelete, path: item("/v1/worlds", id), opts: first(opts)}, nil)
	return err
}

// CreateRoom registers a room.
func (c *Client) CreateRoom(ctx context.Context, r NewRoom, opts ...RequestOptions) (*Room, error) {
	return send[Room](ctx, c, call{op: "client.CreateRoom", write: true, method: http.MethodPost, path: "/v1/rooms", body: r, opts: first(opts)})
}

// Room returns room id.
func (c *Client) Room(ctx context.Context, id string) (*Room, error) {
	return send[Room](ctx, c, call{op: "client.Room", method: http.MethodGet, path: item("/v1/rooms", id)})
}

// Rooms returns one page of the rooms the key sees, of worldID only when
// it is not empty.
func (c *Client) Rooms(ctx context.Context, worldID string, p Page) (*RoomPage, error) {
	q := p.values()
	if worldID != "" {
		q.Set("worldId", worldID)
	}
	return send[RoomPage](ctx, c, call{op: "client.Rooms", method: http.MethodGet, path: "/v1/rooms", query: q})
}

// UpdateRoom applies p to room id.
func (c *Client) UpdateRoom(ctx context.Context, id string, p RoomPatch, opts ...RequestOptions) (*Room, error) {
	return send[Room](ctx, c, call{op: "client.UpdateRoom", method: http.MethodPatch, path: item("/v1/rooms", id), body: p, opts: first(opts)})
}

// DeleteRoom deletes room id.
func (c *Client) DeleteRoom(ctx context.Context, id string, opts ...RequestOptions) error {
	_, err := c.do(ctx, call{op: "client.DeleteRoom", method: http.MethodDelete, path: item("/v1/rooms", id), opts: first(opts)}, nil)
	return err
}

// Participants returns room id's participants.
func (c *Client) Participants(ctx context.Context, roomID string) (*Participants, error) {
	return send[Participants](ctx, c, call{op: "client.Participants", method: http.MethodGet, path: item("/v1/rooms", roomID) + "/participants"})
}

// AddParticipant adds entityID to room roomID's participants and returns
// them.
func (c *Client) AddParticipant(ctx context.Context, roomID, entityID string, opts ...RequestOptions) (*Participants, error) {
	body := struct {
		EntityID string `json:"entityId"`
	}{entityID}
	return send[Participants](ctx, c, call{op: "client.AddParticipant", write: true, method: http.MethodPost,
		path: item("/v1/rooms", roomID) + "/participants", body: body, opts: first(opts)})
}

// RemoveParticipant removes entityID from room roomID's participants and
// returns those left.
func (c *Client) RemoveParticipant(ctx context.Context, roomID, entityID string) (*Participants, error) {
	return send[Participants](ctx, c, call{op: "client.RemoveParticipant", method: http.MethodDelete,
		path: item("/v1/rooms", roomID) + "/participants/" + url.PathEscape(entityID)})
}
