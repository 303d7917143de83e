package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTopicSentencesAndRangeScopes runs issue 42's topic sentences and
// scopes through the API of both backends: each turn's topic sentence is
// listed beside the topics; a topic-scope search keeps the stretches of
// conversation about the topic; document-range and message-range queries
// return exactly the memories in range; and no scope shows an agent-bound
// key another agent's session or document.
func TestTopicSentencesAndRangeScopes(t *testing.T) {
	const key = "scopes-key-org-00"
	onBothBackends(t, "scopes", key, func(t *testing.T, c *apiClient) { scopesSuite(t, c, key) })
}

func scopesSuite(t *testing.T, c *apiClient, key string) {
	base := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	post := func(i int, body map[string]any) string {
		body["createdAt"] = base.Add(time.Duration(i) * time.Minute).UnixMilli()
		return c.must(201, "POST", "/v1/memories", key, body)["id"].(string)
	}
	say := func(i int, session, agent, speaker, text string) string {
		b := map[string]any{"type": "message", "sessionId": session, "entityId": speaker, "content": map[string]any{"text": text}}
		if agent != "" {
			b["agentId"] = agent
		}
		return post(i, b)
	}
	turns := []struct{ speaker, text string }{
		{"Ana", "I went hiking in the Alps last weekend with my brother."},
		{"Bo", "Yeah, sounds good."},
		{"Ana", "We took a hiking trail above Chamonix in the Alps."},
		{"Bo", "I baked a lemon cake for my daughter yesterday."},
		{"Ana", "I love lemon cake, my grandmother bakes one every spring."},
		{"Bo", "My daughter decorated the cake with strawberries."},
		{"Ana", "Next month I plan a hiking trip to the Alps again."},
	}
	var ids []string
	for i, tr := range turns {
		ids = append(ids, say(i, "chat-1", "", tr.speaker, tr.text))
	}
	// another agent's session and document, about the same things
	betaTurn := say(20, "beta-chat", "beta", "Cy", "I went hiking in the Alps and baked a lemon cake.")
	var frags []string
	for p := 0; p < 5; p++ {
		frags = append(frags, post(30+p, map[string]any{"type": "fragment", "documentId": "guide", "position": p,
			"content": map[string]any{"text": fmt.Sprintf("Part %d of the guide describes the glacier near Zermatt.", p)}}))
	}
	betaFrag := post(40, map[string]any{"type": "fragment", "documentId": "beta-guide", "position": 1, "agentId": "beta",
		"content": map[string]any{"text": "Part 1 of the other guide describes the glacier near Saas-Fee."}})
	agentKey := c.must(201, "POST", "/v1/admin/keys", key, map[string]any{"name": "alpha", "agentId": "alpha", "grants": []string{"read"}})["secret"].(string)

	search := func(k string, x map[string]any) []string {
		return knowledgeSearch(c, k, map[string]any{"query": x, "limit": 50})
	}
	everyone := map[string]any{"select": map[string]any{"entity": map[string]any{"types": []string{"person"}}}}
	scoped := func(x map[string]any, scope map[string]any) map[string]any {
		out := map[string]any{"scope": scope}
		for k, v := range x {
			out[k] = v
		}
		return out
	}
	// extraction may lag the writes: wait until every turn is indexed
	var all []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		all = search(key, scoped(everyone, map[string]any{"sessionId": "chat-1"}))
		frag := search(key, map[string]any{"terms": []string{"glacier"}})
		if len(all) == len(turns) && len(frag) == len(frags)+1 {
			break
		}
	}
	if !slices.Equal(all, sortedCopy(ids)) {
		t.Fatalf("the session's turns by speaker: %v, want %v", all, sortedCopy(ids))
	}

	t.Run("topic sentences listed beside the topics", func(t *testing.T) {
		out := c.must(200, "GET", "/v1/knowledge/topics?sessionId=chat-1&limit=200", key, nil)
		var sentences, topics int
		for _, it := range out["topics"].([]any) {
			m := it.(map[string]any)
			switch m["kind"] {
			case "sentence":
				sentences++
				if !strings.Contains(m["name"].(string), " ") {
					t.Errorf("topic sentence %q: one word", m["name"])
				}
			case "topic":
				topics++
			}
		}
		if sentences < 5 || topics == 0 {
			t.Errorf("%d topic sentences and %d topics listed: %v", sentences, topics, out["topics"])
		}
	})

	t.Run("topic scope keeps the stretches about the topic", func(t *testing.T) {
		// turns 0-2 (turn 1 bridged) and 6 are about hiking in the Alps;
		// the baking stretch, 3-5, is not; beta's session has one turn
		// about it, which the org key sees
		want := sortedCopy([]string{ids[0], ids[1], ids[2], ids[6]})
		if got := search(key, scoped(everyone, map[string]any{"sessionId": "chat-1", "topic": "hiking in the Alps"})); !slices.Equal(got, want) {
			t.Errorf("topic hiking: %v, want %v (turns 0, 1, 2, 6)", got, want)
		}
		if got := search(key, scoped(everyone, map[string]any{"topic": "hiking in the Alps"})); !slices.Equal(got, sortedCopy(append(want, betaTurn))) {
			t.Errorf("topic hiking in every session: %v, want %v (turns 0, 1, 2, 6 and beta's)", got, sortedCopy(append(want, betaTurn)))
		}
		want = sortedCopy([]string{ids[3], ids[4], ids[5]})
		if got := search(key, scoped(map[string]any{"terms": []string{"lemon", "cake", "alps", "hiking"}},
			map[string]any{"sessionId": "chat-1", "topic": "lemon cake"})); !slices.Equal(got, want) {
			t.Errorf("topic cake: %v, want %v (turns 3-5)", got, want)
		}
		if got := search(agentKey, scoped(everyone, map[string]any{"topic": "hiking in the Alps"})); slices.Contains(got, betaTurn) {
			t.Errorf("an agent-bound key's topic scope found another agent's turn: %v", got)
		}
	})

	t.Run("message range", func(t *testing.T) {
		want := sortedCopy(ids[1:5])
		if got := search(key, scoped(everyone, map[string]any{"sessionId": "chat-1", "fromMessageId": ids[1], "toMessageId": ids[4]})); !slices.Equal(got, want) {
			t.Errorf("by ids: %v, want %v", got, want)
		}
		from, to := base.Add(2*time.Minute).Format(time.RFC3339), base.Add(5*time.Minute).Format(time.RFC3339)
		if got := search(key, scoped(everyone, map[string]any{"sessionId": "chat-1", "fromTime": from, "toTime": to})); !slices.Equal(got, sortedCopy(ids[2:5])) {
			t.Errorf("by times [%s, %s): %v, want %v", from, to, got, sortedCopy(ids[2:5]))
		}
		if got := search(agentKey, scoped(everyone, map[string]any{"sessionId": "beta-chat", "fromTime": base.Format(time.RFC3339)})); len(got) != 0 {
			t.Errorf("an agent-bound key's range over another agent's session: %v", got)
		}
	})

	t.Run("document range", func(t *testing.T) {
		glacier := map[string]any{"terms": []string{"glacier"}}
		if got := search(key, scoped(glacier, map[string]any{"documentId": "guide", "fromPosition": 1, "toPosition": 3})); !slices.Equal(got, sortedCopy(frags[1:4])) {
			t.Errorf("positions 1-3: %v, want %v", got, sortedCopy(frags[1:4]))
		}
		if got := search(key, scoped(glacier, map[string]any{"documentId": "guide", "fromPosition": 3})); !slices.Equal(got, sortedCopy(frags[3:])) {
			t.Errorf("positions from 3: %v, want %v", got, sortedCopy(frags[3:]))
		}
		if got := search(key, scoped(glacier, map[string]any{"documentId": "beta-guide", "toPosition": 4})); !slices.Equal(got, []string{betaFrag}) {
			t.Errorf("the org key over beta's document: %v, want %v", got, []string{betaFrag})
		}
		if got := search(agentKey, scoped(glacier, map[string]any{"documentId": "beta-guide", "toPosition": 4})); len(got) != 0 {
			t.Errorf("an agent-bound key's range over another agent's document: %v", got)
		}
	})

	t.Run("bad scopes are 400s naming the field", func(t *testing.T) {
		for _, c2 := range []struct {
			scope map[string]any
			field string
		}{
			{map[string]any{"fromPosition": 1}, "query.scope.fromPosition"},
			{map[string]any{"documentId": "guide", "fromPosition": 3, "toPosition": 1}, "query.scope.toPosition"},
			{map[string]any{"fromMessageId": ids[0]}, "query.scope.fromMessageId"},
			{map[string]any{"sessionId": "chat-1", "toTime": "tomorrow"}, "query.scope.toTime"},
			{map[string]any{"topic": "  "}, "query.scope.topic"},
		} {
			st, raw := c.do("POST", "/v1/knowledge/search", key, map[string]any{"query": scoped(everyone, c2.scope)})
			if st != 400 || !strings.Contains(raw, c2.field) {
				t.Errorf("scope %v: %d %s, want 400 naming %s", c2.scope, st, raw, c2.field)
			}
		}
	})
}
