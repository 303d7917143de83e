package telemetry

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
)

// Counter turns one invocation of a pipeline, its event and what it
// returned, into counts by outcome (OutcomeOK, OutcomeFailed...).
type Counter[E, R any] func(ev E, res R, err error) map[string]int

// Handler wraps the handler h of a Lambda, or of any unit of pipeline
// work: each call runs in a root span named name; count, if not nil,
// turns its result into Metrics.Pipeline counts for pipeline name; and at
// the end the spans are flushed (a Lambda's environment is frozen between
// invocations, so a span still buffered might never leave).
func Handler[E, R any](name string, m Metrics, h func(context.Context, E) (R, error), count Counter[E, R]) func(context.Context, E) (R, error) {
	if m == nil {
		m = Discard
	}
	return func(ctx context.Context, ev E) (res R, err error) {
		ctx, span := otel.Tracer(instrumentation).Start(ctx, name, trace.WithSpanKind(trace.SpanKindConsumer))
		defer func() {
			End(span, err)
			if count != nil {
				for outcome, n := range count(ev, res, err) {
					if n > 0 {
						m.Pipeline(name, outcome, n)
					}
				}
			}
			Flush(context.WithoutCancel(ctx))
		}()
		return h(ctx, ev)
	}
}

// Flush exports the spans the tracer provider still buffers, if it
// buffers any (the SDK's does).
func Flush(ctx context.Context) {
	if f, ok := otel.GetTracerProvider().(interface{ ForceFlush(context.Context) error }); ok {
		f.ForceFlush(ctx)
	}
}
