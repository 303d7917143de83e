package bedrockrerank_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/memory"
	bedrockrerank "github.com/agentmem/agentmem/pkg/rerank/bedrock"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentruntime/types"
)

var ctx = context.Background()

const region = "us-west-2"

// fakeRerank plays the Bedrock agent runtime's Rerank operation behind the
// shared fake Bedrock (which checks the SigV4 signature for the bedrock
// service in region and throttles). It checks the request as the service
// documents it (path, JSON body and its limits) and answers in the
// documented format, results sorted by relevance with each source's index.
type fakeRerank struct {
	testenv.Bedrock
	fail5xx  atomic.Int32 // then this many with 500 InternalServerException
	failWith string       // "ValidationException" or "AccessDeniedException": answer every request so
	malform  string       // "json", "index", "noscore", "dupe", "stuck": a malformed 200 answer
	keep     int          // answer only the best keep results (0: all numberOfResults)
	pageSize int          // results per page, with a nextToken for the rest (0: one page)

	mu     sync.Mutex
	bodies []rerankRequest
}

type textDoc struct {
	Text *string `json:"text"`
}

type rerankRequest struct {
	Queries []struct {
		Type      string  `json:"type"`
		TextQuery textDoc `json:"textQuery"`
	} `json:"queries"`
	Sources []struct {
		Type                 string `json:"type"`
		InlineDocumentSource struct {
			Type         string  `json:"type"`
			TextDocument textDoc `json:"textDocument"`
		} `json:"inlineDocumentSource"`
	} `json:"sources"`
	RerankingConfiguration struct {
		Type                          string `json:"type"`
		BedrockRerankingConfiguration struct {
			ModelConfiguration struct {
				ModelArn string `json:"modelArn"`
			} `json:"modelConfiguration"`
			NumberOfResults int `json:"numberOfResults"`
		} `json:"bedrockRerankingConfiguration"`
	} `json:"rerankingConfiguration"`
	NextToken string `json:"nextToken"`
}

func (r rerankRequest) query() string { return *r.Queries[0].TextQuery.Text }

func (r rerankRequest) texts() []string {
	var out []string
	for _, s := range r.Sources {
		out = append(out, *s.InlineDocumentSource.TextDocument.Text)
	}
	return out
}

var fail = testenv.BedrockFail

var arnRE = regexp.MustCompile(`^arn:aws:bedrock:([a-z0-9-]+)::foundation-model/(amazon\.rerank-v1:0|cohere\.rerank-v3-5:0)$`)

func units(s string) int { return len(utf16.Encode([]rune(s))) }

// validate checks body as the Rerank API documents its request.
func validate(body []byte) (rerankRequest, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return rerankRequest{}, err
	}
	for k := range top {
		if k != "queries" && k != "sources" && k != "rerankingConfiguration" && k != "nextToken" {
			return rerankRequest{}, fmt.Errorf("unknown field %q", k)
		}
	}
	var req rerankRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return req, err
	}
	if len(req.Queries) != 1 || req.Queries[0].Type != "TEXT" || req.Queries[0].TextQuery.Text == nil {
		return req, fmt.Errorf("queries must hold exactly one TEXT query")
	}
	if n := units(req.query()); n < 1 || n > 32000 {
		return req, fmt.Errorf("query length %d outside 1..32000", n)
	}
	if len(req.Sources) < 1 || len(req.Sources) > 1000 {
		return req, fmt.Errorf("%d sources, want 1..1000", len(req.Sources))
	}
	for i, s := range req.Sources {
		d := s.InlineDocumentSource
		if s.Type != "INLINE" || d.Type != "TEXT" || d.TextDocument.Text == nil {
			return req, fmt.Errorf("source %d is not an INLINE TEXT document", i)
		}
		if n := units(*d.TextDocument.Text); n < 1 || n > 32000 {
			return req, fmt.Errorf("source %d length %d outside 1..32000", i, n)
		}
	}
	rc := req.RerankingConfiguration
	if rc.Type != "BEDROCK_RERANKING_MODEL" {
		return req, fmt.Errorf("rerankingConfiguration.type %q", rc.Type)
	}
	m := arnRE.FindStringSubmatch(rc.BedrockRerankingConfiguration.ModelConfiguration.ModelArn)
	if m == nil || m[1] != region {
		return req, fmt.Errorf("modelArn %q is not a reranker of %s", rc.BedrockRerankingConfiguration.ModelConfiguration.ModelArn, region)
	}
	if n := rc.BedrockRerankingConfiguration.NumberOfResults; n < 1 || n > 1000 {
		return req, fmt.Errorf("numberOfResults %d outside 1..1000", n)
	}
	return req, nil
}

// relevance is the fake model: the share of the query's words in the text.
func relevance(query, text string) float32 {
	words := strings.Fields(strings.ToLower(text))
	in := map[string]bool{}
	for _, w := range words {
		in[w] = true
	}
	q := strings.Fields(strings.ToLower(query))
	hit := 0
	for _, w := range q {
		if in[w] {
			hit++
		}
	}
	return float32(hit) / float32(len(q)+len(words))
}

func (f *fakeRerank) rerank(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.URL.Path != "/rerank" || r.Header.Get("Content-Type") != "application/json" {
		fail(w, 404, "ResourceNotFoundException", "no route "+r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		return
	}
	if f.fail5xx.Load() > 0 {
		f.fail5xx.Add(-1)
		fail(w, 500, "InternalServerException", "internal error")
		return
	}
	switch f.failWith {
	case "ValidationException":
		fail(w, 400, f.failWith, "The provided model identifier is invalid.")
		return
	case "AccessDeniedException":
		fail(w, 403, f.failWith, "You don't have access to the model with the specified model ID.")
		return
	}
	req, err := validate(body)
	if err != nil {
		fail(w, 400, "ValidationException", err.Error())
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, req)
	f.mu.Unlock()

	type result struct {
		Index          int      `json:"index"`
		RelevanceScore *float32 `json:"relevanceScore,omitempty"`
	}
	var results []result
	for i, t := range req.texts() {
		s := relevance(req.query(), t)
		results = append(results, result{Index: i, RelevanceScore: &s})
	}
	sort.SliceStable(results, func(a, b int) bool { return *results[a].RelevanceScore > *results[b].RelevanceScore })
	n := req.RerankingConfiguration.BedrockRerankingConfiguration.NumberOfResults
	if f.keep > 0 && f.keep < n {
		n = f.keep
	}
	results = results[:min(n, len(results))]
	offset, next := 0, ""
	if req.NextToken != "" {
		offset, _ = strconv.Atoi(strings.TrimPrefix(req.NextToken, "page-at-"))
	}
	if f.pageSize > 0 {
		end := min(offset+f.pageSize, len(results))
		if end < len(results) {
			next = fmt.Sprintf("page-at-%d", end)
		}
		results = results[offset:end]
	}
	w.Header().Set("Content-Type", "application/json")
	switch f.malform {
	case "json":
		fmt.Fprint(w, `{"results": [{"index": 0, "relevanceScore": `)
		return
	case "index":
		results[0].Index = len(req.Sources)
	case "noscore":
		results[0].RelevanceScore = nil
	case "dupe":
		results[1].Index = results[0].Index
	case "stuck":
		results, next = nil, "page-at-0"
	}
	out := map[string]any{"results": results}
	if next != "" {
		out["nextToken"] = next
	}
	json.NewEncoder(w).Encode(out)
}

func (f *fakeRerank) last() rerankRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[len(f.bodies)-1]
}

func start(t *testing.T, f *fakeRerank) bedrockrerank.ClientOptions {
	f.Region, f.Other = region, f.rerank
	testenv.StartBedrock(t, &f.Bedrock)
	return bedrockrerank.ClientOptions{Endpoint: f.URL, Region: region, AccessKey: "local", SecretKey: "local", MaxBackoff: 20 * time.Millisecond}
}

func reranker(t *testing.T, co bedrockrerank.ClientOptions, o bedrockrerank.Options) *bedrockrerank.Reranker {
	t.Helper()
	c, err := bedrockrerank.NewClient(ctx, co)
	if err != nil {
		t.Fatal(err)
	}
	if o.Model == "" {
		o.Model = bedrockrerank.CohereRerankV35
	}
	r, err := bedrockrerank.New(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	query = "which tea does the user drink in the morning"
	docs  = []string{
		"The user lives in Lisbon.",
		"The user drinks green tea in the morning.",
		"Deploys happen on Tuesdays.",
		"The user dislikes coffee but likes tea.",
		"Morning standup is at nine.",
	}
)

func TestScoresComeBackInInputOrder(t *testing.T) {
	for _, model := range []string{bedrockrerank.AmazonRerankV1, bedrockrerank.CohereRerankV35} {
		t.Run(model, func(t *testing.T) {
			f := &fakeRerank{}
			r := reranker(t, start(t, f), bedrockrerank.Options{Model: model})
			if want := "bedrock-rerank:" + model; r.Name() != want {
				t.Fatalf("Name() = %q, want %q", r.Name(), want)
			}
			scores, err := r.Rerank(ctx, query, docs)
			if err != nil {
				t.Fatal(err)
			}
			if len(scores) != len(docs) {
				t.Fatalf("%d scores for %d docs", len(scores), len(docs))
			}
			for i, d := range docs {
				if want := float64(relevance(query, d)); scores[i] != want {
					t.Errorf("doc %d %q: score %v, want %v", i, d, scores[i], want)
				}
			}
			req := f.last()
			arn := req.RerankingConfiguration.BedrockRerankingConfiguration.ModelConfiguration.ModelArn
			if arn != "arn:aws:bedrock:"+region+"::foundation-model/"+model || arn != r.ModelARN() {
				t.Errorf("modelArn %q", arn)
			}
			if n := req.RerankingConfiguration.BedrockRerankingConfiguration.NumberOfResults; n != len(docs) {
				t.Errorf("numberOfResults %d, want %d", n, len(docs))
			}
			if req.query() != query || strings.Join(req.texts(), "|") != strings.Join(docs, "|") {
				t.Errorf("sent query %q and sources %q", req.query(), req.texts())
			}
		})
	}
}

func TestDocumentsLeftOutScoreMinusInfinity(t *testing.T) {
	f := &fakeRerank{keep: 2}
	r := reranker(t, start(t, f), bedrockrerank.Options{})
	scores, err := r.Rerank(ctx, query, docs)
	if err != nil {
		t.Fatal(err)
	}
	var scored []int
	for i, s := range scores {
		if !math.IsInf(s, -1) {
			scored = append(scored, i)
		}
	}
	// The two answered are the two most relevant, with their own scores.
	rank := make([]int, len(docs))
	for i := range rank {
		rank[i] = i
	}
	sort.SliceStable(rank, func(a, b int) bool { return relevance(query, docs[rank[a]]) > relevance(query, docs[rank[b]]) })
	want := []int{rank[0], rank[1]}
	sort.Ints(want)
	if fmt.Sprint(scored) != fmt.Sprint(want) {
		t.Fatalf("scored docs %v, want the two most relevant %v (scores %v)", scored, want, scores)
	}
	for _, i := range scored {
		if scores[i] != float64(relevance(query, docs[i])) {
			t.Errorf("doc %d: score %v", i, scores[i])
		}
	}
}

func TestNextTokenPagesAreFollowed(t *testing.T) {
	f := &fakeRerank{pageSize: 2}
	r := reranker(t, start(t, f), bedrockrerank.Options{})
	scores, err := r.Rerank(ctx, query, docs)
	if err != nil {
		t.Fatal(err)
	}
	if f.Requests.Load() != 3 {
		t.Fatalf("%d requests for 5 results in pages of 2, want 3", f.Requests.Load())
	}
	for i, d := range docs {
		if scores[i] != float64(relevance(query, d)) {
			t.Errorf("doc %d: score %v", i, scores[i])
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, b := range f.bodies {
		if want := []string{"", "page-at-2", "page-at-4"}[i]; b.NextToken != want || len(b.Sources) != len(docs) {
			t.Errorf("request %d: nextToken %q with %d sources, want %q with %d", i, b.NextToken, len(b.Sources), want, len(docs))
		}
	}
}

func TestLimitsAreEnforced(t *testing.T) {
	t.Run("sources per call and empty documents", func(t *testing.T) {
		f := &fakeRerank{}
		r := reranker(t, start(t, f), bedrockrerank.Options{})
		many := []string{""}
		for i := 0; i < bedrockrerank.MaxSources+4; i++ {
			many = append(many, fmt.Sprintf("note %d about tea", i))
		}
		scores, err := r.Rerank(ctx, "tea", many)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(f.last().Sources); n != bedrockrerank.MaxSources {
			t.Fatalf("%d sources sent, want %d", n, bedrockrerank.MaxSources)
		}
		for i, s := range scores {
			sent := i >= 1 && i <= bedrockrerank.MaxSources
			if sent != !math.IsInf(s, -1) {
				t.Fatalf("doc %d (sent %v) scored %v", i, sent, s)
			}
		}
	})
	t.Run("MaxDocs", func(t *testing.T) {
		f := &fakeRerank{}
		r := reranker(t, start(t, f), bedrockrerank.Options{MaxDocs: 3})
		scores, err := r.Rerank(ctx, query, docs)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.last().Sources) != 3 || !math.IsInf(scores[3], -1) || !math.IsInf(scores[4], -1) || math.IsInf(scores[1], -1) {
			t.Fatalf("%d sources sent, scores %v", len(f.last().Sources), scores)
		}
	})
	t.Run("text length in UTF-16 units", func(t *testing.T) {
		f := &fakeRerank{}
		r := reranker(t, start(t, f), bedrockrerank.Options{MaxQueryChars: 100})
		long := strings.Repeat("thé 🍵 ", 8000) // 6 runes, 7 UTF-16 units each
		longQuery := strings.Repeat("tea ", 100)
		if _, err := r.Rerank(ctx, longQuery, []string{long, "short"}); err != nil {
			t.Fatal(err)
		}
		req := f.last()
		sent := req.texts()[0]
		if n := units(sent); n > bedrockrerank.MaxTextChars || n < bedrockrerank.MaxTextChars-1 || !strings.HasPrefix(long, sent) {
			t.Fatalf("long document sent as %d UTF-16 units (prefix %v)", n, strings.HasPrefix(long, sent))
		}
		if q := req.query(); q != longQuery[:100] {
			t.Fatalf("query sent as %d chars", len(q))
		}
	})
}

func TestInputValidation(t *testing.T) {
	f := &fakeRerank{}
	r := reranker(t, start(t, f), bedrockrerank.Options{})
	for _, q := range []string{"", "  \n"} {
		if _, err := r.Rerank(ctx, q, docs); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("query %q: %v, want EINVALID", q, err)
		}
	}
	scores, err := r.Rerank(ctx, query, nil)
	if err != nil || scores == nil || len(scores) != 0 {
		t.Errorf("no docs: %v, %v; want an empty result", scores, err)
	}
	scores, err = r.Rerank(ctx, query, []string{"", ""})
	if err != nil || len(scores) != 2 || !math.IsInf(scores[0], -1) || !math.IsInf(scores[1], -1) {
		t.Errorf("empty docs: %v, %v; want two -Inf", scores, err)
	}
	if n := f.Requests.Load(); n != 0 {
		t.Fatalf("%d requests for calls that need none", n)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		setup    func(*fakeRerank)
		code     string // "" for success
		requests int32
		contains string
	}{
		{"throttled twice then answered", func(f *fakeRerank) { f.Throttle.Store(2) }, "", 3, ""},
		{"throttled past the attempts", func(f *fakeRerank) { f.Throttle.Store(100) }, memory.EUNAVAILABLE, 3, "ThrottlingException"},
		{"500 once then answered", func(f *fakeRerank) { f.fail5xx.Store(1) }, "", 2, ""},
		{"ValidationException is not retried", func(f *fakeRerank) { f.failWith = "ValidationException" }, memory.EINTERNAL, 1, "ValidationException"},
		{"AccessDeniedException", func(f *fakeRerank) { f.failWith = "AccessDeniedException" }, memory.EUNAVAILABLE, 1, "AccessDeniedException"},
		{"body that is not JSON", func(f *fakeRerank) { f.malform = "json" }, memory.EUNAVAILABLE, 1, ""},
		{"index outside the sources", func(f *fakeRerank) { f.malform = "index" }, memory.EUNAVAILABLE, 1, "outside the 5 sources"},
		{"result without a score", func(f *fakeRerank) { f.malform = "noscore" }, memory.EUNAVAILABLE, 1, "without"},
		{"index answered twice", func(f *fakeRerank) { f.malform = "dupe" }, memory.EUNAVAILABLE, 1, "twice"},
		{"nextToken without results", func(f *fakeRerank) { f.malform = "stuck" }, memory.EUNAVAILABLE, 1, "nextToken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRerank{}
			tc.setup(f)
			r := reranker(t, start(t, f), bedrockrerank.Options{})
			scores, err := r.Rerank(ctx, query, docs)
			if got := memory.ErrorCode(err); got != tc.code {
				t.Fatalf("error %v (code %q), want code %q", err, got, tc.code)
			}
			if n := f.Requests.Load(); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tc.contains) || !strings.Contains(err.Error(), "bedrock-rerank") {
					t.Errorf("error %q does not name %q and the operation", err, tc.contains)
				}
				return
			}
			if scores[1] != float64(relevance(query, docs[1])) {
				t.Errorf("scores %v", scores)
			}
		})
	}
	t.Run("the SDK error stays in the chain", func(t *testing.T) {
		f := &fakeRerank{}
		f.Throttle.Store(100)
		r := reranker(t, start(t, f), bedrockrerank.Options{})
		_, err := r.Rerank(ctx, query, docs)
		var te *types.ThrottlingException
		if !errors.As(err, &te) {
			t.Fatalf("%v does not wrap the ThrottlingException", err)
		}
	})
	t.Run("unreachable endpoint", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		r := reranker(t, bedrockrerank.ClientOptions{Endpoint: srv.URL, Region: region, AccessKey: "local", SecretKey: "local", MaxBackoff: 10 * time.Millisecond}, bedrockrerank.Options{})
		if _, err := r.Rerank(ctx, query, docs); memory.ErrorCode(err) != memory.EUNAVAILABLE {
			t.Fatalf("closed server: %v", err)
		}
	})
}

func TestOptionsAreValidated(t *testing.T) {
	c, err := bedrockrerank.NewClient(ctx, bedrockrerank.ClientOptions{Region: region, AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		o     bedrockrerank.Options
		field string // "" when valid
	}{
		{bedrockrerank.Options{}, "Model"},
		{bedrockrerank.Options{Model: "cohere.embed-english-v3"}, "Model"},
		{bedrockrerank.Options{Model: "arn:foo"}, "Model"},
		{bedrockrerank.Options{Model: "arn:aws:bedrock:eu-central-1::foundation-model/amazon.rerank-v1:0"}, ""},
		{bedrockrerank.Options{Model: bedrockrerank.AmazonRerankV1, MaxDocs: 1001}, "MaxDocs"},
		{bedrockrerank.Options{Model: bedrockrerank.AmazonRerankV1, MaxDocs: -1}, "MaxDocs"},
		{bedrockrerank.Options{Model: bedrockrerank.AmazonRerankV1, MaxDocChars: 32001}, "MaxDocChars"},
		{bedrockrerank.Options{Model: bedrockrerank.AmazonRerankV1, MaxQueryChars: -5}, "MaxQueryChars"},
		{bedrockrerank.Options{Model: bedrockrerank.AmazonRerankV1, Timeout: -time.Second}, "Timeout"},
		{bedrockrerank.Options{Model: bedrockrerank.CohereRerankV35, MaxDocs: 100, MaxDocChars: 4000, Timeout: time.Second}, ""},
	} {
		r, err := bedrockrerank.New(c, tc.o)
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v: %v", tc.o, err)
		case tc.field == "" && r.Name() != "bedrock-rerank:"+tc.o.Model:
			t.Errorf("%+v: Name() = %q", tc.o, r.Name())
		case tc.field != "" && (err == nil || !strings.Contains(err.Error(), "Options."+tc.field)):
			t.Errorf("%+v: error %v does not name Options.%s", tc.o, err, tc.field)
		}
	}
	if _, err := bedrockrerank.New(nil, bedrockrerank.Options{Model: bedrockrerank.AmazonRerankV1}); err == nil {
		t.Error("a nil client accepted")
	}
	if _, err := bedrockrerank.NewClient(ctx, bedrockrerank.ClientOptions{MaxAttempts: -1}); err == nil || !strings.Contains(err.Error(), "MaxAttempts") {
		t.Errorf("negative MaxAttempts: %v", err)
	}
}
