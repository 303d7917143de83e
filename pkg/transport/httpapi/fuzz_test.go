package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/agentmem/agentmem/pkg/auth"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/aws/aws-lambda-go/events"
)

// bodies are the request bodies the API decodes, by endpoint.
var bodies = []struct {
	endpoint string
	new      func() any
}{
	{"POST /v1/memories (one)", func() any { return &service.NewMemory{} }},
	{"POST /v1/memories (batch)", func() any {
		return &struct {
			Memories []service.NewMemory `json:"memories"`
		}{}
	}},
	{"PATCH /v1/memories/{id}", func() any { return &service.Patch{} }},
	{"POST /v1/search", func() any { return &SearchRequest{} }},
	{"POST /v1/context", func() any { return &service.ContextRequest{} }},
	{"POST /v1/messages", func() any {
		return &struct {
			Messages []service.NewMemory `json:"messages"`
		}{}
	}},
	{"POST /v1/documents", func() any { return &DocumentRequest{} }},
	{"POST /v1/forget", func() any { return &ForgetRequest{} }},
}

// FuzzDecodeBody fuzzes the strict JSON decoding of every request body:
// a body is refused with EINVALID (never an internal error), or is one
// JSON value and decodes to a value that encodes to JSON the decoder
// accepts again, giving the same value, and none of its strings were
// replaced with U+FFFD (invalid UTF-8 is refused, naming the field); a
// search's filters give a memory.Filter whose validation is EINVALID or
// nothing.
func FuzzDecodeBody(f *testing.F) {
	for i, s := range []string{
		`{"content":{"text":"a"},"type":"fact","importance":0.5,"metadata":{"k":[1,null]}}`,
		`{"memories":[{"content":{"text":"a"}},{"content":{"text":"b"},"position":3}]}`,
		`{"content":{"text":"b"},"metadata":null,"durability":"ephemeral"}`,
		`{"query":"q","mode":"hybrid","k":5,"filters":{"type":"fact,event","kind":["preference"],"start":"2026-01-01T00:00:00Z","end":1767225600000}}`,
		`{"query":"q","roomId":"r","budgetTokens":200}`,
		`{"messages":[{"entityId":"u","roomId":"r","content":{"text":"hi"}}]}`,
		`{"name":"a.md","content":"# x","scope":"org"}`, `{"name":"a.pdf","contentBase64":"JVBERi0="}`,
		`{"entity":"Priya","sessionId":"s","roomId":"r","start":"2026-01-01T00:00:00Z","end":1767225600000,"agentId":"_org"}`,
		`{"content":{"text":"a\ud800"}}`, "{\"query\":\"\xff\"}", `{"content":{"text":"\ud83d\ude00"}}`,
		`{"content" 1}`, `[1,2]`, `{"a":1} {}`, `{"filters":{"start":-5}}`, `{"filters":{"type":7}}`, `{"k":"5"}`, `{"importance":1e400}`,
	} {
		// Each seed once, on endpoints in turn (the fuzzer mutates the
		// endpoint too): a seed per endpoint would spend a short run on
		// replaying seeds alone.
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, endpoint uint8, body []byte) {
		b := bodies[int(endpoint)%len(bodies)]
		v := b.new()
		if err := decodeStrict(body, v); err != nil {
			if memory.ErrorCode(err) != memory.EINVALID || memory.ErrorMessage(err) == "" || strings.HasPrefix(memory.ErrorMessage(err), "json:") {
				t.Fatalf("%s: want EINVALID with a message, got %T %v", b.endpoint, err, err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("%s: %q is accepted, but it is not one JSON value", b.endpoint, body)
		}
		// No string was turned into U+FFFD: what the body says is what
		// was decoded.
		var generic any
		json.Unmarshal(body, &generic)
		if g, _ := json.Marshal(generic); !utf8.Valid(body) ||
			bytes.Contains(g, []byte("\ufffd")) && !bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)) && !bytes.Contains(body, []byte("\ufffd")) {
			t.Fatalf("%s: %q is accepted, but its strings are not all valid UTF-8", b.endpoint, body)
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: the decoded value does not encode: %v", b.endpoint, err)
		}
		again := b.new()
		if err := decodeStrict(js, again); err != nil {
			t.Fatalf("%s: %s decodes, but its encoding %s does not: %v", b.endpoint, body, js, err)
		}
		if js2, _ := json.Marshal(again); !bytes.Equal(js, js2) {
			t.Fatalf("%s: %s decodes to %s, then to %s", b.endpoint, body, js, js2)
		}
		if s, ok := v.(*SearchRequest); ok {
			flt := s.Filters.filter()
			flt.OrgID = "o"
			if err := flt.Validate(); err != nil && memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("filters %s: validation gives %v", js, err)
			}
		}
	})
}

// filterQuery writes f back as query parameters.
func filterQuery(f memory.Filter) url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	var types, kinds []string
	for _, t := range f.Types {
		types = append(types, string(t))
	}
	for _, k := range f.Kinds {
		kinds = append(kinds, string(k))
	}
	set("type", strings.Join(types, ","))
	set("kind", strings.Join(kinds, ","))
	set("roomId", f.RoomID)
	set("entityId", f.EntityID)
	set("sessionId", f.SessionID)
	set("agentId", f.AgentID)
	set("documentId", f.DocumentID)
	set("durability", string(f.Durability))
	if f.Start != 0 {
		q.Set("start", strconv.FormatInt(f.Start, 10))
	}
	if f.End != 0 {
		q.Set("end", strconv.FormatInt(f.End, 10))
	}
	if f.IncludeArchived {
		q.Set("includeArchived", "true")
	}
	return q
}

// FuzzQueryFilter fuzzes the query-string parsers of the list, count and
// delete endpoints: a query is refused with EINVALID, or gives a filter
// whose validation is EINVALID or nothing; a valid filter written back as
// a query parses to the same filter; limit is an integer or EINVALID.
func FuzzQueryFilter(f *testing.F) {
	for _, q := range []string{"", "type=fact,event&kind=preference&roomId=r&start=2026-01-01T00:00:00Z&end=1767225600000",
		"includeArchived=1&limit=10&cursor=abc", "type=&type=fact&type=%20note", "start=-5", "start=1969-12-31T00:00:00Z",
		"color=red", "limit=ten", "includeArchived=maybe", "agentId=a%00b", "%zz=1&a=%"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := &http.Request{Method: "GET", URL: &url.URL{Path: "/v1/memories", RawQuery: raw}}
		fs, err := queryFilter(r, "limit", "cursor")
		flt := fs.filter()
		if _, lerr := intParam(r, "limit"); lerr != nil && memory.ErrorCode(lerr) != memory.EINVALID {
			t.Fatalf("limit: %v", lerr)
		}
		if err != nil {
			if memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("want EINVALID, got %v", err)
			}
			return
		}
		flt.OrgID = "o"
		if err := flt.Validate(); err != nil {
			if memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("validation gives %v", err)
			}
			return
		}
		back := &http.Request{Method: "GET", URL: &url.URL{Path: "/v1/memories", RawQuery: filterQuery(flt).Encode()}}
		againFs, err := queryFilter(back, "limit", "cursor")
		again := againFs.filter()
		again.OrgID = "o"
		if err != nil || !reflect.DeepEqual(again, flt) {
			t.Fatalf("%q gives %+v, written back as %q gives %+v, %v", raw, flt, back.URL.RawQuery, again, err)
		}
	})
}

// jobRecorder is the extraction queue of the fuzzed server: it keeps the
// jobs that break the queue's contract (the caller's org, 1 to
// extract.MaxJobMessages message ids).
type jobRecorder struct {
	mu     sync.Mutex
	org    string // the org of the request being served
	broken []string
}

func (q *jobRecorder) Enqueue(_ context.Context, j extract.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if j.OrgID != q.org || len(j.MessageIDs) == 0 || len(j.MessageIDs) > extract.MaxJobMessages {
		q.broken = append(q.broken, fmt.Sprintf("%+v (caller's org %q)", j, q.org))
	}
	return nil
}

// serving sets the org of the next request and returns the violations so
// far.
func (q *jobRecorder) serving(org string) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	v := q.broken
	q.org, q.broken = org, nil
	return v
}

const (
	fuzzOrgKey   = "key-org-a-0123456789"
	fuzzAgentKey = "key-agent-x-01234567"
)

// fuzzServer is the API over the embedded backend, with the documents
// pipeline, a consolidation job and a recording extraction queue.
func fuzzServer(f *testing.F) (*Server, *jobRecorder) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), f.TempDir(), hashing.New(64), log)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { b.Close() })
	keys, err := auth.ParseKeys(fuzzOrgKey + "=org-a," + fuzzAgentKey + "=org-a/x")
	if err != nil {
		f.Fatal(err)
	}
	docs := &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 200, Overlap: 40}, Log: log,
		Limits: ingest.Limits{MaxFragments: 50}}
	q := &jobRecorder{org: "org-a"}
	job := &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: log}
	return New(b.Service, keys, log, WithDocuments(docs), WithExtraction(q), WithConsolidation(job),
		WithSettings(service.NewSettingsStore(b.Store))), q
}

// checkResponse checks what every response holds: no internal error; JSON
// bodies (but for 204 and the router's redirects); an error's code matches
// its status.
func checkResponse(t *testing.T, what string, status int, header http.Header, body []byte) {
	t.Helper()
	if status >= 500 && status != http.StatusServiceUnavailable || status == 0 {
		t.Fatalf("%s: status %d: %s", what, status, body)
	}
	if status == http.StatusNoContent || status/100 == 3 {
		return
	}
	if ct := header.Get("Content-Type"); ct != "application/json" && !(status >= 400 && ct == contract.ProblemContentType) {
		t.Fatalf("%s: status %d with content type %q", what, status, ct)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: status %d, body is not JSON: %v", what, status, err)
	}
	if status >= 400 {
		var p contract.Problem
		json.Unmarshal(body, &p)
		if p.Detail == "" || p.Status != status || p.Type != contract.ProblemTypeBase+p.Code ||
			(contract.Kind(p.Code).Status != status && !(status == 405 && p.Code == contract.MethodNotAllowed)) {
			t.Fatalf("%s: status %d with problem %+v", what, status, p)
		}
	}
}

// routes are the fuzzed requests' targets; {id} is replaced by the
// fuzzer's id. POST /v1/admin/consolidate is left out: it decodes
// nothing, and runs a job over the whole org.
var routes = []struct{ method, path string }{
	{"POST", "/v1/memories"}, {"GET", "/v1/memories"}, {"DELETE", "/v1/memories"}, {"GET", "/v1/memories/count"},
	{"GET", "/v1/memories/{id}"}, {"PATCH", "/v1/memories/{id}"}, {"DELETE", "/v1/memories/{id}"},
	{"POST", "/v1/search"}, {"POST", "/v1/context"}, {"POST", "/v1/messages"},
	{"POST", "/v1/documents"}, {"GET", "/v1/documents"}, {"GET", "/v1/documents/{id}"}, {"DELETE", "/v1/documents/{id}"},
	{"GET", "/v1/admin/consolidation"}, {"GET", "/v1/healthz"}, {"PUT", "/v1/memories"}, {"GET", "/v1/{id}"},
	{"POST", "/v1/forget"}, {"GET", "/v1/admin/audit"},
	{"PUT", "/v1/admin/settings/extraction"}, {"GET", "/v1/admin/settings/extraction"},
	{"PUT", "/v1/memories/by-key/{id}"}, {"GET", "/v1/memories/by-key/{id}"}, {"DELETE", "/v1/memories/by-key/{id}"},
}

// FuzzHandler fuzzes the whole HTTP API on the embedded backend: the
// route, the id in it, the query string, the If-Match header, the body and
// the key (org-level or agent-bound). No request gets an internal error,
// every response is JSON with a status that matches its error code, and
// queued extraction jobs are the caller's.
func FuzzHandler(f *testing.F) {
	s, q := fuzzServer(f)
	for i := range routes {
		f.Add(uint8(i), "0190a1b2c3d4e5f60718293a4b5c6d7e", "", "", []byte(`{"content":{"text":"Prefers window seats"}}`), false)
	}
	f.Add(uint8(1), "", "type=fact&limit=5&cursor=eyJ0IjoxLCJpIjoiYSJ9", "", []byte{}, true)
	f.Add(uint8(5), "x", "", `W/"3"`, []byte(`{"importance":0.2}`), false)
	f.Add(uint8(7), "", "", "", []byte(`{"query":"window","mode":"keyword","filters":{"type":"fact"}}`), true)
	f.Add(uint8(9), "", "", "", []byte(`{"messages":[{"entityId":"u","roomId":"r","content":{"text":"I moved to Lisbon."}}]}`), false)
	f.Add(uint8(10), "", "", "", []byte(`{"name":"notes/a.md","content":"# A\n\nSome notes."}`), true)
	f.Add(uint8(10), "", "", "", []byte(`{"name":"r.pdf","contentBase64":"`+base64.StdEncoding.EncodeToString(ingesttest.CyclicPDF())+`"}`), false)
	f.Add(uint8(18), "", "", "", []byte(`{"entity":"Lisbon","start":1}`), true)
	f.Add(uint8(19), "", "limit=2&cursor=0190a1b2c3d4e5f60718293a4b5c6d7e", "", []byte{}, false)
	f.Add(uint8(20), "", "", `"1"`, []byte(`{"dropCategories":["health"],"keepKinds":["fact"],"language":"pt-br","instructions":"Keep it short."}`), false)
	f.Fuzz(func(t *testing.T, route uint8, id, query, ifMatch string, body []byte, agent bool) {
		rt := routes[int(route)%len(routes)]
		path := strings.ReplaceAll(rt.path, "{id}", url.PathEscape(id))
		req := httptest.NewRequest(rt.method, "/", bytes.NewReader(body))
		req.URL = &url.URL{Path: path, RawQuery: query}
		req.RequestURI = req.URL.RequestURI()
		key := fuzzOrgKey
		if agent {
			key = fuzzAgentKey
		}
		req.Header.Set("Authorization", "Bearer "+key)
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		rec := httptest.NewRecorder()
		q.serving("org-a")
		s.ServeHTTP(rec, req)
		what := fmt.Sprintf("%s %s?%s", rt.method, path, query)
		checkResponse(t, what, rec.Code, rec.Header(), rec.Body.Bytes())
		if v := q.serving(""); len(v) > 0 {
			t.Fatalf("%s: queued jobs break the queue's contract: %v", what, v)
		}
	})
}

// FuzzAPIGateway fuzzes the API Gateway adapter: the event's method, path,
// query, body (base64 or not) and authorizer context. The adapter fails
// only on a body that is not base64 or a request it cannot build; a
// response is never an internal error; without an org in the authorizer
// context nothing but the health check succeeds.
func FuzzAPIGateway(f *testing.F) {
	s, q := fuzzServer(f)
	f.Add("POST", "/v1/memories", "", []byte(`{"content":{"text":"a"}}`), false, "org-a", "")
	f.Add("GET", "/v1/memories", "type=fact&limit=2", []byte{}, false, "org-a", "x")
	f.Add("POST", "/v1/search", "", []byte(base64.StdEncoding.EncodeToString([]byte(`{"query":"a"}`))), true, "org-a", "")
	f.Add("GET", "/v1/memories/count", "", []byte{}, false, "  ", "")
	f.Add("GET", "/v1/healthz", "", []byte{}, false, "", "")
	f.Add("POST", "/v1/documents", "", []byte("not base64!"), true, "org-a", "")
	f.Add("BAD METHOD", "/v1/memories", "", []byte{}, false, "org-a", "")
	f.Fuzz(func(t *testing.T, method, path, query string, body []byte, b64 bool, org, agent string) {
		params, _ := url.ParseQuery(query)
		ev := events.APIGatewayProxyRequest{HTTPMethod: method, Path: path, Body: string(body), IsBase64Encoded: b64,
			MultiValueQueryStringParameters: params}
		ev.RequestContext.Authorizer = map[string]any{AuthorizerOrgKey: org, AuthorizerAgentKey: agent}
		// The adapter can fail on two things only: a body that is not
		// base64, and a method or path net/http cannot make a request of.
		_, berr := base64.StdEncoding.DecodeString(string(body))
		p := path
		if p == "" {
			p = "/"
		}
		_, rerr := http.NewRequest(method, (&url.URL{Path: p, RawQuery: params.Encode()}).String(), nil)
		q.serving(strings.TrimSpace(org))
		res, err := s.HandleAPIGateway(context.Background(), ev)
		if wantErr := b64 && berr != nil || rerr != nil; (err != nil) != wantErr || err != nil && !strings.HasPrefix(err.Error(), "apigateway: ") {
			t.Fatalf("%s %s: error %v, want one: %v", method, path, err, wantErr)
		}
		if err != nil {
			return
		}
		header := http.Header{}
		for k, v := range res.Headers {
			header.Set(k, v)
		}
		what := fmt.Sprintf("%s %s?%s", method, path, query)
		checkResponse(t, what, res.StatusCode, header, []byte(res.Body))
		if res.StatusCode/100 == 2 && strings.TrimSpace(org) == "" && path != "/v1/healthz" {
			t.Fatalf("%s: %d without an org in the authorizer context", what, res.StatusCode)
		}
		if v := q.serving(""); len(v) > 0 {
			t.Fatalf("%s: queued jobs break the queue's contract: %v", what, v)
		}
	})
}
