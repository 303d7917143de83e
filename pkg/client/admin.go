package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The calls about the key itself (Whoami), the document (OpenAPI), and the
// org's administration (/v1/admin: keys, usage, audit log, consolidation,
// extraction settings), the latter for org-level keys with the admin grant.

// Whoami is what the caller's key (or token) is bound to and may do.
type Whoami struct {
	OrgID string `json:"orgId"`
	// AgentID is the agent the key is bound to; empty for an org-level key.
	AgentID string   `json:"agentId,omitempty"`
	Grants  []string `json:"grants"`
	// Features are the optional endpoint groups the server serves
	// (documents, messages, knowledge, consolidation).
	Features map[string]bool `json:"features"`
	// Binding is the end user, room and world a token is bound to; nil for
	// an API key.
	Binding *WhoamiBinding `json:"binding,omitempty"`
}

// WhoamiBinding is what an end-user token is bound to.
type WhoamiBinding struct {
	UserID  string `json:"userId,omitempty"`
	RoomID  string `json:"roomId,omitempty"`
	WorldID string `json:"worldId,omitempty"`
}

// Whoami returns what the client's key is bound to and may do (any valid
// key may ask).
func (c *Client) Whoami(ctx context.Context) (*Whoami, error) {
	return send[Whoami](ctx, c, call{op: "client.Whoami", method: http.MethodGet, path: "/v1/whoami"})
}

// OpenAPI returns the server's OpenAPI document, as JSON.
func (c *Client) OpenAPI(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	if _, err := c.do(ctx, call{op: "client.OpenAPI", method: http.MethodGet, path: "/v1/openapi.json"}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// KeyRequest asks for a new API key of the org.
type KeyRequest struct {
	Name string `json:"name,omitempty"`
	// AgentID binds the key to one agent; empty for an org-level key.
	AgentID string `json:"agentId,omitempty"`
	// Grants are the key's grants (read, write, delete, delete:org, admin,
	// write:org); at least one.
	Grants []string `json:"grants"`
}

// APIKey is a stored key, without its secret.
type APIKey struct {
	ID      string   `json:"id"`
	OrgID   string   `json:"orgId"`
	AgentID string   `json:"agentId,omitempty"`
	Name    string   `json:"name,omitempty"`
	Grants  []string `json:"grants"`
	// Prefix is the start of the secret, to recognise a key.
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
}

// CreatedKey is a new key and its secret, shown once.
type CreatedKey struct {
	Key    APIKey `json:"key"`
	Secret string `json:"secret"`
}

// CreateKey creates an API key of the org (POST /v1/admin/keys).
func (c *Client) CreateKey(ctx context.Context, req KeyRequest) (*CreatedKey, error) {
	return send[CreatedKey](ctx, c, call{op: "client.CreateKey", method: http.MethodPost, path: "/v1/admin/keys", body: req})
}

// Keys lists the org's stored keys (GET /v1/admin/keys).
func (c *Client) Keys(ctx context.Context) ([]APIKey, error) {
	out, err := send[struct {
		Keys []APIKey `json:"keys"`
	}](ctx, c, call{op: "client.Keys", method: http.MethodGet, path: "/v1/admin/keys"})
	if err != nil {
		return nil, err
	}
	return out.Keys, nil
}

// RevokeKey revokes key id (its id, not its secret) and returns it.
func (c *Client) RevokeKey(ctx context.Context, id string) (*APIKey, error) {
	out, err := send[struct {
		Key APIKey `json:"key"`
	}](ctx, c, call{op: "client.RevokeKey", method: http.MethodDelete, path: "/v1/admin/keys/" + url.PathEscape(id)})
	if err != nil {
		return nil, err
	}
	return &out.Key, nil
}

// OrgUsage is what an org stores, or its limits (0 is unlimited).
type OrgUsage struct {
	Memories  int64 `json:"memories"`
	Bytes     int64 `json:"bytes"`
	Documents int64 `json:"documents"`
}

// Usage is the org's usage and its quotas.
type Usage struct {
	OrgID  string   `json:"orgId"`
	Usage  OrgUsage `json:"usage"`
	Limits OrgUsage `json:"limits"`
}

// Usage returns the org's usage and quotas (GET /v1/admin/usage).
func (c *Client) Usage(ctx context.Context) (*Usage, error) {
	return send[Usage](ctx, c, call{op: "client.Usage", method: http.MethodGet, path: "/v1/admin/usage"})
}

// AuditEntry is one entry of the org's audit log (an erasure).
type AuditEntry struct {
	ID        string         `json:"id"`
	Action    string         `json:"action"`
	At        int64          `json:"at"`
	DoneAt    int64          `json:"doneAt,omitempty"`
	OrgID     string         `json:"orgId"`
	AgentID   string         `json:"agentId,omitempty"`
	KeyID     string         `json:"keyId,omitempty"`
	RequestID string         `json:"requestId,omitempty"`
	Filter    map[string]any `json:"filter"`
	Status    string         `json:"status"`
	Report    ForgetReport   `json:"report"`
	Error     string         `json:"error,omitempty"`
}

// AuditPage is one page of the audit log; NextCursor is empty on the last.
type AuditPage struct {
	Entries    []AuditEntry `json:"entries"`
	NextCursor string       `json:"nextCursor"`
}

// AuditLog returns one page of the org's audit log, newest first (limit 0:
// the server's default; cursor a page's NextCursor).
func (c *Client) AuditLog(ctx context.Context, limit int, cursor string) (*AuditPage, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return send[AuditPage](ctx, c, call{op: "client.AuditLog", method: http.MethodGet, path: "/v1/admin/audit", query: q})
}

// ConsolidationReport is what a consolidation run did.
type ConsolidationReport struct {
	OrgID      string `json:"orgId"`
	StartedAt  int64  `json:"startedAt"`
	FinishedAt int64  `json:"finishedAt,omitempty"`
	// Cursor is where an interrupted run resumes.
	Cursor                 string `json:"cursor,omitempty"`
	Scanned                int    `json:"scanned"`
	Decayed                int    `json:"decayed"`
	Archived               int    `json:"archived"`
	Deleted                int    `json:"deleted"`
	Merged                 int    `json:"merged"`
	ContradictionsResolved int    `json:"contradictionsResolved"`
	Contested              int    `json:"contested"`
	// CheckContexts is set on the runs that check messages' contexts (until
	// one has finished over the org); ContextsRewritten counts the
	// messages whose context they re-threaded.
	CheckContexts     bool `json:"checkContexts,omitempty"`
	ContextsRewritten int  `json:"contextsRewritten,omitempty"`
}

// LastConsolidation returns the report of the org's last consolidation
// (not_found before the first).
func (c *Client) LastConsolidation(ctx context.Context) (*ConsolidationReport, error) {
	return send[ConsolidationReport](ctx, c, call{op: "client.LastConsolidation", method: http.MethodGet, path: "/v1/admin/consolidation"})
}

// Consolidate runs a consolidation of the org now and returns its report.
func (c *Client) Consolidate(ctx context.Context) (*ConsolidationReport, error) {
	return send[ConsolidationReport](ctx, c, call{op: "client.Consolidate", method: http.MethodPost, path: "/v1/admin/consolidate"})
}

// ExtractionSettings are the org's settings of fact extraction.
type ExtractionSettings struct {
	// Instructions are added to the language model's extraction prompt.
	Instructions   string   `json:"instructions,omitempty"`
	KeepKinds      []string `json:"keepKinds,omitempty"`
	DropKinds      []string `json:"dropKinds,omitempty"`
	KeepCategories []string `json:"keepCategories,omitempty"`
	DropCategories []string `json:"dropCategories,omitempty"`
	// Language is the BCP 47 tag of the language facts are written in.
	Language           string `json:"language,omitempty"`
	OrgFactsFromAgents bool   `json:"orgFactsFromAgents,omitempty"`
	// DualWriteOrgFacts writes a fact about the org, stated in an
	// agent-bound conversation, to the org scope and the agent's at once.
	DualWriteOrgFacts bool `json:"dualWriteOrgFacts,omitempty"`
	// ProvidedKeys are the metadata keys knowledge extraction reads as
	// structure, each with its role: from, to, subject, location, property
	// or none (not read: takes away a key the service reads by default).
	// At most 32; they apply to the memories written after the change.
	ProvidedKeys map[string]string `json:"providedKeys,omitempty"`
}

// StoredSettings are the extraction settings as stored, with their
// version (RequestOptions.IfMatch of the next put).
type StoredSettings struct {
	Settings ExtractionSettings `json:"settings"`
	Version  int64              `json:"version"`
}

// ExtractionSettings returns the org's extraction settings.
func (c *Client) ExtractionSettings(ctx context.Context) (*StoredSettings, error) {
	return send[StoredSettings](ctx, c, call{op: "client.ExtractionSettings", method: http.MethodGet, path: "/v1/admin/settings/extraction"})
}

// PutExtractionSettings replaces the org's extraction settings; with
// RequestOptions.IfMatch only over that version (a stale one fails with an
// error IsStale reports).
func (c *Client) PutExtractionSettings(ctx context.Context, s ExtractionSettings, opts ...RequestOptions) (*StoredSettings, error) {
	return send[StoredSettings](ctx, c, call{op: "client.PutExtractionSettings", method: http.MethodPut, path: "/v1/admin/settings/extraction", body: s, opts: first(opts)})
}
