package httpapi

import (
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
)

// getHistory serves GET /v1/memories/{id}/history: every version of a
// memory the caller can see, oldest first, with who changed it.
func (s *Server) getHistory(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	revs, err := s.svc.History(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "versions": revs})
	return nil
}
