package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Create stores one memory. A duplicate (same content, or the same
// ExternalID, in the scope) returns the existing id with Duplicate set.
func (c *Client) Create(ctx context.Context, m NewMemory, opts ...RequestOptions) (CreateResult, error) {
	var out CreateResult
	_, err := c.do(ctx, call{op: "client.Create", write: true, method: http.MethodPost, path: "/v1/memories", body: m, opts: first(opts)}, &out)
	return out, err
}

// CreateBatch stores up to 100 memories, all or nothing; the results are
// in the order given.
func (c *Client) CreateBatch(ctx context.Context, ms []NewMemory, opts ...RequestOptions) ([]CreateResult, error) {
	var out struct {
		Memories []CreateResult `json:"memories"`
	}
	body := struct {
		Memories []NewMemory `json:"memories"`
	}{ms}
	_, err := c.do(ctx, call{op: "client.CreateBatch", write: true, method: http.MethodPost, path: "/v1/memories", body: body, opts: first(opts)}, &out)
	return out.Memories, err
}

// PutByKey creates or replaces the memory whose ExternalID is key in the
// caller's scope (PUT /v1/memories/by-key/{key}); created reports whether
// it was new. Servers without the route answer not_found or
// method_not_allowed.
func (c *Client) PutByKey(ctx context.Context, key string, m NewMemory, opts ...RequestOptions) (mem *Memory, created bool, err error) {
	if key == "" {
		return nil, false, fmt.Errorf("client.PutByKey: key: required")
	}
	var raw json.RawMessage
	res, err := c.do(ctx, call{op: "client.PutByKey", method: http.MethodPut, path: "/v1/memories/by-key/" + url.PathEscape(key), body: m, opts: first(opts)}, &raw)
	if err != nil {
		return nil, false, err
	}
	mem, created, err = decodePut(raw, res.status)
	if err != nil {
		return nil, false, fmt.Errorf("client.PutByKey: decoding the response: %w", err)
	}
	if mem.ContentHash == "" && mem.Content.Text == "" && mem.ID != "" {
		// The answer named the memory without showing it.
		if mem, err = c.Get(ctx, mem.ID); err != nil {
			return nil, false, err
		}
	}
	return mem, created, nil
}

// GetByKey returns the memory whose ExternalID is key in the caller's
// scope (GET /v1/memories/by-key/{key}).
func (c *Client) GetByKey(ctx context.Context, key string) (*Memory, error) {
	if key == "" {
		return nil, fmt.Errorf("client.GetByKey: key: required")
	}
	return send[Memory](ctx, c, call{op: "client.GetByKey", method: http.MethodGet, path: "/v1/memories/by-key/" + url.PathEscape(key)})
}

// DeleteByKey deletes the memory whose ExternalID is key in the caller's
// scope.
func (c *Client) DeleteByKey(ctx context.Context, key string) error {
	if key == "" {
		return fmt.Errorf("client.DeleteByKey: key: required")
	}
	_, err := c.do(ctx, call{op: "client.DeleteByKey", method: http.MethodDelete, path: "/v1/memories/by-key/" + url.PathEscape(key)}, nil)
	return err
}

// decodePut reads a put's answer: the memory, bare or as {"memory": ...},
// or a create result; created is a 201, or the body's "created".
func decodePut(raw json.RawMessage, status int) (*Memory, bool, error) {
	var wrapped struct {
		Memory  *Memory `json:"memory"`
		Created *bool   `json:"created"`
	}
	if err := json.Unmarshal(raw, &wrapped); err != nil {
		return nil, false, err
	}
	created := status == http.StatusCreated
	if wrapped.Created != nil {
		created = *wrapped.Created
	}
	if wrapped.Memory != nil {
		return wrapped.Memory, created, nil
	}
	var m Memory
	err := json.Unmarshal(raw, &m)
	return &m, created, err
}

// Get returns memory id. Another org's or another agent's memory is
// not_found, as a missing one.
func (c *Client) Get(ctx context.Context, id string) (*Memory, error) {
	var out Memory
	if _, err := c.do(ctx, call{op: "client.Get", method: http.MethodGet, path: "/v1/memories/" + url.PathEscape(id)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update applies p to memory id and returns the memory as updated. With
// RequestOptions.IfMatch it applies only over that version; a stale one
// fails with an error IsStale reports.
func (c *Client) Update(ctx context.Context, id string, p Patch, opts ...RequestOptions) (*Memory, error) {
	var out Memory
	if _, err := c.do(ctx, call{op: "client.Update", method: http.MethodPatch, path: "/v1/memories/" + url.PathEscape(id), body: p, opts: first(opts)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete deletes memory id and everything derived from it.
func (c *Client) Delete(ctx context.Context, id string) error {
	_, err := c.do(ctx, call{op: "client.Delete", method: http.MethodDelete, path: "/v1/memories/" + url.PathEscape(id)}, nil)
	return err
}

// Revision is one version of a memory: the operation that wrote it
// (create, update, import, redact, archive, restore), when (ms since the
// epoch), by whom, and the memory as it left it.
type Revision struct {
	Version int64      `json:"version"`
	Op      string     `json:"op"`
	At      int64      `json:"at"`
	By      RevisionBy `json:"by"`
	Memory  *Memory    `json:"memory,omitempty"`
}

// RevisionBy is who made a change: the key's id (never the key) and its
// agent; empty for the service's own pipelines.
type RevisionBy struct {
	KeyID   string `json:"keyId,omitempty"`
	AgentID string `json:"agentId,omitempty"`
}

// MemoryHistory is each version of a memory, oldest first.
type MemoryHistory struct {
	ID       string     `json:"id"`
	Versions []Revision `json:"versions"`
}

// MemoryHistory returns the versions of memory id, oldest first.
func (c *Client) MemoryHistory(ctx context.Context, id string) (*MemoryHistory, error) {
	return send[MemoryHistory](ctx, c, call{op: "client.MemoryHistory", method: http.MethodGet, path: "/v1/memories/" + url.PathEscape(id) + "/history"})
}

// DeleteWhere deletes every memory f selects (at least one field must be
// set) and returns how many went.
func (c *Client) DeleteWhere(ctx context.Context, f Filter) (int, error) {
	var out struct {
		Deleted int `json:"deleted"`
	}
	_, err := c.do(ctx, call{op: "client.DeleteWhere", method: http.MethodDelete, path: "/v1/memories", query: f.values()}, &out)
	return out.Deleted, err
}

// List returns one page of the memories opts select, newest first.
func (c *Client) List(ctx context.Context, opts ListOptions) (*MemoryPage, error) {
	q := opts.Filter.values()
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	if opts.Cursor != "" {
		q.Set("cursor", opts.Cursor)
	}
	if opts.Unique {
		q.Set("unique", "true")
	}
	var out MemoryPage
	if _, err := c.do(ctx, call{op: "client.List", method: http.MethodGet, path: "/v1/memories", query: q}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Memories iterates over every memory opts select, newest first, reading
// page after page (opts.Limit per page) as the loop goes on. An error ends
// the iteration after it is yielded.
func (c *Client) Memories(ctx context.Context, opts ListOptions) iter.Seq2[*Memory, error] {
	return func(yield func(*Memory, error) bool) {
		for {
			page, err := c.List(ctx, opts)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, m := range page.Memories {
				if !yield(m, nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			opts.Cursor = page.NextCursor
		}
	}
}

// Count counts the memories f selects.
func (c *Client) Count(ctx context.Context, f Filter) (int, error) {
	var out struct {
		Count int `json:"count"`
	}
	_, err := c.do(ctx, call{op: "client.Count", method: http.MethodGet, path: "/v1/memories/count", query: f.values()}, &out)
	return out.Count, err
}

// values is f as query parameters.
func (f Filter) values() url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("type", strings.Join(f.Type, ","))
	set("kind", strings.Join(f.Kind, ","))
	set("roomId", f.RoomID)
	set("worldId", f.WorldID)
	set("userId", f.UserID)
	set("sessionKey", f.SessionKey)
	set("entityId", f.EntityID)
	set("sessionId", f.SessionID)
	set("agentId", f.AgentID)
	set("documentId", f.DocumentID)
	set("durability", f.Durability)
	for k, vs := range f.Metadata {
		q["metadata."+k] = vs // repeated for "in"
	}
	if f.Start != 0 {
		q.Set("start", strconv.FormatInt(f.Start, 10))
	}
	if f.End != 0 {
		q.Set("end", strconv.FormatInt(f.End, 10))
	}
	if f.IncludeArchived {
		q.Set("includeArchived", "true")
	}
	return q
}

// first returns the first of opts, or the zero options.
func first(opts []RequestOptions) RequestOptions {
	if len(opts) > 0 {
		return opts[0]
	}
	return RequestOptions{}
}
