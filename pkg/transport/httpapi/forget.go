package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

// ForgetRequest is the body of POST /v1/forget, an erasure request: the
// memories that match every field given are forgotten. At least one of
// entity, sessionId, roomId, start and end is required.
type ForgetRequest struct {
	// Entity is an entity's name (see service.ForgetFilter).
	Entity    string `json:"entity,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	RoomID    string `json:"roomId,omitempty"`
	Start     Millis `json:"start,omitempty"`
	End       Millis `json:"end,omitempty"`
	// AgentID narrows an org-level key's erasure to one agent, or to the
	// org scope with "_org".
	AgentID string `json:"agentId,omitempty"`
}

// ForgetResponse is the answer of POST /v1/forget: what was removed, and
// the audit entry that records it.
type ForgetResponse struct {
	AuditID string `json:"auditId"`
	service.ForgetReport
}

// forget serves POST /v1/forget.
func (s *Server) forget(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req ForgetRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if req.Start < 0 || req.End < 0 {
		return memory.Errorf(memory.EINVALID, "start/end: must not be negative")
	}
	id, _ := r.Context().Value(requestIDKey).(string)
	e, err := s.svc.Forget(r.Context(), c, service.Actor{KeyID: keyID(r), RequestID: id}, service.ForgetFilter{
		Entity: req.Entity, SessionID: req.SessionID, RoomID: req.RoomID, Start: int64(req.Start), End: int64(req.End), AgentID: req.AgentID,
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ForgetResponse{AuditID: e.ID, ForgetReport: e.Report})
	return nil
}

// auditLog serves GET /v1/admin/audit (org-level keys): the audit log,
// oldest first, a page at a time.
func (s *Server) auditLog(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := orgAdmin(c); err != nil {
		return err
	}
	for name := range r.URL.Query() {
		if name != "limit" && name != "cursor" {
			return memory.Errorf(memory.EINVALID, "query parameter %q is not supported", name)
		}
	}
	limit, err := intParam(r, "limit")
	if err != nil {
		return err
	}
	if r.URL.Query().Has("limit") && limit == 0 {
		return memory.Errorf(memory.EINVALID, "limit: must be between 1 and 1000")
	}
	entries, next, err := s.svc.AuditLog(r.Context(), c, r.URL.Query().Get("cursor"), limit)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"entries": entries, "nextCursor": next})
	return nil
}

// keyID identifies the request's API key in the audit log without
// revealing it: "sha256:" and the first 16 hex digits of its hash. An
// API Gateway request, authenticated by the authorizer, may carry no key.
func keyID(r *http.Request) string {
	key, err := auth.Bearer(r.Header.Get("Authorization"))
	if err != nil || key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:8])
}
