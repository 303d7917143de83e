package httpapi_test

import (
	"slices"
	"strings"
	"testing"
)

// TestKnowledgePrefetch prefetches partial requests: the completions of
// the last word and the memories of the terms, within what the key sees.
func TestKnowledgePrefetch(t *testing.T) {
	s := newServer(t)
	c := newClient(t, s)
	cactus := c.create(keyA, map[string]any{"type": "message", "roomId": "r", "entityId": "Ana", "content": map[string]any{"text": "My cactus finally bloomed."}})
	desert := c.create(keyA, map[string]any{"type": "message", "roomId": "r", "entityId": "Bo", "content": map[string]any{"text": "We saw a giant cactus in the Arizona desert."}})
	private := c.create(keyY, map[string]any{"type": "message", "roomId": "r", "entityId": "Yoav", "content": map[string]any{"text": "I keep a cactus on my desk."}})
	other := c.create(keyB, map[string]any{"type": "message", "roomId": "r", "entityId": "Zed", "content": map[string]any{"text": "A cactus for org b."}})
	ids := func(r response) []string {
		var out []string
		for _, m := range list(t, r, "memories") {
			out = append(out, m["memory"].(map[string]any)["id"].(string))
		}
		slices.Sort(out)
		return out
	}
	terms := func(r response) []string {
		var out []string
		for _, h := range list(t, r, "completions") {
			out = append(out, h["term"].(string))
		}
		return out
	}
	for _, tt := range []struct {
		name, key, text string
		completion      string // the first completion; "" for none
		want            []string
	}{
		{"what was the cac", keyA, "what was the cac", "cactus", sorted(cactus, desert, private)},
		{"agent x sees the org's and its own", keyX, "what was the cac", "cactus", sorted(cactus, desert)},
		{"agent y sees its own too", keyY, "what was the cac", "cactus", sorted(cactus, desert, private)},
		{"another org", keyB, "what was the cac", "cactus", []string{other}},
		{"complete terms without a partial word", keyA, "the arizona desert ", "", []string{desert}},
		{"a complete term and a partial word", keyA, "arizona cac", "cactus", sorted(cactus, desert, private)},
		{"nothing to complete", keyA, "what was the zzq", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", "/v1/knowledge/prefetch", tt.key, map[string]any{"text": tt.text})
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			ts := terms(r)
			if tt.completion == "" && len(ts) != 0 || tt.completion != "" && (len(ts) == 0 || ts[0] != tt.completion) {
				t.Errorf("completions %v, want %q first", ts, tt.completion)
			}
			if got := ids(r); !slices.Equal(got, tt.want) {
				t.Errorf("memories %v, want %v", got, tt.want)
			}
		})
	}
	// The memory matching both terms comes first.
	r := c.do("POST", "/v1/knowledge/prefetch", keyA, map[string]any{"text": "arizona cac"})
	if ms := list(t, r, "memories"); len(ms) == 0 || ms[0]["memory"].(map[string]any)["id"] != desert {
		t.Errorf("arizona cac: %s, want %s first", r.Raw, desert)
	}
	for _, bad := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"text": "  "}, "text: required"},
		{map[string]any{"text": "cac", "limit": -1}, "limit"},
		{map[string]any{"text": "cac", "termLimit": 1000}, "termLimit"},
		{map[string]any{"text": "cac", "orgId": "org-b"}, "orgId"},
	} {
		r := c.do("POST", "/v1/knowledge/prefetch", keyA, bad.body)
		if r.Status != 400 || !strings.Contains(errMessage(r), bad.want) {
			t.Errorf("%v: %d %s, want 400 naming %q", bad.body, r.Status, r.Raw, bad.want)
		}
	}
}
