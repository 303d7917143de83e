package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
)

// WithKeys serves the admin key endpoints over ks: POST /v1/admin/keys
// (create; the secret is in that answer only), GET /v1/admin/keys (list,
// never a secret) and DELETE /v1/admin/keys/{id} (revoke), for keys with
// the admin grant, within their own org.
func WithKeys(ks memory.KeyStore) Option { return func(s *Server) { s.keys = ks } }

// CreateKeyRequest is the body of POST /v1/admin/keys.
type CreateKeyRequest struct {
	// Name describes the key, e.g. the client that uses it.
	Name string `json:"name"`
	// AgentID binds the key to one agent of the org; empty for an
	// org-level key.
	AgentID string `json:"agentId"`
	// Grants are the operations the key may perform: read, write,
	// delete, delete:org, admin (admin on org-level keys only), write:org.
	// A key can grant only what it holds itself (an org-level key with
	// write holds write:org in effect).
	Grants *memory.Grants `json:"grants"`
}

// CreateKeyResponse is the answer to POST /v1/admin/keys.
type CreateKeyResponse struct {
	Key memory.APIKey `json:"key"`
	// Secret is the bearer key; it is shown here once and stored nowhere.
	Secret string `json:"secret"`
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := adminOnly(c); err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req CreateKeyRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if req.Grants == nil || *req.Grants == 0 {
		return memory.Errorf(memory.EINVALID, "grants: required, a list of read, write, delete, delete:org, admin, write:org")
	}
	held := c.Grants
	if c.AgentID == "" && held.Has(memory.GrantWrite) {
		// An org-level key changes org memories with write alone; keys
		// stored before write:org existed lack the bit.
		held |= memory.GrantWriteOrg
	}
	if extra := *req.Grants &^ held; extra != 0 {
		return memory.Errorf(memory.EFORBIDDEN, "grants: this key cannot grant %s, which it does not hold", extra)
	}
	secret, k, err := auth.NewKey(c.OrgID, req.AgentID, req.Name, *req.Grants, time.Now())
	if err != nil {
		return err
	}
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if err := s.checkKeyCount(r.Context(), c.OrgID); err != nil {
		return err
	}
	if err := s.keys.CreateKey(r.Context(), k); err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "api key created", "org", c.OrgID, "key_id", k.ID, "agent", k.AgentID, "grants", k.Grants.String())
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, CreateKeyResponse{Key: k, Secret: secret})
	return nil
}

// WithMaxKeys caps the keys an org holds that are not revoked (0: no
// cap); POST /v1/admin/keys past it answers EQUOTA. Within one process
// the count and the creation are one step; across processes two
// creations may each see room for one.
func WithMaxKeys(n int) Option { return func(s *Server) { s.maxKeys = n } }

// checkKeyCount refuses a new key when org holds maxKeys active keys.
func (s *Server) checkKeyCount(ctx context.Context, org string) error {
	if s.maxKeys <= 0 {
		return nil
	}
	keys, err := s.keys.ListKeys(ctx, org)
	if err != nil {
		return err
	}
	active := 0
	for _, k := range keys {
		if k.RevokedAt == nil {
			active++
		}
	}
	if active >= s.maxKeys {
		return memory.Errorf(memory.EQUOTA, "quota keys: the org holds %d active keys, its limit of %d; revoke one or ask the operator for a higher quota", active, s.maxKeys)
	}
	return nil
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := adminOnly(c); err != nil {
		return err
	}
	if len(r.URL.Query()) > 0 {
		return memory.Errorf(memory.EINVALID, "GET /v1/admin/keys takes no query parameters")
	}
	keys, err := s.keys.ListKeys(r.Context(), c.OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
	return nil
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := adminOnly(c); err != nil {
		return err
	}
	id := r.PathValue("id")
	if err := memory.ValidID("id", id); err != nil {
		return err
	}
	k, err := s.keys.RevokeKey(r.Context(), c.OrgID, id, time.Now())
	if err != nil {
		return err
	}
	s.log.InfoContext(r.Context(), "api key revoked", "org", c.OrgID, "key_id", k.ID)
	writeJSON(w, http.StatusOK, map[string]any{"key": k})
	return nil
}

// UsageResponse is the answer to GET /v1/admin/usage. A limit of 0 is
// unlimited.
type UsageResponse struct {
	OrgID  string          `json:"orgId"`
	Usage  memory.OrgUsage `json:"usage"`
	Limits memory.OrgUsage `json:"limits"`
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := adminOnly(c); err != nil {
		return err
	}
	u, err := s.quotas.Usage.Usage(r.Context(), c.OrgID)
	if err != nil {
		return err
	}
	l, err := s.quotas.LimitsOf(r.Context(), c.OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, UsageResponse{OrgID: c.OrgID, Usage: u, Limits: l})
	return nil
}
