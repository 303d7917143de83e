package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// rerankServer speaks the Cohere-shaped /rerank API: it checks the request
// and scores a document 1 when it mentions favourite, else 0.1, so the
// reranked order is known. down makes it answer 503.
func rerankServer(t *testing.T, down *atomic.Bool, calls *atomic.Int64) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/rerank" {
			http.Error(w, "want POST /rerank", http.StatusNotFound)
			return
		}
		if down.Load() {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Model     string   `json:"model"`
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "rr-1" || req.Query == "" || len(req.Documents) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out struct {
			Results []result `json:"results"`
		}
		for i, d := range req.Documents {
			s := 0.1
			if strings.Contains(d, "favourite") {
				s = 1
			}
			out.Results = append(out.Results, result{i, s})
		}
		json.NewEncoder(w).Encode(out)
	}))
}

// TestRerankerAndWeightsFromConfig: RERANKER=http puts the /rerank
// endpoint into every search of the server's service, a failing endpoint
// leaves the fused order with the reason, "rerank": false skips it, and
// SEARCH_WEIGHTS reaches the fusion.
func TestRerankerAndWeightsFromConfig(t *testing.T) {
	ctx := context.Background()
	var down atomic.Bool
	var calls atomic.Int64
	rs := rerankServer(t, &down, &calls)
	defer rs.Close()
	env := map[string]string{"DATA_DIR": t.TempDir(), "EMBEDDER": "hash", "RERANKER": "http", "RERANK_URL": rs.URL,
		"RERANK_MODEL": "rr-1", "SEARCH_WEIGHTS": "semantic=0"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	b, err := server.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if w := b.Service.Retrieval().Weights["semantic"]; w != 0 {
		t.Fatalf("semantic weight %v, want 0 from SEARCH_WEIGHTS", w)
	}
	if w := b.Service.Retrieval().Weights["knowledge"]; w != 0.5 {
		t.Fatalf("knowledge weight %v, want its default 0.5 (not named in SEARCH_WEIGHTS)", w)
	}
	caller := memory.Caller{OrgID: "acme"}
	texts := []string{"tea with the team on the terrace", "the team likes green tea", "my favourite tea is sencha, said the team"}
	var in []service.NewMemory
	for _, s := range texts {
		in = append(in, service.NewMemory{Content: memory.Content{Text: s}})
	}
	if _, err := b.Service.Create(ctx, caller, in); err != nil {
		t.Fatal(err)
	}
	off := false
	tests := []struct {
		name       string
		down       bool
		rerank     *bool
		wantRerank bool
		wantCalls  int64
	}{
		{"reranked", false, nil, true, 1},
		{"endpoint down: fused order, with the reason", true, nil, false, 1},
		{"rerank false: no call", false, &off, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			down.Store(tc.down)
			before := calls.Load()
			res, err := b.Service.SearchRanked(ctx, caller, service.SearchRequest{Query: "team tea", Mode: service.ModeKeyword, K: 3, Rerank: tc.rerank})
			if err != nil {
				t.Fatal(err)
			}
			if res.Reranked != tc.wantRerank || (tc.down && res.RerankError == "") {
				t.Fatalf("reranked %v (error %q), want %v", res.Reranked, res.RerankError, tc.wantRerank)
			}
			if got := calls.Load() - before; got < tc.wantCalls || (tc.wantCalls == 0 && got != 0) {
				t.Fatalf("%d calls to /rerank, want %d", got, tc.wantCalls)
			}
			if len(res.Results) != 3 {
				t.Fatalf("%d results, want 3", len(res.Results))
			}
			// BM25 ranks the longest text, the favourite one, last; only the
			// reranker lifts it to the top.
			if top := res.Results[0].Memory.Content.Text; tc.wantRerank != strings.Contains(top, "favourite") {
				t.Fatalf("top result %q with reranked=%v", top, tc.wantRerank)
			}
		})
	}
}

// TestReleasePagesFromConfig: INDEX_RELEASE_PAGES reaches the embedded
// index, and the index keeps its pages by default.
func TestReleasePagesFromConfig(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
	}{{"", false}, {"false", false}, {"true", true}} {
		t.Run("INDEX_RELEASE_PAGES="+tc.value, func(t *testing.T) {
			b := openWith(t, map[string]string{"INDEX_RELEASE_PAGES": tc.value})
			if got := b.Bolt.ReleasesPages(); got != tc.want {
				t.Fatalf("the index releases its search pages: %v, want %v", got, tc.want)
			}
		})
	}
}
