package httpapi

import (
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Two paths the explorer page needs beside the CRUD of /v1/memories: a
// memory's relations in both directions, and archiving a memory by hand.
// Both go through the service with the caller, so a key sees and changes
// only what its scope holds.

// RelationsResponse is the body of GET /v1/memories/{id}/relations: the
// relations the memory is part of, either end, whose other memory the
// caller can see.
type RelationsResponse struct {
	Relations []memory.Relation `json:"relations"`
}

func (s *Server) memoryRelations(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	rs, err := s.svc.Relations(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	if rs == nil {
		rs = []memory.Relation{}
	}
	writeJSON(w, http.StatusOK, RelationsResponse{Relations: rs})
	return nil
}

// ArchiveRequest is the body of POST /v1/memories/{id}/archive (optional):
// why the memory is archived, kept in its metadata as archivedReason.
type ArchiveRequest struct {
	Reason string `json:"reason"`
}

// maxArchiveReason bounds the reason kept in the metadata.
const maxArchiveReason = 500

// archiveMemory archives a memory (it leaves search and stays readable by
// id). An agent-bound key archives its own agent's memories only: the
// org-scope ones are shared by every agent of the org.
func (s *Server) archiveMemory(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req ArchiveRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if len(req.Reason) > maxArchiveReason {
		return memory.Errorf(memory.EINVALID, "reason: at most %d bytes", maxArchiveReason)
	}
	if req.Reason == "" {
		req.Reason = "archived by hand"
	}
	id := r.PathValue("id")
	if err := s.mayArchive(r, c, id, "archiving"); err != nil {
		return err
	}
	if err := s.svc.Archive(r.Context(), c, id, req.Reason); err != nil {
		return err
	}
	m, err := s.svc.Get(r.Context(), c, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

// mayArchive is the rule of archiving and restoring by hand: c sees
// memory id, and an agent-bound key changes its own agent's memories only
// (the org scope's are shared by every agent of the org).
func (s *Server) mayArchive(r *http.Request, c memory.Caller, id, doing string) error {
	m, err := s.svc.Get(r.Context(), c, id)
	if err != nil {
		return err
	}
	if c.AgentID != "" && m.AgentID != c.AgentID {
		return memory.Errorf(memory.EFORBIDDEN, "memory %q is in the org scope: %s it needs an org-level key", id, doing)
	}
	return nil
}

// restoreMemory un-archives a memory (it returns to search), recorded in
// its history; the same rights as archiving it.
func (s *Server) restoreMemory(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	id := r.PathValue("id")
	if err := s.mayArchive(r, c, id, "restoring"); err != nil {
		return err
	}
	m, err := s.svc.Restore(r.Context(), c, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

// RelationRequest is the body of POST /v1/relations: an edge from one
// memory to another, of one of memory.RelationTypes.
type RelationRequest struct {
	FromID     string              `json:"fromId"`
	ToID       string              `json:"toId"`
	Type       memory.RelationType `json:"type"`
	Confidence float64             `json:"confidence,omitempty"`
}

// createRelation stores an edge between two memories the caller can see
// (404 for either end it cannot) and answers it with its id.
func (s *Server) createRelation(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req RelationRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	rel, err := s.svc.CreateRelation(r.Context(), c, memory.Relation{FromID: req.FromID, ToID: req.ToID, Type: req.Type, Confidence: req.Confidence})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/relations/"+rel.ID)
	writeJSON(w, http.StatusCreated, rel)
	return nil
}

// deleteRelation removes an edge whose two memories the caller can see.
func (s *Server) deleteRelation(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := s.svc.DeleteRelation(r.Context(), c, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
