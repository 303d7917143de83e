package main

import (
	"slices"
	"testing"
	"time"
)

// providedSuite posts e-mails whose metadata names a sender, receivers, a
// subject and a location, and checks that they are knowledge: found by
// place, by sender, receiver and subject together, by property, and gone
// when the metadata changes or the memory is deleted.
func providedSuite(t *testing.T, c *apiClient, key string) {
	mails := []struct {
		name, text string
		meta       map[string]any
	}{
		{"e1", "Here is the plan for the launch next quarter.", map[string]any{"from": "Kevin", "to": "Satya", "subject": "New AI models", "location": "Redmond"}},
		{"e2", "Numbers attached for the review.", map[string]any{"from": "Satya", "to": []any{"Kevin"}, "subject": "Budget review", "location": "Seattle"}},
		{"e3", "Sharing the deck with you.", map[string]any{"from": "Kevin", "to": "Amy, Raj", "subject": "New AI models", "location": "Boston"}},
	}
	ids := map[string]string{}
	for _, m := range mails {
		out := c.must(201, "POST", "/v1/memories", key, map[string]any{"type": "message", "roomId": "mail", "entityId": "inbox",
			"content": map[string]any{"text": m.text}, "metadata": m.meta})
		ids[m.name] = out["id"].(string)
	}
	want := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, ids[n])
		}
		slices.Sort(out)
		return out
	}
	expr := func(sel map[string]any) map[string]any { return map[string]any{"query": map[string]any{"select": sel}} }
	prop := func(name, op, value string) map[string]any {
		return expr(map[string]any{"property": map[string]any{"name": name, "op": op, "value": value}})
	}
	var got []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got = knowledgeSearch(c, key, map[string]any{"text": "What happened in Redmond?"}); slices.Equal(got, want("e1")) {
			break // extraction may lag the write
		}
	}
	if !slices.Equal(got, want("e1")) {
		t.Fatalf("what happened in Redmond: got %v, want %v", got, want("e1"))
	}
	cases := []struct {
		name string
		body map[string]any
		want []string
	}{
		{"a place entity", expr(map[string]any{"entity": map[string]any{"name": "Seattle", "types": []any{"place"}}}), want("e2")},
		{"sender, receiver and subject together", expr(map[string]any{"and": []any{
			map[string]any{"action": map[string]any{"verbs": []any{"send"}, "subject": "Kevin", "indirectObject": "Satya"}},
			map[string]any{"topic": "new ai models"}}}), want("e1")},
		{"a sender as a person", expr(map[string]any{"and": []any{
			map[string]any{"entity": map[string]any{"name": "Raj", "types": []any{"person"}}},
			map[string]any{"property": map[string]any{"name": "from", "op": "eq", "value": "kevin"}}}}), want("e3")},
		{"by property", prop("from", "eq", "kevin"), want("e1", "e3")},
		{"receivers by property", expr(map[string]any{"property": map[string]any{"name": "to", "op": "in", "values": []any{"satya", "amy"}}}), want("e1", "e3")},
		{"subject by comparison", prop("subject", "lt", "c"), want("e2")},
	}
	for _, tc := range cases {
		if got := knowledgeSearch(c, key, tc.body); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	// The question: the e-mail of all three comes first.
	out := c.must(200, "POST", "/v1/knowledge/search", key, map[string]any{"text": "What e-mail did Kevin send to Satya about new AI models?"})
	if ms, _ := out["memories"].([]any); len(ms) == 0 || ms[0].(map[string]any)["memory"].(map[string]any)["id"] != ids["e1"] {
		t.Errorf("the question of Kevin's e-mail to Satya: got %v, want %s first", ms, ids["e1"])
	}
	// Changed metadata replaces the knowledge it provided; a deleted
	// memory takes it along.
	c.must(200, "PATCH", "/v1/memories/"+ids["e1"], key, map[string]any{"metadata": map[string]any{"from": "Kevin", "to": "Satya", "subject": "New AI models"}})
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got = knowledgeSearch(c, key, expr(map[string]any{"entity": map[string]any{"name": "Redmond"}})); len(got) == 0 {
			break
		}
	}
	if len(got) != 0 {
		t.Errorf("Redmond after the location was removed: got %v, want none", got)
	}
	c.must(204, "DELETE", "/v1/memories/"+ids["e3"], key, nil)
	if got := knowledgeSearch(c, key, prop("from", "eq", "kevin")); !slices.Equal(got, want("e1")) {
		t.Errorf("from kevin after deleting e3: got %v, want %v", got, want("e1"))
	}
}

// prefetchSuite prefetches "what was the cac": the completion cactus and
// the memories that name it.
func prefetchSuite(t *testing.T, c *apiClient, key string) {
	var ids []string
	for _, text := range []string{"My cactus finally bloomed.", "We saw a giant cactus in the desert."} {
		out := c.must(201, "POST", "/v1/memories", key, map[string]any{"type": "message", "roomId": "garden", "entityId": "ana", "content": map[string]any{"text": text}})
		ids = append(ids, out["id"].(string))
	}
	slices.Sort(ids)
	var got []string
	var first string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		out := c.must(200, "POST", "/v1/knowledge/prefetch", key, map[string]any{"text": "what was the cac", "filters": map[string]any{"roomId": "garden"}})
		got, first = nil, ""
		if cs, _ := out["completions"].([]any); len(cs) > 0 {
			first, _ = cs[0].(map[string]any)["term"].(string)
		}
		ms, _ := out["memories"].([]any)
		for _, m := range ms {
			got = append(got, m.(map[string]any)["memory"].(map[string]any)["id"].(string))
		}
		slices.Sort(got)
		if first == "cactus" && slices.Equal(got, ids) {
			return
		}
	}
	t.Errorf("prefetch of what was the cac: completion %q, memories %v, want cactus and %v", first, got, ids)
}
