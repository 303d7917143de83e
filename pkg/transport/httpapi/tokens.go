package httpapi

import (
	"net/http"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
)

// WithTokens serves POST /v1/tokens, which mints end-user tokens with t.
// Verifying them is the authenticator's part (auth.WithTokens locally, the
// request authorizer in AWS).
func WithTokens(t *auth.Tokens) Option { return func(s *Server) { s.tokens = t } }

// CreateTokenRequest is the body of POST /v1/tokens.
type CreateTokenRequest struct {
	// UserID is the end user the token is bound to; required.
	UserID string `json:"userId"`
	// RoomID and WorldID bind the token to a room and a world as well.
	RoomID  string `json:"roomId"`
	WorldID string `json:"worldId"`
	// Grants the token holds: read, write, delete, each held by the
	// minting key; default read.
	Grants *memory.Grants `json:"grants"`
	// TTLSeconds is the token's lifetime: default 900 (15 minutes), at
	// most 86400 (24 hours).
	TTLSeconds *int `json:"ttlSeconds"`
}

// CreateTokenResponse is the answer to POST /v1/tokens.
type CreateTokenResponse struct {
	// Token is the bearer credential: Authorization: Bearer <token>.
	Token     string        `json:"token"`
	ExpiresAt time.Time     `json:"expiresAt"`
	OrgID     string        `json:"orgId"`
	AgentID   string        `json:"agentId,omitempty"`
	UserID    string        `json:"userId"`
	RoomID    string        `json:"roomId,omitempty"`
	WorldID   string        `json:"worldId,omitempty"`
	Grants    memory.Grants `json:"grants"`
}

// createToken mints a token for the caller's org and agent, bound to the
// request's end user. The rules (no token mints, grants within the key's)
// are auth.Tokens.Mint's.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if auth.IsTokenCaller(c) {
		return memory.Errorf(memory.EFORBIDDEN, "a token cannot mint tokens: use an API key")
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req CreateTokenRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	tr := auth.TokenRequest{UserID: req.UserID, RoomID: req.RoomID, WorldID: req.WorldID}
	if req.Grants != nil {
		if *req.Grants == 0 {
			return memory.Errorf(memory.EINVALID, "grants: at least one of read, write, delete (or leave it out for read)")
		}
		tr.Grants = *req.Grants
	}
	if req.TTLSeconds != nil {
		if *req.TTLSeconds <= 0 {
			return memory.Errorf(memory.EINVALID, "ttlSeconds: 1 to %d", int(auth.MaxTokenTTL/time.Second))
		}
		tr.TTL = time.Duration(*req.TTLSeconds) * time.Second
	}
	tok, err := s.tokens.Mint(r.Context(), c, tr)
	if err != nil {
		return err
	}
	b := tok.Caller.Binding
	s.log.InfoContext(r.Context(), "token minted", "org", c.OrgID, "key_id", c.KeyID, "agent", c.AgentID,
		"grants", tok.Caller.Grants.String(), "expires", tok.ExpiresAt)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, CreateTokenResponse{Token: tok.Token, ExpiresAt: tok.ExpiresAt, OrgID: tok.Caller.OrgID,
		AgentID: tok.Caller.AgentID, UserID: b.UserID, RoomID: b.RoomID, WorldID: b.WorldID, Grants: tok.Caller.Grants})
	return nil
}
