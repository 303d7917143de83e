package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// KnowledgeListOptions select a page of the extracted entities or topics
// (or the term completions): the Filter selects the memories they are
// drawn from (its RoomID, WorldID and UserID say whom the read serves),
// Filter.Type their memory types.
type KnowledgeListOptions struct {
	Filter
	// EntityType narrows entities to one type (person, city...).
	EntityType string
	// Prefix keeps the names (or terms) that start with it; Name one name
	// exactly.
	Prefix string
	Name   string
	// Limit is the page size, Cursor a page's NextCursor.
	Limit  int
	Cursor string
}

// KnowledgeListItem is one extracted entity or topic: how many times it
// is mentioned (Refs) in how many memories, and when first and last. Kind
// is entity, action, topic, tag, or sentence (a turn's topic sentence,
// which the topics list beside the noun-phrase topics).
type KnowledgeListItem struct {
	Kind     string   `json:"kind"`
	Name     string   `json:"name"`
	Types    []string `json:"types,omitempty"`
	Facets   []Facet  `json:"facets,omitempty"`
	Refs     int      `json:"refs"`
	Memories int      `json:"memories"`
	FirstAt  int64    `json:"firstAt,omitempty"`
	LastAt   int64    `json:"lastAt,omitempty"`
}

// KnowledgeListPage is one page of entities or topics; NextCursor is empty
// on the last.
type KnowledgeListPage struct {
	Items      []KnowledgeListItem
	NextCursor string
}

// TermHint is a term completion and how many memories hold it.
type TermHint struct {
	Term  string `json:"term"`
	Count int    `json:"count"`
	Kind  string `json:"kind,omitempty"`
	Role  string `json:"role,omitempty"`
}

// values is o as query parameters: the listings name the memories' type
// memoryType (type is the entity type).
func (o KnowledgeListOptions) values() url.Values {
	q := o.Filter.values()
	q.Del("type")
	if len(o.Filter.Type) > 0 {
		q.Set("memoryType", strings.Join(o.Filter.Type, ","))
	}
	for k, v := range map[string]string{"type": o.EntityType, "prefix": o.Prefix, "name": o.Name, "cursor": o.Cursor} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	return q
}

// KnowledgeEntities returns a page of the entities extracted from the
// memories o selects, most mentioned first.
func (c *Client) KnowledgeEntities(ctx context.Context, o KnowledgeListOptions) (*KnowledgeListPage, error) {
	var out struct {
		Entities   []KnowledgeListItem `json:"entities"`
		NextCursor string              `json:"nextCursor"`
	}
	if _, err := c.do(ctx, call{op: "client.KnowledgeEntities", method: http.MethodGet, path: "/v1/knowledge/entities", query: o.values()}, &out); err != nil {
		return nil, err
	}
	return &KnowledgeListPage{Items: out.Entities, NextCursor: out.NextCursor}, nil
}

// KnowledgeTopics returns a page of the topics extracted from the
// memories o selects (o.EntityType is not used).
func (c *Client) KnowledgeTopics(ctx context.Context, o KnowledgeListOptions) (*KnowledgeListPage, error) {
	o.EntityType = ""
	var out struct {
		Topics     []KnowledgeListItem `json:"topics"`
		NextCursor string              `json:"nextCursor"`
	}
	if _, err := c.do(ctx, call{op: "client.KnowledgeTopics", method: http.MethodGet, path: "/v1/knowledge/topics", query: o.values()}, &out); err != nil {
		return nil, err
	}
	return &KnowledgeListPage{Items: out.Topics, NextCursor: out.NextCursor}, nil
}

// KnowledgeTerms completes o.Prefix with the terms of the memories o
// selects (o.EntityType, o.Name and o.Cursor are not used).
func (c *Client) KnowledgeTerms(ctx context.Context, o KnowledgeListOptions) ([]TermHint, error) {
	o.EntityType, o.Name, o.Cursor = "", "", ""
	var out struct {
		Terms []TermHint `json:"terms"`
	}
	_, err := c.do(ctx, call{op: "client.KnowledgeTerms", method: http.MethodGet, path: "/v1/knowledge/terms", query: o.values()}, &out)
	return out.Terms, err
}

// KnowledgeStatus is how many of the org's memories wait for their
// knowledge (GET /v1/knowledge/status).
type KnowledgeStatus struct {
	Pending int  `json:"pending"` // counted up to 10,000
	More    bool `json:"more"`    // more than 10,000 wait
}

// KnowledgeStatus counts the org's memories whose knowledge extraction is
// pending (a bulk write left to the worker, a model's extraction to come).
// An org-level key only: the count spans the org (403 otherwise).
func (c *Client) KnowledgeStatus(ctx context.Context) (*KnowledgeStatus, error) {
	var out KnowledgeStatus
	if _, err := c.do(ctx, call{op: "client.KnowledgeStatus", method: http.MethodGet, path: "/v1/knowledge/status"}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ExportOptions select what Export streams: the org (an org-level key),
// or AgentID's scope; RoomID, WorldID and UserID say whom it serves, as
// for a read.
type ExportOptions struct {
	AgentID string
	RoomID  string
	WorldID string
	UserID  string
	// Embeddings includes each memory's embedding.
	Embeddings bool
}

// Export streams the memories (archived included), relations and
// document records o selects, one JSON object a line (each has a "kind":
// memory, relation, document; a failure after the stream began is a line
// of kind "error", yielded as an error). An error ends the iteration
// after it is yielded.
func (c *Client) Export(ctx context.Context, o ExportOptions) iter.Seq2[json.RawMessage, error] {
	const op = "client.Export"
	return func(yield func(json.RawMessage, error) bool) {
		q := Filter{RoomID: o.RoomID, WorldID: o.WorldID, UserID: o.UserID, AgentID: o.AgentID}.values()
		if o.Embeddings {
			q.Set("embeddings", "true")
		}
		cl := call{op: op, method: http.MethodGet, path: "/v1/export", query: q}
		target := c.base.String() + cl.path + "?" + q.Encode()
		var res *http.Response
		for attempt := 0; ; attempt++ {
			var err error
			if res, err = c.send(ctx, cl, target, nil, ""); err != nil {
				yield(nil, err)
				return
			}
			if res.StatusCode < 400 {
				break
			}
			body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
			res.Body.Close()
			if err := c.retryAfterError(ctx, op, attempt, parseError(op, res.StatusCode, res.Header, body)); err != nil {
				yield(nil, err)
				return
			}
		}
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if len(strings.TrimSpace(string(line))) == 0 {
				continue
			}
			var head struct {
				Kind    string `json:"kind"`
				Code    string `json:"code"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(line, &head); err != nil {
				yield(nil, fmt.Errorf("%s: decoding a line: %w", op, err))
				return
			}
			if head.Kind == "error" {
				yield(nil, &Error{Op: op, Status: res.StatusCode, Code: head.Code, Message: head.Message})
				return
			}
			if !yield(json.RawMessage(append([]byte(nil), line...)), nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(nil, fmt.Errorf("%s: reading the stream: %w", op, err))
		}
	}
}
