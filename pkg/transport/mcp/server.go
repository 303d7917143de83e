// Package mcp is the Model Context Protocol transport of the memory
// service: an MCP server (the official Go SDK) whose tools are the use
// cases the HTTP API serves (remember, recall, get_context, forget, list,
// knowledge_search), translated onto the same service calls with the same
// caller. It holds no rule of its own: scopes and tenancy are the
// service's, the grant each tool needs is the route table's, and each
// failure carries the code of transport/contract.
//
// It is served over streamable HTTP by Handler, mounted at /mcp behind the
// API's authentication (memoryd, and the API Lambda through API Gateway),
// stateless and answering JSON, so that any replica, or a Lambda, answers
// any request; memctl mcp brings it to stdio clients (see Proxy).
package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"slices"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"github.com/agentmem/agentmem/pkg/workstream"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the server's name in the MCP handshake.
const Name = "agentmem"

// MaxBodyBytes is the largest MCP request accepted, as for the HTTP API.
const MaxBodyBytes = 1 << 20

// Reserver reserves quota for a write before it runs (httpapi.Quotas):
// release undoes the reservation once the write is done. EQUOTA when the
// org would exceed a limit.
type Reserver interface {
	Reserve(ctx context.Context, org string, add memory.OrgUsage) (release func(), err error)
}

// Server builds the MCP server of each caller.
type Server struct {
	svc       *service.Service
	knowledge *knowledge.Explorer
	// workstreams serves the memory block tools (WithWorkstreams).
	workstreams *workstream.Service
	quotas      Reserver
	log         *slog.Logger
	version     string
	tools       []tool
	cache       *sdk.SchemaCache
	// shared serves every HTTP request, its caller in the context: a
	// server per request would cost the SDK's validation of every tool's
	// schemas each time (BenchmarkForCaller).
	shared *sdk.Server
}

// Option configures a Server.
type Option func(*Server)

// WithKnowledge adds the knowledge_search tool over k (nil: no tool, the
// store keeps no term index).
func WithKnowledge(k *knowledge.Explorer) Option { return func(s *Server) { s.knowledge = k } }

// WithQuotas applies q to remember, as the HTTP API applies it to creates;
// give both transports the same Quotas so that their writes in flight are
// counted together.
func WithQuotas(q Reserver) Option {
	return func(s *Server) {
		if q != nil {
			s.quotas = q
		}
	}
}

// WithLogger logs internal errors to log (default slog.Default()).
func WithLogger(log *slog.Logger) Option { return func(s *Server) { s.log = log } }

// WithVersion is the version the server reports in the handshake.
func WithVersion(v string) Option { return func(s *Server) { s.version = v } }

// New returns the MCP server over svc.
func New(svc *service.Service, opts ...Option) *Server {
	s := &Server{svc: svc, log: slog.Default(), version: "dev", cache: sdk.NewSchemaCache()}
	for _, o := range opts {
		o(s)
	}
	s.tools = s.toolTable()
	s.shared = s.newServer(nil)
	return s
}

// Request is what a tool knows of the request besides its arguments: who
// calls, and how the audit log names the call.
type Request struct {
	Caller memory.Caller
	// KeyID identifies the key in the audit log (never the key itself).
	KeyID string
	// RequestID is the transport's request id.
	RequestID string
}

// ForCaller returns an MCP server whose tools act for r.Caller. Its tool
// list shows the tools the caller's key is granted; a call to another
// tool fails with forbidden.
func (s *Server) ForCaller(r Request) *sdk.Server { return s.newServer(&r) }

// newServer returns a server whose tools act for bound, or, when bound is
// nil, for the Request in each call's context (Handler); with neither,
// every call fails as unauthorized.
func (s *Server) newServer(bound *Request) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: Name, Title: "agentmem long-term memory", Version: s.version},
		&sdk.ServerOptions{Instructions: instructions, SchemaCache: s.cache}) // no Logger: the SDK logs every stateless session at info
	for _, t := range s.tools {
		t.add(srv, bound)
	}
	srv.AddReceivingMiddleware(s.middleware(bound))
	return srv
}

// requestOf is the request a call acts for: bound, else the context's.
func requestOf(ctx context.Context, bound *Request) Request {
	if bound != nil {
		return *bound
	}
	r, _ := ctx.Value(callerKey{}).(Request)
	return r
}

// instructions tell the model what the server is for.
const instructions = `Long-term memory shared across conversations. Use recall before answering questions that may depend on what was said or learned earlier, get_context to fill a prompt with what matters within a token budget, remember to keep a durable fact, preference or decision, list to browse, forget to delete, and knowledge_search for questions about named entities, topics and actions. Memories belong to your organization; a key bound to an agent sees the organization's memories and its own agent's only.`

// ErrorMeta is the _meta key of a failed tool result: the error's code
// (memory error codes, the same as the HTTP API's), HTTP status and
// JSON-RPC code from the contract's table.
const ErrorMeta = "agentmem/error"

// middleware hides from tools/list the tools c's key is not granted, and
// adds the code of a failed tool call to its result's _meta.
func (s *Server) middleware(bound *Request) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			c := requestOf(ctx, bound).Caller
			res, err := next(ctx, method, req)
			switch r := res.(type) {
			case *sdk.ListToolsResult:
				if r == nil {
					break
				}
				r.Tools = slices.DeleteFunc(r.Tools, func(t *sdk.Tool) bool { return !c.Grants.Has(s.grantOf(t.Name)) })
			case *sdk.CallToolResult:
				if r == nil {
					break
				}
				if te, ok := r.GetError().(*toolError); ok {
					k := contract.Kind(te.code)
					if r.Meta == nil {
						r.Meta = sdk.Meta{}
					}
					r.Meta[ErrorMeta] = map[string]any{"code": k.Code, "status": k.Status, "rpcCode": k.RPC}
				}
			}
			return res, err
		}
	}
}

func (s *Server) grantOf(name string) memory.Grants {
	for _, t := range s.tools {
		if t.name == name {
			return t.grant
		}
	}
	return memory.AllGrants
}

type callerKey struct{}

// Handler serves MCP over streamable HTTP for callers the mounting API
// has authenticated (httpapi.WithMount): stateless, each response JSON
// (no long-lived event stream), so that it runs behind API Gateway and on
// any replica.
func (s *Server) Handler() func(w http.ResponseWriter, r *http.Request, c memory.Caller) {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.shared }, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: MaxBodyBytes})
	return func(w http.ResponseWriter, r *http.Request, c memory.Caller) {
		req := Request{Caller: c, KeyID: keyID(r), RequestID: w.Header().Get("X-Request-Id")}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, req)))
	}
}

// keyID identifies the request's key in the audit log as the HTTP API
// does: "sha256:" and the first 16 hex digits of its hash.
func keyID(r *http.Request) string {
	key, err := auth.Bearer(r.Header.Get("Authorization"))
	if err != nil || key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:8])
}
