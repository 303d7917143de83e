package httpapi_test

import (
	"strings"
	"testing"
)

// TestWhoami: every valid key learns its own binding and grants, and
// nothing without a key.
func TestWhoami(t *testing.T) {
	c := newClient(t, newServer(t))
	for _, tc := range []struct {
		name, key   string
		status      int
		org, agent  string
		admin       bool
		wantMessage string
	}{
		{name: "org a", key: keyA, status: 200, org: "org-a", admin: true},
		{name: "org b", key: keyB, status: 200, org: "org-b", admin: true},
		{name: "agent x", key: keyX, status: 200, org: "org-a", agent: "x"},
		{name: "agent y", key: keyY, status: 200, org: "org-a", agent: "y"},
		{name: "no key", status: 401, wantMessage: "Authorization"},
		{name: "unknown key", key: "key-unknown-0123456789", status: 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do("GET", "/v1/whoami", tc.key, nil)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Raw)
			}
			if tc.status != 200 {
				if !strings.Contains(errMessage(r), tc.wantMessage) {
					t.Fatalf("message %q does not name %q", errMessage(r), tc.wantMessage)
				}
				return
			}
			agent, _ := r.Body["agentId"].(string)
			if r.Body["orgId"] != tc.org || agent != tc.agent {
				t.Fatalf("bound to %v/%v, want %s/%s", r.Body["orgId"], agent, tc.org, tc.agent)
			}
			grants := r.Body["grants"].([]any)
			hasAdmin := false
			for _, g := range grants {
				hasAdmin = hasAdmin || g == "admin"
			}
			if hasAdmin != tc.admin || len(grants) < 3 {
				t.Fatalf("grants %v (admin %v, want %v)", grants, hasAdmin, tc.admin)
			}
			f := r.Body["features"].(map[string]any)
			for _, k := range []string{"documents", "messages", "knowledge", "consolidation"} {
				if f[k] != true {
					t.Fatalf("feature %s: %v", k, f[k])
				}
			}
		})
	}
}

// TestRelationsAndArchiveIsolation: a fact's relation to the turn it was
// extracted from is listed from both ends, to its org and agent only; an
// archive changes only what the key's scope holds.
func TestRelationsAndArchiveIsolation(t *testing.T) {
	s, queue := newServerQueue(t)
	c := newClient(t, s)
	post := func(key, room, text string) string {
		t.Helper()
		r := c.do("POST", "/v1/messages", key, map[string]any{"messages": []any{map[string]any{"roomId": room, "entityId": "priya", "content": map[string]any{"text": text}}}})
		if r.Status != 202 {
			t.Fatalf("messages: %d %s", r.Status, r.Raw)
		}
		return r.Body["memories"].([]any)[0].(map[string]any)["id"].(string)
	}
	msgX := post(keyX, "rx", "I moved to Lisbon last year")
	msgY := post(keyY, "ry", "I moved to Oslo last year")
	queue.Drain()
	factOf := func(key, msg string) string {
		t.Helper()
		r := c.do("GET", "/v1/memories?type=fact", key, nil)
		for _, m := range r.Body["memories"].([]any) {
			mm := m.(map[string]any)
			meta, _ := mm["metadata"].(map[string]any)
			srcs, _ := meta["sources"].([]any)
			for _, s := range srcs {
				if s == msg {
					return mm["id"].(string)
				}
			}
		}
		t.Fatalf("no fact extracted from %s: %s", msg, r.Raw)
		return ""
	}
	factX, factY := factOf(keyX, msgX), factOf(keyY, msgY)
	org := c.create(keyA, map[string]any{"type": "fact", "content": map[string]any{"text": "The office is closed on Fridays"}})

	for _, tc := range []struct {
		name, key, id string
		status        int
		other         string // the relation's other end, when 200
	}{
		{"fact from its turn", keyX, factX, 200, msgX},
		{"turn to its fact", keyX, msgX, 200, factX},
		{"org key sees the agent's", keyA, factY, 200, msgY},
		{"agent x, agent y's fact", keyX, factY, 404, ""},
		{"agent y, agent x's turn", keyY, msgX, 404, ""},
		{"org b, org a's fact", keyB, factX, 404, ""},
	} {
		t.Run("relations/"+tc.name, func(t *testing.T) {
			r := c.do("GET", "/v1/memories/"+tc.id+"/relations", tc.key, nil)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Raw)
			}
			if tc.status != 200 {
				return
			}
			found := false
			for _, x := range r.Body["relations"].([]any) {
				rel := x.(map[string]any)
				if rel["fromId"] == tc.other || rel["toId"] == tc.other {
					found = true
				}
			}
			if !found {
				t.Fatalf("no relation with %s: %s", tc.other, r.Raw)
			}
		})
	}

	for _, tc := range []struct {
		name, key, id string
		body          any
		status        int
		message       string
	}{
		{"org b, org a's memory", keyB, factX, map[string]any{}, 404, ""},
		{"agent y, agent x's fact", keyY, factX, map[string]any{}, 404, ""},
		{"agent x, an org-scope memory", keyX, org, map[string]any{}, 403, "org-level key"},
		{"unknown field", keyX, factX, map[string]any{"why": "x"}, 400, "why"},
		{"reason too long", keyX, factX, map[string]any{"reason": strings.Repeat("a", 501)}, 400, "reason"},
		{"agent x, its own fact", keyX, factX, map[string]any{"reason": "wrong"}, 200, ""},
		{"org key, org-scope memory", keyA, org, map[string]any{}, 200, ""},
	} {
		t.Run("archive/"+tc.name, func(t *testing.T) {
			r := c.do("POST", "/v1/memories/"+tc.id+"/archive", tc.key, tc.body)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Raw)
			}
			if tc.status != 200 {
				if !strings.Contains(errMessage(r), tc.message) {
					t.Fatalf("message %q does not name %q", errMessage(r), tc.message)
				}
				if g := c.do("GET", "/v1/memories/"+tc.id, keyA, nil); g.Body["archived"] != false {
					t.Fatalf("refused archive changed the memory: %s", g.Raw)
				}
				return
			}
			if r.Body["archived"] != true {
				t.Fatalf("not archived: %s", r.Raw)
			}
		})
	}
	// Archived: out of search, still readable by id.
	if r := c.do("POST", "/v1/search", keyX, map[string]any{"query": "Lisbon", "mode": "keyword"}); strings.Contains(r.Raw, factX) {
		t.Fatalf("archived fact still found: %s", r.Raw)
	}
	if r := c.do("GET", "/v1/memories/"+factX, keyX, nil); r.Status != 200 || !strings.Contains(r.Raw, "wrong") {
		t.Fatalf("archived fact by id: %d %s", r.Status, r.Raw)
	}
}

// TestUIServed: the explorer's files are served from the binary, under a
// policy that keeps the page to its own origin.
func TestUIServed(t *testing.T) {
	c := newClient(t, newServer(t))
	for _, tc := range []struct {
		path, contentType, contains string
		status                      int
	}{
		{"/ui/", "text/html", `src="app.js"`, 200},
		{"/ui/app.js", "javascript", "whoami", 200},
		{"/ui/style.css", "text/css", ":focus-visible", 200},
		{"/ui/icon.svg", "image/svg+xml", "<svg", 200},
		{"/ui/missing.js", "", "", 404},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := c.do("GET", tc.path, "", nil)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d", r.Status, tc.status)
			}
			if tc.status != 200 {
				return
			}
			if ct := r.Header.Get("Content-Type"); !strings.Contains(ct, tc.contentType) {
				t.Fatalf("content type %q", ct)
			}
			if !strings.Contains(r.Raw, tc.contains) {
				t.Fatalf("body lacks %q", tc.contains)
			}
			if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
				t.Fatalf("policy %q", csp)
			}
		})
	}
}
