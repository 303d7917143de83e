package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
)

// The knowledge API (Structured RAG): search by query expression or
// natural language, entities and topics with counts, and term completion.
// Every path binds the filter to the caller as /v1/memories does: the org
// comes from the key, and an agent-bound key sees org-scope memories and
// its own agent's only (403 naming another agent).

// WithKnowledge serves /v1/knowledge/* with k; a nil k serves nothing (the
// store keeps no term index).
func WithKnowledge(k *knowledge.Explorer) Option {
	return func(s *Server) {
		if k != nil {
			s.knowledge = k
		}
	}
}

// routeKnowledge registers the knowledge paths when the server has them.
func (s *Server) routeKnowledge() {
	if s.knowledge == nil {
		return
	}
	s.route("POST /v1/knowledge/search", s.knowledgeSearch, memory.GrantRead)
	s.route("GET /v1/knowledge/entities", s.knowledgeEntities, memory.GrantRead)
	s.route("GET /v1/knowledge/topics", s.knowledgeTopics, memory.GrantRead)
	s.route("GET /v1/knowledge/terms", s.knowledgeTerms, memory.GrantRead)
	s.route("POST /v1/knowledge/prefetch", s.knowledgePrefetch, memory.GrantRead)
	s.route("GET /v1/knowledge/status", s.knowledgeStatus, memory.GrantRead)
}

// knowledgeStatus answers GET /v1/knowledge/status: how many of the org's
// memories wait for their knowledge (knowledge.Explorer.Pending).
func (s *Server) knowledgeStatus(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	st, err := s.knowledge.Pending(r.Context(), c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// KnowledgePrefetchRequest is the body of POST /v1/knowledge/prefetch: a
// request as typed so far (text), the most memories (limit) and
// completions (termLimit), and filters as in /v1/search.
type KnowledgePrefetchRequest struct {
	Text      string  `json:"text"`
	Limit     int     `json:"limit"`
	TermLimit int     `json:"termLimit"`
	Filters   Filters `json:"filters"`
}

// knowledgePrefetch answers POST /v1/knowledge/prefetch: the completions of
// the partial last word and the memories of the terms already complete.
func (s *Server) knowledgePrefetch(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req KnowledgePrefetchRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if c, err = s.act(r, c, req.Filters); err != nil {
		return err
	}
	start := time.Now()
	res, err := s.knowledge.Prefetch(r.Context(), c, knowledge.PrefetchRequest{Text: req.Text, Limit: req.Limit,
		TermLimit: req.TermLimit, Filter: req.Filters.filter()})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		*knowledge.PrefetchResult
		TookMs float64 `json:"tookMs"`
	}{res, float64(time.Since(start).Microseconds()) / 1000})
	return nil
}

// KnowledgeSearchRequest is the body of POST /v1/knowledge/search: an
// expression (query) or a question (text), exactly one; limit bounds the
// memories, and the entities, topics and actions, returned; filters narrow
// as in /v1/search (roomId, sessionId, agentId, start, end...).
type KnowledgeSearchRequest struct {
	Query   json.RawMessage `json:"query"`
	Text    string          `json:"text"`
	Limit   int             `json:"limit"`
	Filters Filters         `json:"filters"`
}

func (s *Server) knowledgeSearch(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req KnowledgeSearchRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if q := bytes.TrimSpace(req.Query); len(q) > 0 && q[0] == '"' {
		return memory.Errorf(memory.EINVALID, "query: expected an expression (a JSON object); put a question in natural language in text")
	}
	if c, err = s.act(r, c, req.Filters); err != nil {
		return err
	}
	start := time.Now()
	res, err := s.knowledge.Search(r.Context(), c, knowledge.SearchRequest{Query: req.Query, Text: req.Text,
		Limit: req.Limit, Filter: req.Filters.filter()})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		*knowledge.SearchResult
		TookMs float64 `json:"tookMs"`
	}{res, float64(time.Since(start).Microseconds()) / 1000})
	return nil
}

// knowledgeParams splits the query parameters of a knowledge GET: the
// endpoint's own (returned by name, first value), memoryType (the memory
// types, as type is on /v1/memories), and the filters of /v1/memories.
// type is the entity type, which only /v1/knowledge/entities takes.
func knowledgeParams(r *http.Request, own ...string) (Filters, map[string]string, error) {
	q := r.URL.Query()
	mine := map[string]string{}
	for _, k := range append(own, "type", "memoryType") {
		if vs, ok := q[k]; ok {
			mine[k] = vs[0]
			delete(q, k)
		}
	}
	if _, ok := mine["type"]; ok && !contains(own, "type") {
		return Filters{}, nil, memory.Errorf(memory.EINVALID, "type: only entities have types (GET /v1/knowledge/entities); memoryType filters the memories' types")
	}
	r2 := r.Clone(r.Context())
	r2.URL.RawQuery = q.Encode()
	f, err := queryFilter(r2)
	if err != nil {
		return f, nil, err
	}
	f.Type = append(f.Type, splitList(mine["memoryType"])...)
	if v, ok := mine["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return f, nil, memory.Errorf(memory.EINVALID, "limit: %q is not an integer", v)
		}
		if n == 0 {
			return f, nil, memory.Errorf(memory.EINVALID, "limit: must be at least 1")
		}
	}
	return f, mine, nil
}

func (s *Server) knowledgeEntities(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	return s.knowledgeList(w, r, c, memory.KnowledgeEntity, "entities", "type")
}

func (s *Server) knowledgeTopics(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	return s.knowledgeList(w, r, c, memory.KnowledgeTopic, "topics")
}

// knowledgeList answers GET /v1/knowledge/entities and topics: a page of
// items in name order with counts, and the cursor of the next page.
func (s *Server) knowledgeList(w http.ResponseWriter, r *http.Request, c memory.Caller, kind memory.KnowledgeKind, field string, own ...string) error {
	fs, p, err := knowledgeParams(r, append(own, "prefix", "name", "limit", "cursor")...)
	if err != nil {
		return err
	}
	if c, err = s.act(r, c, fs); err != nil {
		return err
	}
	f := fs.filter()
	limit, _ := strconv.Atoi(p["limit"])
	page, err := s.knowledge.List(r.Context(), c, knowledge.ListRequest{Kind: kind, Filter: f, Type: p["type"],
		Prefix: p["prefix"], Name: p["name"], Cursor: p["cursor"], Limit: limit})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{field: page.Items, "nextCursor": page.Next})
	return nil
}

// knowledgeTerms answers GET /v1/knowledge/terms: completions of prefix,
// most frequent first, from one TermIndex call; kinds=true adds each
// term's kind and role, with one more lookup.
func (s *Server) knowledgeTerms(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	fs, p, err := knowledgeParams(r, "prefix", "limit", "kinds")
	if err != nil {
		return err
	}
	if c, err = s.act(r, c, fs); err != nil {
		return err
	}
	f := fs.filter()
	kinds := false // one TermIndex call per keystroke unless asked
	if v, ok := p["kinds"]; ok {
		if kinds, err = strconv.ParseBool(v); err != nil {
			return memory.Errorf(memory.EINVALID, "kinds: %q is not true or false", v)
		}
	}
	limit, _ := strconv.Atoi(p["limit"])
	hints, err := s.knowledge.Terms(r.Context(), c, knowledge.TermsRequest{Prefix: p["prefix"], Filter: f, Limit: limit, Kinds: kinds})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"terms": hints})
	return nil
}
