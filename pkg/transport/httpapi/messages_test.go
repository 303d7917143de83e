package httpapi_test

import (
	"context"
	"errors"
	"github.com/agentmem/agentmem/pkg/auth"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

func TestMessagesAreExtracted(t *testing.T) {
	c := newClient(t, newServer(t))
	r := c.do("POST", "/v1/messages", keyA, map[string]any{"messages": []map[string]any{
		{"roomId": "chat", "entityId": "Ana", "externalId": "t1", "content": map[string]any{"text": "My favourite dessert is lemon tart."}},
		{"roomId": "chat", "entityId": "Bo", "externalId": "t2", "content": map[string]any{"text": "Thanks!"}},
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
	// The same turn again under its external id (a retry): stored once,
	// queued again, and extraction writes no second fact.
	r = c.do("POST", "/v1/messages", keyA, map[string]any{"messages": []map[string]any{
		{"roomId": "chat", "entityId": "Ana", "externalId": "t1", "content": map[string]any{"text": "My favourite dessert is lemon tart."}}}})
	if r.Status != 202 || r.Body["extractionQueued"] != true || r.Body["memories"].([]any)[0].(map[string]any)["duplicate"] != true {
		t.Fatalf("repeat: %d %s", r.Status, r.Raw)
	}
	time.Sleep(300 * time.Millisecond)
	if l := c.do("GET", "/v1/memories?type=fact", keyA, nil); len(l.Body["memories"].([]any)) != 1 {
		t.Fatalf("a retried turn extracted twice: %s", l.Raw)
	}
	// A speaker's second "Yes" in the same room is a second turn.
	for range 2 {
		c.do("POST", "/v1/messages", keyA, map[string]any{"messages": []map[string]any{
			{"roomId": "chat", "entityId": "Bo", "content": map[string]any{"text": "Yes"}}}})
	}
	if l := c.do("GET", "/v1/memories/count?roomId=chat&entityId=Bo", keyA, nil); l.Body["count"] != 3.0 {
		t.Fatalf("Bo's turns: %s, want 3 (Thanks and two Yes)", l.Raw)
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

// fullOnce is a queue that is full for its first job, as the local queue is
// under a flood.
type fullOnce struct {
	extract.Queue
	failed bool
}

func (q *fullOnce) Enqueue(ctx context.Context, j extract.Job) error {
	if !q.failed {
		q.failed = true
		return errors.New("queue full")
	}
	return q.Queue.Enqueue(ctx, j)
}

// TestQueueFullRetryIsExtracted: turns stored by a request whose queueing
// failed (503) are queued and extracted when the client retries with the
// same Idempotency-Key; nothing is stored twice.
func TestQueueFullRetryIsExtracted(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(128), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	keys, _ := auth.ParseKeys(keyA + "=org-a")
	lq := extract.NewLocalQueue(&extract.Pipeline{Service: b.Service.Pipelines(), Extractor: extract.Local{}, Log: log}, 10)
	t.Cleanup(lq.Close)
	c := newClient(t, httpapi.New(b.Service, keys, log, httpapi.WithExtraction(&fullOnce{Queue: lq})))
	body := map[string]any{"messages": []map[string]any{
		{"roomId": "chat", "entityId": "Ana", "content": map[string]any{"text": "My favourite dessert is lemon tart."}}}}
	if r := c.do("POST", "/v1/messages", keyA, body, "Idempotency-Key", "req-42"); r.Status != 503 || !strings.Contains(r.Raw, "Idempotency-Key") {
		t.Fatalf("first try: %d %s", r.Status, r.Raw)
	}
	r := c.do("POST", "/v1/messages", keyA, body, "Idempotency-Key", "req-42")
	if r.Status != 202 || r.Body["extractionQueued"] != true || r.Body["memories"].([]any)[0].(map[string]any)["duplicate"] != true {
		t.Fatalf("retry: %d %s", r.Status, r.Raw)
	}
	var facts []any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(facts) == 0; time.Sleep(50 * time.Millisecond) {
		facts = c.do("GET", "/v1/memories?type=fact", keyA, nil).Body["memories"].([]any)
	}
	if len(facts) != 1 {
		t.Fatalf("facts after the retry: %v", facts)
	}
	if n := c.do("GET", "/v1/memories/count?type=message", keyA, nil).Body["count"]; n != 1.0 {
		t.Fatalf("%v messages stored, want 1", n)
	}
	if r := c.do("POST", "/v1/messages", keyA, body, "Idempotency-Key", strings.Repeat("k", 200)); r.Status != 400 || !strings.Contains(r.Raw, "Idempotency-Key") {
		t.Fatalf("an oversized key: %d %s", r.Status, r.Raw)
	}
}
