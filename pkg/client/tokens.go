package client

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// End-user tokens: an API key (org-level or agent-bound) mints a
// short-lived token bound to one end user (and optionally a room or a
// world); a client made with it sees only what that user may see, since
// the binding applies to every request and request fields can narrow it,
// never widen it. Hand it to a browser or an agent runtime you do not
// trust.

// TokenRequest asks for an end-user token.
type TokenRequest struct {
	// UserID is the end user the token is bound to (an entity id); required.
	UserID string `json:"userId"`
	// RoomID and WorldID bind the token to a room and a world as well.
	RoomID  string `json:"roomId,omitempty"`
	WorldID string `json:"worldId,omitempty"`
	// Grants: read, write, delete, each held by the minting key; default
	// read.
	Grants []string `json:"grants,omitempty"`
	// TTLSeconds is the token's lifetime: default 900, at most 86400.
	TTLSeconds int `json:"ttlSeconds,omitempty"`
}

// Token is a minted end-user token and what it is bound to.
type Token struct {
	// Token is the bearer credential, shown once: NewWithToken uses it.
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expiresAt"`
	OrgID     string    `json:"orgId"`
	AgentID   string    `json:"agentId,omitempty"`
	UserID    string    `json:"userId"`
	RoomID    string    `json:"roomId,omitempty"`
	WorldID   string    `json:"worldId,omitempty"`
	Grants    []string  `json:"grants"`
}

// CreateToken mints an end-user token with the client's key (a client
// made with a token cannot mint: 403).
func (c *Client) CreateToken(ctx context.Context, req TokenRequest) (*Token, error) {
	if req.UserID == "" {
		return nil, fmt.Errorf("client.CreateToken: userId: required")
	}
	return send[Token](ctx, c, call{op: "client.CreateToken", method: http.MethodPost, path: "/v1/tokens", body: req})
}

// NewWithToken returns a client of the server at baseURL authenticating
// with an end-user token (Token.Token) instead of an API key: every read
// it makes serves the token's user, and it writes only that user's
// memories and its room's.
func NewWithToken(baseURL, token string, opts ...Option) (*Client, error) {
	if token == "" {
		return nil, fmt.Errorf("client: token: required")
	}
	return New(baseURL, token, opts...)
}

// WithToken returns a copy of c (same server, HTTP client and retry
// policy) that authenticates with token instead of c's credential.
func (c *Client) WithToken(token string) *Client {
	cp := *c
	cp.key = token
	return &cp
}
