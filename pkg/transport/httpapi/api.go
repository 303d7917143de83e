// Package httpapi is the HTTP API of the memory service: one http.Handler that
// serves both a plain net/http server (API keys from a KeyMap) and API
// Gateway REST proxy events (caller from the Lambda authorizer context).
// It maps memory.Error codes to HTTP statuses and never shows internal
// errors to callers.
package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/registry"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/workstream"
)

// Server is the HTTP API.
type Server struct {
	svc   *service.Service
	docs  *ingest.Pipeline
	queue extract.Queue
	// consolidation runs the consolidation job (admin endpoints).
	consolidation *consolidate.Job
	auth          Authenticator
	keys          memory.KeyStore // admin key endpoints (keys.go)
	tokens        *auth.Tokens    // POST /v1/tokens (tokens.go)
	quotas        *Quotas         // per-org quotas (quota.go)
	log           *slog.Logger
	mux           *http.ServeMux
	routes        []Route // the route table, in registration order (Routes)
	// knowledge serves /v1/knowledge/* (WithKnowledge).
	knowledge *knowledge.Explorer
	// registry serves /v1/entities, /v1/worlds and /v1/rooms (WithRegistry).
	registry *registry.Registry
	// workstreams serves /v1/workstreams (WithWorkstreams).
	workstreams *workstream.Service
	// metrics and handler: see observe.go.
	metrics telemetry.Metrics
	handler http.Handler

	// settings keeps the orgs' extraction settings (admin endpoints).
	settings SettingsStore
	health   Health
	// idempotency keeps Idempotency-Key responses (idempotency.go).
	idempotency memory.IdempotencyStore
	// views are the handlers of memoryViews, by view name.
	views map[string]http.HandlerFunc
	// admission limits authenticated callers (WithAdmission).
	admission Admission
	// maxKeys caps an org's active keys (WithMaxKeys); keyMu makes the
	// count and the creation one step.
	maxKeys int
	keyMu   sync.Mutex
}

// Admission decides, once a request's caller is known, whether it may
// run now: nil, or an error (ERATELIMIT) with how long to wait, which the
// answer's Retry-After carries. The local server's per-org rate bucket is
// one (wiring/server.Limiter.Admit).
type Admission func(ctx context.Context, c memory.Caller) (wait time.Duration, err error)

// WithAdmission runs a on every authenticated request, the API's routes
// and the mounted transports alike.
func WithAdmission(a Admission) Option { return func(s *Server) { s.admission = a } }

// admit is the admission of c's request, setting Retry-After on a refusal.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if s.admission == nil {
		return nil
	}
	wait, err := s.admission(r.Context(), c)
	if err != nil && wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	}
	return err
}

// Health reports the state of what the server derives from its store:
// what is degraded ("" when nothing is), shown by /v1/healthz and by the
// searches answered meanwhile, and details for /v1/healthz.
type Health interface {
	Health() (degraded string, details map[string]any)
}

// WithHealth adds h's report to /v1/healthz and its degradation to search
// responses.
func WithHealth(h Health) Option { return func(s *Server) { s.health = h } }

// degraded is the health's degradation, "" without one.
func (s *Server) degraded() string {
	if s.health == nil {
		return ""
	}
	d, _ := s.health.Health()
	return d
}

// Option configures a Server.
type Option func(*Server)

// WithExtraction serves POST /v1/messages, queueing each write's turns on q
// for fact extraction.
func WithExtraction(q extract.Queue) Option { return func(s *Server) { s.queue = q } }

// WithConsolidation serves /v1/admin/consolidation (the last run) and
// /v1/admin/consolidate (run now) for org-level keys.
func WithConsolidation(j *consolidate.Job) Option { return func(s *Server) { s.consolidation = j } }

// WithDocuments serves /v1/documents with the ingestion pipeline p.
func WithDocuments(p *ingest.Pipeline) Option { return func(s *Server) { s.docs = p } }

// New returns the API over svc. auth resolves bearer keys; it may be nil
// when every request carries its caller in the context (API Gateway).
func New(svc *service.Service, auth Authenticator, log *slog.Logger, opts ...Option) *Server {
	if log == nil {
		log = slog.Default()
	}
	s := &Server{svc: svc, auth: auth, log: log, mux: http.NewServeMux()}
	for _, o := range opts {
		o(s)
	}
	s.route("GET /v1/healthz", s.healthz, public)
	s.route("GET /v1/whoami", s.whoami, public)
	s.route("GET /{$}", s.home, public)
	s.route("GET /ui/", s.ui(), public)
	s.route("GET /ui", s.ui(), public)
	s.route("POST /v1/memories", s.createMemories, memory.GrantWrite)
	s.route("GET /v1/memories", s.listMemories, memory.GrantRead)
	s.route("DELETE /v1/memories", s.deleteMemories, memory.GrantDelete)
	s.route("GET /v1/memories/count", s.countMemories, memory.GrantRead)
	s.route("GET /v1/memories/{id}", s.getMemory, memory.GrantRead)
	s.route("PATCH /v1/memories/{id}", s.patchMemory, memory.GrantWrite)
	s.route("DELETE /v1/memories/{id}", s.deleteMemory, memory.GrantDelete)
	s.route("GET /v1/memories/{id}/relations", s.memoryRelations, memory.GrantRead)
	s.route("POST /v1/memories/{id}/archive", s.archiveMemory, memory.GrantWrite)
	s.route("POST /v1/memories/{id}/restore", s.restoreMemory, memory.GrantWrite)
	s.route("POST /v1/relations", s.createRelation, memory.GrantWrite)
	s.route("DELETE /v1/relations/{id}", s.deleteRelation, memory.GrantDelete)
	s.route("GET /v1/memories/{id}/history", s.getHistory, memory.GrantRead)
	s.route("GET /v1/export", s.export, memory.GrantRead)
	s.route("POST /v1/import", s.importLines, memory.GrantWrite)
	s.route("PUT /v1/memories/by-key/{key}", s.putByKey, memory.GrantWrite)
	s.route("GET /v1/memories/by-key/{key}", s.getByKey, memory.GrantRead)
	s.route("DELETE /v1/memories/by-key/{key}", s.deleteByKey, memory.GrantDelete)
	s.route("POST /v1/search", s.search, memory.GrantRead)
	s.route("POST /v1/context", s.context, memory.GrantRead)
	s.route("POST /v1/forget", s.forget, memory.GrantDelete)
	s.route("GET /v1/admin/audit", s.auditLog, memory.GrantAdmin)
	if s.consolidation != nil {
		s.route("GET /v1/admin/consolidation", s.lastConsolidation, memory.GrantAdmin)
		s.route("POST /v1/admin/consolidate", s.consolidate, memory.GrantAdmin)
	}
	if s.settings != nil {
		s.route("GET /v1/admin/settings/extraction", s.getExtractionSettings, memory.GrantAdmin)
		s.route("PUT /v1/admin/settings/extraction", s.putExtractionSettings, memory.GrantAdmin)
	}
	if s.queue != nil {
		s.route("POST /v1/messages", s.postMessages, memory.GrantWrite)
	}
	if s.docs != nil {
		s.route("POST /v1/documents", s.createDocument, memory.GrantWrite)
		s.route("GET /v1/documents", s.listDocuments, memory.GrantRead)
		s.route("GET /v1/documents/{id}", s.getDocument, memory.GrantRead)
		s.route("DELETE /v1/documents/{id}", s.deleteDocument, memory.GrantDelete)
	}
	if s.keys != nil {
		s.route("POST /v1/admin/keys", s.createKey, memory.GrantAdmin)
		s.route("GET /v1/admin/keys", s.listKeys, memory.GrantAdmin)
		s.route("DELETE /v1/admin/keys/{id}", s.revokeKey, memory.GrantAdmin)
	}
	if s.tokens != nil {
		s.route("POST /v1/tokens", s.createToken, memory.GrantRead)
	}
	if s.quotas != nil {
		s.route("GET /v1/admin/usage", s.usage, memory.GrantAdmin)
	}
	s.routeKnowledge()
	s.routeRegistry()
	s.routeWorkstreams()
	s.routeOpenAPI()
	s.instrument()
	return s
}

type handlerFunc func(w http.ResponseWriter, r *http.Request, c memory.Caller) error

type ctxKey int

const (
	callerKey ctxKey = iota
	requestIDKey
)

// gatewayCaller is the caller an API Gateway authorizer context names, or
// why it names none that may be served (an expired token).
type gatewayCaller struct {
	c   memory.Caller
	err error
}

// withCaller returns ctx carrying an already authenticated caller, or the
// error that refuses it; only the API Gateway adapter sets it, from the
// authorizer context.
func withCaller(ctx context.Context, c memory.Caller, err error) context.Context {
	return context.WithValue(ctx, callerKey, gatewayCaller{c: c, err: err})
}

// route serves pattern with h for callers whose key holds op (public:
// no key at all); the grant is checked here, for every route, and nowhere
// else (see grants.go).
func (s *Server) route(pattern string, h handlerFunc, op memory.Grants) {
	s.routes = append(s.routes, newRoute(pattern, op))
	handle := s.mux.HandleFunc
	if view, ok := strings.CutPrefix(pattern, memoryViews+"/"); ok {
		handle = func(_ string, h func(http.ResponseWriter, *http.Request)) { s.memoryView(view, h) }
	}
	handle(pattern, func(w http.ResponseWriter, r *http.Request) {
		routed(w, r, pattern)
		var c memory.Caller
		if op != public {
			var err error
			if c, err = s.caller(r); err != nil {
				s.writeError(w, r, err)
				return
			}
			if lw, ok := w.(*logWriter); ok {
				lw.org, lw.agent = c.OrgID, c.AgentID
			}
			if err := s.admit(w, r, c); err != nil {
				s.writeError(w, r, err)
				return
			}
			if err := authorize(c, op); err != nil {
				s.writeError(w, r, err)
				return
			}
			if c.Binding != nil {
				// A token's binding applies to every route, whatever the
				// handler reads; read handlers narrow it further (act).
				if c, err = s.svc.Act(r.Context(), c, memory.Acting{}); err != nil {
					s.writeError(w, r, err)
					return
				}
			}
		}
		var err error
		if key, ok := r.Header["Idempotency-Key"]; ok && s.idempotency != nil && idempotent(pattern) {
			err = s.serveIdempotent(w, r, c, strings.Join(key, ","), h)
		} else {
			err = h(w, r, c)
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

// memoryViews prefixes the GET views of one memory ("relations",
// "history"). GET /v1/memories/by-key/{key} and GET /v1/memories/{id}/history
// both match /v1/memories/by-key/history and neither is more specific, so
// net/http refuses to register both: the views are registered as one
// pattern, GET /v1/memories/{id}/{view}, which by-key/{key} is more
// specific than, and dispatched on {view}. The route table keeps one
// route per view.
const memoryViews = "GET /v1/memories/{id}"

// memoryView serves the view name of memoryViews with h.
func (s *Server) memoryView(name string, h http.HandlerFunc) {
	if s.views == nil {
		s.views = map[string]http.HandlerFunc{}
		s.mux.HandleFunc(memoryViews+"/{view}", func(w http.ResponseWriter, r *http.Request) {
			if h, ok := s.views[r.PathValue("view")]; ok {
				h(w, r)
				return
			}
			// Another method's route on the path (POST .../archive) is a
			// 405, as the router would answer; else a 404. Both are the
			// router's plain text, which logWriter turns into problems.
			var allow []string
			for _, rt := range s.routes {
				if rt.Method != "" && rt.Method != "GET" && rt.Pattern == "/v1/memories/{id}/"+r.PathValue("view") {
					allow = append(allow, rt.Method)
				}
			}
			if len(allow) == 0 {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Allow", strings.Join(allow, ", "))
			http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		})
	}
	s.views[name] = h
}

// caller authenticates r: the authorizer's caller when present, else the
// bearer key.
func (s *Server) caller(r *http.Request) (memory.Caller, error) {
	if gc, ok := r.Context().Value(callerKey).(gatewayCaller); ok {
		if gc.err != nil {
			return memory.Caller{}, gc.err
		}
		return gc.c, gc.c.Valid()
	}
	if s.auth == nil {
		return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "no authorizer context on the request")
	}
	key, err := auth.Bearer(r.Header.Get("Authorization"))
	if err != nil {
		return memory.Caller{}, err
	}
	return s.auth.Authenticate(r.Context(), key)
}

// logWriter records the status for the access log, and turns the router's
// plain-text 404 and 405 into the API's JSON error.
type logWriter struct {
	http.ResponseWriter
	req        *http.Request
	status     int
	org, agent string
	route      string // the matched pattern, for the metrics
	swallow    bool   // the router's own 405 text is being replaced
}

func (w *logWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	routerText := strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain")
	if routerText && (code == http.StatusMethodNotAllowed || code == http.StatusNotFound) {
		w.swallow = true
		id, _ := w.req.Context().Value(requestIDKey).(string)
		var p contract.Problem
		if code == http.StatusNotFound {
			p = contract.NewProblem(memory.ENOTFOUND, fmt.Sprintf("no route %s %s", w.req.Method, w.req.URL.Path), w.req.URL.Path, id)
		} else {
			p = contract.NewProblem(contract.MethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s (allowed: %s)",
				w.req.Method, w.req.URL.Path, w.Header().Get("Allow")), w.req.URL.Path, id)
		}
		w.Header().Del("X-Content-Type-Options")
		contract.WriteProblem(w.ResponseWriter, p)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *logWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.swallow {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// serve is ServeHTTP (observe.go) within its span: request id, panic
// recovery and one JSON access log line per request (never bodies or keys).
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := r.Header.Get("X-Request-Id")
	if id == "" || len(id) > 128 {
		var b [8]byte
		rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	if v, ok := r.Context().Value(requestIDKey).(string); ok && v != "" {
		id = v
	}
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey, id))
	w.Header().Set("X-Request-Id", id)
	lw := &logWriter{ResponseWriter: w, req: r}
	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(r.Context(), "panic", "request_id", id, "panic", fmt.Sprint(p))
			s.writeError(lw, r, fmt.Errorf("panic: %v", p))
		}
		s.log.InfoContext(r.Context(), "request", "request_id", id, "method", r.Method, "path", r.URL.Path,
			"status", lw.status, "org", lw.org, "agent", lw.agent, "ms", float64(time.Since(start).Microseconds())/1000)
		s.observe(lw, time.Since(start))
	}()
	s.mux.ServeHTTP(lw, r)
}

// writeError answers err as an RFC 9457 problem (contract.Problem); an
// internal or unavailable error is logged with the request id, and an
// internal one's details never reach the caller.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := memory.ErrorCode(err)
	id, _ := r.Context().Value(requestIDKey).(string)
	if code == memory.EINTERNAL || code == memory.EUNAVAILABLE {
		s.log.ErrorContext(r.Context(), "request failed", "request_id", id, "err", err.Error())
	}
	if code == memory.EUNAUTHORIZED {
		w.Header().Set("WWW-Authenticate", `Bearer realm="memory"`)
	}
	if (code == memory.EUNAVAILABLE || code == memory.ERATELIMIT) && w.Header().Get("Retry-After") == "" {
		// A busy database, a full queue or a limit: worth a retry soon,
		// and every client retries 429 and 503.
		w.Header().Set("Retry-After", "1")
	}
	contract.WriteProblem(w, contract.ProblemOf(err, r.URL.Path, id))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ memory.Caller) error {
	out := map[string]any{"status": "ok", "embedder": s.svc.Embedder().Model()}
	if s.health != nil {
		degraded, details := s.health.Health()
		for k, v := range details {
			out[k] = v
		}
		if degraded != "" {
			out["status"], out["degraded"] = "degraded", degraded
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// createMemories accepts one memory or {"memories": [...]}.
func (s *Server) createMemories(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return decodeStrict(body, &probe) // names the syntax or type problem
	}
	_, batch := probe["memories"]
	onlyNew, err := createOnly(r)
	if err != nil {
		return err
	}
	if onlyNew && batch {
		return memory.Errorf(memory.EINVALID, "If-None-Match: create-only applies to a single memory, not to a batch")
	}
	var in []service.NewMemory
	if batch {
		var req struct {
			Memories []service.NewMemory `json:"memories"`
		}
		if err := decodeStrict(body, &req); err != nil {
			return err
		}
		in = req.Memories
	} else {
		var one service.NewMemory
		if err := decodeStrict(body, &one); err != nil {
			return err
		}
		in = []service.NewMemory{one}
	}
	release, err := s.reserve(r.Context(), c, newMemoriesUsage(in))
	if err != nil {
		return err
	}
	defer release()
	res, err := s.svc.Create(r.Context(), c, in)
	if err != nil {
		return err
	}
	if onlyNew && res[0].Duplicate {
		// Nothing was written: the memory exists.
		return memory.Errorf(memory.EPRECONDITION, "If-None-Match: the memory exists already as %q", res[0].ID)
	}
	status := http.StatusOK // every item was a duplicate
	for _, x := range res {
		if !x.Duplicate {
			status = http.StatusCreated
		}
	}
	if batch {
		writeJSON(w, status, map[string]any{"memories": res})
	} else {
		if status == http.StatusCreated {
			w.Header().Set("Location", memoryLocation(res[0].ID))
		}
		writeJSON(w, status, res[0])
	}
	return nil
}

func (s *Server) getMemory(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	m, err := s.svc.Get(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeMemory(w, r, m)
	return nil
}

// writeMemory answers a GET of m: 304 when If-None-Match holds its ETag,
// m with its ETag otherwise.
func writeMemory(w http.ResponseWriter, r *http.Request, m *memory.Memory) {
	tag := etag(m.Version)
	w.Header().Set("ETag", tag)
	if notModified(r, tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeJSON(w, http.StatusOK, m)
}

func (s *Server) patchMemory(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var p service.Patch
	if err := decodeStrict(body, &p); err != nil {
		return err
	}
	if p.IfVersion, err = ifMatch(r); err != nil {
		return err
	}
	release, err := s.reserve(r.Context(), c, patchUsage(p))
	if err != nil {
		return err
	}
	defer release()
	m, err := s.svc.Update(r.Context(), c, r.PathValue("id"), p)
	if err != nil {
		return err
	}
	if p.Content != nil && m.Type == memory.TypeMessage && s.queue != nil {
		// The facts of the old text are gone (service.Update): extract the
		// new one's. The change is made; a full queue only delays them.
		if err := s.queue.Enqueue(r.Context(), extract.Job{OrgID: c.OrgID, AgentID: c.AgentID, MessageIDs: []string{m.ID}}); err != nil {
			s.log.WarnContext(r.Context(), "queueing the extraction of a patched message failed", "org", c.OrgID, "err", err)
		}
	}
	w.Header().Set("ETag", etag(m.Version))
	writeJSON(w, http.StatusOK, m)
	return nil
}

func (s *Server) deleteMemory(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	ifVersion, err := ifMatch(r)
	if err != nil {
		return err
	}
	if _, err := s.svc.Delete(r.Context(), c, r.PathValue("id"), service.DeleteOptions{IfVersion: ifVersion}); err != nil { // the service holds the scope rule
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listMemories(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	fs, err := queryFilter(r, "limit", "cursor", "unique")
	if err != nil {
		return err
	}
	if c, err = s.act(r, c, fs); err != nil {
		return err
	}
	f := fs.filter()
	limit, err := intParam(r, "limit")
	if err != nil {
		return err
	}
	if r.URL.Query().Has("limit") && limit == 0 {
		return memory.Errorf(memory.EINVALID, "limit: must be between 1 and %d", memory.MaxListLimit)
	}
	unique, err := boolParam(r, "unique")
	if err != nil {
		return err
	}
	list := s.svc.List
	if unique {
		list = s.svc.ListUnique // one memory per content, the newest
	}
	page, err := list(r.Context(), c, f, limit, r.URL.Query().Get("cursor"))
	if err != nil {
		return err
	}
	if page.Memories == nil {
		page.Memories = []*memory.Memory{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"memories": page.Memories, "nextCursor": page.Next.Encode()})
	return nil
}

func (s *Server) countMemories(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	fs, err := queryFilter(r)
	if err != nil {
		return err
	}
	if c, err = s.act(r, c, fs); err != nil {
		return err
	}
	f := fs.filter()
	n, err := s.svc.Count(r.Context(), c, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"count": n})
	return nil
}

func (s *Server) deleteMemories(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	fs, err := queryFilter(r)
	if err != nil {
		return err
	}
	if c, err = s.act(r, c, fs); err != nil {
		return err
	}
	f := fs.filter()
	n, err := s.deleteWhere(r.Context(), c, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"deleted": n})
	return nil
}

// SearchRequest is the body of POST /v1/search.
type SearchRequest struct {
	Query string `json:"query"`
	// Embedding is the caller's query vector (see service.SearchRequest),
	// read as float64 so that a value past float32's range reaches the
	// service as an infinity, rejected naming its index.
	Embedding       []float64    `json:"embedding"`
	Mode            service.Mode `json:"mode"`
	Lists           []string     `json:"lists"`
	K               int          `json:"k"`
	Threshold       float64      `json:"threshold"`
	MinScore        float64      `json:"minScore"`
	Filters         Filters      `json:"filters"`
	ExpandRelations bool         `json:"expandRelations"`
	Rerank          *bool        `json:"rerank"`
}

func (s *Server) search(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req SearchRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if c, err = s.act(r, c, req.Filters); err != nil {
		return err
	}
	start := time.Now()
	res, err := s.svc.SearchRanked(r.Context(), c, service.SearchRequest{
		Query: req.Query, Embedding: float32s(req.Embedding), Mode: req.Mode, Lists: req.Lists, K: req.K, Threshold: req.Threshold, MinScore: req.MinScore, Filter: req.Filters.filter(),
		ExpandRelations: req.ExpandRelations, Rerank: req.Rerank,
	})
	if err != nil {
		return err
	}
	s.observeSearch(res)
	if res.Results == nil {
		res.Results = []service.SearchResult{}
	}
	mode := req.Mode
	if mode == "" && len(req.Lists) == 0 {
		mode = service.ModeFull
	}
	out := map[string]any{"mode": mode, "lists": res.Lists, "results": res.Results,
		"reranked": res.Reranked, "rerankError": res.RerankError,
		"tookMs": float64(time.Since(start).Microseconds()) / 1000}
	if d := s.degraded(); d != "" {
		out["degraded"] = d
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// float32s converts a JSON array of numbers; nil stays nil.
func float32s(v []float64) []float32 {
	if v == nil {
		return nil
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func (s *Server) context(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req service.ContextRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if c, err = s.svc.Act(r.Context(), c, req.Acting()); err != nil {
		return err
	}
	res, err := s.svc.BuildContext(r.Context(), c, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
