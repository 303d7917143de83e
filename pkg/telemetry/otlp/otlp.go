// Package otlp installs the OpenTelemetry SDK with the OTLP trace exporter
// when the standard OTEL_* variables ask for it, and nothing otherwise:
// tracing is off by default. Only the binaries that may export traces
// import it (memoryd, and the Lambdas), since the SDK and the exporter add
// to a binary's size.
//
// The variables, read by the SDK itself as the OpenTelemetry specification
// defines them:
//
//	OTEL_TRACES_EXPORTER          otlp turns tracing on; none (or unset, with no endpoint) keeps it off
//	OTEL_EXPORTER_OTLP_ENDPOINT   the collector, e.g. http://localhost:4318; setting it (or the
//	                              traces-only OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) turns tracing on too
//	                              (/v1/traces is appended; the traces-only one is used as is)
//	OTEL_EXPORTER_OTLP_PROTOCOL   http/json, the only protocol built in (see exporter: no gRPC or
//	                              protobuf, which would double the Lambdas' size); unset means http/json
//	OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT (and their TRACES_ variants)
//	OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES   the resource
//	OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG  the sampler (default parentbased_always_on)
//	OTEL_SDK_DISABLED=true        keeps tracing off whatever else is set
package otlp

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/agentmem/agentmem/pkg/telemetry"
)

// Enabled reports whether the environment asks for trace export, and
// checks what it asks for. getenv is os.Getenv outside tests.
func Enabled(getenv func(string) string) (bool, error) {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false, nil
	}
	exp := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")))
	switch exp {
	case "none":
		return false, nil
	case "", "otlp":
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER: %q is not supported (otlp or none)", exp)
	}
	on := exp == "otlp" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	if !on {
		return false, nil
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := getenv(v); p != "" {
			if p != "http/json" {
				return false, fmt.Errorf("%s: %q is not supported: this build exports OTLP over http/json only", v, p)
			}
			break
		}
	}
	return true, nil
}

// Setup installs the SDK's tracer provider with the OTLP/HTTP JSON exporter
// when the environment asks for it (see Enabled), with service as the
// service name unless OTEL_SERVICE_NAME names one, and the W3C trace
// context propagator. It returns the function that flushes and stops the
// exporter (a no-op when tracing is off).
func Setup(ctx context.Context, service string) (shutdown func(context.Context) error, err error) {
	noop := func(context.Context) error { return nil }
	on, err := Enabled(os.Getenv)
	if err != nil || !on {
		return noop, err
	}
	exp, err := newExporter(os.Getenv)
	if err != nil {
		return noop, fmt.Errorf("otlp: trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(),
		resource.NewSchemaless(semconv.ServiceName(service)))
	if err != nil {
		return noop, fmt.Errorf("otlp: resource: %w", err)
	}
	// The environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) wins.
	env, err := resource.New(ctx, resource.WithFromEnv())
	if err != nil {
		return noop, fmt.Errorf("otlp: resource: %w", err)
	}
	if res, err = resource.Merge(res, env); err != nil {
		return noop, fmt.Errorf("otlp: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	telemetry.SetTracerProvider(tp)
	return tp.Shutdown, nil
}
