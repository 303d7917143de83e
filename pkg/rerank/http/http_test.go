package httprerank_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	httprerank "github.com/agentmem/agentmem/pkg/rerank/http"
)

var ctx = context.Background()

const (
	apiKey = "test-key"
	model  = "rerank-v3.5"
	teiMax = 32 // TEI's default --max-client-batch-size
)

// fakeServer is a local rerank endpoint: Cohere's /v2/rerank (answering
// with Jina's extra fields when jina is set) and TEI's /rerank. It checks
// the request as each documents it and answers in its format, results
// sorted by relevance, each with the index of its document in the request.
type fakeServer struct {
	jina       bool
	throttle   atomic.Int32 // answer this many requests with 429 first
	retryAfter string       // Retry-After of those 429s
	fail5xx    atomic.Int32 // then this many with 503
	status     int          // answer every request with this status
	malform    string       // "json", "index", "noscore", "dupe", "noresults", "big"
	keep       int          // answer only the best keep results
	block      bool         // never answer; wait for the client to give up

	requests atomic.Int32
	mu       sync.Mutex
	batches  [][]string // the documents of each request
	queries  []string
}

// relevance is the fake model: the share of the query's words in the text.
func relevance(query, text string) float64 {
	words := strings.Fields(strings.ToLower(text))
	in := map[string]bool{}
	for _, w := range words {
		in[strings.Trim(w, ".,")] = true
	}
	q := strings.Fields(strings.ToLower(query))
	hit := 0
	for _, w := range q {
		if in[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(q)+len(words))
}

func strict(body []byte, want ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	if len(m) != len(want) {
		return nil, fmt.Errorf("%d keys, want %v", len(m), want)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("missing %q", k)
		}
	}
	return m, nil
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if f.block {
		io.ReadAll(r.Body) // the server watches the connection once the body is read
		<-r.Context().Done()
		return
	}
	tei := r.URL.Path == "/rerank"
	if r.Method != http.MethodPost || (!tei && r.URL.Path != "/v2/rerank") || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, `{"message":"not found"}`, http.StatusNotFound)
		return
	}
	if !tei && r.Header.Get("Authorization") != "Bearer "+apiKey {
		http.Error(w, `{"message":"invalid api token"}`, http.StatusUnauthorized)
		return
	}
	if f.throttle.Load() > 0 {
		f.throttle.Add(-1)
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		http.Error(w, `{"message":"too many requests"}`, http.StatusTooManyRequests)
		return
	}
	if f.fail5xx.Load() > 0 {
		f.fail5xx.Add(-1)
		http.Error(w, `{"message":"overloaded"}`, http.StatusServiceUnavailable)
		return
	}
	if f.status != 0 {
		http.Error(w, `{"message":"no"}`, f.status)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var query string
	var docs []string
	var topN int
	if tei {
		m, err := strict(body, "query", "texts", "truncate")
		if err != nil || json.Unmarshal(m["query"], &query) != nil || json.Unmarshal(m["texts"], &docs) != nil || string(m["truncate"]) != "true" {
			http.Error(w, fmt.Sprintf(`{"error":"bad request %v","error_type":"Validation"}`, err), http.StatusUnprocessableEntity)
			return
		}
		if len(docs) > teiMax {
			http.Error(w, fmt.Sprintf(`{"error":"batch size %d > maximum allowed batch size %d","error_type":"Validation"}`, len(docs), teiMax), http.StatusRequestEntityTooLarge)
			return
		}
		topN = len(docs)
	} else {
		var mdl string
		m, err := strict(body, "model", "query", "documents", "top_n")
		if err != nil || json.Unmarshal(m["model"], &mdl) != nil || mdl != model || json.Unmarshal(m["query"], &query) != nil ||
			json.Unmarshal(m["documents"], &docs) != nil || json.Unmarshal(m["top_n"], &topN) != nil || topN != len(docs) {
			http.Error(w, fmt.Sprintf(`{"message":"invalid request: %v %s"}`, err, body), http.StatusBadRequest)
			return
		}
	}
	if query == "" || len(docs) == 0 {
		http.Error(w, `{"message":"query and documents are required"}`, http.StatusBadRequest)
		return
	}
	for _, d := range docs {
		if d == "" {
			http.Error(w, `{"message":"empty document"}`, http.StatusBadRequest)
			return
		}
	}
	f.mu.Lock()
	f.batches = append(f.batches, docs)
	f.queries = append(f.queries, query)
	f.mu.Unlock()

	type res struct {
		Index          int      `json:"index"`
		RelevanceScore *float64 `json:"relevance_score,omitempty"`
		Score          *float64 `json:"score,omitempty"`
		Document       any      `json:"document,omitempty"`
	}
	var results []res
	for i, d := range docs {
		s := relevance(query, d)
		x := res{Index: i}
		if tei {
			x.Score = &s
		} else {
			x.RelevanceScore = &s
		}
		if f.jina {
			x.Document = map[string]string{"text": d}
		}
		results = append(results, x)
	}
	score := func(x res) float64 {
		if tei {
			return *x.Score
		}
		return *x.RelevanceScore
	}
	sort.SliceStable(results, func(a, b int) bool { return score(results[a]) > score(results[b]) })
	if f.keep > 0 && f.keep < topN {
		topN = f.keep
	}
	results = results[:topN]
	switch f.malform {
	case "json":
		w.Write([]byte(`{"results": [{"index": 0,`))
		return
	case "index":
		results[0].Index = len(docs)
	case "noscore":
		results[0].RelevanceScore, results[0].Score = nil, nil
	case "dupe":
		results[1].Index = results[0].Index
	case "noresults":
		tei = false
		results = nil
	case "big":
		results[0].Document = strings.Repeat("x", 4096)
	}
	w.Header().Set("Content-Type", "application/json")
	if tei {
		json.NewEncoder(w).Encode(results)
		return
	}
	out := map[string]any{"id": "rr-1", "results": results, "meta": map[string]any{"billed_units": map[string]int{"search_units": 1}}}
	if f.malform == "noresults" {
		delete(out, "results")
	}
	if f.jina {
		out["model"], out["usage"] = model, map[string]int{"total_tokens": 42}
	}
	json.NewEncoder(w).Encode(out)
}

func start(t *testing.T, f *fakeServer) string {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

func cohere(t *testing.T, f *fakeServer, o httprerank.Options) *httprerank.Reranker {
	t.Helper()
	o.BaseURL = start(t, f) + "/v2/"
	o.Model, o.APIKey = model, apiKey
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 20 * time.Millisecond
	}
	r, err := httprerank.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func tei(t *testing.T, f *fakeServer, o httprerank.Options) *httprerank.Reranker {
	t.Helper()
	o.BaseURL, o.Flavor = start(t, f), httprerank.FlavorTEI
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 20 * time.Millisecond
	}
	r, err := httprerank.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	query = "which tea does the user drink"
	docs  = []string{
		"The user lives in Lisbon.",
		"The user drinks green tea every morning.",
		"",
		"Deploys happen on Tuesdays.",
		"The user dislikes coffee but likes tea.",
	}
)

func checkScores(t *testing.T, query string, docs, sent []string, scores []float64) {
	t.Helper()
	if len(scores) != len(docs) {
		t.Fatalf("%d scores for %d docs", len(scores), len(docs))
	}
	isSent := map[string]bool{}
	for _, s := range sent {
		isSent[s] = true
	}
	for i, d := range docs {
		want := math.Inf(-1)
		if isSent[d] {
			want = relevance(query, d)
		}
		if scores[i] != want {
			t.Errorf("doc %d %q: score %v, want %v", i, d, scores[i], want)
		}
	}
}

func TestFlavors(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *fakeServer
		new  func(*testing.T, *fakeServer, httprerank.Options) *httprerank.Reranker
		want string
	}{
		{"cohere", &fakeServer{}, cohere, "http-rerank:" + model},
		{"jina", &fakeServer{jina: true}, cohere, "http-rerank:" + model},
		{"tei", &fakeServer{}, tei, "http-rerank:tei"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.new(t, tc.f, httprerank.Options{})
			if r.Name() != tc.want {
				t.Errorf("Name() = %q, want %q", r.Name(), tc.want)
			}
			scores, err := r.Rerank(ctx, query, docs)
			if err != nil {
				t.Fatal(err)
			}
			if tc.f.requests.Load() != 1 || len(tc.f.batches[0]) != 4 || tc.f.queries[0] != query {
				t.Fatalf("%d requests, sent %q for %q", tc.f.requests.Load(), tc.f.batches, tc.f.queries)
			}
			checkScores(t, query, docs, tc.f.batches[0], scores)
		})
	}
}

func TestBatchesMapBackToInputOrder(t *testing.T) {
	f := &fakeServer{}
	r := tei(t, f, httprerank.Options{Concurrency: 2})
	var many []string
	for i := 0; i < 70; i++ {
		many = append(many, fmt.Sprintf("note %d: %s", i, strings.Repeat("tea ", i%7)))
	}
	scores, err := r.Rerank(ctx, "tea", many)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	var sent []string
	for _, b := range f.batches {
		sizes = append(sizes, len(b))
		sent = append(sent, b...)
	}
	sort.Ints(sizes)
	if fmt.Sprint(sizes) != "[6 32 32]" {
		t.Fatalf("batch sizes %v, want 32, 32 and 6", sizes)
	}
	checkScores(t, "tea", many, sent, scores)
}

func TestLeftOutAndLimits(t *testing.T) {
	t.Run("documents the server leaves out", func(t *testing.T) {
		f := &fakeServer{keep: 2}
		r := cohere(t, f, httprerank.Options{})
		scores, err := r.Rerank(ctx, query, docs)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsInf(scores[1], -1) || math.IsInf(scores[4], -1) || !math.IsInf(scores[0], -1) || !math.IsInf(scores[3], -1) {
			t.Fatalf("scores %v: want only the two tea documents scored", scores)
		}
	})
	t.Run("MaxDocs, cut documents and query", func(t *testing.T) {
		f := &fakeServer{}
		r := cohere(t, f, httprerank.Options{MaxDocs: 3, MaxDocChars: 10, MaxQueryChars: 8})
		in := []string{"", "   ", "ünïcödé tea and more", "tea", "beyond", "beyond too"}
		scores, err := r.Rerank(ctx, "tea time for all", in)
		if err != nil {
			t.Fatal(err)
		}
		sent := f.batches[0]
		if fmt.Sprint(sent) != "[ünïcödé te tea beyond]" || f.queries[0] != "tea time" {
			t.Fatalf("sent %q for query %q", sent, f.queries[0])
		}
		if !math.IsInf(scores[0], -1) || !math.IsInf(scores[1], -1) || !math.IsInf(scores[5], -1) || scores[3] != relevance("tea time", "tea") {
			t.Fatalf("scores %v", scores)
		}
	})
	t.Run("input validation", func(t *testing.T) {
		f := &fakeServer{}
		r := cohere(t, f, httprerank.Options{})
		if _, err := r.Rerank(ctx, "", docs); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("empty query: %v", err)
		}
		if s, err := r.Rerank(ctx, query, nil); err != nil || s == nil || len(s) != 0 {
			t.Errorf("no docs: %v %v", s, err)
		}
		if s, err := r.Rerank(ctx, query, []string{""}); err != nil || len(s) != 1 || !math.IsInf(s[0], -1) {
			t.Errorf("an empty doc: %v %v", s, err)
		}
		if f.requests.Load() != 0 {
			t.Errorf("%d requests for calls that need none", f.requests.Load())
		}
	})
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		f        *fakeServer
		o        httprerank.Options
		tei      bool
		code     string
		requests int32
		contains string
	}{
		{"429 twice then answered", func() *fakeServer { f := &fakeServer{}; f.throttle.Store(2); return f }(), httprerank.Options{}, false, "", 3, ""},
		{"429 past the attempts", func() *fakeServer { f := &fakeServer{}; f.throttle.Store(100); return f }(), httprerank.Options{MaxAttempts: 4}, false, memory.EUNAVAILABLE, 4, "status 429"},
		{"Retry-After longer than MaxBackoff", func() *fakeServer { f := &fakeServer{retryAfter: "30"}; f.throttle.Store(1); return f }(), httprerank.Options{}, false, memory.EUNAVAILABLE, 1, "status 429"},
		{"Retry-After within MaxBackoff", func() *fakeServer { f := &fakeServer{retryAfter: "0"}; f.throttle.Store(1); return f }(), httprerank.Options{}, false, "", 2, ""},
		{"503 once then answered", func() *fakeServer { f := &fakeServer{}; f.fail5xx.Store(1); return f }(), httprerank.Options{}, true, "", 2, ""},
		{"400 is not retried", &fakeServer{status: 400}, httprerank.Options{}, false, memory.EINTERNAL, 1, "status 400"},
		{"TEI batch above its limit", &fakeServer{}, httprerank.Options{BatchSize: 40}, true, memory.EINTERNAL, 1, "maximum allowed batch size"},
		{"401", &fakeServer{status: 401}, httprerank.Options{}, false, memory.EUNAVAILABLE, 1, "status 401"},
		{"not JSON", &fakeServer{malform: "json"}, httprerank.Options{}, false, memory.EUNAVAILABLE, 1, "malformed"},
		{"no results", &fakeServer{malform: "noresults"}, httprerank.Options{}, false, memory.EUNAVAILABLE, 1, `no "results"`},
		{"TEI object instead of list", &fakeServer{malform: "noresults"}, httprerank.Options{}, true, memory.EUNAVAILABLE, 1, "malformed"},
		{"index out of range", &fakeServer{malform: "index"}, httprerank.Options{}, true, memory.EUNAVAILABLE, 1, "outside the"},
		{"index twice", &fakeServer{malform: "dupe"}, httprerank.Options{}, false, memory.EUNAVAILABLE, 1, "twice"},
		{"result without a score", &fakeServer{malform: "noscore"}, httprerank.Options{}, true, memory.EUNAVAILABLE, 1, "without"},
		{"answer above MaxResponseBytes", &fakeServer{malform: "big"}, httprerank.Options{MaxResponseBytes: 2048}, false, memory.EUNAVAILABLE, 1, "larger than 2048"},
		{"timeout", &fakeServer{block: true}, httprerank.Options{Timeout: 50 * time.Millisecond}, false, memory.EUNAVAILABLE, 1, "deadline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r *httprerank.Reranker
			if tc.tei {
				r = tei(t, tc.f, tc.o)
			} else {
				r = cohere(t, tc.f, tc.o)
			}
			many := docs
			if tc.tei {
				for i := 0; i < 40; i++ {
					many = append(many, fmt.Sprintf("filler %d", i))
				}
			}
			scores, err := r.Rerank(ctx, query, many)
			if got := memory.ErrorCode(err); got != tc.code {
				t.Fatalf("error %v (code %q), want %q", err, got, tc.code)
			}
			if tc.code == "" {
				checkScores(t, query, many, allSent(tc.f), scores)
			} else if !strings.Contains(err.Error(), tc.contains) || !strings.Contains(err.Error(), "http-rerank: rerank with") {
				t.Errorf("error %q does not name %q and the operation", err, tc.contains)
			}
			if n := tc.f.requests.Load(); n < tc.requests || (!tc.tei && n != tc.requests) {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		r, err := httprerank.New(httprerank.Options{BaseURL: srv.URL, Flavor: httprerank.FlavorTEI, MaxBackoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Rerank(ctx, query, docs); memory.ErrorCode(err) != memory.EUNAVAILABLE {
			t.Fatalf("closed server: %v", err)
		}
	})
	t.Run("credentials stay out of errors", func(t *testing.T) {
		f := &fakeServer{status: 401}
		r, err := httprerank.New(httprerank.Options{BaseURL: strings.Replace(start(t, f), "http://", "http://user:secret@", 1) + "/v2", Model: model, APIKey: "sk-secret"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Rerank(ctx, query, docs)
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Fatalf("error %v", err)
		}
	})
}

func allSent(f *fakeServer) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, b := range f.batches {
		out = append(out, b...)
	}
	return out
}

func TestOptionsAreValidated(t *testing.T) {
	for _, tc := range []struct {
		o     httprerank.Options
		field string
	}{
		{httprerank.Options{Model: model}, "BaseURL"},
		{httprerank.Options{BaseURL: "ftp://host", Model: model}, "BaseURL"},
		{httprerank.Options{BaseURL: "http://host/v2?x=1", Model: model}, "BaseURL"},
		{httprerank.Options{BaseURL: "http://host/v2"}, "Model"},
		{httprerank.Options{BaseURL: "http://host", Flavor: "openai"}, "Flavor"},
		{httprerank.Options{BaseURL: "http://host", Flavor: httprerank.FlavorTEI, BatchSize: -1}, "BatchSize"},
		{httprerank.Options{BaseURL: "http://host", Flavor: httprerank.FlavorTEI, MaxDocs: 20000}, "MaxDocs"},
		{httprerank.Options{BaseURL: "http://host", Flavor: httprerank.FlavorTEI, Concurrency: 100}, "Concurrency"},
		{httprerank.Options{BaseURL: "http://host", Flavor: httprerank.FlavorTEI, MaxAttempts: 11}, "MaxAttempts"},
		{httprerank.Options{BaseURL: "http://host", Flavor: httprerank.FlavorTEI, Timeout: -time.Second}, "Timeout"},
		{httprerank.Options{BaseURL: "http://host", Flavor: httprerank.FlavorTEI, MaxBackoff: -time.Second}, "MaxBackoff"},
		{httprerank.Options{BaseURL: "http://host", Flavor: httprerank.FlavorTEI, MaxResponseBytes: -1}, "MaxResponseBytes"},
		{httprerank.Options{BaseURL: "https://api.cohere.com/v2", Model: "rerank-v3.5", APIKey: "k"}, ""},
		{httprerank.Options{BaseURL: "http://localhost:8080", Flavor: httprerank.FlavorTEI, Model: "BAAI/bge-reranker-base"}, ""},
	} {
		_, err := httprerank.New(tc.o)
		if tc.field == "" && err != nil || tc.field != "" && (err == nil || !strings.Contains(err.Error(), "Options."+tc.field)) {
			t.Errorf("%+v: %v, want an error naming %q", tc.o, err, tc.field)
		}
	}
}
