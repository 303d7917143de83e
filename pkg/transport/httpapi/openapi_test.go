package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"github.com/agentmem/agentmem/pkg/transport/contract/contracttest"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// The deployment's static keys: an org-level key of acme, a key bound to
// acme's agent bot, and a key of another org.
const (
	adminKey = "test-key-acme-admin-0001"
	botKey   = "test-key-acme-bot-00001"
	otherKey = "test-key-other-org-0001"
)

// deployment is a real local deployment (SQLite store, bolt index, the
// hashing embedder, the local extraction queue) behind the API handler
// with every option memoryd gives it (wiring/server.Serve), so that its
// route table is memoryd's.
func deployment(t *testing.T) (*httpapi.Server, http.Handler) {
	t.Helper()
	env := map[string]string{"DATA_DIR": t.TempDir(), "EMBEDDER": "hash",
		"API_KEYS": adminKey + "=acme," + botKey + "=acme/bot," + otherKey + "=other"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := server.Open(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	keys, _, _, err := server.Authenticator(cfg, b)
	if err != nil {
		t.Fatal(err)
	}
	queue := extract.NewLocalQueue(b.Facts, cfg.Extraction.LocalQueueCap)
	t.Cleanup(queue.Close)
	opts := []httpapi.Option{httpapi.WithDocuments(b.Documents), httpapi.WithExtraction(queue),
		httpapi.WithConsolidation(b.Consolidation), httpapi.WithKeys(b.Keys), httpapi.WithQuotas(server.Quotas(cfg.Quotas, b)),
		httpapi.WithKnowledge(b.Knowledge), httpapi.WithRegistry(b.Registry), httpapi.WithWorkstreams(b.Workstreams), httpapi.WithHealth(b), httpapi.WithIdempotency(b.Idempotency),
		httpapi.WithTokens(b.Tokens)}
	if b.Settings != nil {
		opts = append(opts, httpapi.WithSettings(b.Settings))
	}
	api := httpapi.New(b.Service, keys, log, opts...)
	return api, api
}

// grantsOf is the spec's spelling of a route's grant.
func grantsOf(g memory.Grants) []string {
	if g == 0 {
		return nil
	}
	return g.Names()
}

// TestOpenAPIRoutesBothWays: every route of the table is an operation of
// the spec with the same grant, and every operation of the spec is a route
// of the table, but those marked planned (not served yet: served, the mark
// must go) or outside the table (served beside the handler).
func TestOpenAPIRoutesBothWays(t *testing.T) {
	spec, err := contracttest.Load()
	if err != nil {
		t.Fatal(err)
	}
	api, _ := deployment(t)
	served := map[string]httpapi.Route{}
	for _, r := range api.Routes() {
		key := r.Method + " " + r.Pattern
		if r.Method == "" {
			// A pattern without a method serves them all: the spec must
			// document it under its path, with some method.
			for _, o := range spec.Operations() {
				if o.Path != r.Pattern {
					continue
				}
				served[o.String()] = r
				if got, want := strings.Join(o.Grants, ","), strings.Join(grantsOf(r.Grants), ","); got != want {
					t.Errorf("route ANY %s needs grant %q in the table, but the spec's x-agentmem-grants of %s says %q", r.Pattern, want, o, got)
				}
			}
			if !anyPath(spec, r.Pattern) {
				t.Errorf("route ANY %s is in the table but not in the spec (transport/contract/openapi.json)", r.Pattern)
			}
			continue
		}
		served[key] = r
		o, ok := spec.Operation(r.Method, r.Pattern)
		if !ok {
			t.Errorf("route %s is in the table but not in the spec (transport/contract/openapi.json)", key)
			continue
		}
		if got, want := strings.Join(o.Grants, ","), strings.Join(grantsOf(r.Grants), ","); got != want {
			t.Errorf("route %s needs grant %q in the table, but the spec's x-agentmem-grants says %q", key, want, got)
		}
		if (o.Public || o.AnyKey) != (r.Grants == 0) {
			t.Errorf("route %s: without a grant in the table %v, in the spec (security: [] or x-agentmem-any-key) %v", key, r.Grants == 0, o.Public || o.AnyKey)
		}
		if o.Planned {
			t.Errorf("route %s is served: drop x-agentmem-planned from its operation in the spec", key)
		}
	}
	for _, o := range spec.Operations() {
		if _, ok := served[o.String()]; ok || o.Outside {
			continue
		}
		if o.Planned {
			t.Logf("planned, not served yet: %s", o)
			continue
		}
		t.Errorf("operation %s is in the spec but not in the route table (mark it x-agentmem-planned if it is not served yet)", o)
	}
	if len(served) < 20 {
		t.Fatalf("the route table has %d routes: the deployment lacks options memoryd gives", len(served))
	}
}

// anyPath reports whether the spec has an operation on path.
func anyPath(spec *contracttest.Spec, path string) bool {
	for _, o := range spec.Operations() {
		if o.Path == path {
			return true
		}
	}
	return false
}

// call is one request of TestOpenAPIResponsesMatchSchemas.
type call struct {
	name    string
	method  string
	path    string // concrete; {name} is replaced by what an earlier call saved
	key     string // "" sends no Authorization
	body    any    // JSON-encoded unless a string
	headers map[string]string
	status  int
	op      string            // the route pattern ("/v1/memories/{id}"); default path
	save    map[string]string // name -> field of the JSON answer (a.b), "ETag", or "body" (the raw body)
	want    map[string]string // response headers that must have these values
}

// TestOpenAPIResponsesMatchSchemas sends real requests to a real local
// deployment and validates each response (status, content type, body)
// against the spec; every served operation that documents an error must
// have both a success and an error validated here. Errors are
// application/problem+json, validated strictly, and their code must be the
// error table's for the status.
func TestOpenAPIResponsesMatchSchemas(t *testing.T) {
	spec, err := contracttest.Load()
	if err != nil {
		t.Fatal(err)
	}
	api, h := deployment(t)
	long := strings.Repeat("x", httpapi.MaxBodyBytes+1)
	const admin, bot, other = adminKey, botKey, otherKey
	calls := []call{
		// meta
		{name: "health", method: "GET", path: "/v1/healthz", status: 200},
		{name: "the spec", method: "GET", path: "/v1/openapi.json", status: 200},
		{name: "docs page", method: "GET", path: "/docs", status: 200},
		{name: "docs script", method: "GET", path: "/docs/redoc.standalone.js", status: 200},
		// keys first: a read-only key for the 403s
		{name: "create key", method: "POST", path: "/v1/admin/keys", key: admin, body: map[string]any{"name": "ro", "grants": []string{"read"}}, status: 201, save: map[string]string{"roKey": "secret", "roKeyID": "key.id"}},
		{name: "create key without grants", method: "POST", path: "/v1/admin/keys", key: admin, body: map[string]any{"name": "x"}, status: 400},
		{name: "list keys", method: "GET", path: "/v1/admin/keys", key: admin, status: 200},
		{name: "list keys with a parameter", method: "GET", path: "/v1/admin/keys?x=1", op: "/v1/admin/keys", key: admin, status: 400},
		// memories
		{name: "create one", method: "POST", path: "/v1/memories", key: admin, body: map[string]any{"content": map[string]any{"text": "Ana prefers window seats"}, "type": "fact", "kind": "preference", "entityId": "ana", "roomId": "r1", "metadata": map[string]any{"src": "test"}}, status: 201, save: map[string]string{"mem": "id"}},
		{name: "create a duplicate", method: "POST", path: "/v1/memories", key: admin, body: map[string]any{"content": map[string]any{"text": "Ana prefers window seats"}, "type": "fact", "kind": "preference", "entityId": "ana", "roomId": "r1", "metadata": map[string]any{"src": "test"}}, status: 200},
		{name: "create a batch", method: "POST", path: "/v1/memories", key: bot, body: map[string]any{"memories": []any{map[string]any{"content": map[string]any{"text": "Bo likes green tea"}, "roomId": "r1"}, map[string]any{"content": map[string]any{"text": "the team meets on Mondays"}, "scope": "org"}}}, status: 201},
		{name: "create without content", method: "POST", path: "/v1/memories", key: admin, body: map[string]any{"type": "fact"}, status: 400},
		{name: "create without a key", method: "POST", path: "/v1/memories", body: map[string]any{"content": map[string]any{"text": "x"}}, status: 401},
		{name: "create with a read-only key", method: "POST", path: "/v1/memories", key: "{roKey}", body: map[string]any{"content": map[string]any{"text": "x"}}, status: 403},
		{name: "create too large", method: "POST", path: "/v1/memories", key: admin, body: `{"content":{"text":"` + long + `"}}`, status: 413},
		{name: "list", method: "GET", path: "/v1/memories?limit=10&type=fact", op: "/v1/memories", key: admin, status: 200},
		{name: "list by metadata", method: "GET", path: "/v1/memories?metadata.src=test&metadata.src=other", op: "/v1/memories", key: admin, status: 200},
		{name: "count by metadata without a key name", method: "GET", path: "/v1/memories/count?metadata.=test", op: "/v1/memories/count", key: admin, status: 400},
		{name: "search by metadata", method: "POST", path: "/v1/search", key: admin, body: map[string]any{"query": "seats", "filters": map[string]any{"metadata": map[string]any{"src": []string{"test", "other"}}}}, status: 200},
		{name: "list with limit 0", method: "GET", path: "/v1/memories?limit=0", op: "/v1/memories", key: admin, status: 400},
		{name: "count", method: "GET", path: "/v1/memories/count?roomId=r1", op: "/v1/memories/count", key: admin, status: 200},
		{name: "count with a bad flag", method: "GET", path: "/v1/memories/count?includeArchived=maybe", op: "/v1/memories/count", key: admin, status: 400},
		{name: "get", method: "GET", path: "/v1/memories/{mem}", op: "/v1/memories/{id}", key: admin, status: 200, save: map[string]string{"etag": "ETag"}},
		{name: "whoami", method: "GET", path: "/v1/whoami", key: bot, status: 200},
		{name: "whoami without a key", method: "GET", path: "/v1/whoami", status: 401},
		// end-user tokens
		{name: "mint a token", method: "POST", path: "/v1/tokens", key: bot, body: map[string]any{"userId": "ana", "roomId": "r1", "grants": []string{"read"}, "ttlSeconds": 600}, status: 201, save: map[string]string{"token": "token"}, want: map[string]string{"Cache-Control": "no-store"}},
		{name: "mint a token without a user", method: "POST", path: "/v1/tokens", key: bot, body: map[string]any{"roomId": "r1"}, status: 400},
		{name: "whoami with a token", method: "GET", path: "/v1/whoami", key: "{token}", status: 200},
		{name: "mint a token with a token", method: "POST", path: "/v1/tokens", key: "{token}", body: map[string]any{"userId": "ana"}, status: 403},
		{name: "list keys with a token", method: "GET", path: "/v1/admin/keys", key: "{token}", status: 403},
		{name: "read with a token", method: "GET", path: "/v1/memories/{mem}", op: "/v1/memories/{id}", key: "{token}", status: 200},
		{name: "read with an altered token", method: "GET", path: "/v1/memories/{mem}", op: "/v1/memories/{id}", key: "{token}x", status: 401},
		{name: "home", method: "GET", path: "/", status: 302},
		{name: "explorer", method: "GET", path: "/ui", status: 301},
		{name: "explorer page", method: "GET", path: "/ui/", status: 200},
		{name: "explorer script", method: "GET", path: "/ui/app.js", op: "/ui/", status: 200},
		{name: "get from another org", method: "GET", path: "/v1/memories/{mem}", op: "/v1/memories/{id}", key: other, status: 404},
		{name: "patch", method: "PATCH", path: "/v1/memories/{mem}", op: "/v1/memories/{id}", key: admin, body: map[string]any{"importance": 0.9}, headers: map[string]string{"If-Match": "{etag}"}, status: 200, save: map[string]string{"etagNew": "ETag"}},
		{name: "patch a stale version", method: "PATCH", path: "/v1/memories/{mem}", op: "/v1/memories/{id}", key: admin, body: map[string]any{"importance": 0.8}, headers: map[string]string{"If-Match": "{etag}"}, status: 412},
		{name: "patch with a bad If-Match", method: "PATCH", path: "/v1/memories/{mem}", op: "/v1/memories/{id}", key: admin, body: map[string]any{"importance": 0.8}, headers: map[string]string{"If-Match": "soon"}, status: 400},
		{name: "get unchanged", method: "GET", path: "/v1/memories/{mem}", op: "/v1/memories/{id}", key: admin, headers: map[string]string{"If-None-Match": "{etagNew}"}, status: 304},
		{name: "history", method: "GET", path: "/v1/memories/{mem}/history", op: "/v1/memories/{id}/history", key: admin, status: 200},
		{name: "history from another org", method: "GET", path: "/v1/memories/{mem}/history", op: "/v1/memories/{id}/history", key: other, status: 404},
		{name: "relations", method: "GET", path: "/v1/memories/{mem}/relations", op: "/v1/memories/{id}/relations", key: admin, status: 200},
		{name: "relations from another org", method: "GET", path: "/v1/memories/{mem}/relations", op: "/v1/memories/{id}/relations", key: other, status: 404},
		{name: "create to archive", method: "POST", path: "/v1/memories", key: admin, body: map[string]any{"content": map[string]any{"text": "the office moved to floor 3"}}, status: 201, save: map[string]string{"old": "id"}},
		{name: "archive", method: "POST", path: "/v1/memories/{old}/archive", op: "/v1/memories/{id}/archive", key: admin, body: map[string]any{"reason": "outdated"}, status: 200},
		{name: "archive an org memory with an agent key", method: "POST", path: "/v1/memories/{old}/archive", op: "/v1/memories/{id}/archive", key: bot, body: map[string]any{}, status: 403},
		{name: "archive with an unknown field", method: "POST", path: "/v1/memories/{old}/archive", op: "/v1/memories/{id}/archive", key: admin, body: map[string]any{"why": "x"}, status: 400},
		{name: "restore with an agent key", method: "POST", path: "/v1/memories/{old}/restore", op: "/v1/memories/{id}/restore", key: bot, status: 403},
		{name: "restore", method: "POST", path: "/v1/memories/{old}/restore", op: "/v1/memories/{id}/restore", key: admin, status: 200},
		{name: "restore from another org", method: "POST", path: "/v1/memories/{old}/restore", op: "/v1/memories/{id}/restore", key: other, status: 404},
		{name: "relate", method: "POST", path: "/v1/relations", key: admin, body: `{"fromId": "{mem}", "toId": "{old}", "type": "supports"}`, status: 201, save: map[string]string{"rel": "id"}},
		{name: "relate with a bad type", method: "POST", path: "/v1/relations", key: admin, body: `{"fromId": "{mem}", "toId": "{old}", "type": "likes"}`, status: 400},
		{name: "relate from another org", method: "POST", path: "/v1/relations", key: other, body: `{"fromId": "{mem}", "toId": "{old}", "type": "supports"}`, status: 404},
		{name: "delete a relation from another org", method: "DELETE", path: "/v1/relations/{rel}", op: "/v1/relations/{id}", key: other, status: 404},
		{name: "delete a relation", method: "DELETE", path: "/v1/relations/{rel}", op: "/v1/relations/{id}", key: admin, status: 204},
		{name: "delete a relation again", method: "DELETE", path: "/v1/relations/{rel}", op: "/v1/relations/{id}", key: admin, status: 404},
		// workstreams: memory blocks
		{name: "create workstream", method: "POST", path: "/v1/workstreams", key: bot, body: map[string]any{"id": "launch", "name": "Launch", "limit": 3}, status: 201, want: map[string]string{"Location": "/v1/workstreams/launch"}},
		{name: "create workstream with a bad limit", method: "POST", path: "/v1/workstreams", key: bot, body: map[string]any{"limit": 1}, status: 400},
		{name: "append entry", method: "POST", path: "/v1/workstreams/launch/entries", op: "/v1/workstreams/{id}/entries", key: bot, body: map[string]any{"role": "chief", "text": "ship on Friday"}, status: 201},
		{name: "append entry 2", method: "POST", path: "/v1/workstreams/launch/entries", op: "/v1/workstreams/{id}/entries", key: bot, body: map[string]any{"role": "cto", "text": "use postgres"}, status: 201},
		{name: "append entry 3", method: "POST", path: "/v1/workstreams/launch/entries", op: "/v1/workstreams/{id}/entries", key: bot, body: map[string]any{"role": "ops", "text": "pager from monday"}, status: 201},
		{name: "append entry that compacts", method: "POST", path: "/v1/workstreams/launch/entries", op: "/v1/workstreams/{id}/entries", key: bot, body: map[string]any{"role": "chief", "text": "remember the demo on the 14th", "importance": 0.9}, status: 201},
		{name: "append entry without a role", method: "POST", path: "/v1/workstreams/launch/entries", op: "/v1/workstreams/{id}/entries", key: bot, body: map[string]any{"text": "x"}, status: 400},
		{name: "get workstream", method: "GET", path: "/v1/workstreams/launch", op: "/v1/workstreams/{id}", key: bot, status: 200},
		{name: "get workstream of another org", method: "GET", path: "/v1/workstreams/launch", op: "/v1/workstreams/{id}", key: other, status: 404},
		{name: "list workstreams", method: "GET", path: "/v1/workstreams?limit=10", op: "/v1/workstreams", key: admin, status: 200},
		{name: "list workstreams with a bad parameter", method: "GET", path: "/v1/workstreams?agent=x", op: "/v1/workstreams", key: admin, status: 400},
		{name: "context with a memory block", method: "POST", path: "/v1/context", key: bot, body: map[string]any{"workstreamId": "launch", "budgetTokens": 400}, status: 200},
		{name: "delete workstream of another org", method: "DELETE", path: "/v1/workstreams/launch", op: "/v1/workstreams/{id}", key: other, status: 404},
		{name: "delete workstream", method: "DELETE", path: "/v1/workstreams/launch", op: "/v1/workstreams/{id}", key: bot, status: 204},
		// by key
		{name: "put by key", method: "PUT", path: "/v1/memories/by-key/seat-pref", op: "/v1/memories/by-key/{key}", key: bot, body: map[string]any{"content": map[string]any{"text": "Bo prefers aisle seats"}}, status: 201},
		{name: "put by key again", method: "PUT", path: "/v1/memories/by-key/seat-pref", op: "/v1/memories/by-key/{key}", key: bot, body: map[string]any{"content": map[string]any{"text": "Bo prefers window seats"}}, status: 200},
		{name: "put by key create-only", method: "PUT", path: "/v1/memories/by-key/seat-pref", op: "/v1/memories/by-key/{key}", key: bot, body: map[string]any{"content": map[string]any{"text": "x"}}, headers: map[string]string{"If-None-Match": "*"}, status: 412},
		// A key spelled like a memory's view is the key's (the router
		// registers the views as one pattern so as not to shadow it).
		{name: "put by a key named history", method: "PUT", path: "/v1/memories/by-key/history", op: "/v1/memories/by-key/{key}", key: bot, body: map[string]any{"content": map[string]any{"text": "Bo's history notes"}}, status: 201},
		{name: "get by a key named history", method: "GET", path: "/v1/memories/by-key/history", op: "/v1/memories/by-key/{key}", key: bot, status: 200, want: map[string]string{"ETag": `"1"`}},
		{name: "get by key", method: "GET", path: "/v1/memories/by-key/seat-pref", op: "/v1/memories/by-key/{key}", key: bot, status: 200},
		{name: "get by key of another org", method: "GET", path: "/v1/memories/by-key/seat-pref", op: "/v1/memories/by-key/{key}", key: other, status: 404},
		// export and import: acme's export read into the other org
		{name: "export", method: "GET", path: "/v1/export", key: admin, status: 200, save: map[string]string{"dump": "body"}},
		{name: "export with a bad flag", method: "GET", path: "/v1/export?embeddings=maybe", op: "/v1/export", key: admin, status: 400},
		{name: "import", method: "POST", path: "/v1/import", key: other, body: "{dump}", headers: map[string]string{"Content-Type": "application/x-ndjson"}, status: 200},
		{name: "import a line that is not JSON", method: "POST", path: "/v1/import", key: other, body: "not json\n", headers: map[string]string{"Content-Type": "application/x-ndjson"}, status: 200},
		{name: "import with a read-only key", method: "POST", path: "/v1/import", key: "{roKey}", body: "{dump}", headers: map[string]string{"Content-Type": "application/x-ndjson"}, status: 403},
		// idempotency
		{name: "create with an idempotency key", method: "POST", path: "/v1/memories", key: admin, body: map[string]any{"content": map[string]any{"text": "the VPN needs a token"}}, headers: map[string]string{"Idempotency-Key": "k-1"}, status: 201},
		{name: "replay", method: "POST", path: "/v1/memories", key: admin, body: map[string]any{"content": map[string]any{"text": "the VPN needs a token"}}, headers: map[string]string{"Idempotency-Key": "k-1"}, status: 201, want: map[string]string{"Idempotent-Replayed": "true"}},
		{name: "the idempotency key reused", method: "POST", path: "/v1/memories", key: admin, body: map[string]any{"content": map[string]any{"text": "something else"}}, headers: map[string]string{"Idempotency-Key": "k-1"}, status: 422},
		// search and context
		{name: "search", method: "POST", path: "/v1/search", key: admin, body: map[string]any{"query": "window seats", "k": 5, "filters": map[string]any{"type": "fact"}}, status: 200},
		{name: "search keyword", method: "POST", path: "/v1/search", key: bot, body: map[string]any{"query": "tea", "mode": "keyword", "expandRelations": true}, status: 200},
		{name: "search without a query", method: "POST", path: "/v1/search", key: admin, body: map[string]any{"k": 5}, status: 400},
		{name: "context", method: "POST", path: "/v1/context", key: admin, body: map[string]any{"query": "seats", "roomId": "r1", "budgetTokens": 500}, status: 200},
		{name: "context with an unknown field", method: "POST", path: "/v1/context", key: admin, body: map[string]any{"question": "seats"}, status: 400},
		// messages and documents
		{name: "messages", method: "POST", path: "/v1/messages", key: admin, body: map[string]any{"messages": []any{map[string]any{"entityId": "ana", "roomId": "r2", "content": map[string]any{"text": "I moved to Lisbon in May"}}}}, status: 202},
		{name: "messages without a speaker", method: "POST", path: "/v1/messages", key: admin, body: map[string]any{"messages": []any{map[string]any{"content": map[string]any{"text": "hi"}}}}, status: 400},
		{name: "create document", method: "POST", path: "/v1/documents", key: admin, body: map[string]any{"name": "guides/setup.md", "content": "# Setup\n\nRun make to build the service."}, status: 201, save: map[string]string{"doc": "id"}},
		{name: "create document without a name", method: "POST", path: "/v1/documents", key: admin, body: map[string]any{"content": "x"}, status: 400},
		{name: "list documents", method: "GET", path: "/v1/documents", key: admin, status: 200},
		{name: "list documents with a bad limit", method: "GET", path: "/v1/documents?limit=many", op: "/v1/documents", key: admin, status: 400},
		{name: "get document", method: "GET", path: "/v1/documents/{doc}", op: "/v1/documents/{id}", key: admin, status: 200},
		{name: "get document of another org", method: "GET", path: "/v1/documents/{doc}", op: "/v1/documents/{id}", key: other, status: 404},
		// knowledge
		{name: "knowledge search", method: "POST", path: "/v1/knowledge/search", key: admin, body: map[string]any{"text": "where did Ana move?"}, status: 200},
		{name: "knowledge search by expression", method: "POST", path: "/v1/knowledge/search", key: admin, body: map[string]any{"query": map[string]any{"terms": []string{"ana"}}, "limit": 5}, status: 200},
		{name: "knowledge search with a string query", method: "POST", path: "/v1/knowledge/search", key: admin, body: map[string]any{"query": "ana"}, status: 400},
		{name: "entities", method: "GET", path: "/v1/knowledge/entities?limit=5", op: "/v1/knowledge/entities", key: admin, status: 200},
		{name: "entities with limit 0", method: "GET", path: "/v1/knowledge/entities?limit=0", op: "/v1/knowledge/entities", key: admin, status: 400},
		{name: "topics", method: "GET", path: "/v1/knowledge/topics", key: admin, status: 200},
		{name: "topics with an entity type", method: "GET", path: "/v1/knowledge/topics?type=person", op: "/v1/knowledge/topics", key: admin, status: 400},
		{name: "prefetch", method: "POST", path: "/v1/knowledge/prefetch", key: admin, body: map[string]any{"text": "where did Ana mo"}, status: 200},
		{name: "prefetch without text", method: "POST", path: "/v1/knowledge/prefetch", key: admin, body: map[string]any{"limit": 3}, status: 400},
		{name: "terms", method: "GET", path: "/v1/knowledge/terms?prefix=a&kinds=true", op: "/v1/knowledge/terms", key: admin, status: 200},
		{name: "knowledge status", method: "GET", path: "/v1/knowledge/status", key: admin, status: 200},
		{name: "knowledge status with an agent key", method: "GET", path: "/v1/knowledge/status", key: bot, status: 403},
		{name: "terms with a bad flag", method: "GET", path: "/v1/knowledge/terms?kinds=maybe", op: "/v1/knowledge/terms", key: admin, status: 400},
		// registry: entities, worlds, rooms and participants
		{name: "create entity", method: "POST", path: "/v1/entities", key: admin, body: map[string]any{"id": "user-1", "names": []string{"Ana"}, "metadata": map[string]any{"tz": "UTC"}}, status: 201, want: map[string]string{"Location": "/v1/entities/user-1", "ETag": `"1"`}},
		{name: "create entity without names", method: "POST", path: "/v1/entities", key: admin, body: map[string]any{"id": "user-2"}, status: 400},
		{name: "list entities", method: "GET", path: "/v1/entities?limit=10", op: "/v1/entities", key: admin, status: 200},
		{name: "list entities with limit 0", method: "GET", path: "/v1/entities?limit=0", op: "/v1/entities", key: admin, status: 400},
		{name: "get entity", method: "GET", path: "/v1/entities/user-1", op: "/v1/entities/{id}", key: admin, status: 200, save: map[string]string{"entTag": "ETag"}},
		{name: "get entity unchanged", method: "GET", path: "/v1/entities/user-1", op: "/v1/entities/{id}", key: admin, headers: map[string]string{"If-None-Match": "{entTag}"}, status: 304},
		{name: "get entity of another org", method: "GET", path: "/v1/entities/user-1", op: "/v1/entities/{id}", key: other, status: 404},
		{name: "patch entity", method: "PATCH", path: "/v1/entities/user-1", op: "/v1/entities/{id}", key: admin, body: map[string]any{"names": []string{"Ana L."}}, headers: map[string]string{"If-Match": "{entTag}"}, status: 200, want: map[string]string{"ETag": `"2"`}},
		{name: "patch entity at a stale version", method: "PATCH", path: "/v1/entities/user-1", op: "/v1/entities/{id}", key: admin, body: map[string]any{"names": []string{"Stale"}}, headers: map[string]string{"If-Match": "{entTag}"}, status: 412},
		{name: "patch an org entity with an agent key", method: "PATCH", path: "/v1/entities/user-1", op: "/v1/entities/{id}", key: bot, body: map[string]any{"names": []string{"Bot's"}}, status: 403},
		{name: "create world", method: "POST", path: "/v1/worlds", key: admin, body: map[string]any{"id": "guild-1", "name": "Guild", "serverId": "42"}, status: 201, want: map[string]string{"Location": "/v1/worlds/guild-1"}},
		{name: "create world with a taken id", method: "POST", path: "/v1/worlds", key: admin, body: map[string]any{"id": "guild-1"}, status: 409},
		{name: "list worlds", method: "GET", path: "/v1/worlds", key: admin, status: 200},
		{name: "list worlds with a bad parameter", method: "GET", path: "/v1/worlds?worldId=x", op: "/v1/worlds", key: admin, status: 400},
		{name: "get world", method: "GET", path: "/v1/worlds/guild-1", op: "/v1/worlds/{id}", key: bot, status: 200},
		{name: "get world of another org", method: "GET", path: "/v1/worlds/guild-1", op: "/v1/worlds/{id}", key: other, status: 404},
		{name: "patch world", method: "PATCH", path: "/v1/worlds/guild-1", op: "/v1/worlds/{id}", key: admin, body: map[string]any{"name": "The guild"}, status: 200},
		{name: "patch world with nothing", method: "PATCH", path: "/v1/worlds/guild-1", op: "/v1/worlds/{id}", key: admin, body: map[string]any{}, status: 400},
		{name: "create room", method: "POST", path: "/v1/rooms", key: bot, body: map[string]any{"id": "chan-1", "worldId": "guild-1", "source": "discord", "type": "GROUP", "participants": []string{"user-1"}}, status: 201, want: map[string]string{"Location": "/v1/rooms/chan-1"}},
		{name: "create room in an unknown world", method: "POST", path: "/v1/rooms", key: admin, body: map[string]any{"id": "chan-2", "worldId": "nowhere"}, status: 400},
		{name: "list rooms of a world", method: "GET", path: "/v1/rooms?worldId=guild-1", op: "/v1/rooms", key: admin, status: 200},
		{name: "list rooms with a bad cursor", method: "GET", path: "/v1/rooms?cursor=%01", op: "/v1/rooms", key: admin, status: 400},
		{name: "get room", method: "GET", path: "/v1/rooms/chan-1", op: "/v1/rooms/{id}", key: bot, status: 200},
		{name: "get room of another org", method: "GET", path: "/v1/rooms/chan-1", op: "/v1/rooms/{id}", key: other, status: 404},
		{name: "patch room", method: "PATCH", path: "/v1/rooms/chan-1", op: "/v1/rooms/{id}", key: bot, body: map[string]any{"name": "general"}, status: 200},
		{name: "patch room with participants", method: "PATCH", path: "/v1/rooms/chan-1", op: "/v1/rooms/{id}", key: bot, body: map[string]any{"participants": []string{"x"}}, status: 400},
		{name: "add participant", method: "POST", path: "/v1/rooms/chan-1/participants", op: "/v1/rooms/{id}/participants", key: bot, body: map[string]any{"entityId": "user-9"}, status: 200},
		{name: "add participant without an entity", method: "POST", path: "/v1/rooms/chan-1/participants", op: "/v1/rooms/{id}/participants", key: bot, body: map[string]any{}, status: 400},
		{name: "participants", method: "GET", path: "/v1/rooms/chan-1/participants", op: "/v1/rooms/{id}/participants", key: admin, status: 200},
		{name: "participants of another org's room", method: "GET", path: "/v1/rooms/chan-1/participants", op: "/v1/rooms/{id}/participants", key: other, status: 404},
		{name: "remove participant", method: "DELETE", path: "/v1/rooms/chan-1/participants/user-9", op: "/v1/rooms/{id}/participants/{entityId}", key: bot, status: 200},
		{name: "remove participant again", method: "DELETE", path: "/v1/rooms/chan-1/participants/user-9", op: "/v1/rooms/{id}/participants/{entityId}", key: bot, status: 404},
		{name: "delete a world with rooms", method: "DELETE", path: "/v1/worlds/guild-1", op: "/v1/worlds/{id}", key: admin, status: 409},
		{name: "delete room", method: "DELETE", path: "/v1/rooms/chan-1", op: "/v1/rooms/{id}", key: bot, status: 204},
		{name: "delete room again", method: "DELETE", path: "/v1/rooms/chan-1", op: "/v1/rooms/{id}", key: bot, status: 404},
		{name: "delete world", method: "DELETE", path: "/v1/worlds/guild-1", op: "/v1/worlds/{id}", key: admin, status: 204},
		{name: "delete world again", method: "DELETE", path: "/v1/worlds/guild-1", op: "/v1/worlds/{id}", key: admin, status: 404},
		{name: "delete entity with an agent key", method: "DELETE", path: "/v1/entities/user-1", op: "/v1/entities/{id}", key: bot, status: 403},
		{name: "delete entity", method: "DELETE", path: "/v1/entities/user-1", op: "/v1/entities/{id}", key: admin, status: 204},
		// admin
		{name: "no consolidation yet", method: "GET", path: "/v1/admin/consolidation", key: admin, status: 404},
		{name: "consolidate", method: "POST", path: "/v1/admin/consolidate", key: admin, status: 200},
		{name: "consolidate with an agent key", method: "POST", path: "/v1/admin/consolidate", key: bot, status: 403},
		{name: "last consolidation", method: "GET", path: "/v1/admin/consolidation", key: admin, status: 200},
		{name: "settings", method: "GET", path: "/v1/admin/settings/extraction", key: admin, status: 200},
		{name: "settings with an agent key", method: "GET", path: "/v1/admin/settings/extraction", key: bot, status: 403},
		{name: "put settings", method: "PUT", path: "/v1/admin/settings/extraction", key: admin, body: map[string]any{"dropKinds": []string{"interaction"}, "language": "en"}, status: 200},
		{name: "put settings with an unknown field", method: "PUT", path: "/v1/admin/settings/extraction", key: admin, body: map[string]any{"tone": "dry"}, status: 400},
		{name: "usage", method: "GET", path: "/v1/admin/usage", key: admin, status: 200},
		{name: "usage with an agent key", method: "GET", path: "/v1/admin/usage", key: bot, status: 403},
		// erasure and deletes
		{name: "forget", method: "POST", path: "/v1/forget", key: admin, body: map[string]any{"entity": "ana"}, status: 200},
		{name: "forget everything", method: "POST", path: "/v1/forget", key: admin, body: map[string]any{}, status: 400},
		{name: "audit", method: "GET", path: "/v1/admin/audit?limit=10", op: "/v1/admin/audit", key: admin, status: 200},
		{name: "audit with an agent key", method: "GET", path: "/v1/admin/audit", key: bot, status: 403},
		{name: "delete where", method: "DELETE", path: "/v1/memories?roomId=r1", op: "/v1/memories", key: admin, status: 200},
		{name: "delete another agent's", method: "DELETE", path: "/v1/memories?agentId=someone", op: "/v1/memories", key: bot, status: 403},
		{name: "create to delete", method: "POST", path: "/v1/memories", key: admin, body: map[string]any{"content": map[string]any{"text": "to be deleted"}}, status: 201, save: map[string]string{"gone": "id"}},
		{name: "delete", method: "DELETE", path: "/v1/memories/{gone}", op: "/v1/memories/{id}", key: admin, status: 204},
		{name: "delete again", method: "DELETE", path: "/v1/memories/{gone}", op: "/v1/memories/{id}", key: admin, status: 404},
		{name: "delete by key", method: "DELETE", path: "/v1/memories/by-key/seat-pref", op: "/v1/memories/by-key/{key}", key: bot, status: 204},
		{name: "delete by key again", method: "DELETE", path: "/v1/memories/by-key/seat-pref", op: "/v1/memories/by-key/{key}", key: bot, status: 404},
		{name: "delete document", method: "DELETE", path: "/v1/documents/{doc}", op: "/v1/documents/{id}", key: admin, status: 204},
		{name: "delete document again", method: "DELETE", path: "/v1/documents/{doc}", op: "/v1/documents/{id}", key: admin, status: 404},
		{name: "revoke key", method: "DELETE", path: "/v1/admin/keys/{roKeyID}", op: "/v1/admin/keys/{id}", key: admin, status: 200},
		{name: "revoke an unknown key", method: "DELETE", path: "/v1/admin/keys/key_nope", op: "/v1/admin/keys/{id}", key: admin, status: 404},
	}

	saved := map[string]string{}
	placeholder := regexp.MustCompile(`\{([A-Za-z]+)\}`)
	fill := func(s string) string {
		return placeholder.ReplaceAllStringFunc(s, func(m string) string {
			if v, ok := saved[m[1:len(m)-1]]; ok {
				return v
			}
			return m
		})
	}
	type cover struct{ ok, err bool }
	covered := map[string]*cover{}
	for _, c := range calls {
		var body io.Reader
		switch b := c.body.(type) {
		case nil:
		case string:
			body = strings.NewReader(fill(b))
		default:
			raw, _ := json.Marshal(b)
			body = bytes.NewReader(raw)
		}
		req := httptest.NewRequest(c.method, fill(c.path), body)
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+fill(c.key))
		}
		if c.body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range c.headers {
			req.Header.Set(k, fill(v))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		got, _ := io.ReadAll(res.Body)
		op := c.op
		if op == "" {
			op = c.path
		}
		opName := c.method + " " + op
		if res.StatusCode != c.status {
			t.Errorf("%s: %s answered %d, want %d: %.300s", c.name, opName, res.StatusCode, c.status, got)
			continue
		}
		ct := res.Header.Get("Content-Type")
		if res.StatusCode >= 400 {
			var p contract.Problem
			json.Unmarshal(got, &p)
			if k := contract.Kind(p.Code); k.Code != p.Code || k.Status != res.StatusCode {
				t.Errorf("%s: %s answered %d with code %q, which the error table maps to %d", c.name, opName, res.StatusCode, p.Code, k.Status)
			}
		}
		if err := spec.ValidateResponse(c.method, op, res.StatusCode, ct, got); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		for name, v := range c.want {
			if res.Header.Get(name) != v {
				t.Errorf("%s: %s answered %s %q, want %q", c.name, opName, name, res.Header.Get(name), v)
			}
		}
		if _, known := spec.Operation(c.method, op); known {
			if err := spec.ValidateHeaders(c.method, op, res.StatusCode, res.Header); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
		cv := covered[opName]
		if cv == nil {
			cv = &cover{}
			covered[opName] = cv
		}
		if res.StatusCode < 400 {
			cv.ok = true
		} else {
			cv.err = true
		}
		for name, field := range c.save {
			if field == "ETag" || field == "body" {
				saved[name] = res.Header.Get("ETag")
				if field == "body" {
					saved[name] = string(got)
				}
				if saved[name] == "" {
					t.Fatalf("%s: the answer has no %s to save", c.name, field)
				}
				continue
			}
			var v any
			json.Unmarshal(got, &v)
			for _, f := range strings.Split(field, ".") {
				m, _ := v.(map[string]any)
				v = m[f]
			}
			s, _ := v.(string)
			if s == "" {
				t.Fatalf("%s: the answer has no %s to save: %s", c.name, field, got)
			}
			saved[name] = s
		}
	}

	// The router's 405 (a method the path does not serve, including a
	// method beside a memory's views): a problem outside the error table,
	// documented as MethodNotAllowedProblem, with Allow.
	for _, m := range []struct{ method, path, allow string }{
		{"PUT", "/v1/memories", "GET, HEAD, POST, DELETE"},
		{"GET", "/v1/memories/" + saved["mem"] + "/archive", "POST"},
	} {
		req := httptest.NewRequest(m.method, m.path, nil)
		req.Header.Set("Authorization", "Bearer "+admin)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Content-Type") != contract.ProblemContentType {
			t.Errorf("%s %s: %d %s, want 405 %s", m.method, m.path, rec.Code, rec.Header().Get("Content-Type"), contract.ProblemContentType)
			continue
		}
		if err := spec.ValidateSchema("MethodNotAllowedProblem", rec.Body.Bytes()); err != nil {
			t.Errorf("%s %s: %v", m.method, m.path, err)
		}
		if !strings.Contains(rec.Header().Get("Allow"), strings.Split(m.allow, ",")[0]) {
			t.Errorf("%s %s: Allow %q, want %s", m.method, m.path, rec.Header().Get("Allow"), m.allow)
		}
	}

	// Coverage: every served operation has a validated success, and a
	// validated error when the spec documents one.
	var missing []string
	for _, r := range api.Routes() {
		name := r.Method + " " + r.Pattern
		o, _ := spec.Operation(r.Method, r.Pattern)
		documentsError := false
		for _, st := range o.Statuses {
			documentsError = documentsError || st >= "400"
		}
		cv := covered[name]
		switch {
		case cv == nil || !cv.ok:
			missing = append(missing, name+": no success response validated")
		case documentsError && !cv.err:
			missing = append(missing, name+": no error response validated")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("coverage: %s (add a call to this test)", m)
	}
}

// TestOpenAPIPublicPathsAreTheSameForEveryCaller: the document, the
// reference page and the explorer's static files need no key and answer
// every caller alike (org vs org, agent vs agent, no key, a wrong key), so
// they can carry nothing of a tenant; the only public routes are the
// health check and these. A route the table registers without a grant
// for another reason must be x-agentmem-any-key in the spec, refuse a
// request without a valid key, and tell each caller its own org and agent
// (TestOpenAPIAnyKeyRoutesAnswerEachCallerItsOwn).
func TestOpenAPIPublicPathsAreTheSameForEveryCaller(t *testing.T) {
	spec, err := contracttest.Load()
	if err != nil {
		t.Fatal(err)
	}
	api, h := deployment(t)
	public := map[string]bool{"GET /v1/healthz": true, "GET /v1/openapi.json": true, "GET /docs": true, "GET /docs/redoc.standalone.js": true,
		"GET /": true, "GET /ui": true, "GET /ui/": true}
	for _, r := range api.Routes() {
		name := r.Method + " " + r.Pattern
		if o, _ := spec.Operation(r.Method, r.Pattern); r.Grants == 0 && !public[name] && !o.AnyKey {
			t.Errorf("route %s needs no key: only the health check, the API reference and the explorer's files may be public", name)
		}
	}
	callers := []struct{ name, key string }{
		{"no key", ""}, {"org acme", adminKey}, {"agent bot of acme", botKey}, {"org other", otherKey}, {"an unknown key", "not-a-key-of-anyone-at-all"},
	}
	paths := []struct {
		path   string
		status int
	}{
		{"/v1/openapi.json", 200}, {"/docs", 200}, {"/docs/redoc.standalone.js", 200},
		{"/", 302}, {"/ui", 301}, {"/ui/", 200}, {"/ui/app.js", 200}, {"/ui/style.css", 200},
	}
	for _, p := range paths {
		var first []byte
		for _, c := range callers {
			req := httptest.NewRequest("GET", p.path, nil)
			if c.key != "" {
				req.Header.Set("Authorization", "Bearer "+c.key)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != p.status {
				t.Errorf("%s for %s: %d, want %d", p.path, c.name, rec.Code, p.status)
				continue
			}
			if first == nil {
				first = rec.Body.Bytes()
			} else if !bytes.Equal(first, rec.Body.Bytes()) {
				t.Errorf("%s answers %s differently from %s", p.path, c.name, callers[0].name)
			}
		}
		if p.path == "/v1/openapi.json" && !bytes.Equal(first, contract.OpenAPI) {
			t.Errorf("%s is not the embedded document (contract.OpenAPI)", p.path)
		}
	}
}

// TestOpenAPIAnyKeyRoutesAnswerEachCallerItsOwn: every operation marked
// x-agentmem-any-key (GET /v1/whoami) refuses no key and an unknown key
// (401), and answers each valid key its own org and agent: never another
// org's (org vs org), never another agent's (agent vs agent).
func TestOpenAPIAnyKeyRoutesAnswerEachCallerItsOwn(t *testing.T) {
	spec, err := contracttest.Load()
	if err != nil {
		t.Fatal(err)
	}
	_, h := deployment(t)
	callers := []struct {
		name, key, org, agent string
		status                int
	}{
		{"no key", "", "", "", 401},
		{"an unknown key", "not-a-key-of-anyone-at-all", "", "", 401},
		{"org acme", adminKey, "acme", "", 200},
		{"agent bot of acme", botKey, "acme", "bot", 200},
		{"org other", otherKey, "other", "", 200},
	}
	n := 0
	for _, o := range spec.Operations() {
		if !o.AnyKey {
			continue
		}
		n++
		if o.Method != "GET" || strings.Contains(o.Path, "{") {
			t.Errorf("%s: x-agentmem-any-key on an operation this test cannot call (it calls GETs without parameters)", o)
			continue
		}
		for _, c := range callers {
			req := httptest.NewRequest("GET", o.Path, nil)
			if c.key != "" {
				req.Header.Set("Authorization", "Bearer "+c.key)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Errorf("%s for %s: %d, want %d: %s", o, c.name, rec.Code, c.status, rec.Body)
				continue
			}
			if c.status != 200 {
				continue
			}
			var got struct{ OrgID, AgentID string }
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Errorf("%s for %s: %v", o, c.name, err)
			}
			if got.OrgID != c.org || got.AgentID != c.agent {
				t.Errorf("%s for %s: org %q agent %q, want org %q agent %q", o, c.name, got.OrgID, got.AgentID, c.org, c.agent)
			}
		}
	}
	if n == 0 {
		t.Fatal("no operation is x-agentmem-any-key: GET /v1/whoami should be")
	}
}

// TestDocsPageLoadsOnlyItsOwnFiles: every URL the reference page names
// (src, href, spec-url) is relative and, resolved against /docs, a route
// the server answers; its policy forbids anything from elsewhere.
func TestDocsPageLoadsOnlyItsOwnFiles(t *testing.T) {
	_, h := deployment(t)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/docs", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/docs: %d", rec.Code)
	}
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("/docs policy %q does not confine the page to its own origin", csp)
	}
	page := rec.Body.String()
	urls := regexp.MustCompile(`(?:src|spec-url|href)="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(urls) < 2 {
		t.Fatalf("found %d URLs in the page, want the script and the spec: %s", len(urls), page)
	}
	base, _ := neturl.Parse("http://memoryd.test/docs")
	for _, m := range urls {
		u, err := neturl.Parse(m[1])
		if err != nil || u.IsAbs() || strings.HasPrefix(m[1], "/") {
			t.Errorf("the page names %q: want a relative URL (it works under an API Gateway stage's prefix)", m[1])
			continue
		}
		target := base.ResolveReference(u)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target.Path, nil))
		if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
			t.Errorf("the page loads %q (%s), which answers %d", m[1], target.Path, rec.Code)
		}
	}
}
