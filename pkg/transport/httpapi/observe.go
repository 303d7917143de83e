package httpapi

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/telemetry"
)

// WithMetrics reports every request (route pattern, status, duration), the
// retrieval stages and rerank fallbacks of searches, documents ingested and
// extraction jobs queued to m.
func WithMetrics(m telemetry.Metrics) Option { return func(s *Server) { s.metrics = m } }

// unmatched is the route of the requests no pattern matched.
const unmatched = "unmatched"

// instrument runs once New has applied the options: without WithMetrics
// the metrics are discarded; with tracing on (telemetry.Tracing) each
// request is a server span, named after its route once it is routed, which
// continues the caller's trace (W3C traceparent); queued extraction jobs
// are counted.
func (s *Server) instrument() {
	if s.metrics == nil {
		s.metrics = telemetry.Discard
	}
	s.handler = http.HandlerFunc(s.serve)
	if telemetry.Tracing() {
		s.handler = otelhttp.NewHandler(s.handler, "http",
			otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + unmatched }))
	}
	if s.queue != nil {
		s.queue = countedQueue{Queue: s.queue, m: s.metrics}
	}
}

// ServeHTTP implements http.Handler: request id, panic recovery, one JSON
// access log line per request (never bodies or keys), metrics and, when
// tracing is on, a server span.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.handler == nil { // a Server not made by New
		s.instrument()
	}
	s.handler.ServeHTTP(w, r)
}

// routed records the route of a matched request for the metrics and names
// its span after it.
func routed(w http.ResponseWriter, r *http.Request, pattern string) {
	if lw, ok := w.(*logWriter); ok {
		lw.route = pattern
	}
	span := trace.SpanFromContext(r.Context())
	span.SetName(pattern)
	span.SetAttributes(attribute.String("http.route", pattern))
}

// observe reports a finished request.
func (s *Server) observe(lw *logWriter, d time.Duration) {
	route := lw.route
	if route == "" {
		route = unmatched
	}
	s.metrics.Request(route, lw.status, d)
}

// observeSearch reports a search's stage timings and its rerank fallback.
func (s *Server) observeSearch(res *service.SearchResponse) {
	for _, st := range res.Stages {
		s.metrics.Stage(st.Name, st.Duration)
	}
	if res.RerankError != "" {
		s.metrics.RerankFallback()
	}
}

// observeIngest counts a document the ingestion pipeline finished: indexed,
// or failed (it could not be loaded, or the pipeline failed).
func (s *Server) observeIngest(st ingest.Status, err error) {
	outcome := telemetry.OutcomeOK
	if err != nil || st.State == ingest.StateFailed {
		outcome = telemetry.OutcomeFailed
	}
	s.metrics.Pipeline(telemetry.Ingest, outcome, 1)
}

// countedQueue counts the extraction jobs queued, and those the queue
// refused.
type countedQueue struct {
	extract.Queue
	m telemetry.Metrics
}

func (q countedQueue) Enqueue(ctx context.Context, j extract.Job) error {
	err := q.Queue.Enqueue(ctx, j)
	if err != nil {
		q.m.Pipeline(telemetry.Extract, telemetry.OutcomeFailed, 1)
	} else {
		q.m.Pipeline(telemetry.Extract, telemetry.OutcomeQueued, 1)
	}
	return err
}
