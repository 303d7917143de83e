package httpapi

import (
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/workstream"
)

// The memory blocks API (/v1/workstreams): an org's workstreams, each a
// block of role-labelled entries compacted past its limit with a trace of
// what it folded. The org comes from the key; the workstream package holds
// the visibility rules (a memory's).

// WithWorkstreams serves /v1/workstreams with ws; nil serves nothing (the
// store keeps no records).
func WithWorkstreams(ws *workstream.Service) Option {
	return func(s *Server) {
		if ws != nil {
			s.workstreams = ws
		}
	}
}

// routeWorkstreams registers the workstream paths when the server has
// workstreams.
func (s *Server) routeWorkstreams() {
	if s.workstreams == nil {
		return
	}
	s.route("POST /v1/workstreams", s.createWorkstream, memory.GrantWrite)
	s.route("GET /v1/workstreams", s.listWorkstreams, memory.GrantRead)
	s.route("GET /v1/workstreams/{id}", s.getWorkstream, memory.GrantRead)
	s.route("DELETE /v1/workstreams/{id}", s.deleteWorkstream, memory.GrantDelete)
	s.route("POST /v1/workstreams/{id}/entries", s.appendEntry, memory.GrantWrite)
}

// WorkstreamList is the body of GET /v1/workstreams.
type WorkstreamList struct {
	Workstreams []*workstream.Workstream `json:"workstreams"`
	NextCursor  string                   `json:"nextCursor"`
}

func (s *Server) createWorkstream(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var in workstream.NewWorkstream
	if err := decodeStrict(body, &in); err != nil {
		return err
	}
	ws, err := s.workstreams.Create(r.Context(), c, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/workstreams/"+ws.ID)
	writeJSON(w, http.StatusCreated, workstream.Block{Workstream: ws, History: []workstream.Compaction{}})
	return nil
}

// actWorkstreams returns c acting for whom a workstream read serves: the
// userId, roomId and worldId of its query, as on GET /v1/memories (an org
// key that names nobody keeps the admin view). Any other parameter than
// those and allowed is EINVALID.
func (s *Server) actWorkstreams(r *http.Request, c memory.Caller, allowed ...string) (memory.Caller, error) {
	q := r.URL.Query()
	var f Filters
	for k := range q {
		switch k {
		case "userId":
			f.UserID = q.Get(k)
		case "roomId":
			f.RoomID = q.Get(k)
		case "worldId":
			f.WorldID = q.Get(k)
		default:
			if !contains(allowed, k) {
				return c, memory.Errorf(memory.EINVALID, "query parameter %q is not supported", k)
			}
		}
	}
	return s.act(r, c, f)
}

func (s *Server) listWorkstreams(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	c, err := s.actWorkstreams(r, c, "limit", "cursor")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	limit, err := intParam(r, "limit")
	if err != nil {
		return err
	}
	if q.Has("limit") && limit == 0 {
		return memory.Errorf(memory.EINVALID, "limit: must be between 1 and %d", workstream.MaxPage)
	}
	list, next, err := s.workstreams.List(r.Context(), c, workstream.Page{Cursor: q.Get("cursor"), Limit: limit})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, WorkstreamList{Workstreams: list, NextCursor: next})
	return nil
}

func (s *Server) getWorkstream(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	c, err := s.actWorkstreams(r, c)
	if err != nil {
		return err
	}
	b, err := s.workstreams.Get(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, b)
	return nil
}

func (s *Server) deleteWorkstream(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := s.workstreams.Delete(r.Context(), c, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// appendEntry appends {"role", "text"} to a block and answers the block
// as written (compacted when the entry took it past its limit).
func (s *Server) appendEntry(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var in workstream.NewEntry
	if err := decodeStrict(body, &in); err != nil {
		return err
	}
	b, err := s.workstreams.Append(r.Context(), c, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, b)
	return nil
}
