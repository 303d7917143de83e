// Package telemetry is how the service is observed: the metrics port
// (Metrics, with a Prometheus adapter for memoryd in telemetry/prom and a
// CloudWatch embedded-metric-format adapter for the Lambdas in
// telemetry/emf), and OpenTelemetry tracing by decoration: the ports the
// service uses (Store, Index, Embedder) are wrapped by traced decorators
// (Ports) so that a request's span tree shows API → store, index and
// embedder without a span call in the use cases or the adapters.
//
// Tracing is off until a tracer provider is installed (SetTracerProvider;
// telemetry/otlp installs one from the standard OTEL_* variables), and
// while it is off the ports are not wrapped at all. The package imports
// the OpenTelemetry API only, never its SDK or an exporter.
package telemetry

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Metrics is the metrics port: what the service reports, whatever records
// it. Implementations must be safe for concurrent use and must not block.
type Metrics interface {
	// Request records one HTTP request: its route pattern ("POST
	// /v1/search", or "unmatched"), status and duration.
	Request(route string, status int, d time.Duration)
	// Stage records the duration of one retrieval stage (retrieve, fuse,
	// load, rerank, expand: retrieval.Stage).
	Stage(stage string, d time.Duration)
	// Pipeline counts n items a pipeline (Ingest, Extract, Consolidate)
	// finished with an outcome (OutcomeOK, OutcomeFailed...).
	Pipeline(pipeline, outcome string, n int)
	// RerankFallback counts one search whose rerank failed, so that its
	// results kept the fused order.
	RerankFallback()
	// QueueDepth records how many jobs wait in a queue.
	QueueDepth(queue string, n int)
}

// The pipelines and their outcomes, as Metrics.Pipeline names them.
const (
	Ingest      = "ingest"
	Extract     = "extract"
	Consolidate = "consolidate"

	OutcomeOK       = "ok"       // done
	OutcomeFailed   = "failed"   // failed; retried if it may pass
	OutcomeRejected = "rejected" // can never succeed (bad input): dropped
	OutcomeQueued   = "queued"   // accepted for later processing
)

// Discard is a Metrics that records nothing.
var Discard Metrics = discard{}

type discard struct{}

func (discard) Request(string, int, time.Duration) {}
func (discard) Stage(string, time.Duration)        {}
func (discard) Pipeline(string, string, int)       {}
func (discard) RerankFallback()                    {}
func (discard) QueueDepth(string, int)             {}

// StatusClass is "2xx", "4xx", "5xx"... for an HTTP status.
func StatusClass(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status/100) + "xx"
}

// instrumentation is the name of the tracer of every span made here.
const instrumentation = "github.com/agentmem/agentmem/pkg/telemetry"

var enabled atomic.Bool

// SetTracerProvider installs tp as the global tracer provider and turns
// tracing on: from then on Ports wraps the ports it is given. Call it
// before the backend is opened.
func SetTracerProvider(tp trace.TracerProvider) {
	otel.SetTracerProvider(tp)
	enabled.Store(true)
}

// Tracing reports whether a tracer provider was installed.
func Tracing() bool { return enabled.Load() }

// Start starts a span named name as a child of the span in ctx. End it with
// End.
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return otel.Tracer(instrumentation).Start(ctx, name, trace.WithAttributes(attrs...))
}

// End ends span, recording err, and its memory error code, when not nil.
func End(span trace.Span, err error) {
	if err != nil {
		span.SetAttributes(attribute.String("error.code", memory.ErrorCode(err)))
		span.RecordError(err)
		span.SetStatus(codes.Error, memory.ErrorCode(err))
	}
	span.End()
}

// Attribute keys of the spans made here. The org is an opaque tenant id;
// no content, query text or key is ever put in a span.
const (
	AttrOrg   = attribute.Key("agentmem.org")
	AttrCount = attribute.Key("agentmem.count")
)
