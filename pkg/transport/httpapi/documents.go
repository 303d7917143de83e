package httpapi

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
)

// DocumentRequest is the body of POST /v1/documents: a file given inline,
// as text or base64 (for binary types such as PDF and DOCX). It goes
// through the same pipeline as files uploaded to S3.
type DocumentRequest struct {
	// Name is the file name with its extension (it selects the loader), and
	// may hold a path: "guides/setup.md". Posting the same name again
	// replaces the document.
	Name          string `json:"name"`
	Content       string `json:"content,omitempty"`
	ContentBase64 string `json:"contentBase64,omitempty"`
	Scope         string `json:"scope,omitempty"`
	AgentID       string `json:"agentId,omitempty"`
}

func (s *Server) createDocument(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req DocumentRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	name := strings.Trim(req.Name, "/")
	if err := memory.ValidDocumentName("name", name); err != nil {
		return err
	}
	var data []byte
	switch {
	case req.Content != "" && req.ContentBase64 != "":
		return memory.Errorf(memory.EINVALID, "content and contentBase64: give one, not both")
	case req.ContentBase64 != "":
		if data, err = base64.StdEncoding.DecodeString(req.ContentBase64); err != nil {
			return memory.Errorf(memory.EINVALID, "contentBase64: not valid base64")
		}
	default:
		data = []byte(req.Content)
	}
	agent, err := c.WriteScope(req.Scope, req.AgentID)
	if err != nil {
		return err
	}
	release, err := s.reserve(r.Context(), c, documentUsage(len(data)))
	if err != nil {
		return err
	}
	defer release()
	st, err := s.docs.Submit(r.Context(), memory.Caller{OrgID: c.OrgID, AgentID: agent}, name, data)
	s.observeIngest(st, err)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, st)
	return nil
}

func (s *Server) getDocument(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	st, err := s.docs.Get(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

func (s *Server) listDocuments(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	for name := range r.URL.Query() {
		if name != "limit" && name != "cursor" {
			return memory.Errorf(memory.EINVALID, "query parameter %q is not supported", name)
		}
	}
	limit, err := intParam(r, "limit")
	if err != nil {
		return err
	}
	if limit < 0 || limit > 1000 {
		return memory.Errorf(memory.EINVALID, "limit: must be between 1 and 1000")
	}
	cursor := r.URL.Query().Get("cursor")
	if err := memory.ValidID("cursor", cursor); err != nil {
		return err
	}
	docs, next, err := s.docs.List(r.Context(), c, cursor, limit)
	if err != nil {
		return err
	}
	if docs == nil {
		docs = []ingest.Status{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"documents": docs, "nextCursor": next})
	return nil
}

func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if _, err := s.docs.Delete(r.Context(), c, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
