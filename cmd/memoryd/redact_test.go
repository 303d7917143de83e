package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// raw sends one JSON request with key and returns the status and the
// answer's bytes, so a test can look for a string anywhere in it.
func raw(t *testing.T, url, method, path, key string, body any) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		js, _ := json.Marshal(body)
		rd = bytes.NewReader(js)
	}
	req, _ := http.NewRequest(method, url+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestPatchRedacts runs memoryd, posts a conversation in which a user
// pastes a PIN, waits until the PIN is found everywhere it is derived (the
// turn, the next turn's context, a fact, the knowledge, the history), then
// PATCHes the turn with redact: true and checks that no search mode, no
// context, no list, no history and no knowledge search finds the PIN any
// more, while the new text and the rest of the conversation are found.
func TestPatchRedacts(t *testing.T) {
	bin := buildMemoryd(t)
	const key = "redact-key-org-p-00000"
	env := append(os.Environ(), "DATA_DIR="+t.TempDir(), "EMBEDDER=hash", "CONSOLIDATE_EVERY=0", "RATE_LIMIT=0", "CONCURRENCY_LIMIT=0",
		"API_KEYS="+key+"=org-p")
	srv := start(t, bin, env)
	defer srv.stop(t)

	const pin = "4831"
	now := time.Now().UnixMilli()
	turns := []map[string]any{
		{"entityId": "Ana", "content": map[string]any{"text": "I just started learning guitar in Lisbon."}, "createdAt": now - 4000},
		{"entityId": "Ana", "content": map[string]any{"text": "My bank PIN is " + pin + ", please keep it safe."}, "createdAt": now - 3000},
		{"entityId": "assistant", "content": map[string]any{"text": "I will not repeat it. How are the guitar lessons going?"}, "createdAt": now - 2000},
		{"entityId": "Ana", "content": map[string]any{"text": "I love hiking in the mountains on weekends."}, "createdAt": now - 1000},
	}
	st, body := raw(t, srv.url, "POST", "/v1/messages", key, map[string]any{"roomId": "room-pin", "messages": turns})
	if st != 202 {
		t.Fatalf("messages: %d %s", st, body)
	}
	var posted struct {
		Memories []struct{ ID string } `json:"memories"`
	}
	json.Unmarshal([]byte(body), &posted)
	if len(posted.Memories) != 4 {
		t.Fatalf("messages: %s", body)
	}
	pinID := posted.Memories[1].ID

	// Every place the PIN reaches, and a query that finds it there.
	probes := []struct {
		name, method, path string
		body               any
	}{
		{"search keyword", "POST", "/v1/search", map[string]any{"query": "bank PIN " + pin, "mode": "keyword", "k": 100}},
		{"search semantic", "POST", "/v1/search", map[string]any{"query": "bank PIN " + pin, "mode": "semantic", "k": 100}},
		{"search hybrid", "POST", "/v1/search", map[string]any{"query": "bank PIN " + pin, "mode": "hybrid", "k": 100}},
		{"search full", "POST", "/v1/search", map[string]any{"query": "bank PIN " + pin, "mode": "full", "k": 100}},
		{"search knowledge", "POST", "/v1/search", map[string]any{"query": "bank PIN " + pin, "mode": "knowledge", "k": 100}},
		{"knowledge search", "POST", "/v1/knowledge/search", map[string]any{"text": "what is Ana's bank PIN " + pin + "?"}},
		{"context", "POST", "/v1/context", map[string]any{"query": "Ana's bank PIN " + pin, "roomId": "room-pin", "budgetTokens": 4000}},
		{"list", "GET", "/v1/memories?limit=100&includeArchived=true", nil},
		{"history of the turn", "GET", "/v1/memories/" + pinID + "/history", nil},
		{"export", "GET", "/v1/export", nil},
	}
	for _, id := range posted.Memories {
		probes = append(probes, struct {
			name, method, path string
			body               any
		}{"history of " + id.ID, "GET", "/v1/memories/" + id.ID + "/history", nil})
	}
	// found lists the probes whose answer holds s.
	found := func(s string) []string {
		var out []string
		for _, p := range probes {
			st, body := raw(t, srv.url, p.method, p.path, key, p.body)
			if st != 200 {
				t.Fatalf("%s: %d %s", p.name, st, body)
			}
			if strings.Contains(body, s) {
				out = append(out, p.name)
			}
		}
		return out
	}
	facts := func() string {
		_, body := raw(t, srv.url, "GET", "/v1/memories?type=fact&limit=100", key, nil)
		return body
	}
	// Before: the extraction wrote a fact with the PIN, and every search
	// mode finds it (so the checks after the PATCH are not vacuous).
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(facts(), pin) {
		if time.Now().After(deadline) {
			t.Fatalf("no fact holds the PIN after 30 s: %s", facts())
		}
		time.Sleep(100 * time.Millisecond)
	}
	before := found(pin)
	for _, want := range []string{"search keyword", "search full", "search hybrid", "context", "list", "history of the turn", "history of " + posted.Memories[2].ID} {
		if !contains(before, want) {
			t.Fatalf("before the PATCH, %q does not find the PIN (found by %v)", want, before)
		}
	}
	t.Logf("before the PATCH the PIN is found by %d probes: %v", len(before), before)

	const redacted = "My bank PIN is [redacted], please keep it safe."
	st, body = raw(t, srv.url, "PATCH", "/v1/memories/"+pinID, key, map[string]any{"content": map[string]any{"text": redacted}, "redact": true})
	if st != 200 {
		t.Fatalf("patch: %d %s", st, body)
	}
	// The patched turn's new text is extracted again; wait for that run
	// (its fact quotes "[redacted]") so nothing lands after the checks.
	deadline = time.Now().Add(30 * time.Second)
	for !strings.Contains(facts(), "[redacted]") {
		if time.Now().After(deadline) {
			t.Fatalf("the new text was not extracted again in 30 s: %s", facts())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if after := found(pin); len(after) > 0 {
		t.Fatalf("after the redacting PATCH the PIN is still found by %v", after)
	}
	if got := found("[redacted]"); !contains(got, "search keyword") || !contains(got, "context") {
		t.Fatalf("the new text is not found by keyword search and context: %v", got)
	}
	if got := found("guitar lessons"); !contains(got, "search keyword") {
		t.Fatalf("the rest of the conversation is lost: %v", got)
	}
	// The history keeps the new version only.
	_, body = raw(t, srv.url, "GET", "/v1/memories/"+pinID+"/history", key, nil)
	var hist struct {
		Versions []struct {
			Version int64
			Op      string
		} `json:"versions"`
	}
	json.Unmarshal([]byte(body), &hist)
	if len(hist.Versions) != 1 || hist.Versions[0].Op != "redact" {
		t.Fatalf("history after the redacting PATCH: %s", body)
	}
}
