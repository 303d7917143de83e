package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
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
