package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// TestAgentKeyChangesOrgMemoriesOnlyWithWriteOrg: PATCH and PUT by key of
// an org-scope memory by an agent-bound key answer 403 without write:org
// and 200 with it; the memory is unchanged after a 403.
func TestAgentKeyChangesOrgMemoriesOnlyWithWriteOrg(t *testing.T) {
	srv, _ := newKeyedServer(t, memory.OrgUsage{})
	c := newClient(t, srv)
	plain, _ := c.newKey(keyA, map[string]any{"agentId": "x", "grants": []string{"read", "write"}})
	writeOrg, _ := c.newKey(keyA, map[string]any{"agentId": "x", "grants": []string{"read", "write:org"}})
	for _, tc := range []struct {
		name, key string
		status    int
	}{
		{"without write:org", plain, 403},
		{"with write:org", writeOrg, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ext := "policy-" + strings.ReplaceAll(tc.name, " ", "-")
			id := c.create(keyA, map[string]any{"scope": "org", "externalId": ext, "content": map[string]any{"text": "Refunds within 30 days."}})
			r := c.do("PATCH", "/v1/memories/"+id, tc.key, map[string]any{"content": map[string]any{"text": "Refunds never allowed."}})
			if r.Status != tc.status {
				t.Fatalf("PATCH: %d %s, want %d", r.Status, r.Raw, tc.status)
			}
			if tc.status == 403 && !strings.Contains(errMessage(r), "write:org") {
				t.Fatalf("PATCH 403 does not name write:org: %s", r.Raw)
			}
			r = c.do("PUT", "/v1/memories/by-key/"+ext, tc.key, map[string]any{"scope": "org", "content": map[string]any{"text": "Refunds on Mondays only."}})
			if r.Status != tc.status {
				t.Fatalf("PUT by key: %d %s, want %d", r.Status, r.Raw, tc.status)
			}
			got := c.do("GET", "/v1/memories/"+id, keyA, nil)
			text := got.Body["content"].(map[string]any)["text"]
			if tc.status == 403 && text != "Refunds within 30 days." || tc.status == 200 && text != "Refunds on Mondays only." {
				t.Fatalf("org memory text %q after %s", text, tc.name)
			}
		})
	}
}

// TestHardenedInput: each new bad input answers a 400 naming its field,
// and a refused document leaves no record.
func TestHardenedInput(t *testing.T) {
	c := newClient(t, newServer(t))
	id := c.create(keyA, map[string]any{"content": map[string]any{"text": "exists"}})
	for _, tc := range []struct {
		name, method, path string
		body               string
		field              string
	}{
		{"NUL only", "POST", "/v1/memories", `{"content":{"text":"\u0000\u0000"}}`, "content.text"},
		{"zero-width only", "POST", "/v1/memories", `{"content":{"text":"\u200b\u200c\u200d\ufeff"}}`, "content.text"},
		{"format and space", "POST", "/v1/memories", `{"content":{"text":" \u2060\u00ad \u3164 "}}`, "content.text"},
		{"patch to blank", "PATCH", "/v1/memories/" + id, `{"content":{"text":"\u200b"}}`, "content.text"},
		{"createdAt int64 max", "POST", "/v1/memories", `{"content":{"text":"a"},"createdAt":9223372036854775807}`, "createdAt"},
		{"createdAt past year 9999", "POST", "/v1/memories", fmt.Sprintf(`{"content":{"text":"a"},"createdAt":%d}`, memory.MaxTime+1), "createdAt"},
		{"createdAt negative", "POST", "/v1/memories", `{"content":{"text":"a"},"createdAt":-5}`, "createdAt"},
		{"document name with a control character", "POST", "/v1/documents", `{"name":"a\u0001b.txt","content":"hello"}`, "name"},
		{"document name with a zero-width character", "POST", "/v1/documents", `{"name":"a\u200bb.txt","content":"hello"}`, "name"},
		{"document name with a newline", "POST", "/v1/documents", `{"name":"a\nb.txt","content":"hello"}`, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do(tc.method, tc.path, keyA, tc.body)
			if r.Status != 400 || !strings.HasPrefix(errMessage(r), tc.field+":") {
				t.Fatalf("%d %s, want 400 naming %s", r.Status, r.Raw, tc.field)
			}
		})
	}
	r := c.do("GET", "/v1/documents", keyA, nil)
	if docs, _ := r.Body["documents"].([]any); r.Status != 200 || len(docs) != 0 {
		t.Fatalf("refused documents left records: %d %s", r.Status, r.Raw)
	}
	for _, ok := range []string{`{"content":{"text":"a"},"createdAt":253402300799999}`, `{"content":{"text":"x\u200by"}}`} {
		if r := c.do("POST", "/v1/memories", keyA, ok); r.Status != 201 {
			t.Fatalf("%s: %d %s, want 201", ok, r.Status, r.Raw)
		}
	}
}

// newLimitedServer is the API with static keyA (org-a), keyB (org-b) and
// keyX (org-a's agent x), the store's keys, and opts.
func newLimitedServer(t *testing.T, opts ...httpapi.Option) *httpapi.Server {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(128), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	static, err := auth.ParseKeys(fmt.Sprintf("%s=org-a,%s=org-b,%s=org-a/x", keyA, keyB, keyX))
	if err != nil {
		t.Fatal(err)
	}
	return httpapi.New(b.Service, auth.Chain{static, auth.StoreKeys{Store: b.Store}}, log, append([]httpapi.Option{httpapi.WithKeys(b.Store)}, opts...)...)
}

// TestKeysPerOrgCapped: past WithMaxKeys active keys an org's admin gets
// 403 quota_exceeded; revoking one makes room; another org has its own
// count.
func TestKeysPerOrgCapped(t *testing.T) {
	c := newClient(t, newLimitedServer(t, httpapi.WithMaxKeys(3)))
	mk := func(admin string) response {
		return c.do("POST", "/v1/admin/keys", admin, map[string]any{"agentId": "x", "grants": []string{"read"}})
	}
	var first string
	for i, tc := range []struct {
		admin  string
		revoke bool // revoke the first key before this step
		status int
	}{
		{keyA, false, 201}, {keyA, false, 201}, {keyA, false, 201},
		{keyA, false, 403},
		{keyB, false, 201},
		{keyA, true, 201},
		{keyA, false, 403},
	} {
		if tc.revoke {
			if r := c.do("DELETE", "/v1/admin/keys/"+first, keyA, nil); r.Status != 200 {
				t.Fatalf("revoke: %d %s", r.Status, r.Raw)
			}
		}
		r := mk(tc.admin)
		if r.Status != tc.status {
			t.Fatalf("step %d: %d %s, want %d", i, r.Status, r.Raw, tc.status)
		}
		if r.Status == 403 && (errCode(r) != "quota_exceeded" || !strings.HasPrefix(errMessage(r), "quota keys:")) {
			t.Fatalf("step %d: %s, want quota_exceeded naming keys", i, r.Raw)
		}
		if i == 0 {
			first = r.Body["key"].(map[string]any)["id"].(string)
		}
	}
}

// TestAdmissionRefusalCarriesRetryAfter: an admission's refusal is the
// API's 429 problem with the wait in Retry-After, before any handler
// runs; a 503 without a wait of its own gets Retry-After: 1.
func TestAdmissionRefusalCarriesRetryAfter(t *testing.T) {
	refuse := func(_ context.Context, c memory.Caller) (time.Duration, error) {
		switch {
		case c.OrgID == "org-b":
			return 2500 * time.Millisecond, memory.Errorf(memory.ERATELIMIT, "org-b is over its rate")
		case c.AgentID == "x":
			return 0, memory.Errorf(memory.EUNAVAILABLE, "the database is busy; retry")
		}
		return 0, nil
	}
	c := newClient(t, newLimitedServer(t, httpapi.WithAdmission(refuse)))
	for _, tc := range []struct {
		key        string
		status     int
		retryAfter string
	}{
		{keyA, 200, ""},
		{keyB, 429, "3"},
		{keyX, 503, "1"},
	} {
		r := c.do("GET", "/v1/memories", tc.key, nil)
		if r.Status != tc.status || r.Header.Get("Retry-After") != tc.retryAfter {
			t.Fatalf("%s: %d Retry-After %q %s, want %d %q", tc.key, r.Status, r.Header.Get("Retry-After"), r.Raw, tc.status, tc.retryAfter)
		}
	}
}

// TestImportBodyCapByKey: an agent-bound key's import body is capped at
// MaxAgentImportBytes (413 naming the cap); an org key's is not.
func TestImportBodyCapByKey(t *testing.T) {
	c := newClient(t, newServer(t))
	line := strings.Repeat(" ", 1<<20-1) + "\n" // blank lines: read, counted nowhere
	body := strings.Repeat(line, httpapi.MaxAgentImportBytes>>20+1)
	for _, tc := range []struct {
		key    string
		status int
	}{{keyX, 413}, {keyA, 200}} {
		r := c.do("POST", "/v1/import", tc.key, body, "Content-Type", "application/x-ndjson")
		if r.Status != tc.status {
			t.Fatalf("%s: %d %s, want %d", tc.key, r.Status, r.Raw, tc.status)
		}
		if tc.status == 413 && !strings.Contains(errMessage(r), fmt.Sprint(httpapi.MaxAgentImportBytes)) {
			t.Fatalf("413 does not name the agent cap: %s", r.Raw)
		}
	}
}
