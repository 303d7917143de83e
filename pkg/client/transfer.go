package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// ForgetRequest is an erasure request: the memories matching every field
// given are deleted, with what was drawn from them. At least one of
// Entity, SessionID, RoomID, Start, End is required. Start and End are
// milliseconds since the epoch.
type ForgetRequest struct {
	// Entity is an entity's name.
	Entity    string `json:"entity,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	RoomID    string `json:"roomId,omitempty"`
	Start     int64  `json:"start,omitempty"`
	End       int64  `json:"end,omitempty"`
	// AgentID narrows an org-level key's erasure to one agent, or to the
	// org scope with "_org".
	AgentID string `json:"agentId,omitempty"`
}

// ForgetReport is what an erasure removed, and the audit entry recording it.
type ForgetReport struct {
	Matched           int            `json:"matched"`
	Memories          int            `json:"memories"`
	Facts             int            `json:"facts"`
	ContextsRewritten int            `json:"contextsRewritten"`
	ReferencesRemoved int            `json:"referencesRemoved"`
	ByType            map[string]int `json:"byType"`
	Relations         int            `json:"relations"`
	KnowledgeRefs     int            `json:"knowledgeRefs"`
	AuditID           string         `json:"auditId"`
}

// Forget erases what req selects (POST /v1/forget; grant delete).
func (c *Client) Forget(ctx context.Context, req ForgetRequest, opts ...RequestOptions) (*ForgetReport, error) {
	return send[ForgetReport](ctx, c, call{op: "client.Forget", method: http.MethodPost, path: "/v1/forget", body: req, opts: first(opts), write: true})
}

// ImportCounts counts one kind of import line by outcome.
type ImportCounts struct {
	Created   int `json:"created"`
	Existing  int `json:"existing"`
	Duplicate int `json:"duplicate,omitempty"`
	Failed    int `json:"failed"`
}

// ImportError is one line an import could not take.
type ImportError struct {
	Line    int    `json:"line"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ImportReport is what an import did.
type ImportReport struct {
	Lines           int           `json:"lines"`
	Memories        ImportCounts  `json:"memories"`
	Relations       ImportCounts  `json:"relations"`
	Records         ImportCounts  `json:"records"`
	Errors          []ImportError `json:"errors"`
	ErrorsTruncated bool          `json:"errorsTruncated,omitempty"`
}

// Import reads an export (NDJSON, as Export streams it) back into the
// key's org, idempotently (POST /v1/import; grant write). The whole of r
// is read first, so that a retry sends it again.
func (c *Client) Import(ctx context.Context, r io.Reader, opts ...RequestOptions) (*ImportReport, error) {
	const op = "client.Import"
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the export: %w", op, err)
	}
	if body == nil {
		body = []byte{}
	}
	return send[ImportReport](ctx, c, call{op: op, method: http.MethodPost, path: "/v1/import", ndjson: body, opts: first(opts), write: true})
}
