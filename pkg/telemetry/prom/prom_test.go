package prom

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestExposition checks that what the port records is served in the
// Prometheus text format, with the labels it was given.
func TestExposition(t *testing.T) {
	m := New()
	m.Request("POST /v1/search", 200, 5*time.Millisecond)
	m.Request("POST /v1/search", 200, 7*time.Millisecond)
	m.Request("unmatched", 404, time.Millisecond)
	m.Stage("retrieve", 2*time.Millisecond)
	m.Pipeline("ingest", "failed", 3)
	m.RerankFallback()
	m.QueueDepth("extract", 4)
	depth := 9
	m.WatchQueue("local", func() int { return depth })
	m.WatchQueue("local", func() int { return -1 }) // the first stays
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	text := string(body)
	for _, want := range []string{
		`agentmem_http_requests_total{route="POST /v1/search",status="200"} 2`,
		`agentmem_http_requests_total{route="unmatched",status="404"} 1`,
		`agentmem_http_request_duration_seconds_count{route="POST /v1/search"} 2`,
		`agentmem_retrieval_stage_duration_seconds_count{stage="retrieve"} 1`,
		`agentmem_pipeline_items_total{outcome="failed",pipeline="ingest"} 3`,
		`agentmem_rerank_fallbacks_total 1`,
		`agentmem_queue_depth{queue="extract"} 4`,
		`agentmem_queue_depth_current{queue="local"} 9`,
		`go_goroutines`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the exposition", want)
		}
	}
}
