package client

import (
	"context"
	"net/http"
	"net/url"
)

// Agent state (docs/agent-state.md): memory blocks per workstream, edges
// between memories, and archived memories brought back.

// Workstream is a memory block: role-labelled notes, compacted past Limit.
// Its placement fields are a memory's (NewMemory).
type Workstream struct {
	ID          string  `json:"id"`
	Name        string  `json:"name,omitempty"`
	AgentID     string  `json:"agentId,omitempty"`
	Visibility  string  `json:"visibility"`
	RoomID      string  `json:"roomId,omitempty"`
	WorldID     string  `json:"worldId,omitempty"`
	UserID      string  `json:"userId,omitempty"`
	Limit       int     `json:"limit"`
	Entries     []Entry `json:"entries"`
	NextSeq     int64   `json:"nextSeq"`
	CompactedAt []int64 `json:"compactedAt,omitempty"`
	CreatedAt   int64   `json:"createdAt"`
	UpdatedAt   int64   `json:"updatedAt"`
	Version     int64   `json:"version"`
}

// WorkstreamBlock is a workstream with its compaction history (the last
// 100, oldest first).
type WorkstreamBlock struct {
	Workstream
	History []Compaction `json:"history"`
}

// Entry is one note of a block; Summary marks one a compaction wrote
// (Folded: the entries it stands for), Pinned one that says "remember".
type Entry struct {
	Seq        int64   `json:"seq"`
	Role       string  `json:"role"`
	Text       string  `json:"text"`
	Importance float64 `json:"importance"`
	At         int64   `json:"at"`
	Repeats    int     `json:"repeats,omitempty"`
	Summary    bool    `json:"summary,omitempty"`
	Folded     []int64 `json:"folded,omitempty"`
	Pinned     bool    `json:"pinned,omitempty"`
}

// Compaction is one compaction of a block: what it merged and folded,
// word for word, and the summary it wrote.
type Compaction struct {
	Version  int64   `json:"version"`
	At       int64   `json:"at"`
	Method   string  `json:"method"`
	Before   int     `json:"before"`
	After    int     `json:"after"`
	Merged   []Merge `json:"merged,omitempty"`
	Replaced []Entry `json:"replaced"`
	Summary  *Entry  `json:"summary,omitempty"`
}

// Merge is a duplicate entry merged into entry Into.
type Merge struct {
	Entry Entry `json:"entry"`
	Into  int64 `json:"into"`
}

// NewWorkstream is a workstream to create: ID is made when empty, Limit
// is 15 when 0; Scope, Visibility and the ids place it as a memory.
type NewWorkstream struct {
	ID         string `json:"id,omitempty"`
	Name       string `json:"name,omitempty"`
	Limit      int    `json:"limit,omitempty"`
	Scope      string `json:"scope,omitempty"`
	Visibility string `json:"visibility,omitempty"`
	AgentID    string `json:"agentId,omitempty"`
	RoomID     string `json:"roomId,omitempty"`
	WorldID    string `json:"worldId,omitempty"`
	UserID     string `json:"userId,omitempty"`
}

// NewEntry is a note to append; Importance nil is 0.5.
type NewEntry struct {
	Role       string   `json:"role"`
	Text       string   `json:"text"`
	Importance *float64 `json:"importance,omitempty"`
}

// WorkstreamList is a page of workstreams, without their entries' history.
type WorkstreamList struct {
	Workstreams []Workstream `json:"workstreams"`
	NextCursor  string       `json:"nextCursor,omitempty"`
}

// NewRelation is an edge to store between two memories the key sees;
// Confidence 0 is 1.
type NewRelation struct {
	FromID     string  `json:"fromId"`
	ToID       string  `json:"toId"`
	Type       string  `json:"type"`
	Confidence float64 `json:"confidence,omitempty"`
}

// CreateWorkstream creates a workstream.
func (c *Client) CreateWorkstream(ctx context.Context, w NewWorkstream, opts ...RequestOptions) (*WorkstreamBlock, error) {
	return send[WorkstreamBlock](ctx, c, call{op: "client.CreateWorkstream", write: true, method: http.MethodPost, path: "/v1/workstreams", body: w, opts: first(opts)})
}

// Acting names whom a read serves, as Filter.UserID, RoomID and WorldID do
// for the reads of memories: a block of a user, room or world audience is
// seen only by a read that serves it. The zero value names nobody (an
// org-level key keeps the admin view).
type Acting struct {
	UserID  string
	RoomID  string
	WorldID string
}

// set adds a's query parameters to q and returns it.
func (a Acting) set(q url.Values) url.Values {
	for k, v := range map[string]string{"userId": a.UserID, "roomId": a.RoomID, "worldId": a.WorldID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// firstActing is the optional Acting of a call: the first, or the zero
// value.
func firstActing(as []Acting) Acting {
	if len(as) > 0 {
		return as[0]
	}
	return Acting{}
}

// Workstream returns workstream id with its block and compaction history;
// as (optional) names whom the read serves.
func (c *Client) Workstream(ctx context.Context, id string, as ...Acting) (*WorkstreamBlock, error) {
	return send[WorkstreamBlock](ctx, c, call{op: "client.Workstream", method: http.MethodGet, path: item("/v1/workstreams", id),
		query: firstActing(as).set(url.Values{})})
}

// Workstreams returns one page of the workstreams the key sees; as
// (optional) names whom the read serves.
func (c *Client) Workstreams(ctx context.Context, p Page, as ...Acting) (*WorkstreamList, error) {
	return send[WorkstreamList](ctx, c, call{op: "client.Workstreams", method: http.MethodGet, path: "/v1/workstreams",
		query: firstActing(as).set(p.values())})
}

// DeleteWorkstream deletes workstream id and its history.
func (c *Client) DeleteWorkstream(ctx context.Context, id string) error {
	_, err := c.do(ctx, call{op: "client.DeleteWorkstream", method: http.MethodDelete, path: item("/v1/workstreams", id)}, nil)
	return err
}

// AppendEntry appends e to workstream id and returns the block as written
// (compacted when e took it past its limit).
func (c *Client) AppendEntry(ctx context.Context, id string, e NewEntry, opts ...RequestOptions) (*WorkstreamBlock, error) {
	return send[WorkstreamBlock](ctx, c, call{op: "client.AppendEntry", write: true, method: http.MethodPost,
		path: item("/v1/workstreams", id) + "/entries", body: e, opts: first(opts)})
}

// CreateRelation stores an edge between two memories and returns it with
// its id; creating it again replaces it.
func (c *Client) CreateRelation(ctx context.Context, r NewRelation, opts ...RequestOptions) (*Relation, error) {
	return send[Relation](ctx, c, call{op: "client.CreateRelation", write: true, method: http.MethodPost, path: "/v1/relations", body: r, opts: first(opts)})
}

// DeleteRelation deletes edge id.
func (c *Client) DeleteRelation(ctx context.Context, id string) error {
	_, err := c.do(ctx, call{op: "client.DeleteRelation", method: http.MethodDelete, path: item("/v1/relations", id)}, nil)
	return err
}

// Restore un-archives memory id and returns it.
func (c *Client) Restore(ctx context.Context, id string, opts ...RequestOptions) (*Memory, error) {
	return send[Memory](ctx, c, call{op: "client.Restore", write: true, method: http.MethodPost, path: item("/v1/memories", id) + "/restore", opts: first(opts)})
}

// Archive archives memory id (out of search and lists until Restore);
// reason "" is "archived by hand".
func (c *Client) Archive(ctx context.Context, id, reason string, opts ...RequestOptions) (*Memory, error) {
	body := struct {
		Reason string `json:"reason,omitempty"`
	}{reason}
	return send[Memory](ctx, c, call{op: "client.Archive", write: true, method: http.MethodPost, path: item("/v1/memories", id) + "/archive", body: body, opts: first(opts)})
}

// Relations returns the edges of memory id, both directions, whose other
// end the key sees.
func (c *Client) Relations(ctx context.Context, id string) ([]Relation, error) {
	out, err := send[struct {
		Relations []Relation `json:"relations"`
	}](ctx, c, call{op: "client.Relations", method: http.MethodGet, path: item("/v1/memories", id) + "/relations"})
	if err != nil {
		return nil, err
	}
	return out.Relations, nil
}
