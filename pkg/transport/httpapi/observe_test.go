package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// recorded is a telemetry.Metrics that keeps what it is told.
type recorded struct {
	mu        sync.Mutex
	requests  map[string]int // "route status"
	stages    map[string]int
	pipelines map[string]int // "pipeline outcome"
}

func (r *recorded) Request(route string, status int, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests[fmt.Sprintf("%s %d", route, status)]++
}
func (r *recorded) Stage(stage string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stages[stage]++
}
func (r *recorded) Pipeline(p, o string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pipelines[p+" "+o] += n
}
func (r *recorded) RerankFallback()        {}
func (r *recorded) QueueDepth(string, int) {}

// TestMetrics checks what the API reports: each request under its route
// pattern (never its path, which holds ids) and status, "unmatched" for
// the requests no route matched, a search's stages, the documents
// ingested and the extraction jobs queued.
func TestMetrics(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(128), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	keys, err := auth.ParseKeys(fmt.Sprintf("%s=org-a,%s=org-b", keyA, keyB))
	if err != nil {
		t.Fatal(err)
	}
	docs := &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 200, Overlap: 40}, Log: log}
	queue := extract.NewLocalQueue(&extract.Pipeline{Service: b.Service.Pipelines(), Extractor: extract.Local{}, Log: log}, 100)
	t.Cleanup(queue.Close)
	m := &recorded{requests: map[string]int{}, stages: map[string]int{}, pipelines: map[string]int{}}
	c := newClient(t, httpapi.New(b.Service, keys, log, httpapi.WithDocuments(docs), httpapi.WithExtraction(queue), httpapi.WithMetrics(m)))

	id := c.create(keyA, map[string]any{"content": map[string]any{"text": "Dana drinks jasmine tea"}})
	c.do("GET", "/v1/memories/"+id, keyA, nil)
	c.do("GET", "/v1/memories/"+id, keyB, nil) // another org: 404 under the route
	c.do("GET", "/v1/memories/"+id, "", nil)   // no key: 401 under the route
	c.do("GET", "/v1/nowhere/"+id, keyA, nil)
	c.do("POST", "/v1/search", keyA, map[string]any{"query": "jasmine tea", "mode": "hybrid"})
	c.do("POST", "/v1/documents", keyA, map[string]any{"name": "notes.md", "content": "# Notes\n\nDana drinks jasmine tea."})
	c.do("POST", "/v1/documents", keyA, map[string]any{"name": "broken.pdf", "content": "not a PDF"})
	c.do("POST", "/v1/messages", keyA, map[string]any{"messages": []map[string]any{
		{"roomId": "r", "entityId": "dana", "content": map[string]any{"text": "I moved to Porto."}}}})

	m.mu.Lock()
	defer m.mu.Unlock()
	for key, n := range map[string]int{
		"POST /v1/memories 201": 1, "GET /v1/memories/{id} 200": 1, "GET /v1/memories/{id} 404": 1,
		"GET /v1/memories/{id} 401": 1, "unmatched 404": 1, "POST /v1/search 200": 1, "POST /v1/documents 201": 1,
	} {
		if m.requests[key] != n {
			t.Errorf("requests[%q] = %d, want %d (all: %v)", key, m.requests[key], n, m.requests)
		}
	}
	for k := range m.requests {
		if strings.Contains(k, id) {
			t.Errorf("a route label holds an id: %q", k)
		}
	}
	for _, s := range []string{"retrieve", "list:keyword+semantic", "fuse", "load"} {
		if m.stages[s] != 1 {
			t.Errorf("stage %s recorded %d times, want 1 (%v)", s, m.stages[s], m.stages)
		}
	}
	if m.pipelines["ingest ok"] != 1 || m.pipelines["ingest failed"] != 1 {
		t.Errorf("ingest counts %v, want one ok and one failed", m.pipelines)
	}
	if m.pipelines["extract queued"] != 1 {
		t.Errorf("extract counts %v, want one job queued", m.pipelines)
	}
}
