package httpapi_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
)

func TestDocuments(t *testing.T) {
	c := newClient(t, newServer(t))
	md := "# Security policy\n\nLaptops must use full-disk encryption.\n\n" + strings.Repeat("Report phishing to the security team right away. ", 8)
	r := c.do("POST", "/v1/documents", keyA, map[string]any{"name": "policies/security.md", "content": md})
	if r.Status != 201 || r.Body["state"] != "indexed" || r.Body["fragments"].(float64) < 2 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	id := r.Body["id"].(string)
	if g := c.do("GET", "/v1/documents/"+id, keyA, nil); g.Status != 200 || g.Body["name"] != "security.md" {
		t.Fatalf("get: %d %s", g.Status, g.Raw)
	}
	docx := base64.StdEncoding.EncodeToString(ingesttest.MakeDOCX("Expense reports are due on the fifth of each month."))
	if r := c.do("POST", "/v1/documents", keyA, map[string]any{"name": "expenses.docx", "contentBase64": docx}); r.Status != 201 {
		t.Fatalf("docx: %d %s", r.Status, r.Raw)
	}
	s := c.do("POST", "/v1/search", keyA, map[string]any{"query": "full-disk encryption laptops", "mode": "keyword", "filters": map[string]any{"type": "fragment"}})
	if len(s.Body["results"].([]any)) == 0 {
		t.Fatalf("search: %s", s.Raw)
	}
	if l := c.do("GET", "/v1/documents?limit=10", keyA, nil); len(l.Body["documents"].([]any)) != 2 {
		t.Fatalf("list: %s", l.Raw)
	}

	// Isolation: another org, or another agent, cannot see, list or delete it.
	x := c.do("POST", "/v1/documents", keyX, map[string]any{"name": "x-notes.txt", "content": "Agent X keeps its notes here."})
	if x.Status != 201 || x.Body["agentId"] != "x" {
		t.Fatalf("agent document: %d %s", x.Status, x.Raw)
	}
	xid := x.Body["id"].(string)
	for _, tc := range []struct{ key, id string }{{keyB, id}, {keyY, xid}} {
		if g := c.do("GET", "/v1/documents/"+tc.id, tc.key, nil); g.Status != 404 {
			t.Fatalf("get across tenants: %d", g.Status)
		}
		if d := c.do("DELETE", "/v1/documents/"+tc.id, tc.key, nil); d.Status != 404 {
			t.Fatalf("delete across tenants: %d", d.Status)
		}
	}
	if l := c.do("GET", "/v1/documents", keyB, nil); len(l.Body["documents"].([]any)) != 0 {
		t.Fatalf("org b lists org a's documents: %s", l.Raw)
	}
	if l := c.do("GET", "/v1/documents", keyY, nil); strings.Contains(l.Raw, xid) {
		t.Fatal("agent y lists agent x's document")
	}

	if d := c.do("DELETE", "/v1/documents/"+id, keyA, nil); d.Status != 204 {
		t.Fatalf("delete: %d %s", d.Status, d.Raw)
	}
	if g := c.do("GET", "/v1/documents/"+id, keyA, nil); g.Status != 404 {
		t.Fatalf("get after delete: %d", g.Status)
	}
	s = c.do("POST", "/v1/search", keyA, map[string]any{"query": "full-disk encryption laptops", "mode": "keyword"})
	if len(s.Body["results"].([]any)) != 0 {
		t.Fatalf("search after delete: %s", s.Raw)
	}

	for _, tc := range []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"no name", map[string]any{"content": "x"}, 400, "name:"},
		{"escaping name", map[string]any{"name": "../secrets.txt", "content": "x"}, 400, "name:"},
		{"unknown type", map[string]any{"name": "a.exe", "content": "MZ"}, 400, "unsupported file type"},
		{"empty", map[string]any{"name": "a.txt", "content": " "}, 400, "empty"},
		{"both contents", map[string]any{"name": "a.txt", "content": "x", "contentBase64": "eA=="}, 400, "not both"},
		{"bad base64", map[string]any{"name": "a.pdf", "contentBase64": "%%%"}, 400, "not valid base64"},
		{"corrupt pdf", map[string]any{"name": "a.pdf", "contentBase64": base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 garbage"))}, 400, "corrupt PDF"},
		{"unknown field", map[string]any{"name": "a.txt", "content": "x", "orgId": "org-b"}, 400, `unknown field "orgId"`},
		{"another agent", map[string]any{"name": "a.txt", "content": "x", "agentId": "y"}, 403, "bound to agent"},
	} {
		key := keyA
		if tc.name == "another agent" {
			key = keyX
		}
		if r := c.do("POST", "/v1/documents", key, tc.body); r.Status != tc.status || !strings.Contains(errMessage(r), tc.msg) {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	if l := c.do("GET", "/v1/documents?color=red", keyA, nil); l.Status != 400 {
		t.Fatalf("unknown list parameter: %d", l.Status)
	}
}
