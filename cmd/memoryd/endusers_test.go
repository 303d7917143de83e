package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/testenv"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEndUserIsolation is the end-user isolation suite: one org, one key,
// one agent serving two end users in two rooms, run against the real
// memoryd on the embedded backend (SQLite + bbolt) and on DynamoDB Local +
// OpenSearch. Acting as Alice's room, as Alice's userId and with Alice's
// token, every read path returns nothing of Bob's room- or user-visible
// content, nor anything derived from it (his facts, their knowledge).
func TestEndUserIsolation(t *testing.T) {
	const key = "enduser-key-org-0000"
	onBothBackends(t, "endusers", key, func(t *testing.T, c *apiClient) { endUserSuite(t, c, key) })
}

// onBothBackends builds memoryd and runs suite against it on the embedded
// backend (SQLite + bbolt) and on DynamoDB Local + OpenSearch, with one
// org key (key=acme) and the hashing embedder; name prefixes the
// DynamoDB table and the OpenSearch alias.
func onBothBackends(t *testing.T, name, key string, suite func(t *testing.T, c *apiClient)) {
	t.Helper()
	onBothBackendsKeys(t, name, key+"=acme", suite)
}

// onBothBackendsKeys is onBothBackends with the server's API_KEYS
// (key=org, comma-separated), for suites of several orgs.
func onBothBackendsKeys(t *testing.T, name, apiKeys string, suite func(t *testing.T, c *apiClient)) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	bin := filepath.Join(t.TempDir(), "memoryd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	backends := []struct {
		name string
		env  func(t *testing.T) []string
	}{
		{"sqlite+bolt", func(t *testing.T) []string { return []string{"DATA_DIR=" + t.TempDir()} }},
		{"dynamodb+opensearch", func(t *testing.T) []string {
			ddb, os := testenv.Get(t, "DYNAMODB_ENDPOINT"), testenv.Get(t, "OPENSEARCH_URL")
			stamp := time.Now().UnixNano()
			return []string{"BACKEND=aws", "DYNAMODB_ENDPOINT=" + ddb, "DYNAMODB_CREATE_TABLE=true",
				fmt.Sprintf("DYNAMODB_TABLE=%s-%d", name, stamp), "INDEX=opensearch", "OPENSEARCH_URL=" + os,
				fmt.Sprintf("OPENSEARCH_ALIAS=%s-%d", name, stamp), "DATA_DIR=" + t.TempDir(),
				"AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_REGION=us-east-1"}
		}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			env := append(os.Environ(), append(b.env(t), "API_KEYS="+apiKeys, "EMBEDDER=hash")...)
			srv := start(t, bin, env)
			defer srv.stop(t)
			suite(t, &apiClient{t: t, url: srv.url})
		})
	}
}

// apiClient calls a running memoryd.
type apiClient struct {
	t   *testing.T
	url string
}

func (c *apiClient) do(method, path, key string, body any, header ...string) (int, string) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		js, _ := json.Marshal(body)
		rd = bytes.NewReader(js)
	}
	req, _ := http.NewRequest(method, c.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

// must calls and fails the test on any status but want.
func (c *apiClient) must(want int, method, path, key string, body any) map[string]any {
	c.t.Helper()
	st, raw := c.do(method, path, key, body)
	if st != want {
		c.t.Fatalf("%s %s: %d, want %d: %s", method, path, st, want, raw)
	}
	var out map[string]any
	json.Unmarshal([]byte(raw), &out)
	return out
}

// Bob's secrets: words that occur in nothing Alice may see.
var bobSecrets = []string{"peanut", "elm street", "springfield"}

func leaks(raw string) []string {
	var found []string
	low := strings.ToLower(raw)
	for _, s := range bobSecrets {
		if strings.Contains(low, s) {
			found = append(found, s)
		}
	}
	return found
}

func endUserSuite(t *testing.T, c *apiClient, key string) {
	// The registry: one world with Alice's and Bob's rooms, and Bob's second room.
	c.must(201, "POST", "/v1/worlds", key, map[string]any{"id": "w-home", "name": "Home"})
	for _, r := range []map[string]any{
		{"id": "room-alice", "worldId": "w-home", "participants": []string{"alice"}},
		{"id": "room-bob", "worldId": "w-home", "participants": []string{"bob"}},
		{"id": "room-bob-2", "participants": []string{"bob"}},
	} {
		c.must(201, "POST", "/v1/rooms", key, r)
	}
	// The conversations, through the messages endpoint in OpenAI's shape.
	c.must(202, "POST", "/v1/messages", key, map[string]any{"roomId": "room-bob", "userId": "bob", "messages": []map[string]any{
		{"role": "user", "name": "Bob", "content": "I am allergic to peanuts and I live at 12 Elm Street, Springfield."},
	}})
	c.must(202, "POST", "/v1/messages", key, map[string]any{"roomId": "room-alice", "userId": "alice", "messages": []map[string]any{
		{"role": "user", "name": "Alice", "content": "I love hiking in the Alps."},
	}})
	// A room both users take part in: Bob says something only he may read,
	// and Alice's reply, which the room reads, must not carry it as the
	// turn it replies to (its context).
	c.must(201, "POST", "/v1/rooms", key, map[string]any{"id": "room-both", "worldId": "w-home", "participants": []string{"alice", "bob"}})
	for _, m := range []map[string]any{
		{"entityId": "host", "content": map[string]any{"text": "Welcome to the planning room, both of you."}, "createdAt": 1_700_000_000_000},
		{"entityId": "bob", "userId": "bob", "visibility": "user", "content": map[string]any{"text": "Between us: the spare key is under the peanut jar at 12 Elm Street."}, "createdAt": 1_700_000_001_000},
		{"entityId": "alice", "userId": "alice", "content": map[string]any{"text": "Sounds good, see you there!"}, "createdAt": 1_700_000_002_000},
	} {
		c.must(201, "POST", "/v1/memories", key, merge(map[string]any{"type": "message", "roomId": "room-both", "worldId": "w-home"}, m))
	}
	// Shared and world memories, written by the org key.
	shared := c.must(201, "POST", "/v1/memories", key, map[string]any{"type": "fact", "scope": "shared",
		"content": map[string]any{"text": "The support line opens at nine on weekdays."}})["id"].(string)
	world := c.must(201, "POST", "/v1/memories", key, map[string]any{"type": "fact", "visibility": "world", "worldId": "w-home",
		"content": map[string]any{"text": "The home world's quiet hours start at ten."}})["id"].(string)

	// Wait for Bob's facts: extraction runs in the background.
	var bobFacts []string
	deadline := time.Now().Add(60 * time.Second)
	for len(bobFacts) == 0 && time.Now().Before(deadline) {
		out := c.must(200, "GET", "/v1/memories?type=fact&userId=bob&roomId=room-bob", key, nil)
		for _, m := range out["memories"].([]any) {
			mm := m.(map[string]any)
			if mm["userId"] == "bob" {
				bobFacts = append(bobFacts, mm["id"].(string))
			}
		}
		if len(bobFacts) == 0 {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if len(bobFacts) == 0 {
		t.Fatal("no fact was extracted from Bob's message within 60 s")
	}

	// Alice's token, bound to her user and room.
	tok := c.must(201, "POST", "/v1/tokens", key, map[string]any{"userId": "alice", "roomId": "room-alice", "ttlSeconds": 300})["token"].(string)

	q := url.QueryEscape
	type reader struct {
		name, key string
		body      map[string]any // the acting fields, added to every body
		qs        string         // the acting fields as query parameters
	}
	readers := []reader{
		{"as Alice's room", key, map[string]any{"roomId": "room-alice"}, "roomId=room-alice"},
		{"as Alice's userId", key, map[string]any{"userId": "alice"}, "userId=alice"},
		{"with Alice's token", tok, map[string]any{}, ""},
	}
	question := "What am I allergic to, and where do I live? peanuts Elm Street Springfield"
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			filters := func() map[string]any { return rd.body }
			paths := []struct {
				name, method, path string
				body               any
			}{
				{"context", "POST", "/v1/context", merge(map[string]any{"query": question, "budgetTokens": 2000}, rd.body)},
				{"knowledge search (text)", "POST", "/v1/knowledge/search", map[string]any{"text": "Who lives in Springfield?", "filters": filters()}},
				{"knowledge search (terms)", "POST", "/v1/knowledge/search", map[string]any{"query": map[string]any{"terms": []string{"peanut", "springfield"}}, "filters": filters()}},
				{"knowledge prefetch", "POST", "/v1/knowledge/prefetch", map[string]any{"text": "where does bob live in spring", "filters": filters()}},
				{"knowledge prefetch (pea)", "POST", "/v1/knowledge/prefetch", map[string]any{"text": "allergic to pea", "filters": filters()}},
				{"knowledge entities", "GET", "/v1/knowledge/entities?limit=1000&" + rd.qs, nil},
				{"knowledge topics", "GET", "/v1/knowledge/topics?limit=1000&" + rd.qs, nil},
				{"knowledge terms", "GET", "/v1/knowledge/terms?prefix=" + q("spr") + "&" + rd.qs, nil},
				{"knowledge terms (pea)", "GET", "/v1/knowledge/terms?prefix=pea&" + rd.qs, nil},
				{"list", "GET", "/v1/memories?limit=1000&" + rd.qs, nil},
				{"list facts", "GET", "/v1/memories?type=fact&" + rd.qs, nil},
				{"export", "GET", "/v1/export?" + rd.qs, nil},
			}
			for _, mode := range []string{"full", "hybrid", "keyword", "semantic", "knowledge"} {
				paths = append(paths, struct {
					name, method, path string
					body               any
				}{"search " + mode, "POST", "/v1/search", map[string]any{"query": question, "mode": mode, "k": 100, "filters": filters()}})
			}
			for _, p := range paths {
				st, raw := c.do(p.method, p.path, rd.key, p.body)
				if st != 200 {
					t.Errorf("%s: %d %s", p.name, st, raw)
					continue
				}
				if strings.HasPrefix(p.path, "/v1/knowledge/search") {
					raw = withoutExpression(raw) // it repeats the question's own words
				}
				if l := leaks(raw); len(l) > 0 {
					t.Errorf("%s leaks %v of Bob's: %s", p.name, l, clip(raw))
				}
				for _, id := range bobFacts {
					if strings.Contains(raw, id) {
						t.Errorf("%s returns Bob's fact %s", p.name, id)
					}
				}
			}
			// The MCP tools, through the SDK's own client.
			sess := mcpSession(t, c.url, rd.key)
			for _, call := range []struct {
				tool string
				args map[string]any
			}{
				{"recall", merge(map[string]any{"query": question, "k": 100}, rd.body)},
				{"recall", merge(map[string]any{"query": question, "k": 100, "mode": "keyword"}, rd.body)},
				{"get_context", merge(map[string]any{"query": question, "budgetTokens": 4000}, rd.body)},
				{"knowledge_search", merge(map[string]any{"text": "Who lives in Springfield?"}, rd.body)},
				{"list", merge(map[string]any{"limit": 1000}, rd.body)},
			} {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: call.tool, Arguments: call.args})
				cancel()
				if err != nil || res.IsError {
					t.Errorf("mcp %s: %v %+v", call.tool, err, res)
					continue
				}
				structured := res.StructuredContent
				if m, ok := structured.(map[string]any); ok {
					delete(m, "expression")
				}
				b, _ := json.Marshal(structured)
				if l := leaks(string(b)); len(l) > 0 {
					t.Errorf("mcp %s leaks %v of Bob's: %s", call.tool, l, clip(string(b)))
				}
				for _, id := range bobFacts {
					if strings.Contains(string(b), id) {
						t.Errorf("mcp %s returns Bob's fact %s", call.tool, id)
					}
				}
			}
			st, raw := c.do("GET", "/v1/memories/count?"+rd.qs, rd.key, nil)
			var cnt struct{ Count int }
			json.Unmarshal([]byte(raw), &cnt)
			st2, raw2 := c.do("GET", "/v1/memories?limit=1000&"+rd.qs, rd.key, nil)
			var page struct{ Memories []map[string]any }
			json.Unmarshal([]byte(raw2), &page)
			if st != 200 || st2 != 200 || cnt.Count != len(page.Memories) {
				t.Errorf("count %d (%d) and list %d (%d) disagree", cnt.Count, st, len(page.Memories), st2)
			}
			// What Alice does see: the shared memory and the world's (she
			// is in a room of the world), in the context built for her.
			out := c.must(200, "POST", "/v1/context", rd.key, merge(map[string]any{
				"query": "When does the support line open, and when do the quiet hours start?"}, rd.body))
			ctxRaw, _ := json.Marshal(out)
			if !strings.Contains(string(ctxRaw), shared) {
				t.Errorf("the shared memory is not in the context: %s", clip(string(ctxRaw)))
			}
			if !strings.Contains(string(ctxRaw), world) {
				t.Errorf("the world memory is not in the context of a room of its world: %s", clip(string(ctxRaw)))
			}
		})
	}

	t.Run("tokens cannot widen", func(t *testing.T) {
		for _, p := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/v1/search", map[string]any{"query": "peanuts", "filters": map[string]any{"userId": "bob"}}},
			{"POST", "/v1/search", map[string]any{"query": "peanuts", "filters": map[string]any{"roomId": "room-bob"}}},
			{"POST", "/v1/context", map[string]any{"query": "peanuts", "roomId": "room-bob"}},
			{"GET", "/v1/memories?userId=bob", nil},
			{"GET", "/v1/knowledge/entities?roomId=room-bob", nil},
			{"GET", "/v1/knowledge/status", nil}, // a count over the whole org
		} {
			if st, raw := c.do(p.method, p.path, tok, p.body); st != 403 {
				t.Errorf("%s %s with Alice's token: %d, want 403: %s", p.method, p.path, st, clip(raw))
			}
		}
		// Bob's fact by id: not found, whatever the method, even with a
		// token that may write and delete.
		rw := c.must(201, "POST", "/v1/tokens", key, map[string]any{"userId": "alice", "roomId": "room-alice",
			"grants": []string{"read", "write", "delete"}})["token"].(string)
		for _, p := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/v1/memories/" + bobFacts[0], nil},
			{"GET", "/v1/memories/" + bobFacts[0] + "/history", nil},
			{"GET", "/v1/memories/" + bobFacts[0] + "/relations", nil},
			{"PATCH", "/v1/memories/" + bobFacts[0], map[string]any{"content": map[string]any{"text": "Bob likes peanuts now"}}},
			{"DELETE", "/v1/memories/" + bobFacts[0], nil},
		} {
			if st, raw := c.do(p.method, p.path, rw, p.body); st != 404 {
				t.Errorf("%s %s with Alice's token: %d, want 404: %s", p.method, p.path, st, clip(raw))
			}
		}
		if st, _ := c.do("GET", "/v1/memories", tok[:len(tok)-2]+"xx", nil); st != 401 {
			t.Errorf("tampered token: %d, want 401", st)
		}
		// An Idempotency-Key is each token's own: Bob's context, asked
		// first, is never replayed to Alice's token sending the same key
		// and body (clients that derive keys from the body do).
		bob := c.must(201, "POST", "/v1/tokens", key, map[string]any{"userId": "bob", "roomId": "room-bob", "ttlSeconds": 300})["token"].(string)
		ask := map[string]any{"query": question, "budgetTokens": 2000}
		idem := []string{"Idempotency-Key", "sha256-of-the-body"}
		if st, raw := c.do("POST", "/v1/context", bob, ask, idem...); st != 200 || len(leaks(raw)) == 0 {
			t.Errorf("Bob's own context: %d, holds %v of his: %s", st, leaks(raw), clip(raw))
		}
		if st, raw := c.do("POST", "/v1/context", tok, ask, idem...); st != 200 || len(leaks(raw)) > 0 {
			t.Errorf("Alice's context with Bob's Idempotency-Key: %d, leaks %v: %s", st, leaks(raw), clip(raw))
		}
	})

	t.Run("scoped content reaches the right readers", func(t *testing.T) {
		// Bob's facts follow Bob into his second room, outside the world.
		out := c.must(200, "POST", "/v1/context", key, map[string]any{"query": "What is Bob allergic to, and where does he live?",
			"userId": "bob", "roomId": "room-bob-2"})
		if raw, _ := json.Marshal(out); !strings.Contains(string(raw), bobFacts[0]) {
			t.Errorf("Bob's fact is not in his context in his second room: %s", clip(string(raw)))
		}
		// The world memory is not visible in a room outside the world.
		out = c.must(200, "GET", "/v1/memories?roomId=room-bob-2", key, nil)
		if got := listIDs(anyMaps(out["memories"])); contains(got, world) {
			t.Errorf("the world memory is visible in a room outside its world")
		}
		// Alice's reply in the room both use reads with the room's turn
		// before Bob's own (the leak checks above read it without his).
		out = c.must(200, "GET", "/v1/memories?type=message&userId=alice&roomId=room-both", key, nil)
		var reply map[string]any
		for _, m := range anyMaps(out["memories"]) {
			if m["entityId"] == "alice" {
				reply = m
			}
		}
		if reply == nil || reply["context"] != "host: Welcome to the planning room, both of you." {
			t.Errorf("Alice's reply in the shared room: %v, want the host's welcome as its context", reply)
		}
		// The shared memory is visible to both users.
		for _, u := range []string{"alice", "bob"} {
			out = c.must(200, "GET", "/v1/memories?userId="+u, key, nil)
			if got := listIDs(anyMaps(out["memories"])); !contains(got, shared) {
				t.Errorf("the shared memory is not visible to %s", u)
			}
		}
		// The admin view (the org key naming nobody) sees Bob's facts.
		out = c.must(200, "GET", "/v1/memories?type=fact", key, nil)
		if got := listIDs(anyMaps(out["memories"])); !contains(got, bobFacts[0]) {
			t.Errorf("the admin view misses Bob's fact")
		}
	})
}

// withoutExpression drops a knowledge search answer's expression.
func withoutExpression(raw string) string {
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) != nil {
		return raw
	}
	delete(m, "expression")
	b, _ := json.Marshal(m)
	return string(b)
}

// mcpSession connects the MCP SDK's client to memoryd's /mcp with key.
func mcpSession(t *testing.T, base, key string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "endusers", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: bearerKey(key)}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("mcp connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// bearerKey adds a key to the MCP client's requests.
type bearerKey string

func (k bearerKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(k))
	return http.DefaultTransport.RoundTrip(r)
}

func merge(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func anyMaps(v any) []map[string]any {
	var out []map[string]any
	for _, x := range v.([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func listIDs(ms []map[string]any) []string {
	var ids []string
	for _, m := range ms {
		ids = append(ids, m["id"].(string))
	}
	return ids
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}
