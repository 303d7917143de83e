package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// forgetServer is the API on the real embedded backend (SQLite, the bolt
// index, the hashing embedder, Structured RAG with the offline extractor),
// returned with the backend so that tests can read its term index.
func forgetServer(t *testing.T) (*client, *local.Backend) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(128), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	keys, err := auth.ParseKeys(fmt.Sprintf("%s=org-a,%s=org-b,%s=org-a/x,%s=org-a/y", keyA, keyB, keyX, keyY))
	if err != nil {
		t.Fatal(err)
	}
	docs := &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 200, Overlap: 40}, Log: log}
	queue := extract.NewLocalQueue(&extract.Pipeline{Service: b.Service.Pipelines(), Extractor: extract.Local{}, Log: log}, 100)
	t.Cleanup(queue.Close)
	return newClient(t, httpapi.New(b.Service, keys, log, httpapi.WithDocuments(docs), httpapi.WithExtraction(queue))), b
}

// secrets are what the erasure about Priya must leave nowhere. The card
// number keeps its space: "4111" alone turns up in timestamps
// (lastAccessedAt 1795838754111).
var secrets = []string{"4111 1111", "X9981", "Lisbon"}

// priyaMemories writes, with key, what an erasure of "Priya" must remove
// and what it must keep: her turns (entityId priya), a turn of Bo that
// names her (found through the knowledge index) and the reply that quoted
// her turn as its context; Bo's own unrelated turn stays. It returns the
// ids of the memories that must go and of those that must stay.
func priyaMemories(t *testing.T, c *client, key, room string) (gone, kept []string) {
	t.Helper()
	turn := func(speaker, text string, at int) map[string]any {
		return map[string]any{"type": "message", "entityId": speaker, "roomId": room, "sessionId": "s-" + room,
			"createdAt": 1_767_000_000_000 + at, "content": map[string]any{"text": text}}
	}
	r := c.do("POST", "/v1/memories", key, map[string]any{"memories": []any{
		turn("bo", "Shall we book the trip to the coast?", 1000),
		turn("priya", "Yes, I moved to Lisbon and my card number is 4111 1111 1111 1111", 2000),
		turn("bo", "Great, I will book it today", 3000),
		turn("bo", "Yesterday Priya gave me her passport number X9981 for the booking.", 4000),
		turn("bo", "I prefer green tea in the morning", 5000),
	}})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	ids := []string{}
	for _, m := range r.Body["memories"].([]any) {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	return []string{ids[1], ids[3]}, []string{ids[0], ids[2], ids[4]}
}

// holds reports whether s holds any of the secrets.
func holds(s string) string {
	for _, x := range secrets {
		if strings.Contains(s, x) {
			return x
		}
	}
	return ""
}

// TestForgetEverywhere: after POST /v1/forget of an entity, no endpoint
// returns the content: get, list, count, search in every mode and list,
// the prompt context, and the knowledge of the term index (lookups,
// completion, listing). Another org with the same content keeps it. The
// erasure is in the audit log, with counts and without the content.
func TestForgetEverywhere(t *testing.T) {
	c, b := forgetServer(t)
	gone, kept := priyaMemories(t, c, keyA, "r1")
	_, keptB := priyaMemories(t, c, keyB, "r1")
	ctx := context.Background()
	// Preconditions: the content is found, and the knowledge index names
	// Priya in the turn of Bo that mentions her.
	if r := c.do("POST", "/v1/search", keyA, map[string]any{"query": "passport number X9981", "mode": "keyword"}); holds(r.Raw) == "" {
		t.Fatalf("precondition: keyword search does not find the passport: %s", r.Raw)
	}
	ps, err := b.Store.LookupTerms(ctx, memory.TermLookup{Filter: memory.Filter{OrgID: "org-a"}, Terms: []string{"priya"}})
	if err != nil || len(ps) == 0 {
		t.Fatalf("precondition: the term index does not name priya: %v %v", ps, err)
	}

	r := c.do("POST", "/v1/forget", keyA, map[string]any{"entity": "Priya"})
	if r.Status != 200 {
		t.Fatalf("forget: %d %s", r.Status, r.Raw)
	}
	byType, _ := r.Body["byType"].(map[string]any)
	if r.Body["matched"] != 2.0 || r.Body["memories"] != 2.0 || byType["message"] != 2.0 || r.Body["contextsRewritten"] != 2.0 ||
		r.Body["knowledgeRefs"].(float64) < 1 || r.Body["auditId"] == "" {
		t.Fatalf("forget reported %s", r.Raw)
	}
	auditID := r.Body["auditId"].(string)

	for _, id := range gone {
		if r := c.do("GET", "/v1/memories/"+id, keyA, nil); r.Status != 404 {
			t.Fatalf("get %s after forget: %d %s", id, r.Status, r.Raw)
		}
	}
	for _, id := range kept {
		if r := c.do("GET", "/v1/memories/"+id, keyA, nil); r.Status != 200 || holds(r.Raw) != "" {
			t.Fatalf("kept memory %s: %d %s", id, r.Status, r.Raw)
		}
	}
	if r := c.do("GET", "/v1/memories?limit=1000&includeArchived=true", keyA, nil); r.Status != 200 || holds(r.Raw) != "" ||
		len(r.Body["memories"].([]any)) != len(kept) {
		t.Fatalf("list after forget: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/memories/count?entityId=priya", keyA, nil); r.Body["count"] != 0.0 {
		t.Fatalf("count after forget: %s", r.Raw)
	}
	searches := []map[string]any{}
	for _, q := range []string{"passport number X9981", "card number 4111", "moved to Lisbon", "Priya", "priya card"} {
		for _, mode := range []string{"full", "hybrid", "semantic", "keyword", "knowledge"} {
			searches = append(searches, map[string]any{"query": q, "mode": mode, "k": 100})
		}
		searches = append(searches, map[string]any{"query": q, "lists": []string{"keyword", "semantic", "knowledge"}, "k": 100,
			"filters": map[string]any{"roomId": "r1", "includeArchived": true}})
	}
	for _, body := range searches {
		r := c.do("POST", "/v1/search", keyA, body)
		if r.Status != 200 {
			t.Fatalf("search %v: %d %s", body, r.Status, r.Raw)
		}
		if x := holds(r.Raw); x != "" {
			t.Fatalf("search %v returns %q after forget: %s", body, x, r.Raw)
		}
	}
	for _, body := range []map[string]any{{"query": "Priya passport card", "roomId": "r1", "budgetTokens": 4000}, {"roomId": "r1", "budgetTokens": 4000}} {
		r := c.do("POST", "/v1/context", keyA, body)
		if r.Status != 200 || holds(r.Raw) != "" {
			t.Fatalf("context %v after forget: %d %s", body, r.Status, r.Raw)
		}
	}
	// The knowledge: no posting, completion or listed name is left of her
	// or of what was said about her.
	f := memory.Filter{OrgID: "org-a", IncludeArchived: true}
	for _, term := range []string{"priya", "x9981", "lisbon", "passport"} {
		ps, err := b.Store.LookupTerms(ctx, memory.TermLookup{Filter: f, Terms: []string{term}})
		if err != nil || len(ps) != 0 {
			t.Fatalf("term %q after forget: %v %v", term, ps, err)
		}
		if tc, err := b.Store.Terms(ctx, f, term, 10); err != nil || len(tc) != 0 {
			t.Fatalf("completion of %q after forget: %v %v", term, tc, err)
		}
	}
	for _, kind := range []memory.KnowledgeKind{memory.KnowledgeEntity, memory.KnowledgeAction, memory.KnowledgeTopic} {
		page, err := b.Store.ListKnowledge(ctx, memory.KnowledgeListQuery{Filter: f, Kind: kind, Limit: memory.MaxKnowledgePage})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if strings.Contains(it.Name, "priya") || holds(it.Name) != "" || strings.Contains(it.Name, "x9981") {
				t.Fatalf("knowledge %s %q is still listed", kind, it.Name)
			}
		}
	}
	// Org b, which holds the same words, lost nothing.
	for _, id := range keptB {
		if r := c.do("GET", "/v1/memories/"+id, keyB, nil); r.Status != 200 {
			t.Fatalf("org b's memory %s: %d", id, r.Status)
		}
	}
	if r := c.do("GET", "/v1/memories/count", keyB, nil); r.Body["count"] != 5.0 {
		t.Fatalf("org b counts %v after org a's erasure, want 5", r.Body["count"])
	}

	// Forgetting again finds nothing; both erasures are audited, without
	// content, and only for org a's org-level keys.
	if r := c.do("POST", "/v1/forget", keyA, map[string]any{"entity": "Priya"}); r.Status != 200 || r.Body["matched"] != 0.0 {
		t.Fatalf("second forget: %d %s", r.Status, r.Raw)
	}
	r = c.do("GET", "/v1/admin/audit", keyA, nil)
	entries, _ := r.Body["entries"].([]any)
	if r.Status != 200 || len(entries) != 2 || holds(r.Raw) != "" {
		t.Fatalf("audit log: %d %s", r.Status, r.Raw)
	}
	first := entries[0].(map[string]any)
	report := first["report"].(map[string]any)
	if first["id"] != auditID || first["action"] != "forget" || first["status"] != "done" || first["orgId"] != "org-a" ||
		first["filter"].(map[string]any)["entity"] != "Priya" || report["memories"] != 2.0 ||
		!strings.HasPrefix(first["keyId"].(string), "sha256:") || strings.Contains(r.Raw, keyA) || first["requestId"] == "" {
		t.Fatalf("audit entry %v", first)
	}
	if r := c.do("GET", "/v1/admin/audit", keyB, nil); r.Status != 200 || len(r.Body["entries"].([]any)) != 0 {
		t.Fatalf("org b reads org a's audit log: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/admin/audit", keyX, nil); r.Status != 403 {
		t.Fatalf("an agent key reads the audit log: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/admin/audit?limit=1", keyA, nil); len(r.Body["entries"].([]any)) != 1 || r.Body["nextCursor"] == "" {
		t.Fatalf("audit page: %s", r.Raw)
	} else if r2 := c.do("GET", "/v1/admin/audit?limit=1&cursor="+r.Body["nextCursor"].(string), keyA, nil); len(r2.Body["entries"].([]any)) != 1 ||
		r2.Body["entries"].([]any)[0].(map[string]any)["id"] == auditID {
		t.Fatalf("audit second page: %s", r2.Raw)
	}
}

// TestForgetFilters: each criterion alone, and together (all must match).
func TestForgetFilters(t *testing.T) {
	c, _ := forgetServer(t)
	create := func(room, session, entity string, at int) string {
		return c.create(keyA, map[string]any{"type": "message", "roomId": room, "sessionId": session, "entityId": entity,
			"createdAt": at, "content": map[string]any{"text": fmt.Sprintf("turn in %s %s by %s at %d", room, session, entity, at)}})
	}
	ids := map[string]string{
		"r1": create("r1", "s1", "u", 1_000_000), "r2": create("r2", "s2", "u", 2_000_000),
		"s3": create("r3", "s3", "u", 3_000_000), "old": create("r4", "s4", "u", 4_000_000),
		"both": create("r5", "s5", "w", 5_000_000), "r5other": create("r5", "s6", "w", 6_000_000),
	}
	for _, tc := range []struct {
		body   map[string]any
		forget []string
	}{
		{map[string]any{"roomId": "r1"}, []string{"r1"}},
		{map[string]any{"sessionId": "s3"}, []string{"s3"}},
		{map[string]any{"start": 3_500_000, "end": 4_500_000}, []string{"old"}},
		{map[string]any{"roomId": "r5", "sessionId": "s5"}, []string{"both"}},
		{map[string]any{"entity": "w", "start": "1970-01-01T01:40:00Z"}, []string{"r5other"}}, // 6,000,000 ms
		{map[string]any{"entity": "u"}, []string{"r2"}},
	} {
		r := c.do("POST", "/v1/forget", keyA, tc.body)
		if r.Status != 200 || r.Body["matched"] != float64(len(tc.forget)) {
			t.Fatalf("forget %v: %d %s", tc.body, r.Status, r.Raw)
		}
		for _, name := range tc.forget {
			if r := c.do("GET", "/v1/memories/"+ids[name], keyA, nil); r.Status != 404 {
				t.Fatalf("forget %v left %s", tc.body, name)
			}
			delete(ids, name)
		}
		for name, id := range ids {
			if r := c.do("GET", "/v1/memories/"+id, keyA, nil); r.Status != 200 {
				t.Fatalf("forget %v removed %s", tc.body, name)
			}
		}
	}
}

// TestForgetBadInput: a 4xx naming the field, and nothing forgotten.
func TestForgetBadInput(t *testing.T) {
	c, _ := forgetServer(t)
	id := c.create(keyA, map[string]any{"roomId": "r", "content": map[string]any{"text": "keep me"}})
	for _, tc := range []struct {
		name, key string
		body      any
		status    int
		message   string
	}{
		{"no criterion", keyA, `{}`, 400, "filter: at least one of entity, sessionId, roomId, start or end"},
		{"agent only", keyA, `{"agentId":"x"}`, 400, "filter: at least one of"},
		{"unknown field", keyA, `{"roomId":"r","orgId":"org-b"}`, 400, `unknown field "orgId"`},
		{"entity too long", keyA, map[string]any{"entity": strings.Repeat("e", 200)}, 400, "entity: longer than"},
		{"entity with a control character", keyA, map[string]any{"entity": "a\u0001"}, 400, "entity: contains a control character"},
		{"entity not UTF-8", keyA, "{\"entity\":\"\xff\"}", 400, "entity: not valid UTF-8"},
		{"bad time", keyA, `{"start":"soon"}`, 400, `start/end: "soon" is neither`},
		{"negative time", keyA, `{"start":-1}`, 400, "start/end: must not be negative"},
		{"empty range", keyA, `{"start":200,"end":100}`, 400, "end: must be after start"},
		{"no body", keyA, ``, 400, "body: a JSON object is required"},
		{"no key", "", `{"roomId":"r"}`, 401, "missing Authorization"},
		{"agent key on the org scope", keyX, `{"roomId":"r","agentId":"_org"}`, 403, "only an org-level key"},
		{"agent key on another agent", keyX, `{"roomId":"r","agentId":"y"}`, 403, "bound to agent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do("POST", "/v1/forget", tc.key, tc.body)
			if r.Status != tc.status || !strings.Contains(errMessage(r), tc.message) {
				t.Fatalf("got %d %s; want %d with %q", r.Status, r.Raw, tc.status, tc.message)
			}
		})
	}
	if r := c.do("GET", "/v1/memories/"+id, keyA, nil); r.Status != 200 {
		t.Fatalf("a refused erasure removed a memory: %d", r.Status)
	}
	if r := c.do("GET", "/v1/admin/audit", keyA, nil); len(r.Body["entries"].([]any)) != 0 {
		t.Fatalf("refused erasures are audited as run: %s", r.Raw)
	}
}

// TestForgetIsolation: an erasure never crosses orgs or agents. Org b
// forgetting Priya leaves org a's Priya; agent x forgetting Priya removes
// x's own memories only, not the org scope's nor agent y's; an org-level
// key forgets in every scope of its org.
func TestForgetIsolation(t *testing.T) {
	c, _ := forgetServer(t)
	goneA, _ := priyaMemories(t, c, keyA, "org-room") // org scope of org a
	goneX, _ := priyaMemories(t, c, keyX, "x-room")   // agent x's scope
	goneY, _ := priyaMemories(t, c, keyY, "y-room")   // agent y's scope
	all := func(ids ...[]string) []string {
		return append(append(append([]string{}, ids[0]...), ids[1]...), ids[2]...)
	}
	present := func(ids []string, want int) {
		t.Helper()
		for _, id := range ids {
			if r := c.do("GET", "/v1/memories/"+id, keyA, nil); (r.Status == 200) != (want == 200) {
				t.Fatalf("memory %s: %d, want %d", id, r.Status, want)
			}
		}
	}
	// Org b: nothing of org a goes.
	if r := c.do("POST", "/v1/forget", keyB, map[string]any{"entity": "Priya"}); r.Status != 200 || r.Body["matched"] != 0.0 {
		t.Fatalf("org b: %d %s", r.Status, r.Raw)
	}
	present(all(goneA, goneX, goneY), 200)
	// Org b cannot even name org a's rooms into an erasure of org a.
	if r := c.do("POST", "/v1/forget", keyB, map[string]any{"roomId": "org-room"}); r.Status != 200 || r.Body["matched"] != 0.0 {
		t.Fatalf("org b by room: %d %s", r.Status, r.Raw)
	}
	present(goneA, 200)
	// Agent x: its own scope only.
	if r := c.do("POST", "/v1/forget", keyX, map[string]any{"entity": "Priya"}); r.Status != 200 || r.Body["matched"] != float64(len(goneX)) {
		t.Fatalf("agent x: %d %s", r.Status, r.Raw)
	}
	present(goneX, 404)
	present(append(append([]string{}, goneA...), goneY...), 200)
	// Agent x naming agent y's room forgets nothing of y's.
	if r := c.do("POST", "/v1/forget", keyX, map[string]any{"roomId": "y-room"}); r.Status != 200 || r.Body["matched"] != 0.0 {
		t.Fatalf("agent x on y's room: %d %s", r.Status, r.Raw)
	}
	present(goneY, 200)
	// Agent y's audit entry is not readable by agent y (org keys only),
	// and the org key sees both agents' erasures with their agent.
	if r := c.do("GET", "/v1/admin/audit", keyY, nil); r.Status != 403 {
		t.Fatalf("agent y reads the audit log: %d", r.Status)
	}
	r := c.do("GET", "/v1/admin/audit", keyA, nil)
	agents := map[string]int{}
	for _, e := range r.Body["entries"].([]any) {
		a, _ := e.(map[string]any)["agentId"].(string)
		agents[a]++
	}
	if agents["x"] != 2 || agents[""] != 0 {
		t.Fatalf("org a's audit log: %v", agents)
	}
	// The org-level key: every scope of org a.
	if r := c.do("POST", "/v1/forget", keyA, map[string]any{"entity": "Priya"}); r.Status != 200 || r.Body["matched"] != float64(len(goneA)+len(goneY)) {
		t.Fatalf("org a: %d %s", r.Status, r.Raw)
	}
	present(append(append([]string{}, goneA...), goneY...), 404)
}
