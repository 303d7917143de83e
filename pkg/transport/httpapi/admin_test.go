package httpapi_test

import (
	"strings"
	"testing"
)

func TestAdminConsolidation(t *testing.T) {
	c := newClient(t, newServer(t))
	for i, text := range []string{"first note", "second note", "third note"} {
		c.create(keyA, map[string]any{"content": map[string]any{"text": text}, "importance": 0.1 * float64(i+1)})
	}
	c.create(keyB, map[string]any{"content": map[string]any{"text": "org b note"}})
	if r := c.do("GET", "/v1/admin/consolidation", keyA, nil); r.Status != 404 || !strings.Contains(errMessage(r), "no consolidation has run") {
		t.Fatalf("before any run: %d %s", r.Status, r.Raw)
	}
	r := c.do("POST", "/v1/admin/consolidate", keyA, nil)
	if r.Status != 200 || r.Body["scanned"] != 3.0 || r.Body["orgId"] != "org-a" {
		t.Fatalf("run: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/admin/consolidation", keyA, nil); r.Status != 200 || r.Body["scanned"] != 3.0 || r.Body["finishedAt"] == nil {
		t.Fatalf("last run: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/admin/consolidation", keyB, nil); r.Status != 404 {
		t.Fatalf("org b sees org a's run: %d %s", r.Status, r.Raw)
	}
	for _, m := range []string{"GET /v1/admin/consolidation", "POST /v1/admin/consolidate"} {
		method, path, _ := strings.Cut(m, " ")
		if r := c.do(method, path, keyX, nil); r.Status != 403 {
			t.Fatalf("agent key on %s: %d", m, r.Status)
		}
	}
}
