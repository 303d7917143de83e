package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
)

// TestListUnique lists one memory per content, the newest, and checks
// that the pages of a cursor chain never repeat a content whatever the
// page size.
func TestListUnique(t *testing.T) {
	c := newClient(t, newServer(t))
	// Oldest first; messages, so that equal texts are distinct memories.
	texts := []string{"a", "b", "a", "c", "b", "a", "d", "c"}
	var batch []map[string]any
	for i, s := range texts {
		batch = append(batch, map[string]any{"type": "message", "roomId": "r", "createdAt": 1_700_000_000_000 + i*1000,
			"content": map[string]any{"text": s}})
	}
	batch = append(batch, map[string]any{"type": "message", "roomId": "other", "createdAt": 1_700_000_100_000,
		"content": map[string]any{"text": "a"}})
	if r := c.do("POST", "/v1/memories", keyA, map[string]any{"memories": batch}); r.Status != 201 {
		t.Fatalf("batch: %d %s", r.Status, r.Raw)
	}
	// chain walks the cursor chain of query and returns each memory as
	// text@index (its place in texts) and the number of pages.
	chain := func(t *testing.T, query string) ([]string, int) {
		t.Helper()
		var got []string
		cursor, pages := "", 0
		for ; pages < 20; pages++ {
			r := c.do("GET", "/v1/memories?"+query+"&cursor="+cursor, keyA, nil)
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", query, r.Status, r.Raw)
			}
			for _, m := range r.Body["memories"].([]any) {
				m := m.(map[string]any)
				at := (int64(m["createdAt"].(float64)) - 1_700_000_000_000) / 1000
				got = append(got, fmt.Sprintf("%s@%d", m["content"].(map[string]any)["text"], at))
			}
			if cursor = r.Body["nextCursor"].(string); cursor == "" {
				return got, pages + 1
			}
		}
		t.Fatalf("%s: no last page after %d pages", query, pages)
		return nil, 0
	}
	newest := []string{"c@7", "d@6", "a@5", "b@4"}
	for _, tc := range []struct {
		name, query string
		want        []string
		maxPages    int
	}{
		{"one per page", "roomId=r&unique=true&limit=1", newest, 4},
		{"two per page", "roomId=r&unique=true&limit=2", newest, 2},
		{"three per page", "roomId=r&unique=true&limit=3", newest, 2},
		{"one page", "roomId=r&unique=true&limit=10", newest, 1},
		{"unique=false lists every memory", "roomId=r&unique=false&limit=3",
			[]string{"c@7", "d@6", "a@5", "b@4", "c@3", "a@2", "b@1", "a@0"}, 3},
		{"the filter decides what is a duplicate", "unique=true&limit=2", []string{"a@100", "c@7", "d@6", "b@4"}, 2},
		{"a narrowed range", "roomId=r&unique=true&end=2023-11-14T22:13:24Z&limit=1", []string{"c@3", "a@2", "b@1"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, pages := chain(t, tc.query)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if pages > tc.maxPages {
				t.Fatalf("%d pages, want at most %d", pages, tc.maxPages)
			}
		})
	}
	if r := c.do("GET", "/v1/memories?unique=maybe", keyA, nil); r.Status != 400 || !strings.HasPrefix(errMessage(r), "unique:") {
		t.Fatalf("unique=maybe: %d %s", r.Status, r.Raw)
	}
}

// TestSearchWithEmbedding searches by a caller's query vector, with and
// without a query text, through the handler.
func TestSearchWithEmbedding(t *testing.T) {
	c := newClient(t, newServer(t))
	peanuts := c.create(keyA, map[string]any{"content": map[string]any{"text": "Bob is allergic to peanuts"}})
	hiking := c.create(keyA, map[string]any{"content": map[string]any{"text": "Alice loves hiking in the Alps"}})
	vs, err := hashing.New(128).Embed(context.Background(), []string{"Bob is allergic to peanuts"}, memory.PurposeDocument)
	if err != nil {
		t.Fatal(err)
	}
	scaled := make([]float64, len(vs[0])) // not unit length: the service scales it
	for i, x := range vs[0] {
		scaled[i] = 5 * float64(x)
	}
	zero := make([]float64, 128)
	huge := append([]float64{1e39}, scaled[1:]...)
	for _, tc := range []struct {
		name   string
		body   any
		status int
		top    string // the id of the best result
		lists  string
		detail string // a prefix of the 400's detail
	}{
		{"embedding alone runs the semantic list", map[string]any{"embedding": scaled}, 200, peanuts, "semantic", ""},
		{"hybrid with an embedding alone is semantic", map[string]any{"embedding": scaled, "mode": "hybrid"}, 200, peanuts, "semantic", ""},
		{"the embedding replaces the query's vector", map[string]any{"query": "hiking Alps", "embedding": scaled, "mode": "semantic"}, 200, peanuts, "semantic", ""},
		{"the query alone", map[string]any{"query": "hiking Alps", "mode": "semantic"}, 200, hiking, "semantic", ""},
		{"keyword still reads the query", map[string]any{"query": "hiking Alps", "embedding": scaled, "mode": "hybrid"}, 200, "", "keyword,semantic", ""},
		{"keyword needs a query", map[string]any{"embedding": scaled, "mode": "keyword"}, 400, "", "", "query: required by the keyword list"},
		{"named lists that need a query", map[string]any{"embedding": scaled, "lists": []string{"keyword", "semantic"}}, 400, "", "", "query: required by the keyword list"},
		{"the wrong dimension", map[string]any{"embedding": []float64{1, 2, 3}}, 400, "", "", "embedding: 3 dimensions, the service's embedder has 128"},
		{"an empty embedding", map[string]any{"embedding": []float64{}}, 400, "", "", "embedding: 0 dimensions"},
		{"a value past float32", map[string]any{"embedding": huge}, 400, "", "", "embedding[0]: not a finite number"},
		{"the zero vector", map[string]any{"embedding": zero}, 400, "", "", "embedding: the zero vector"},
		{"NaN is not JSON", `{"embedding":[NaN]}`, 400, "", "", ""},
		{"neither query nor embedding", map[string]any{"mode": "semantic"}, 400, "", "", "query: required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do("POST", "/v1/search", keyA, tc.body)
			if r.Status != tc.status {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if tc.status != 200 {
				if !strings.HasPrefix(errMessage(r), tc.detail) {
					t.Fatalf("detail %q, want %q...", errMessage(r), tc.detail)
				}
				return
			}
			var lists []string
			for _, l := range r.Body["lists"].([]any) {
				lists = append(lists, l.(string))
			}
			if strings.Join(lists, ",") != tc.lists {
				t.Fatalf("lists %v, want %s", lists, tc.lists)
			}
			res := r.Body["results"].([]any)
			if len(res) == 0 {
				t.Fatal("no results")
			}
			best := res[0].(map[string]any)
			if tc.top != "" && best["memory"].(map[string]any)["id"] != tc.top {
				t.Fatalf("best %v, want %s", best["memory"].(map[string]any)["content"], tc.top)
			}
			if tc.lists == "semantic" && best["score"].(float64) > 1+1e-6 {
				t.Fatalf("cosine %v above 1: the embedding was not scaled to unit length", best["score"])
			}
		})
	}
}
