package client

import (
	"context"
	"encoding/base64"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// Search ranks the memories the caller sees for req.Query.
func (c *Client) Search(ctx context.Context, req SearchRequest) (*SearchResponse, error) {
	var out SearchResponse
	if _, err := c.do(ctx, call{op: "client.Search", method: http.MethodPost, path: "/v1/search", body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Context assembles a prompt context for req.Query within the budget: core
// memories, the room's recent turns, then knowledge retrieved for the query.
func (c *Client) Context(ctx context.Context, req ContextRequest) (*PromptContext, error) {
	var out PromptContext
	if _, err := c.do(ctx, call{op: "client.Context", method: http.MethodPost, path: "/v1/context", body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// KnowledgeSearch runs a Structured RAG search: the memories whose
// extracted entities, topics and actions match, and those items.
func (c *Client) KnowledgeSearch(ctx context.Context, req KnowledgeSearchRequest) (*KnowledgeSearchResponse, error) {
	var out KnowledgeSearchResponse
	if _, err := c.do(ctx, call{op: "client.KnowledgeSearch", method: http.MethodPost, path: "/v1/knowledge/search", body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// KnowledgePrefetch prefetches a request being typed: the completions of
// its partial last word (unless Text ends with a space) and the memories
// of the terms it already names.
func (c *Client) KnowledgePrefetch(ctx context.Context, req KnowledgePrefetchRequest) (*KnowledgePrefetchResponse, error) {
	var out KnowledgePrefetchResponse
	if _, err := c.do(ctx, call{op: "client.KnowledgePrefetch", method: http.MethodPost, path: "/v1/knowledge/prefetch", body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AddMessages stores conversation turns (type message; EntityID, the
// speaker, required) and queues them for fact extraction. The POST's
// Idempotency-Key keys the turns without an ExternalID, so a retry stores
// nothing twice. PostMessages takes OpenAI-shaped turns and the fields
// shared by the whole conversation (room, end user).
func (c *Client) AddMessages(ctx context.Context, msgs []NewMemory, opts ...RequestOptions) (*MessagesResult, error) {
	turns := make([]Turn, len(msgs))
	for i, m := range msgs {
		turns[i] = m
	}
	return c.PostMessages(ctx, MessagesRequest{Messages: turns}, opts...)
}

// PostMessages stores a conversation's turns, in this API's shape
// (NewMemory) or OpenAI's (ChatMessage), mixed freely; req's RoomID,
// UserID and the rest apply to every turn that does not set its own, and
// the facts learnt from a conversation with a UserID are that user's.
// The turns are queued for fact extraction.
func (c *Client) PostMessages(ctx context.Context, req MessagesRequest, opts ...RequestOptions) (*MessagesResult, error) {
	if req.Messages == nil {
		req.Messages = []Turn{}
	}
	var out MessagesResult
	if _, err := c.do(ctx, call{op: "client.PostMessages", write: true, method: http.MethodPost, path: "/v1/messages", body: req, opts: first(opts)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UploadDocument ingests a document and returns its status (indexed,
// pending or failed).
func (c *Client) UploadDocument(ctx context.Context, d DocumentUpload, opts ...RequestOptions) (*Document, error) {
	body := struct {
		Name          string `json:"name"`
		Content       string `json:"content,omitempty"`
		ContentBase64 string `json:"contentBase64,omitempty"`
		Scope         string `json:"scope,omitempty"`
		AgentID       string `json:"agentId,omitempty"`
	}{Name: d.Name, Content: d.Content, Scope: d.Scope, AgentID: d.AgentID}
	if d.Data != nil {
		body.ContentBase64 = base64.StdEncoding.EncodeToString(d.Data)
	}
	var out Document
	if _, err := c.do(ctx, call{op: "client.UploadDocument", write: true, method: http.MethodPost, path: "/v1/documents", body: body, opts: first(opts)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Document returns document id's status.
func (c *Client) Document(ctx context.Context, id string) (*Document, error) {
	var out Document
	if _, err := c.do(ctx, call{op: "client.Document", method: http.MethodGet, path: "/v1/documents/" + url.PathEscape(id)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Documents returns a page of the documents the caller sees (limit 0: the
// server's default); pass the page's NextCursor as cursor for the next.
func (c *Client) Documents(ctx context.Context, limit int, cursor string) (*DocumentPage, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out DocumentPage
	if _, err := c.do(ctx, call{op: "client.Documents", method: http.MethodGet, path: "/v1/documents", query: q}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AllDocuments iterates over every document the caller sees, reading page
// after page (limit per page, 0: the server's default). An error ends the
// iteration after it is yielded.
func (c *Client) AllDocuments(ctx context.Context, limit int) iter.Seq2[Document, error] {
	return func(yield func(Document, error) bool) {
		cursor := ""
		for {
			page, err := c.Documents(ctx, limit, cursor)
			if err != nil {
				yield(Document{}, err)
				return
			}
			for _, d := range page.Documents {
				if !yield(d, nil) {
					return
				}
			}
			if cursor = page.NextCursor; cursor == "" {
				return
			}
		}
	}
}

// DeleteDocument deletes document id and its fragments.
func (c *Client) DeleteDocument(ctx context.Context, id string) error {
	_, err := c.do(ctx, call{op: "client.DeleteDocument", method: http.MethodDelete, path: "/v1/documents/" + url.PathEscape(id)}, nil)
	return err
}
