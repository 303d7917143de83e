// Package api assembles the HTTP API, its quotas and the MCP server it
// mounts at /mcp, once for every binary that serves it: memoryd
// (wiring/server), the API Lambda (functions/api) and memctl, which reads
// the same quotas. A root opens its backend and hands the parts it has to
// New; what a root lacks (nil, 0) is an endpoint or a check it does not
// serve.
package api

import (
	"log/slog"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/registry"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/transport/mcp"
	"github.com/agentmem/agentmem/pkg/workstream"
)

// MCPPath is where the API mounts the MCP server.
const MCPPath = "/mcp"

// Parts are what a root's backend gives the API. Service is required;
// every other part, left nil (or 0), leaves its endpoints or its check
// out.
type Parts struct {
	Service *service.Service
	// Quotas are the per-org quotas (see Quotas), shared by the HTTP API
	// and the MCP server so that their writes count together.
	Quotas *httpapi.Quotas
	// MaxKeys is how many active API keys an org may hold (QUOTA_KEYS;
	// 0: unlimited).
	MaxKeys       int
	Knowledge     *knowledge.Explorer
	Registry      *registry.Registry
	Workstreams   *workstream.Service
	Documents     *ingest.Pipeline
	Consolidation *consolidate.Job
	// Extraction queues the extraction jobs of POST /v1/messages.
	Extraction extract.Queue
	// Settings keeps the orgs' extraction settings: the extraction
	// pipeline's own store, so that a change applies to the next job.
	Settings    *service.SettingsStore
	Keys        memory.KeyStore
	Idempotency memory.IdempotencyStore
	Tokens      *auth.Tokens
	Metrics     telemetry.Metrics
	Health      httpapi.Health
	// Admission limits each org's requests once the caller is known.
	Admission httpapi.Admission
}

// Quotas are the per-org quotas of cfg, counted by usage, with each org's
// own limits kept in overrides (nil: the defaults for every org).
func Quotas(cfg config.Quotas, usage memory.UsageCounter, overrides memory.RecordStore) *httpapi.Quotas {
	return &httpapi.Quotas{Limits: memory.OrgUsage{Memories: cfg.Memories, Bytes: cfg.Bytes, Documents: cfg.Documents},
		Usage: usage, Overrides: overrides, UsageTTL: cfg.UsageTTL}
}

// New is the API over p's service, with the MCP server mounted at
// MCPPath; keys resolves bearer keys (nil when every request carries its
// caller in the context, as behind API Gateway).
func New(p Parts, keys httpapi.Authenticator, log *slog.Logger) *httpapi.Server {
	return httpapi.New(p.Service, keys, log, Options(p, log)...)
}

// Options are the API options of p's parts, the MCP mount among them.
func Options(p Parts, log *slog.Logger) []httpapi.Option {
	opts := []httpapi.Option{httpapi.WithMaxKeys(p.MaxKeys), httpapi.WithKnowledge(p.Knowledge), httpapi.WithRegistry(p.Registry), httpapi.WithWorkstreams(p.Workstreams),
		httpapi.WithMount(MCPPath, MCP(p, log))}
	add := func(ok bool, o httpapi.Option) {
		if ok {
			opts = append(opts, o)
		}
	}
	add(p.Quotas != nil, httpapi.WithQuotas(p.Quotas))
	add(p.Documents != nil, httpapi.WithDocuments(p.Documents))
	add(p.Consolidation != nil, httpapi.WithConsolidation(p.Consolidation))
	add(p.Extraction != nil, httpapi.WithExtraction(p.Extraction))
	add(p.Settings != nil, httpapi.WithSettings(p.Settings))
	add(p.Keys != nil, httpapi.WithKeys(p.Keys))
	add(p.Idempotency != nil, httpapi.WithIdempotency(p.Idempotency))
	add(p.Tokens != nil, httpapi.WithTokens(p.Tokens))
	add(p.Metrics != nil, httpapi.WithMetrics(p.Metrics))
	add(p.Health != nil, httpapi.WithHealth(p.Health))
	add(p.Admission != nil, httpapi.WithAdmission(p.Admission))
	return opts
}

// MCP is the MCP server over p's service and knowledge, with p's quotas,
// as the API mounts it.
func MCP(p Parts, log *slog.Logger) httpapi.MountedHandler {
	opts := []mcp.Option{mcp.WithLogger(log)}
	if p.Quotas != nil {
		opts = append(opts, mcp.WithQuotas(p.Quotas))
	}
	if p.Knowledge != nil {
		opts = append(opts, mcp.WithKnowledge(p.Knowledge))
	}
	if p.Workstreams != nil {
		opts = append(opts, mcp.WithWorkstreams(p.Workstreams))
	}
	return mcp.New(p.Service, opts...).Handler()
}
