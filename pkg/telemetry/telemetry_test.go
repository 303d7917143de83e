package telemetry_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

const (
	keyA = "trace-key-org-a-0000"
	keyB = "trace-key-org-b-0000"
)

// tracedAPI is the HTTP API on the SQLite store, the bolt index and the
// hashing embedder, its ports traced into rec.
func tracedAPI(t *testing.T) (*httptest.Server, *tracetest.SpanRecorder, *sqlite.Store) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	telemetry.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	otel.SetTextMapPropagator(propagation.TraceContext{})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir, ctx, emb := t.TempDir(), context.Background(), hashing.New(128)
	st, err := local.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, _, err := local.OpenIndex(ctx, dir, st, emb, log)
	if err != nil {
		t.Fatal(err)
	}
	s, i, e := telemetry.Ports(st, ix, emb)
	svc := service.NewService(s, i, e, append([]service.Option{service.WithLogger(log)}, wiring.KnowledgeOptions(s, e, log)...)...)
	keys, err := auth.ParseKeys(keyA + "=org-a," + keyB + "=org-b")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, keys, log))
	t.Cleanup(func() { srv.Close(); svc.Close(); ix.Close(); st.Close() })
	return srv, rec, st
}

func post(t *testing.T, url, key, body string, header ...string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// TestRequestSpanTree checks that one search yields one trace: the server
// span named after the route, continuing the caller's traceparent, with
// the embedder, the index and the store as its children, each labelled
// with the caller's org and no other.
func TestRequestSpanTree(t *testing.T) {
	srv, rec, _ := tracedAPI(t)
	if st := post(t, srv.URL+"/v1/memories", keyA, `{"type":"fact","content":{"text":"Dana drinks jasmine tea"}}`); st != 201 {
		t.Fatalf("create: %d", st)
	}
	if st := post(t, srv.URL+"/v1/memories", keyB, `{"type":"fact","content":{"text":"Dana drinks jasmine tea"}}`); st != 201 {
		t.Fatalf("create b: %d", st)
	}
	before := len(rec.Ended())
	const parentTrace, parentSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	if st := post(t, srv.URL+"/v1/search", keyA, `{"query":"jasmine tea","mode":"hybrid"}`,
		"traceparent", "00-"+parentTrace+"-"+parentSpan+"-01"); st != 200 {
		t.Fatalf("search: %d", st)
	}
	spans := rec.Ended()[before:]
	var root sdktrace.ReadOnlySpan
	var names []string
	for _, s := range spans {
		names = append(names, s.Name())
		if s.Name() == "POST /v1/search" {
			root = s
		}
	}
	sort.Strings(names)
	want := []string{"POST /v1/search", "embedder.Embed", "index.Search", "store.GetMany", "store.Touch"}
	if !slices.Equal(names, want) {
		t.Fatalf("spans %v, want %v", names, want)
	}
	if got := root.SpanContext().TraceID().String(); got != parentTrace {
		t.Errorf("root trace %s, want the caller's %s", got, parentTrace)
	}
	if got := root.Parent().SpanID().String(); got != parentSpan {
		t.Errorf("root parent %s, want the caller's span %s", got, parentSpan)
	}
	for _, s := range spans {
		if s == root {
			continue
		}
		if s.Parent().SpanID() != root.SpanContext().SpanID() || s.SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("%s is not a child of the request span", s.Name())
		}
		for _, a := range s.Attributes() {
			if a.Key == telemetry.AttrOrg && a.Value.AsString() != "org-a" {
				t.Errorf("%s: org %q in org-a's search", s.Name(), a.Value.AsString())
			}
			if strings.Contains(a.Value.String(), "jasmine") {
				t.Errorf("%s: attribute %s holds the query text", s.Name(), a.Key)
			}
		}
	}
}

// TestCreateSpans checks a write's spans: the embedder, the store and the
// index under the request span, and a store error marked on its span.
func TestCreateSpans(t *testing.T) {
	srv, rec, _ := tracedAPI(t)
	if st := post(t, srv.URL+"/v1/memories", keyA, `{"type":"fact","content":{"text":"Ana moved to Porto in May"}}`); st != 201 {
		t.Fatalf("create: %d", st)
	}
	got := map[string]bool{}
	for _, s := range rec.Ended() {
		got[s.Name()] = true
	}
	for _, n := range []string{"POST /v1/memories", "embedder.Embed", "store.Create", "index.Upsert"} {
		if !got[n] {
			t.Errorf("no %s span among %v", n, got)
		}
	}
	before := len(rec.Ended())
	req, _ := http.NewRequest("PATCH", srv.URL+"/v1/memories/nope", strings.NewReader(`{"importance":0.5}`))
	req.Header.Set("Authorization", "Bearer "+keyA)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Fatalf("patch of a missing memory: %d", res.StatusCode)
	}
	for _, s := range rec.Ended()[before:] {
		if s.Name() == "store.Get" && s.Status().Code.String() == "Error" {
			t.Errorf("a missing memory marked store.Get as an error")
		}
	}
}

// TestTracedStoreKeepsCapabilities checks that the traced store forwards
// every method of both stores, so that no consumer looking for a
// capability misses it when tracing is on. A method added to a store must
// be forwarded by the decorator (embedding FullStore does it when it is a
// port method) or listed here as used on the concrete store only.
func TestTracedStoreKeepsCapabilities(t *testing.T) {
	concreteOnly := map[string]bool{"Close": true, "Total": true, "Client": true, "Table": true,
		"Authenticate": true, "PutAPIKey": true, "RevokeAPIKey": true, "Idempotency": true,
		"SettleCommits": true} // the ingestion recovery's, on the store of wiring.Capabilities
	st, err := sqlite.Open(t.TempDir() + "/m.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	traced := reflect.TypeOf(telemetry.Store(st))
	for _, typ := range []reflect.Type{reflect.TypeOf(st), reflect.TypeOf((*dynamodb.Store)(nil))} {
		for i := 0; i < typ.NumMethod(); i++ {
			m := typ.Method(i)
			if concreteOnly[m.Name] {
				continue
			}
			if _, ok := traced.MethodByName(m.Name); !ok {
				t.Errorf("%s.%s is not forwarded by the traced store", typ, m.Name)
			}
		}
	}
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"RelationStore", isA[memory.RelationStore](telemetry.Store(st))},
		{"RecordStore", isA[memory.RecordStore](telemetry.Store(st))},
		{"OrgLister", isA[memory.OrgLister](telemetry.Store(st))},
		{"TermIndex", isA[memory.TermIndex](telemetry.Store(st))},
		{"DocumentCommitter", isA[memory.DocumentCommitter](telemetry.Store(st))},
		{"VersionScanner", isA[memory.VersionScanner](telemetry.Store(st))},
		{"MemoryKeyLister", isA[memory.MemoryKeyLister](telemetry.Store(st))},
		{"RefNamer", isA[memory.RefNamer](telemetry.Store(st))},
		{"TermCounter", isA[memory.TermCounter](telemetry.Store(st))},
	} {
		if !c.ok {
			t.Errorf("the traced SQLite store is no %s", c.name)
		}
	}
	if !isA[memory.DocumentCommitter](telemetry.Store(dynamodb.New(nil, "t"))) {
		t.Error("the traced DynamoDB store does not commit documents atomically")
	}
}

func isA[T any](v any) bool { _, ok := v.(T); return ok }
