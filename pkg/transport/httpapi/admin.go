package httpapi

import (
	"net/http"

	"github.com/agentmem/agentmem/pkg/auth"

	"github.com/agentmem/agentmem/pkg/memory"
)

// orgAdmin allows org-level keys only: an agent-bound key or an end-user
// token cannot run or read org-wide jobs.
func orgAdmin(c memory.Caller) error {
	if auth.IsTokenCaller(c) {
		return memory.Errorf(memory.EFORBIDDEN, "admin endpoints need an org-level key; an end-user token cannot use them")
	}
	if c.AgentID != "" {
		return memory.Errorf(memory.EFORBIDDEN, "admin endpoints need an org-level key; this key is bound to agent %q", c.AgentID)
	}
	return nil
}

func (s *Server) lastConsolidation(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := orgAdmin(c); err != nil {
		return err
	}
	rep, err := s.consolidation.Last(r.Context(), c.OrgID)
	if memory.IsNotFound(err) {
		return memory.Errorf(memory.ENOTFOUND, "no consolidation has run for this org yet")
	} else if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

func (s *Server) consolidate(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := orgAdmin(c); err != nil {
		return err
	}
	rep, err := s.consolidation.Run(r.Context(), c.OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}
