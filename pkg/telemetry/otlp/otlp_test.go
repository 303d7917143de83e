package otlp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestEnabled(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		on      bool
		wantErr bool
	}{
		{"nothing set: off", nil, false, false},
		{"exporter otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, false},
		{"an endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, false},
		{"a traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true, false},
		{"none wins over an endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, false, false},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false, false},
		{"unknown exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, true},
		{"grpc", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, true},
		{"http/json", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, true, false},
		{"traces protocol wins", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			on, err := Enabled(env(tc.env))
			if on != tc.on || (err != nil) != tc.wantErr {
				t.Fatalf("Enabled = %v, %v; want %v, error %v", on, err, tc.on, tc.wantErr)
			}
		})
	}
}

func TestNewExporterConfig(t *testing.T) {
	tests := []struct {
		name, url string
		env       map[string]string
		wantErr   bool
	}{
		{"default", "http://localhost:4318/v1/traces", nil, false},
		{"base endpoint", "http://127.0.0.1:9/v1/traces", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9/"}, false},
		{"traces endpoint as is", "http://127.0.0.1:9/custom", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/custom",
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://other"}, false},
		{"not a URL", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, true},
		{"bad timeout", "", map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := newExporter(env(tc.env))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v", err)
			}
			if err == nil && e.url != tc.url {
				t.Fatalf("url %s, want %s", e.url, tc.url)
			}
		})
	}
}

// TestExportJSON sends a parent and a child span to a loopback collector
// and checks the OTLP JSON it receives: ids, parentage, attributes,
// status, resource and the configured headers.
func TestExportJSON(t *testing.T) {
	var mu sync.Mutex
	var got []resourceSpans // one request per span: the exporter is synchronous
	var header http.Header
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", 400)
			return
		}
		header = r.Header
		var req exportRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
		}
		got = append(got, req.ResourceSpans...)
	}))
	defer col.Close()
	exp, err := newExporter(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.URL, "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=s%20ecret"}))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "memoryd"))))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "POST /v1/search")
	_, child := tp.Tracer("test").Start(ctx, "index.Search")
	child.SetAttributes(attribute.Int("agentmem.k", 5), attribute.Bool("agentmem.semantic", true), attribute.String("agentmem.org", "org-a"))
	child.SetStatus(codes.Error, "unavailable")
	child.End()
	parent.End()
	tp.Shutdown(context.Background())

	mu.Lock()
	defer mu.Unlock()
	if header.Get("X-Api-Key") != "s ecret" {
		t.Errorf("header %q", header.Get("X-Api-Key"))
	}
	spans := map[string]span{}
	for _, rs := range got {
		if a := rs.Resource.Attributes; len(a) != 1 || a[0].Key != "service.name" || *a[0].Value.String != "memoryd" {
			t.Errorf("resource %+v", a)
		}
		if len(rs.ScopeSpans) != 1 || rs.ScopeSpans[0].Scope.Name != "test" {
			t.Fatalf("scopes %+v", rs.ScopeSpans)
		}
		for _, s := range rs.ScopeSpans[0].Spans {
			spans[s.Name] = s
		}
	}
	if len(spans) != 2 {
		t.Fatalf("spans %+v", spans)
	}
	p, c := spans["POST /v1/search"], spans["index.Search"]
	if len(p.TraceID) != 32 || len(p.SpanID) != 16 || p.ParentSpanID != "" {
		t.Errorf("parent ids %+v", p)
	}
	if c.TraceID != p.TraceID || c.ParentSpanID != p.SpanID {
		t.Errorf("child %s/%s not under parent %s/%s", c.TraceID, c.ParentSpanID, p.TraceID, p.SpanID)
	}
	if c.Status.Code != 2 || c.Status.Message != "unavailable" {
		t.Errorf("status %+v", c.Status)
	}
	attrs := map[string]value{}
	for _, a := range c.Attributes {
		attrs[a.Key] = a.Value
	}
	if v := attrs["agentmem.k"]; v.Int == nil || *v.Int != "5" {
		t.Errorf("k %+v", v)
	}
	if v := attrs["agentmem.semantic"]; v.Bool == nil || !*v.Bool {
		t.Errorf("semantic %+v", v)
	}
	if v := attrs["agentmem.org"]; v.String == nil || *v.String != "org-a" {
		t.Errorf("org %+v", v)
	}
	if c.StartTimeUnixNano == "" || c.EndTimeUnixNano < c.StartTimeUnixNano {
		t.Errorf("times %s..%s", c.StartTimeUnixNano, c.EndTimeUnixNano)
	}
}
