package httpapi_test

import (
	"strings"
	"testing"
	"time"
)

func TestMessagesAreExtracted(t *testing.T) {
	c := newClient(t, newServer(t))
	r := c.do("POST", "/v1/messages", keyA, map[string]any{"messages": []map[string]any{
		{"roomId": "chat", "entityId": "Ana", "content": map[string]any{"text": "My favourite dessert is lemon tart."}},
		{"roomId": "chat", "entityId": "Bo", "content": map[string]any{"text": "Thanks!"}},
	}})
	if r.Status != 202 || r.Body["extractionQueued"] != true || len(r.Body["memories"].([]any)) != 2 {
		t.Fatalf("post messages: %d %s", r.Status, r.Raw)
	}
	var facts []any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		l := c.do("GET", "/v1/memories?type=fact", keyA, nil)
		if facts = l.Body["memories"].([]any); len(facts) > 0 {
			break
		}
	}
	if len(facts) != 1 || !strings.Contains(facts[0].(map[string]any)["content"].(map[string]any)["text"].(string), "lemon tart") {
		t.Fatalf("extracted facts: %v", facts)
	}
	if l := c.do("GET", "/v1/memories?type=fact", keyB, nil); len(l.Body["memories"].([]any)) != 0 {
		t.Fatal("org b sees org a's extracted facts")
	}
	// The same turns again: stored once, nothing queued.
	r = c.do("POST", "/v1/messages", keyA, map[string]any{"messages": []map[string]any{
		{"roomId": "chat", "entityId": "Ana", "content": map[string]any{"text": "My favourite dessert is lemon tart."}}}})
	if r.Status != 202 || r.Body["extractionQueued"] != false {
		t.Fatalf("repeat: %d %s", r.Status, r.Raw)
	}
	for _, tc := range []struct {
		body any
		msg  string
	}{
		{map[string]any{"messages": []map[string]any{{"type": "fact", "entityId": "Ana", "content": map[string]any{"text": "x"}}}}, `must be "message"`},
		{map[string]any{"messages": []map[string]any{{"content": map[string]any{"text": "who said this?"}}}}, "entityId: the speaker is required"},
		{map[string]any{"messages": []map[string]any{}}, "at least one memory"},
		{map[string]any{"messages": []map[string]any{{"entityId": "Ana", "content": map[string]any{"text": "x"}}}, "orgId": "org-b"}, `unknown field "orgId"`},
	} {
		if r := c.do("POST", "/v1/messages", keyA, tc.body); r.Status != 400 || !strings.Contains(errMessage(r), tc.msg) {
			t.Errorf("%v: %d %s", tc.body, r.Status, r.Raw)
		}
	}
}
