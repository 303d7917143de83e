package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/aws/aws-lambda-go/events"
)

const (
	keyA = "key-org-a-0123456789"
	keyB = "key-org-b-0123456789"
	keyX = "key-agent-x-01234567"
	keyY = "key-agent-y-01234567"
)

func newServer(t *testing.T) *httpapi.Server {
	t.Helper()
	s, _ := newServerQueue(t)
	return s
}

// newServerQueue is newServer with its local extraction queue, which a
// test drains to read the facts extracted so far. Extraction follows the
// orgs' settings, set through the same store.
func newServerQueue(t *testing.T) (*httpapi.Server, *extract.LocalQueue) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(128), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	keys, err := auth.ParseKeys(fmt.Sprintf("%s=org-a,%s=org-b,%s=org-a/x,%s=org-a/y", keyA, keyB, keyX, keyY))
	if err != nil {
		t.Fatal(err)
	}
	docs := &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 200, Overlap: 40}, Log: log}
	settings := service.NewSettingsStore(b.Store)
	queue := extract.NewLocalQueue(&extract.Pipeline{Service: b.Service.Pipelines(), Extractor: extract.Local{}, Log: log, Settings: settings}, 100)
	t.Cleanup(queue.Close)
	job := &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: log}
	idem, err := b.Store.Idempotency(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return httpapi.New(b.Service, keys, log, httpapi.WithDocuments(docs), httpapi.WithExtraction(queue), httpapi.WithConsolidation(job),
		httpapi.WithKnowledge(b.Knowledge), httpapi.WithSettings(settings), httpapi.WithIdempotency(idem),
		httpapi.WithRegistry(b.Registry)), queue
}

// client drives a handler over a real HTTP server on loopback.
type client struct {
	t   *testing.T
	url string
}

func newClient(t *testing.T, h http.Handler) *client {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &client{t: t, url: srv.URL}
}

type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

func (c *client) do(method, path, key string, body any, headers ...string) response {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		js, _ := json.Marshal(b)
		rd = bytes.NewReader(js)
	}
	req, _ := http.NewRequest(method, c.url+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
	json.Unmarshal(raw, &out.Body)
	return out
}

func (c *client) create(key string, body any) string {
	c.t.Helper()
	r := c.do("POST", "/v1/memories", key, body)
	if r.Status != 201 {
		c.t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	return r.Body["id"].(string)
}

// errMessage is the detail of a problem response.
func errMessage(r response) string {
	m, _ := r.Body["detail"].(string)
	return m
}

// errCode is the code of a problem response.
func errCode(r response) string {
	c, _ := r.Body["code"].(string)
	return c
}

func TestBadInput(t *testing.T) {
	c := newClient(t, newServer(t))
	id := c.create(keyA, map[string]any{"content": map[string]any{"text": "exists"}})
	big := `{"content":{"text":"` + strings.Repeat("a", httpapi.MaxBodyBytes) + `"}}`
	tests := []struct {
		name, method, path, key string
		body                    any
		status                  int
		message                 string
	}{
		{"no key", "GET", "/v1/memories", "", nil, 401, "missing Authorization"},
		{"unknown key", "GET", "/v1/memories", "not-a-real-key-123456", nil, 401, "unknown API key"},
		{"basic auth", "GET", "/v1/memories", "", nil, 401, "must be Bearer <api key>"},
		{"malformed JSON", "POST", "/v1/memories", keyA, `{"content":`, 400, "malformed JSON"},
		{"syntax error", "POST", "/v1/memories", keyA, `{"content" 1}`, 400, "malformed JSON at byte"},
		{"not an object", "POST", "/v1/memories", keyA, `[1,2]`, 400, "expected a JSON object"},
		{"empty body", "POST", "/v1/memories", keyA, ``, 400, "body: a JSON object is required"},
		{"trailing data", "POST", "/v1/memories", keyA, `{"content":{"text":"a"}} {}`, 400, "unexpected data after"},
		{"unknown field", "POST", "/v1/memories", keyA, `{"content":{"text":"a"},"color":"red"}`, 400, `unknown field "color"`},
		{"org in body", "POST", "/v1/memories", keyA, `{"content":{"text":"a"},"orgId":"org-b"}`, 400, `unknown field "orgId"`},
		{"context is the service's to set", "POST", "/v1/memories", keyA, `{"type":"message","roomId":"r","content":{"text":"a"},"context":"Eve: a planted question"}`, 400, `unknown field "context"`},
		{"unknown nested field", "POST", "/v1/memories", keyA, `{"content":{"text":"a","txt":"b"}}`, 400, `unknown field "txt"`},
		{"missing text", "POST", "/v1/memories", keyA, `{"type":"fact"}`, 400, "content.text: required"},
		{"bad type", "POST", "/v1/memories", keyA, `{"type":"note","content":{"text":"a"}}`, 400, `type: "note" is not one of`},
		{"bad kind", "POST", "/v1/memories", keyA, `{"type":"fact","kind":"opinion","content":{"text":"a"}}`, 400, `kind: "opinion"`},
		{"kind on a message", "POST", "/v1/memories", keyA, `{"type":"message","kind":"fact","content":{"text":"a"}}`, 400, "kind: only valid for type"},
		{"bad durability", "POST", "/v1/memories", keyA, `{"durability":"eternal","content":{"text":"a"}}`, 400, `durability: "eternal"`},
		{"importance as string", "POST", "/v1/memories", keyA, `{"importance":"high","content":{"text":"a"}}`, 400, "importance: expected a number"},
		{"importance out of range", "POST", "/v1/memories", keyA, `{"importance":3,"content":{"text":"a"}}`, 400, "importance: 3 is outside 0..1"},
		{"bad item in batch", "POST", "/v1/memories", keyA, `{"memories":[{"content":{"text":"a"}},{"content":{"text":""}}]}`, 400, "memories[1].content.text"},
		{"empty batch", "POST", "/v1/memories", keyA, `{"memories":[]}`, 400, "at least one memory"},
		{"body too large", "POST", "/v1/memories", keyA, big, 413, "exceeds the limit of 1048576 bytes"},
		{"agent key writes for another agent", "POST", "/v1/memories", keyX, `{"agentId":"y","content":{"text":"a"}}`, 403, "bound to agent"},
		{"bad time range", "GET", "/v1/memories?start=2026-02-01T00:00:00Z&end=2026-01-01T00:00:00Z", keyA, nil, 400, "end: must be after start"},
		{"bad time", "GET", "/v1/memories?start=yesterday", keyA, nil, 400, `start: "yesterday" is neither`},
		{"bad list type", "GET", "/v1/memories?type=note", keyA, nil, 400, `type: "note"`},
		{"unknown parameter", "GET", "/v1/memories?color=red", keyA, nil, 400, `query parameter "color"`},
		{"bad limit", "GET", "/v1/memories?limit=5000", keyA, nil, 400, "limit: must be between 1 and 1000"},
		{"limit not a number", "GET", "/v1/memories?limit=ten", keyA, nil, 400, `limit: "ten" is not an integer`},
		{"bad cursor", "GET", "/v1/memories?cursor=garbage", keyA, nil, 400, "cursor: not a cursor"},
		{"cursor with a control character", "GET", "/v1/memories?cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"t":1,"i":"a\u0000"}`)), keyA, nil, 400, "cursor: not a cursor"},
		{"cursor with a negative time", "GET", "/v1/memories?cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"t":-1,"i":"a"}`)), keyA, nil, 400, "cursor: not a cursor"},
		{"cursor with a long id", "GET", "/v1/memories?cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"t":1,"i":"`+strings.Repeat("a", 4096)+`"}`)), keyA, nil, 400, "cursor: not a cursor"},
		{"documents cursor with a control character", "GET", "/v1/documents?cursor=a%01b", keyA, nil, 400, "cursor: contains a control character"},
		{"invalid UTF-8 in a text", "POST", "/v1/memories", keyA, "{\"content\":{\"text\":\"caf\xe9\"}}", 400, "content.text: not valid UTF-8"},
		{"unpaired surrogate in a text", "POST", "/v1/memories", keyA, `{"content":{"text":"a\ud800b"}}`, 400, "content.text: not valid UTF-8"},
		{"low surrogate alone", "POST", "/v1/memories", keyA, `{"content":{"text":"a\uDC00"}}`, 400, "content.text: not valid UTF-8"},
		{"invalid UTF-8 in a batch item", "POST", "/v1/memories", keyA, "{\"memories\":[{\"content\":{\"text\":\"a\"}},{\"roomId\":\"r\xff\",\"content\":{\"text\":\"b\"}}]}", 400, "memories[1].roomId: not valid UTF-8"},
		{"invalid UTF-8 in metadata", "POST", "/v1/memories", keyA, "{\"content\":{\"text\":\"a\"},\"metadata\":{\"tags\":[\"ok\",\"\xc3\"]}}", 400, "metadata.tags[1]: not valid UTF-8"},
		{"invalid UTF-8 in a metadata key", "POST", "/v1/memories", keyA, "{\"content\":{\"text\":\"a\"},\"metadata\":{\"k\xff\":1}}", 400, "metadata.(key): not valid UTF-8"},
		{"invalid UTF-8 in a search query", "POST", "/v1/search", keyA, "{\"query\":\"\xfe\"}", 400, "query: not valid UTF-8"},
		{"invalid UTF-8 in a search filter", "POST", "/v1/search", keyA, `{"query":"a","filters":{"roomId":"\udbff"}}`, 400, "filters.roomId: not valid UTF-8"},
		{"invalid UTF-8 in a patch", "PATCH", "/v1/memories/" + id, keyA, "{\"content\":{\"text\":\"\xed\xa0\x80\"}}", 400, "content.text: not valid UTF-8"},
		{"invalid UTF-8 in a document", "POST", "/v1/documents", keyA, "{\"name\":\"a.txt\",\"content\":\"\xff\"}", 400, "content: not valid UTF-8"},
		{"invalid UTF-8 in a query parameter", "GET", "/v1/memories?roomId=%ff", keyA, nil, 400, "roomId: not valid UTF-8"},
		{"bulk delete without filter", "DELETE", "/v1/memories", keyA, nil, 400, "bulk delete requires at least one filter"},
		{"missing id", "GET", "/v1/memories/does-not-exist", keyA, nil, 404, "not found"},
		{"empty patch", "PATCH", "/v1/memories/" + id, keyA, `{}`, 400, "nothing to update"},
		{"patch unknown field", "PATCH", "/v1/memories/" + id, keyA, `{"type":"fact"}`, 400, `unknown field "type"`},
		{"patch blank text", "PATCH", "/v1/memories/" + id, keyA, `{"content":{"text":" "}}`, 400, "content.text: required"},
		{"bad If-Match", "PATCH", "/v1/memories/" + id, keyA, `{"importance":0.2}`, 400, "If-Match"},
		{"search without query", "POST", "/v1/search", keyA, `{"mode":"hybrid"}`, 400, "query: required"},
		{"search floor out of range", "POST", "/v1/search", keyA, `{"query":"a","minScore":2}`, 400, "minScore: 2 is outside 0..1"},
		{"context floor out of range", "POST", "/v1/context", keyA, `{"query":"a","minScore":-0.5}`, 400, "minScore: -0.5 is outside 0..1"},
		{"search bad mode", "POST", "/v1/search", keyA, `{"query":"a","mode":"fuzzy"}`, 400, `mode: "fuzzy"`},
		{"a stray closing bracket", "POST", "/v1/memories", keyA, `{"content":{"text":"x"}}}`, 400, "unexpected data after the JSON object"},
		{"search unknown list", "POST", "/v1/search", keyA, `{"query":"a","lists":["telepathy"]}`, 400, `lists: "telepathy" is not available`},
		{"search mode and lists", "POST", "/v1/search", keyA, `{"query":"a","mode":"keyword","lists":["keyword"]}`, 400, "mode and lists"},
		{"search rerank not a bool", "POST", "/v1/search", keyA, `{"query":"a","rerank":"yes"}`, 400, "rerank"},
		{"search bad k", "POST", "/v1/search", keyA, `{"query":"a","k":500}`, 400, "k: must be between 1 and 100"},
		{"search bad filter type", "POST", "/v1/search", keyA, `{"query":"a","filters":{"type":["fact","bogus"]}}`, 400, `type: "bogus"`},
		{"search bad time range", "POST", "/v1/search", keyA, `{"query":"a","filters":{"start":200,"end":100}}`, 400, "end: must be after start"},
		{"search bad time", "POST", "/v1/search", keyA, `{"query":"a","filters":{"start":"soon"}}`, 400, `"soon" is neither`},
		{"search unknown filter", "POST", "/v1/search", keyA, `{"query":"a","filters":{"org":"b"}}`, 400, `unknown field "org"`},
		{"context bad budget", "POST", "/v1/context", keyA, `{"query":"a","budgetTokens":-5}`, 400, "budgetTokens"},
		{"context nothing to build from", "POST", "/v1/context", keyA, `{"budgetTokens":100}`, 400, "query or roomId"},
		{"wrong method", "PUT", "/v1/memories", keyA, nil, 405, "method PUT is not allowed"},
		{"no route", "GET", "/v2/memories", keyA, nil, 404, "no route"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var headers []string
			if tc.name == "bad If-Match" {
				headers = []string{"If-Match", "yesterday"}
			}
			if tc.name == "basic auth" {
				headers = []string{"Authorization", "Basic dXNlcjpwYXNz"}
			}
			r := c.do(tc.method, tc.path, tc.key, tc.body, headers...)
			if r.Status != tc.status || !strings.Contains(errMessage(r), tc.message) {
				t.Fatalf("got %d %s; want %d with %q", r.Status, r.Raw, tc.status, tc.message)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("content type %q", ct)
			}
			// RFC 9457: type, title, status, detail and instance, with
			// the code and the request id as extension members.
			code := errCode(r)
			if code == "" || r.Body["type"] != "urn:agentmem:problem:"+code || r.Body["title"] == "" ||
				r.Body["status"] != float64(tc.status) || r.Body["instance"] != strings.SplitN(tc.path, "?", 2)[0] ||
				r.Body["requestId"] != r.Header.Get("X-Request-Id") {
				t.Fatalf("not a problem: %s", r.Raw)
			}
		})
	}
	// Nothing of the rejected writes was stored.
	if r := c.do("GET", "/v1/memories/count", keyA, nil); r.Body["count"] != 1.0 {
		t.Fatalf("after the rejected writes org a has %v memories, want 1", r.Body["count"])
	}
}

func TestDuplicateSameScope(t *testing.T) {
	c := newClient(t, newServer(t))
	body := map[string]any{"type": "fact", "content": map[string]any{"text": "Prefers window seats"}}
	first := c.do("POST", "/v1/memories", keyA, body)
	second := c.do("POST", "/v1/memories", keyA, map[string]any{"type": "fact", "content": map[string]any{"text": "prefers  WINDOW seats"}})
	if first.Status != 201 || first.Body["duplicate"] != false {
		t.Fatalf("first: %d %s", first.Status, first.Raw)
	}
	if second.Status != 200 || second.Body["duplicate"] != true || second.Body["id"] != first.Body["id"] {
		t.Fatalf("second: %d %s", second.Status, second.Raw)
	}
	if r := c.do("GET", "/v1/memories/count?type=fact", keyA, nil); r.Body["count"] != 1.0 {
		t.Fatalf("count %v", r.Body["count"])
	}
	// Another org, or another agent's scope, is not a duplicate.
	if r := c.do("POST", "/v1/memories", keyB, body); r.Status != 201 {
		t.Fatalf("org b: %d %s", r.Status, r.Raw)
	}
	if r := c.do("POST", "/v1/memories", keyX, body); r.Status != 201 {
		t.Fatalf("agent x scope: %d %s", r.Status, r.Raw)
	}
}

// TestTenantIsolation tries to cross orgs and agents on every path.
func TestTenantIsolation(t *testing.T) {
	c := newClient(t, newServer(t))
	secret := map[string]any{"type": "fact", "roomId": "shared-room", "entityId": "e1", "sessionId": "s1",
		"content": map[string]any{"text": "the launch code is marigold"}, "metadata": map[string]any{"k": "v"}}
	idA := c.create(keyA, secret)
	idB := c.create(keyB, secret) // identical text in org b
	idY := c.create(keyY, map[string]any{"type": "fact", "roomId": "shared-room", "metadata": map[string]any{"k": "v"}, "content": map[string]any{"text": "agent y private: the launch code is marigold"}})
	idX := c.create(keyX, map[string]any{"type": "fact", "roomId": "shared-room", "metadata": map[string]any{"k": "v"}, "content": map[string]any{"text": "agent x private: the launch code is marigold"}})
	if idA == idB {
		t.Fatal("two orgs share an id")
	}

	// Org B against org A's memory, and agent X against agent Y's.
	for _, tc := range []struct {
		name, key, victim string
		owner             string // key of the owner, to check nothing changed
	}{
		{"org b on org a", keyB, idA, keyA},
		{"agent x on agent y", keyX, idY, keyY},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := c.do("GET", "/v1/memories/"+tc.victim, tc.key, nil); r.Status != 404 {
				t.Fatalf("get: %d %s", r.Status, r.Raw)
			}
			if r := c.do("GET", "/v1/memories/"+tc.victim+"/history", tc.key, nil); r.Status != 404 {
				t.Fatalf("history: %d %s", r.Status, r.Raw)
			}
			if r := c.do("GET", "/v1/export", tc.key, nil); r.Status != 200 || strings.Contains(r.Raw, tc.victim) {
				t.Fatalf("export: %d, or it holds the victim", r.Status)
			}
			if r := c.do("GET", "/v1/memories?metadata.k=v&roomId=shared-room", tc.key, nil); r.Status != 200 || strings.Contains(r.Raw, tc.victim) {
				t.Fatalf("list by metadata: %d %s", r.Status, r.Raw)
			}
			if r := c.do("PATCH", "/v1/memories/"+tc.victim, tc.key, `{"content":{"text":"overwritten"}}`); r.Status != 404 {
				t.Fatalf("patch: %d %s", r.Status, r.Raw)
			}
			if r := c.do("DELETE", "/v1/memories/"+tc.victim, tc.key, nil); r.Status != 404 {
				t.Fatalf("delete: %d %s", r.Status, r.Raw)
			}
			r := c.do("GET", "/v1/memories?roomId=shared-room&limit=1000", tc.key, nil)
			for _, m := range r.Body["memories"].([]any) {
				if m.(map[string]any)["id"] == tc.victim {
					t.Fatal("list shows the victim")
				}
			}
			for _, mode := range []string{"hybrid", "semantic", "keyword"} {
				for _, filters := range []map[string]any{{}, {"roomId": "shared-room"}, {"type": "fact", "entityId": "e1", "sessionId": "s1"}} {
					r := c.do("POST", "/v1/search", tc.key, map[string]any{"query": "launch code marigold", "mode": mode, "k": 100, "filters": filters})
					if r.Status != 200 {
						t.Fatalf("search: %d %s", r.Status, r.Raw)
					}
					for _, res := range r.Body["results"].([]any) {
						if res.(map[string]any)["memory"].(map[string]any)["id"] == tc.victim {
							t.Fatalf("%s search with %v returns the victim", mode, filters)
						}
					}
				}
			}
			r = c.do("POST", "/v1/context", tc.key, map[string]any{"query": "launch code", "roomId": "shared-room", "budgetTokens": 2000})
			if strings.Contains(r.Raw, tc.victim) {
				t.Fatal("context includes the victim")
			}
			// Knowledge: the victim is never a result nor a source (see
			// also TestKnowledgeIsolation), though its owner finds it.
			for _, body := range []string{`{"text": "what is the launch code?"}`, `{"query": {"terms": ["launch code", "marigold"]}, "limit": 100}`,
				`{"query": {"terms": ["launch code"]}, "filters": {"roomId": "shared-room", "type": "fact"}}`} {
				if r := c.do("POST", "/v1/knowledge/search", tc.owner, body); !strings.Contains(r.Raw, tc.victim) {
					t.Fatalf("the owner's knowledge search %s misses the victim: %d %s", body, r.Status, r.Raw)
				}
				if r := c.do("POST", "/v1/knowledge/search", tc.key, body); r.Status != 200 || strings.Contains(r.Raw, tc.victim) {
					t.Fatalf("knowledge search %s: %d %s", body, r.Status, r.Raw)
				}
			}
			for _, path := range []string{"/v1/knowledge/entities?roomId=shared-room", "/v1/knowledge/topics", "/v1/knowledge/terms?prefix=la"} {
				if r := c.do("GET", path, tc.key, nil); r.Status != 200 || strings.Contains(r.Raw, tc.victim) {
					t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
				}
			}
			for _, body := range []map[string]any{{"entity": "e1"}, {"roomId": "shared-room", "sessionId": "s1"}, {"entity": "marigold"}} {
				if r := c.do("POST", "/v1/forget", tc.key, body); r.Status != 200 {
					t.Fatalf("forget %v: %d %s", body, r.Status, r.Raw)
				}
			}
			if r := c.do("GET", "/v1/memories/"+tc.victim, tc.owner, nil); r.Status != 200 {
				t.Fatalf("an erasure by another tenant removed the victim: %d %s", r.Status, r.Raw)
			}
			if r := c.do("DELETE", "/v1/memories?roomId=shared-room", tc.key, nil); r.Status != 200 {
				t.Fatalf("bulk delete: %d %s", r.Status, r.Raw)
			}
			if r := c.do("GET", "/v1/memories/"+tc.victim, tc.owner, nil); r.Status != 200 || r.Body["content"].(map[string]any)["text"] == "overwritten" {
				t.Fatalf("the owner's memory changed or vanished: %d %s", r.Status, r.Raw)
			}
		})
	}
	// Counts: org b's bulk delete removed only its own memory; org a kept 3.
	if r := c.do("GET", "/v1/memories/count", keyB, nil); r.Body["count"] != 0.0 {
		t.Fatalf("org b count %v", r.Body["count"])
	}
	// Agent x's bulk delete removed its own memories of the room only: the
	// org-scope one, which every agent shares, and y's stay.
	if r := c.do("GET", "/v1/memories/count", keyA, nil); r.Body["count"] != 2.0 {
		t.Fatalf("org a count %v, want 2 (the org-scope memory and agent y's)", r.Body["count"])
	}
	// An agent key can delete no org-scope memory, in bulk or one by one.
	if r := c.do("DELETE", "/v1/memories?agentId=_org", keyX, nil); r.Status != 403 {
		t.Fatalf("agent x bulk-deleting the org scope: %d %s", r.Status, r.Raw)
	}
	orgMem := c.do("GET", "/v1/memories?agentId=_org", keyA, nil).Body["memories"].([]any)
	if len(orgMem) != 1 {
		t.Fatalf("org-scope memories %v", orgMem)
	}
	if r := c.do("DELETE", "/v1/memories/"+orgMem[0].(map[string]any)["id"].(string), keyX, nil); r.Status != 403 {
		t.Fatalf("agent x deleting an org-scope memory: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/memories/"+idX, keyX, nil); r.Status != 404 {
		t.Fatal("agent x's own bulk delete did not remove its memory")
	}
	// An agent key cannot ask for another agent's scope.
	if r := c.do("GET", "/v1/memories?agentId=y", keyX, nil); r.Status != 403 {
		t.Fatalf("agent x listing agent y: %d", r.Status)
	}
	if r := c.do("GET", "/v1/memories/count?agentId=y", keyX, nil); r.Status != 403 {
		t.Fatalf("agent x counting agent y: %d", r.Status)
	}
	if r := c.do("POST", "/v1/search", keyX, map[string]any{"query": "code", "filters": map[string]any{"agentId": "y"}}); r.Status != 403 {
		t.Fatalf("agent x searching agent y: %d", r.Status)
	}
}

// TestPrivateFactIsolation: a personal fact stated in agent x's
// conversation (POST /v1/messages with x's key) is extracted into x's
// scope. Agent y of the same org, and org b, find neither the fact nor the
// turn by list, get, search in any mode or context; agent x finds both.
func TestPrivateFactIsolation(t *testing.T) {
	s, queue := newServerQueue(t)
	c := newClient(t, s)
	r := c.do("POST", "/v1/messages", keyX, map[string]any{"messages": []map[string]any{
		{"roomId": "dm", "entityId": "Ana", "content": map[string]any{"text": "I'm allergic to penicillin."}},
		{"roomId": "dm", "entityId": "Ana", "content": map[string]any{"text": "My sister Inês lives in Porto."}},
	}})
	if r.Status != 202 || r.Body["extractionQueued"] != true {
		t.Fatalf("post messages: %d %s", r.Status, r.Raw)
	}
	queue.Drain()
	list := c.do("GET", "/v1/memories?type=fact", keyX, nil).Body["memories"].([]any)
	var facts []string
	for _, m := range list {
		m := m.(map[string]any)
		if m["agentId"] != "x" {
			t.Fatalf("fact %s written to scope %q, want agent x's", m["content"], m["agentId"])
		}
		facts = append(facts, m["id"].(string))
	}
	if len(facts) == 0 {
		t.Fatal("nothing was extracted")
	}
	allergy := ""
	for _, m := range list {
		if m := m.(map[string]any); strings.Contains(m["content"].(map[string]any)["text"].(string), "penicillin") {
			allergy = m["id"].(string)
		}
	}
	if allergy == "" {
		t.Fatalf("the allergy was not extracted: %v", list)
	}
	turns := c.do("GET", "/v1/memories?type=message&roomId=dm", keyX, nil).Body["memories"].([]any)
	if len(turns) != 2 {
		t.Fatalf("agent x's turns: %v", turns)
	}
	private := append([]string{turns[0].(map[string]any)["id"].(string), turns[1].(map[string]any)["id"].(string)}, facts...)

	// finds reports which of the private ids (and whether the word
	// "penicillin") the key reaches on each read path.
	finds := func(t *testing.T, key string) []string {
		t.Helper()
		var seen []string
		note := func(path, raw string) {
			for _, id := range private {
				if strings.Contains(raw, id) {
					seen = append(seen, path+" "+id)
				}
			}
			if strings.Contains(strings.ToLower(raw), "penicillin") {
				seen = append(seen, path+" penicillin")
			}
		}
		for _, q := range []string{"", "?type=fact", "?roomId=dm", "?entityId=Ana", "?limit=1000"} {
			note("list"+q, c.do("GET", "/v1/memories"+q, key, nil).Raw)
		}
		for _, id := range private {
			if r := c.do("GET", "/v1/memories/"+id, key, nil); r.Status != 404 {
				seen = append(seen, fmt.Sprintf("get %s: %d", id, r.Status))
			}
		}
		for _, mode := range []string{"full", "hybrid", "semantic", "keyword", "knowledge"} {
			for _, filters := range []map[string]any{{}, {"type": "fact"}, {"roomId": "dm"}, {"entityId": "Ana"}} {
				r := c.do("POST", "/v1/search", key, map[string]any{"query": "Ana allergic penicillin sister Porto", "mode": mode, "k": 100, "filters": filters})
				if r.Status != 200 {
					t.Fatalf("search %s: %d %s", mode, r.Status, r.Raw)
				}
				note("search "+mode, r.Raw)
			}
		}
		for _, room := range []string{"", "dm"} {
			r := c.do("POST", "/v1/context", key, map[string]any{"query": "what is Ana allergic to", "roomId": room, "budgetTokens": 4000})
			if r.Status != 200 {
				t.Fatalf("context: %d %s", r.Status, r.Raw)
			}
			note("context", r.Raw)
		}
		if r := c.do("GET", "/v1/memories/count?type=fact", key, nil); r.Body["count"] != 0.0 {
			seen = append(seen, fmt.Sprintf("count %v", r.Body["count"]))
		}
		return seen
	}
	for _, tc := range []struct{ name, key string }{{"agent y", keyY}, {"org b", keyB}} {
		t.Run(tc.name, func(t *testing.T) {
			if seen := finds(t, tc.key); len(seen) > 0 {
				t.Fatalf("%s reaches agent x's private memories: %v", tc.name, seen)
			}
		})
	}
	// The check itself sees: the org-level key reads every scope of its org.
	if seen := finds(t, keyA); len(seen) == 0 {
		t.Fatal("org a's own org-level key reaches none of agent x's memories: the check proves nothing")
	}
	// Agent x itself finds its fact on every path.
	if r := c.do("GET", "/v1/memories/"+allergy, keyX, nil); r.Status != 200 {
		t.Fatalf("agent x get: %d", r.Status)
	}
	for _, mode := range []string{"full", "hybrid", "semantic", "keyword"} {
		r := c.do("POST", "/v1/search", keyX, map[string]any{"query": "Ana allergic penicillin", "mode": mode, "k": 100})
		if !strings.Contains(r.Raw, allergy) {
			t.Fatalf("agent x's %s search misses its fact: %s", mode, r.Raw)
		}
	}
	if r := c.do("POST", "/v1/context", keyX, map[string]any{"query": "what is Ana allergic to", "budgetTokens": 4000}); !strings.Contains(r.Raw, allergy) {
		t.Fatalf("agent x's context misses its fact: %s", r.Raw)
	}
}

// TestSettingsIsolation: the extraction settings are per org (org b
// neither reads nor changes org a's) and agent-bound keys reach none.
func TestSettingsIsolation(t *testing.T) {
	c := newClient(t, newServer(t))
	if r := c.do("PUT", "/v1/admin/settings/extraction", keyA, map[string]any{"dropCategories": []string{"health"}}); r.Status != 200 {
		t.Fatalf("org a put: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/admin/settings/extraction", keyB, nil); r.Status != 200 || r.Body["version"] != 0.0 || strings.Contains(r.Raw, "health") {
		t.Fatalf("org b reads org a's settings: %d %s", r.Status, r.Raw)
	}
	if r := c.do("PUT", "/v1/admin/settings/extraction", keyB, map[string]any{"language": "fr"}, "If-Match", `"1"`); r.Status != 412 {
		t.Fatalf("org b with org a's version: %d %s", r.Status, r.Raw)
	}
	for _, key := range []string{keyX, keyY} {
		for _, m := range []string{"GET", "PUT"} {
			if r := c.do(m, "/v1/admin/settings/extraction", key, map[string]any{}); r.Status != 403 {
				t.Fatalf("agent key %s: %d %s", m, r.Status, r.Raw)
			}
		}
	}
	if r := c.do("GET", "/v1/admin/settings/extraction", keyA, nil); r.Body["version"] != 1.0 || !strings.Contains(r.Raw, "health") {
		t.Fatalf("org a's settings changed: %s", r.Raw)
	}
}

func TestListPagesAndPatchVersions(t *testing.T) {
	c := newClient(t, newServer(t))
	var batch []map[string]any
	for i := 0; i < 25; i++ {
		batch = append(batch, map[string]any{"type": "message", "roomId": "r", "entityId": "u",
			"createdAt": 1_700_000_000_000 + i*1000, "content": map[string]any{"text": fmt.Sprintf("turn %d", i)}})
	}
	r := c.do("POST", "/v1/memories", keyA, map[string]any{"memories": batch})
	if r.Status != 201 || len(r.Body["memories"].([]any)) != 25 {
		t.Fatalf("batch: %d %s", r.Status, r.Raw)
	}
	var texts []string
	cursor := ""
	for pages := 0; pages < 10; pages++ {
		r := c.do("GET", "/v1/memories?roomId=r&type=message&limit=10&cursor="+cursor, keyA, nil)
		for _, m := range r.Body["memories"].([]any) {
			texts = append(texts, m.(map[string]any)["content"].(map[string]any)["text"].(string))
		}
		cursor = r.Body["nextCursor"].(string)
		if cursor == "" {
			break
		}
	}
	if len(texts) != 25 || texts[0] != "turn 24" || texts[24] != "turn 0" {
		t.Fatalf("pages: %d memories, first %q", len(texts), texts[0])
	}
	r = c.do("GET", "/v1/memories/count?roomId=r&start=1700000010000&end=1700000020000", keyA, nil)
	if r.Body["count"] != 10.0 {
		t.Fatalf("count in range %v, want 10", r.Body["count"])
	}
	// PATCH with ETag / If-Match.
	list := c.do("GET", "/v1/memories?limit=1", keyA, nil)
	mid := list.Body["memories"].([]any)[0].(map[string]any)["id"].(string)
	g := c.do("GET", "/v1/memories/"+mid, keyA, nil)
	etag := g.Header.Get("ETag")
	p := c.do("PATCH", "/v1/memories/"+mid, keyA, `{"importance":0.9,"metadata":{"tag":"x"}}`, "If-Match", etag)
	if p.Status != 200 || p.Body["importance"] != 0.9 || p.Body["version"] != 2.0 {
		t.Fatalf("patch: %d %s", p.Status, p.Raw)
	}
	p = c.do("PATCH", "/v1/memories/"+mid, keyA, `{"importance":0.1}`, "If-Match", etag)
	if p.Status != 412 {
		t.Fatalf("stale If-Match: %d %s", p.Status, p.Raw)
	}
	if d := c.do("DELETE", "/v1/memories?roomId=r&start=1700000010000", keyA, nil); d.Body["deleted"] != 15.0 {
		t.Fatalf("bulk delete: %s", d.Raw)
	}
	if d := c.do("DELETE", "/v1/memories/"+mid, keyA, nil); d.Status != 404 {
		t.Fatalf("delete of a bulk-deleted memory: %d", d.Status)
	}
}

func gatewayEvent(method, path, org, agent, body string) events.APIGatewayProxyRequest {
	ev := events.APIGatewayProxyRequest{HTTPMethod: method, Path: path, Body: body,
		Headers:        map[string]string{"Content-Type": "application/json"},
		RequestContext: events.APIGatewayProxyRequestContext{RequestID: "req-" + method, Authorizer: map[string]any{}}}
	if org != "" {
		ev.RequestContext.Authorizer[httpapi.AuthorizerOrgKey] = org
	}
	if agent != "" {
		ev.RequestContext.Authorizer[httpapi.AuthorizerAgentKey] = agent
	}
	return ev
}

func TestAPIGatewayEvents(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	call := func(ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, map[string]any) {
		t.Helper()
		res, err := s.HandleAPIGateway(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		json.Unmarshal([]byte(res.Body), &body)
		return res, body
	}
	res, body := call(gatewayEvent("POST", "/v1/memories", "org-a", "", `{"type":"fact","roomId":"r","content":{"text":"Ships on Fridays"}}`))
	if res.StatusCode != 201 || res.Headers["Content-Type"] != "application/json" || res.Headers["X-Request-Id"] != "req-POST" {
		t.Fatalf("create: %d %v %s", res.StatusCode, res.Headers, res.Body)
	}
	id := body["id"].(string)

	// Base64 body, as API Gateway sends binary media types.
	ev := gatewayEvent("POST", "/v1/search", "org-a", "", base64.StdEncoding.EncodeToString([]byte(`{"query":"fridays","mode":"keyword"}`)))
	ev.IsBase64Encoded = true
	res, body = call(ev)
	if res.StatusCode != 200 || len(body["results"].([]any)) != 1 {
		t.Fatalf("search: %d %s", res.StatusCode, res.Body)
	}

	// Multi-value query strings.
	ev = gatewayEvent("GET", "/v1/memories", "org-a", "", "")
	ev.MultiValueQueryStringParameters = map[string][]string{"type": {"fact", "message"}, "roomId": {"r"}}
	res, body = call(ev)
	if res.StatusCode != 200 || len(body["memories"].([]any)) != 1 {
		t.Fatalf("list: %d %s", res.StatusCode, res.Body)
	}

	// The org comes from the authorizer only: org b cannot read it, and a
	// bearer key without an authorizer context is refused.
	res, _ = call(gatewayEvent("GET", "/v1/memories/"+id, "org-b", "", ""))
	if res.StatusCode != 404 {
		t.Fatalf("org b get: %d", res.StatusCode)
	}
	ev = gatewayEvent("GET", "/v1/memories/"+id, "", "", "")
	ev.Headers["Authorization"] = "Bearer " + keyA
	res, _ = call(ev)
	if res.StatusCode != 401 {
		t.Fatalf("no authorizer context but a valid key: %d %s", res.StatusCode, res.Body)
	}
	res, _ = call(gatewayEvent("GET", "/v1/memories/"+id, "org-a", "", ""))
	if res.StatusCode != 200 || res.Headers["Etag"] != `"1"` {
		t.Fatalf("org a get: %d %v", res.StatusCode, res.Headers)
	}

	// Agent-bound authorizer context.
	res, body = call(gatewayEvent("POST", "/v1/memories", "org-a", "x", `{"content":{"text":"x only"}}`))
	if res.StatusCode != 201 {
		t.Fatalf("agent create: %d %s", res.StatusCode, res.Body)
	}
	xid := body["id"].(string)
	if res, _ := call(gatewayEvent("GET", "/v1/memories/"+xid, "org-a", "y", "")); res.StatusCode != 404 {
		t.Fatalf("agent y reads agent x: %d", res.StatusCode)
	}
	if res, _ := call(gatewayEvent("GET", "/v1/memories/"+xid, "org-a", "x", "")); res.StatusCode != 200 {
		t.Fatalf("agent x reads its own: %d", res.StatusCode)
	}
	// Errors keep their shape and status through the adapter.
	res, _ = call(gatewayEvent("POST", "/v1/memories", "org-a", "", `{"content":{}}`))
	if res.StatusCode != 400 || !strings.Contains(res.Body, "content.text") {
		t.Fatalf("bad input through the gateway: %d %s", res.StatusCode, res.Body)
	}
	res, _ = call(gatewayEvent("DELETE", "/v1/memories/"+id, "org-a", "", ""))
	if res.StatusCode != 204 || res.Body != "" {
		t.Fatalf("delete: %d %q", res.StatusCode, res.Body)
	}
	res, _ = call(gatewayEvent("GET", "/v1/healthz", "", "", ""))
	if res.StatusCode != 200 {
		t.Fatalf("healthz: %d", res.StatusCode)
	}
}

// TestSampleEvents replays the sample payloads of events/ through the
// Lambda handler, in order: create, list, search.
func TestSampleEvents(t *testing.T) {
	s := newServer(t)
	var created string
	for _, tc := range []struct {
		file   string
		status int
	}{
		{"apigw-create-memory.json", 201},
		{"apigw-list-memories.json", 200},
		{"apigw-search.json", 200},
	} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "events", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var ev events.APIGatewayProxyRequest
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		res, err := s.HandleAPIGateway(context.Background(), ev)
		if err != nil || res.StatusCode != tc.status {
			t.Fatalf("%s: %d %s %v", tc.file, res.StatusCode, res.Body, err)
		}
		var body map[string]any
		json.Unmarshal([]byte(res.Body), &body)
		switch tc.file {
		case "apigw-create-memory.json":
			created = body["id"].(string)
		case "apigw-list-memories.json":
			if ms := body["memories"].([]any); len(ms) != 1 || ms[0].(map[string]any)["id"] != created {
				t.Fatalf("list: %s", res.Body)
			}
		case "apigw-search.json":
			rs := body["results"].([]any)
			if len(rs) != 1 || rs[0].(map[string]any)["memory"].(map[string]any)["agentId"] != "support-bot" {
				t.Fatalf("search: %s", res.Body)
			}
		}
	}
}
