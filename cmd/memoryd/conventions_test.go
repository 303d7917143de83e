package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestHTTPConventions runs the real memoryd and checks the HTTP
// conventions over the wire: RFC 9457 problems, Location on a 201,
// If-None-Match (create-only and 304), a stale If-Match (412), the
// client's key (PUT by key) and Idempotency-Key replays, kept across a
// restart and never crossing orgs.
func TestHTTPConventions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	bin := filepath.Join(t.TempDir(), "memoryd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	keys := map[string]string{"a": "conv-key-org-a-00000", "b": "conv-key-org-b-00000"}
	env := append(os.Environ(), "DATA_DIR="+t.TempDir(), "API_KEYS="+fmt.Sprintf("%s=org-a,%s=org-b", keys["a"], keys["b"]))
	srv := start(t, bin, env)
	defer func() { srv.stop(t) }()
	type reply struct {
		status int
		header http.Header
		body   map[string]any
		raw    string
	}
	call := func(method, path, who string, body any, headers ...string) reply {
		t.Helper()
		var rd io.Reader
		if body != nil {
			js, _ := json.Marshal(body)
			rd = bytes.NewReader(js)
		}
		req, _ := http.NewRequest(method, srv.url+path, rd)
		req.Header.Set("Authorization", "Bearer "+keys[who])
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		out := reply{status: res.StatusCode, header: res.Header, raw: string(raw)}
		json.Unmarshal(raw, &out.body)
		return out
	}
	memo := map[string]any{"content": map[string]any{"text": "The quarterly review moved to Thursday"}}

	// Location, and a problem for create-only over an existing memory.
	r := call("POST", "/v1/memories", "a", memo, "Idempotency-Key", "create-1")
	if r.status != 201 || r.header.Get("Location") != "/v1/memories/"+r.body["id"].(string) {
		t.Fatalf("create: %d %v %s", r.status, r.header, r.raw)
	}
	id := r.body["id"].(string)
	r = call("POST", "/v1/memories", "a", memo, "If-None-Match", "*")
	if r.status != 412 || r.header.Get("Content-Type") != "application/problem+json" || r.body["code"] != "precondition_failed" ||
		r.body["type"] != "urn:agentmem:problem:precondition_failed" || r.body["status"] != 412.0 || r.body["instance"] != "/v1/memories" ||
		r.body["requestId"] != r.header.Get("X-Request-Id") || r.body["detail"] == "" || r.body["title"] == "" {
		t.Fatalf("create-only: %d %v %s", r.status, r.header, r.raw)
	}
	// 304 with the current ETag, 412 for a stale If-Match.
	r = call("GET", "/v1/memories/"+id, "a", nil)
	tag := r.header.Get("ETag")
	if r.status != 200 || tag != `"1"` {
		t.Fatalf("get: %d %q", r.status, tag)
	}
	if r = call("GET", "/v1/memories/"+id, "a", nil, "If-None-Match", tag); r.status != 304 || r.raw != "" {
		t.Fatalf("If-None-Match: %d %q", r.status, r.raw)
	}
	if r = call("PATCH", "/v1/memories/"+id, "a", map[string]any{"importance": 0.8}, "If-Match", tag); r.status != 200 || r.header.Get("ETag") != `"2"` {
		t.Fatalf("patch: %d %s", r.status, r.raw)
	}
	if r = call("PATCH", "/v1/memories/"+id, "a", map[string]any{"importance": 0.1}, "If-Match", tag); r.status != 412 || r.body["code"] != "precondition_failed" {
		t.Fatalf("stale patch: %d %s", r.status, r.raw)
	}
	if r = call("DELETE", "/v1/memories/"+id, "a", nil, "If-Match", tag); r.status != 412 {
		t.Fatalf("stale delete: %d %s", r.status, r.raw)
	}
	// PUT by the client's key: created, then replaced.
	r = call("PUT", "/v1/memories/by-key/crm-7", "a", map[string]any{"content": map[string]any{"text": "Account owner is Dana"}})
	if r.status != 201 || r.header.Get("Location") != "/v1/memories/"+r.body["id"].(string) {
		t.Fatalf("put by key: %d %v %s", r.status, r.header, r.raw)
	}
	keyed := r.body["id"].(string)
	if r = call("PUT", "/v1/memories/by-key/crm-7", "a", map[string]any{"content": map[string]any{"text": "Account owner is Sam"}}, "If-Match", `"1"`); r.status != 200 || r.body["id"] != keyed || r.body["version"] != 2.0 {
		t.Fatalf("replace by key: %d %s", r.status, r.raw)
	}
	if r = call("PUT", "/v1/memories/by-key/crm-7", "a", map[string]any{"content": map[string]any{"text": "x"}}, "If-None-Match", "*"); r.status != 412 {
		t.Fatalf("create-only by key: %d %s", r.status, r.raw)
	}
	if r = call("GET", "/v1/memories/by-key/crm-7", "b", nil); r.status != 404 {
		t.Fatalf("org b reads org a's key: %d %s", r.status, r.raw)
	}

	// The Idempotency-Key replays after a restart, to its org only.
	srv.stop(t)
	srv = start(t, bin, env)
	r = call("POST", "/v1/memories", "a", memo, "Idempotency-Key", "create-1")
	if r.status != 201 || r.header.Get("Idempotent-Replayed") != "true" || r.body["id"] != id || r.header.Get("Location") != "/v1/memories/"+id {
		t.Fatalf("replay: %d %v %s", r.status, r.header, r.raw)
	}
	if r = call("POST", "/v1/memories", "a", map[string]any{"content": map[string]any{"text": "other"}}, "Idempotency-Key", "create-1"); r.status != 422 || r.body["code"] != "unprocessable" {
		t.Fatalf("reused key: %d %s", r.status, r.raw)
	}
	r = call("POST", "/v1/memories", "b", memo, "Idempotency-Key", "create-1")
	if r.status != 201 || r.header.Get("Idempotent-Replayed") != "" || r.body["id"] == id {
		t.Fatalf("org b with org a's key: %d %v %s", r.status, r.header, r.raw)
	}
	if r = call("GET", "/v1/memories/count", "a", nil); r.body["count"] != 2.0 {
		t.Fatalf("org a holds %v memories, want 2", r.body["count"])
	}
}
