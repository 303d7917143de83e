package otlp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// exporter sends spans as OTLP/HTTP JSON (the http/json protocol of the
// OTLP specification) to a collector's /v1/traces. It is written here
// rather than taken from the OpenTelemetry exporter module because that one
// links gRPC and protobuf, which more than doubled the Lambdas' size
// (about +11 MB each); the JSON encoding needs neither.
type exporter struct {
	url     string
	headers http.Header
	client  *http.Client
}

// newExporter reads the endpoint, headers and timeout from getenv, as the
// OpenTelemetry specification names them.
func newExporter(getenv func(string) string) (*exporter, error) {
	u := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") // used as is
	if u == "" {
		base := getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
		if base == "" {
			base = "http://localhost:4318"
		}
		u = strings.TrimSuffix(base, "/") + "/v1/traces"
	}
	if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: %q is not an http(s) URL", u)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		for _, kv := range strings.Split(getenv(v), ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok || k == "" {
				continue
			}
			k, _ = url.QueryUnescape(k)
			val, _ = url.QueryUnescape(val)
			h.Set(strings.TrimSpace(k), strings.TrimSpace(val))
		}
	}
	timeout := 10 * time.Second
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"} {
		if s := getenv(v); s != "" {
			ms, err := strconv.Atoi(s)
			if err != nil || ms <= 0 {
				return nil, fmt.Errorf("%s: %q is not a positive number of milliseconds", v, s)
			}
			timeout = time.Duration(ms) * time.Millisecond
		}
	}
	return &exporter{url: u, headers: h, client: &http.Client{Timeout: timeout}}, nil
}

// ExportSpans implements sdktrace.SpanExporter.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(encode(spans))
	if err != nil {
		return fmt.Errorf("otlp: encode spans: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	req.Header = e.headers.Clone()
	res, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("otlp: export %d spans: %w", len(spans), err)
	}
	defer res.Body.Close()
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("otlp: export %d spans: collector answered %s", len(spans), res.Status)
	}
	return nil
}

// Shutdown implements sdktrace.SpanExporter.
func (e *exporter) Shutdown(context.Context) error { return nil }

// The OTLP JSON document (opentelemetry-proto, JSON mapping: ids in hex,
// 64-bit integers as strings, enums as numbers).
type (
	exportRequest struct {
		ResourceSpans []resourceSpans `json:"resourceSpans"`
	}
	resourceSpans struct {
		Resource   keyValues    `json:"resource"`
		ScopeSpans []scopeSpans `json:"scopeSpans"`
	}
	keyValues struct {
		Attributes []keyValue `json:"attributes,omitempty"`
	}
	scopeSpans struct {
		Scope struct {
			Name    string `json:"name"`
			Version string `json:"version,omitempty"`
		} `json:"scope"`
		Spans []span `json:"spans"`
	}
	span struct {
		TraceID           string     `json:"traceId"`
		SpanID            string     `json:"spanId"`
		ParentSpanID      string     `json:"parentSpanId,omitempty"`
		Name              string     `json:"name"`
		Kind              int        `json:"kind"`
		StartTimeUnixNano string     `json:"startTimeUnixNano"`
		EndTimeUnixNano   string     `json:"endTimeUnixNano"`
		Attributes        []keyValue `json:"attributes,omitempty"`
		Events            []event    `json:"events,omitempty"`
		Status            status     `json:"status"`
	}
	event struct {
		TimeUnixNano string     `json:"timeUnixNano"`
		Name         string     `json:"name"`
		Attributes   []keyValue `json:"attributes,omitempty"`
	}
	status struct {
		Code    int    `json:"code,omitempty"`
		Message string `json:"message,omitempty"`
	}
	keyValue struct {
		Key   string `json:"key"`
		Value value  `json:"value"`
	}
	value struct {
		String *string  `json:"stringValue,omitempty"`
		Bool   *bool    `json:"boolValue,omitempty"`
		Int    *string  `json:"intValue,omitempty"`
		Double *float64 `json:"doubleValue,omitempty"`
	}
)

func encode(spans []sdktrace.ReadOnlySpan) exportRequest {
	var out exportRequest
	resources := map[string]int{}    // encoded resource -> index in ResourceSpans
	scopes := map[[2]string][2]int{} // resource, scope -> indexes
	for _, s := range spans {
		res := s.Resource()
		rk := res.Encoded(attribute.DefaultEncoder())
		ri, ok := resources[rk]
		if !ok {
			out.ResourceSpans = append(out.ResourceSpans, resourceSpans{Resource: keyValues{Attributes: attrs(res.Attributes())}})
			ri = len(out.ResourceSpans) - 1
			resources[rk] = ri
		}
		sk := [2]string{rk, s.InstrumentationScope().Name}
		at, ok := scopes[sk]
		if !ok {
			ss := scopeSpans{}
			ss.Scope.Name, ss.Scope.Version = s.InstrumentationScope().Name, s.InstrumentationScope().Version
			out.ResourceSpans[ri].ScopeSpans = append(out.ResourceSpans[ri].ScopeSpans, ss)
			at = [2]int{ri, len(out.ResourceSpans[ri].ScopeSpans) - 1}
			scopes[sk] = at
		}
		sp := span{TraceID: s.SpanContext().TraceID().String(), SpanID: s.SpanContext().SpanID().String(), Name: s.Name(),
			Kind: int(s.SpanKind()), StartTimeUnixNano: nanos(s.StartTime()), EndTimeUnixNano: nanos(s.EndTime()),
			Attributes: attrs(s.Attributes())}
		if p := s.Parent(); p.IsValid() {
			sp.ParentSpanID = p.SpanID().String()
		}
		for _, ev := range s.Events() {
			sp.Events = append(sp.Events, event{TimeUnixNano: nanos(ev.Time), Name: ev.Name, Attributes: attrs(ev.Attributes)})
		}
		switch s.Status().Code {
		case codes.Ok:
			sp.Status.Code = 1
		case codes.Error:
			sp.Status = status{Code: 2, Message: s.Status().Description}
		}
		ss := &out.ResourceSpans[at[0]].ScopeSpans[at[1]]
		ss.Spans = append(ss.Spans, sp)
	}
	return out
}

func nanos(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

func attrs(kvs []attribute.KeyValue) []keyValue {
	out := make([]keyValue, 0, len(kvs))
	for _, kv := range kvs {
		var v value
		switch kv.Value.Type() {
		case attribute.BOOL:
			b := kv.Value.AsBool()
			v.Bool = &b
		case attribute.INT64:
			i := strconv.FormatInt(kv.Value.AsInt64(), 10)
			v.Int = &i
		case attribute.FLOAT64:
			f := kv.Value.AsFloat64()
			v.Double = &f
		default: // strings, and slices rendered as text
			s := kv.Value.String()
			v.String = &s
		}
		out = append(out, keyValue{Key: string(kv.Key), Value: v})
	}
	return out
}
