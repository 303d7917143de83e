package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStructuredRAG runs the Structured RAG suites of issue 42 through the
// API of both backends: relational queries with comparisons, and provided
// structure as knowledge.
func TestStructuredRAG(t *testing.T) {
	const key = "relational-key-org-00"
	onBothBackends(t, "relational", key, func(t *testing.T, c *apiClient) {
		t.Run("relational queries", func(t *testing.T) { relationalSuite(t, &apiClient{t: t, url: c.url}, key) })
		t.Run("provided structure", func(t *testing.T) { providedSuite(t, &apiClient{t: t, url: c.url}, key) })
		t.Run("prefetch", func(t *testing.T) { prefetchSuite(t, &apiClient{t: t, url: c.url}, key) })
	})
}

// relationalSuite posts people with ages and checks that a property
// comparison, as an expression and as a question, returns exactly the
// right memories.
func relationalSuite(t *testing.T, c *apiClient, key string) {
	people := []struct{ name, text string }{
		{"ana", "My friend Ana is 25 years old."},
		{"bo", "My brother Bo is 30 years old."},
		{"cy", "My cousin Cy is 41 years old."},
		{"di", "My aunt Di is 67 years old."},
	}
	ids := map[string]string{}
	for _, p := range people {
		out := c.must(201, "POST", "/v1/memories", key, map[string]any{"type": "message", "entityId": "me", "content": map[string]any{"text": p.text}})
		ids[p.name] = out["id"].(string)
	}
	search := func(body map[string]any) []string { return knowledgeSearch(c, key, body) }
	want := []string{ids["cy"], ids["di"]}
	slices.Sort(want)
	gt := map[string]any{"query": map[string]any{"select": map[string]any{"property": map[string]any{"name": "age", "op": "gt", "value": "30"}}}}
	var got []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got = search(gt); slices.Equal(got, want) { // extraction may lag the write
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("age gt 30: got %v, want %v (cy and di)", got, want)
	}
	lte := map[string]any{"query": map[string]any{"select": map[string]any{"property": map[string]any{"name": "age", "op": "lte", "value": "30"}}}}
	if got, want := search(lte), []string{ids["ana"], ids["bo"]}; !slices.Equal(got, sortedCopy(want)) {
		t.Errorf("age lte 30: got %v, want %v", got, sortedCopy(want))
	}
	if got := search(map[string]any{"text": "Who is older than 40?"}); !slices.Equal(got, want) {
		t.Errorf("question older than 40: got %v, want %v", got, want)
	}
	st, raw := c.do("POST", "/v1/knowledge/search", key, map[string]any{"query": map[string]any{"select": map[string]any{"property": map[string]any{"name": "age", "op": "above", "value": "30"}}}})
	if st != 400 || !strings.Contains(raw, "op") {
		t.Errorf("an unknown op: %d %s, want 400 naming op", st, raw)
	}
}

// knowledgeSearch returns the ids of the memories a knowledge search
// finds, sorted.
func knowledgeSearch(c *apiClient, key string, body map[string]any) []string {
	out := c.must(200, "POST", "/v1/knowledge/search", key, body)
	var got []string
	ms, _ := out["memories"].([]any)
	for _, m := range ms {
		got = append(got, m.(map[string]any)["memory"].(map[string]any)["id"].(string))
	}
	slices.Sort(got)
	return got
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
