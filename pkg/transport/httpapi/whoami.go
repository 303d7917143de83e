package httpapi

import (
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Whoami is the body of GET /v1/whoami: what the caller's key is bound to
// and may do, and which optional parts of the API this server serves, so
// that a client (the explorer page) issues only requests the API accepts
// for the key.
type Whoami struct {
	OrgID string `json:"orgId"`
	// AgentID is the agent the key is bound to; empty for an org-level key.
	AgentID string        `json:"agentId,omitempty"`
	Grants  memory.Grants `json:"grants"`
	// Binding is the end user, room and world an end-user token is bound
	// to; absent for an API key.
	Binding *memory.Acting `json:"binding,omitempty"`
	// Features names the optional endpoint groups served: documents,
	// messages, knowledge, consolidation, workstreams.
	Features map[string]bool `json:"features"`
}

// whoami answers any valid key with its binding and grants; it needs no
// grant, since it tells the key nothing it does not already hold.
func (s *Server) whoami(w http.ResponseWriter, r *http.Request, _ memory.Caller) error {
	c, err := s.caller(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, Whoami{OrgID: c.OrgID, AgentID: c.AgentID, Grants: c.Grants, Binding: c.Binding, Features: map[string]bool{
		"documents":     s.docs != nil,
		"messages":      s.queue != nil,
		"knowledge":     s.knowledge != nil,
		"consolidation": s.consolidation != nil,
		"workstreams":   s.workstreams != nil,
	}})
	return nil
}
