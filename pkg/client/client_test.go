package client_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/client"
)

// newClient returns a client of the test server with key.
func newClient(t *testing.T, key string, opts ...client.Option) *client.Client {
	t.Helper()
	needServer(t)
	c, err := client.New(srv.url, key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// unique returns a token unique to this run, so that runs against one
// server (the script runs three suites on it) never deduplicate each other.
func unique(t *testing.T) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func TestNewRejectsBadArguments(t *testing.T) {
	for _, tc := range []struct{ url, key, want string }{
		{"", "k", "baseURL"},
		{"ftp://x", "k", "baseURL"},
		{"http://127.0.0.1:1", "", "apiKey"},
	} {
		if _, err := client.New(tc.url, tc.key); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q) = %v, want an error naming %s", tc.url, tc.key, err, tc.want)
		}
	}
}

func TestMemoryLifecycle(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)
	text := "Dana prefers jasmine tea in the afternoon " + u
	imp := 0.8
	res, err := c.Create(ctx, client.NewMemory{Type: "fact", Kind: "preference", Importance: &imp, EntityID: "dana",
		Content: client.Content{Text: text}, Metadata: json.RawMessage(`{"source":"onboarding"}`)})
	if err != nil || res.ID == "" || res.Duplicate {
		t.Fatalf("create: %+v %v", res, err)
	}
	again, err := c.Create(ctx, client.NewMemory{Type: "fact", Content: client.Content{Text: strings.ToUpper(text)}})
	if err != nil || again.ID != res.ID || !again.Duplicate {
		t.Fatalf("create the same content again: %+v %v, want duplicate of %s", again, err, res.ID)
	}
	m, err := c.Get(ctx, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Content.Text != text || m.Type != "fact" || m.Kind != "preference" || m.Importance != 0.8 || m.OrgID != "org-a" ||
		m.Version < 1 || string(m.Metadata) != `{"source":"onboarding"}` {
		t.Fatalf("get: %+v", m)
	}

	newText := "Dana prefers green tea now " + u
	upd, err := c.Update(ctx, m.ID, client.Patch{Content: &client.Content{Text: newText}}, client.RequestOptions{IfMatch: m.Version})
	if err != nil || upd.Content.Text != newText || upd.Version != m.Version+1 {
		t.Fatalf("update over the current version: %+v %v", upd, err)
	}
	_, err = c.Update(ctx, m.ID, client.Patch{Content: &client.Content{Text: "stale " + u}}, client.RequestOptions{IfMatch: m.Version})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || !client.IsStale(err) || (apiErr.Status != 409 && apiErr.Status != 412) {
		t.Fatalf("update over a stale version: %v, want conflict (409) or precondition_failed (412)", err)
	}
	if got, _ := c.Get(ctx, m.ID); got.Content.Text != newText {
		t.Fatalf("a stale update changed the memory: %q", got.Content.Text)
	}

	if err := c.Delete(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(ctx, m.ID)
	if !client.IsNotFound(err) || !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.RequestID == "" || apiErr.Op != "client.Get" {
		t.Fatalf("get after delete: %#v", err)
	}
}

func TestBatchListAndPagination(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	room := "room-" + unique(t)
	var batch []client.NewMemory
	for i := range 7 {
		batch = append(batch, client.NewMemory{Type: "message", RoomID: room, EntityID: "dana",
			Content: client.Content{Text: fmt.Sprintf("turn %d of the pagination test", i)}})
	}
	res, err := c.CreateBatch(ctx, batch)
	if err != nil || len(res) != len(batch) {
		t.Fatalf("batch: %v %v", res, err)
	}
	want := map[string]bool{}
	for _, r := range res {
		if r.Duplicate {
			t.Fatalf("batch item duplicate: %+v", r)
		}
		want[r.ID] = true
	}
	if len(want) != 7 {
		t.Fatalf("batch ids not distinct: %v", res)
	}

	page, err := c.List(ctx, client.ListOptions{Filter: client.Filter{RoomID: room}, Limit: 3})
	if err != nil || len(page.Memories) != 3 || page.NextCursor == "" {
		t.Fatalf("first page: %+v %v", page, err)
	}
	var got []string
	for m, err := range c.Memories(ctx, client.ListOptions{Filter: client.Filter{RoomID: room, Type: []string{"message"}}, Limit: 3}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.ID)
	}
	if len(got) != 7 {
		t.Fatalf("iterator yielded %d memories, want 7: %v", len(got), got)
	}
	for _, id := range got {
		if !want[id] {
			t.Fatalf("iterator yielded %s, not one of the batch", id)
		}
	}
	// Stopping early reads no further.
	n := 0
	for range c.Memories(ctx, client.ListOptions{Filter: client.Filter{RoomID: room}, Limit: 2}) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Fatalf("break after 3 yielded %d", n)
	}
	if count, err := c.Count(ctx, client.Filter{RoomID: room}); err != nil || count != 7 {
		t.Fatalf("count: %d %v", count, err)
	}
	if deleted, err := c.DeleteWhere(ctx, client.Filter{RoomID: room}); err != nil || deleted != 7 {
		t.Fatalf("delete where: %d %v", deleted, err)
	}
	if count, err := c.Count(ctx, client.Filter{RoomID: room}); err != nil || count != 0 {
		t.Fatalf("count after delete: %d %v", count, err)
	}
}

func TestSearchModes(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)
	room := "search-" + u
	target, err := c.Create(ctx, client.NewMemory{Type: "fact", RoomID: room, Content: client.Content{Text: "Priya's favourite food is margherita pizza " + u}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, client.NewMemory{Type: "fact", RoomID: room, Content: client.Content{Text: "The quarterly report is due on Friday " + u}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode  string
		lists []string // lists whose scores the top result must carry
	}{
		{"keyword", []string{"keyword"}},
		{"semantic", []string{"semantic"}},
		{"hybrid", []string{"keyword", "semantic"}},
		{"", []string{"keyword", "semantic"}}, // full, the default
	} {
		t.Run("mode="+tc.mode, func(t *testing.T) {
			res, err := c.Search(ctx, client.SearchRequest{Query: "favourite food margherita pizza", Mode: tc.mode, K: 5,
				Filters: &client.Filter{RoomID: room}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) == 0 || res.Results[0].Memory.ID != target.ID {
				t.Fatalf("top result: %+v, want %s", res.Results, target.ID)
			}
			top := res.Results[0]
			for _, l := range tc.lists {
				if s, ok := top.Scores[l]; !ok || s.Rank != 1 {
					t.Fatalf("scores[%s] = %+v (all %+v), want rank 1", l, s, top.Scores)
				}
				if !slices.Contains(res.Lists, l) {
					t.Fatalf("lists %v lack %s", res.Lists, l)
				}
			}
			if top.Score <= 0 {
				t.Fatalf("score %v", top.Score)
			}
		})
	}
	_, err = c.Search(ctx, client.SearchRequest{Query: "pizza", K: 1000})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Code != client.CodeInvalid || apiErr.Status != 400 || !strings.Contains(apiErr.Message, "k") {
		t.Fatalf("k=1000: %v, want invalid naming k", err)
	}
}

func TestContextAndMessages(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)
	room := "chat-" + u
	res, err := c.AddMessages(ctx, []client.NewMemory{
		{RoomID: room, EntityID: "dana", Content: client.Content{Text: "My flight to Lisbon leaves Friday " + u}},
		{RoomID: room, EntityID: "agent", Content: client.Content{Text: "Noted, I will remind you Thursday."}},
	})
	if err != nil || len(res.Memories) != 2 || !res.ExtractionQueued {
		t.Fatalf("messages: %+v %v", res, err)
	}
	m, err := c.Get(ctx, res.Memories[0].ID)
	if err != nil || m.Type != "message" || m.RoomID != room {
		t.Fatalf("a stored turn: %+v %v", m, err)
	}
	_, err = c.AddMessages(ctx, []client.NewMemory{{RoomID: room, Content: client.Content{Text: "no speaker"}}})
	if client.ErrorCode(err) != client.CodeInvalid || !strings.Contains(err.Error(), "entityId") {
		t.Fatalf("a turn without a speaker: %v", err)
	}

	pc, err := c.Context(ctx, client.ContextRequest{Query: "when does the Lisbon flight leave", RoomID: room, BudgetTokens: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pc.Context, "Lisbon leaves Friday "+u) || pc.UsedTokens <= 0 || pc.UsedTokens > 500 || pc.BudgetTokens != 500 {
		t.Fatalf("context: %+v", pc)
	}
	placed := map[string]bool{}
	for _, s := range pc.Sections {
		for _, it := range s.Items {
			placed[it.ID] = true
		}
	}
	if !placed[res.Memories[0].ID] {
		t.Fatalf("the room's turn is not among the sections' items: %+v", pc.Sections)
	}
}

func TestKnowledgeSearch(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)
	room := "kn-" + u
	res, err := c.Create(ctx, client.NewMemory{Type: "message", RoomID: room, EntityID: "ana",
		Content: client.Content{Text: "We are hiking the Dolomites in September"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  client.KnowledgeSearchRequest
	}{
		{"expression", client.KnowledgeSearchRequest{Query: map[string]any{"select": map[string]any{"entity": map[string]any{"name": "Dolomites"}}}}},
		{"text", client.KnowledgeSearchRequest{Text: "Where is the hike?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Filters = &client.Filter{RoomID: room}
			out, err := c.KnowledgeSearch(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Memories) == 0 || out.Memories[0].Memory.ID != res.ID || len(out.Expression) == 0 {
				t.Fatalf("memories %+v expression %s, want %s", out.Memories, out.Expression, res.ID)
			}
		})
	}
	out, err := c.KnowledgeSearch(ctx, client.KnowledgeSearchRequest{Query: map[string]any{"select": map[string]any{"entity": map[string]any{"name": "Dolomites"}}},
		Filters: &client.Filter{RoomID: room}})
	if err != nil || !slices.ContainsFunc(out.Entities, func(e client.KnowledgeEntity) bool {
		return strings.EqualFold(e.Name, "dolomites") && e.SourceCount >= 1
	}) {
		t.Fatalf("entities: %+v %v", out, err)
	}
	_, err = c.KnowledgeSearch(ctx, client.KnowledgeSearchRequest{Query: map[string]any{"select": map[string]any{"entity": map[string]any{}}}})
	if client.ErrorCode(err) != client.CodeInvalid || !strings.Contains(err.Error(), "query.select.entity") {
		t.Fatalf("an empty entity leaf: %v, want invalid naming query.select.entity", err)
	}
}

func TestKnowledgePrefetch(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	room := "pf-" + unique(t)
	res, err := c.Create(ctx, client.NewMemory{Type: "message", RoomID: room, EntityID: "ana",
		Content: client.Content{Text: "My cactus finally bloomed"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.KnowledgePrefetch(ctx, client.KnowledgePrefetchRequest{Text: "what was the cac", Filters: &client.Filter{RoomID: room}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Completions) == 0 || out.Completions[0].Term != "cactus" || len(out.Memories) != 1 || out.Memories[0].Memory.ID != res.ID {
		t.Fatalf("prefetch: %+v, want cactus and %s", out, res.ID)
	}
	if _, err := c.KnowledgePrefetch(ctx, client.KnowledgePrefetchRequest{}); client.ErrorCode(err) != client.CodeInvalid || !strings.Contains(err.Error(), "text") {
		t.Fatalf("an empty text: %v, want invalid naming text", err)
	}
}

func TestDocuments(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)
	name := "guides/leave-" + u + ".md"
	doc, err := c.UploadDocument(ctx, client.DocumentUpload{Name: name, Content: "# Leave\n\nVacation requests go to your manager " + u + "."})
	if err != nil || doc.ID == "" || !strings.HasSuffix(doc.Key, "/"+name) {
		t.Fatalf("upload: %+v %v", doc, err)
	}
	if doc.State != "indexed" && doc.State != "pending" {
		t.Fatalf("state %q (%s)", doc.State, doc.Reason)
	}
	got, err := c.Document(ctx, doc.ID)
	if err != nil || got.ID != doc.ID || got.State != "indexed" || got.Fragments < 1 {
		t.Fatalf("status: %+v %v", got, err)
	}
	bin, err := c.UploadDocument(ctx, client.DocumentUpload{Name: "notes-" + u + ".txt", Data: []byte("Badge renewals happen every March " + u)})
	if err != nil || bin.State == "failed" {
		t.Fatalf("upload as base64: %+v %v", bin, err)
	}
	frag, err := c.Search(ctx, client.SearchRequest{Query: "vacation requests manager " + u, Mode: "keyword", K: 3, Filters: &client.Filter{DocumentID: doc.ID}})
	if err != nil || len(frag.Results) == 0 || !strings.Contains(frag.Results[0].Memory.Content.Text, u) {
		t.Fatalf("search the document's fragments: %+v %v", frag, err)
	}
	found := map[string]bool{}
	page, err := c.Documents(ctx, 1, "")
	if err != nil || len(page.Documents) != 1 || page.NextCursor == "" {
		t.Fatalf("a page of one document: %+v %v", page, err)
	}
	for d, err := range c.AllDocuments(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		found[d.ID] = true
	}
	if !found[doc.ID] || !found[bin.ID] {
		t.Fatalf("documents listed %v, want %s and %s", found, doc.ID, bin.ID)
	}
	for _, id := range []string{doc.ID, bin.ID} {
		if err := c.DeleteDocument(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Document(ctx, id); !client.IsNotFound(err) {
			t.Fatalf("status after delete: %v", err)
		}
	}
}

// TestIsolation: an agent-bound key never reads, lists or finds another
// agent's memory, nor an org another org's; the org-level key of the org
// reads both agents'.
func TestIsolation(t *testing.T) {
	ctx := context.Background()
	x, y := newClient(t, srv.agentX), newClient(t, srv.agentY)
	org, other := newClient(t, srv.org), newClient(t, srv.otherOrg)
	u := unique(t)
	room := "iso-" + u
	xs, err := x.Create(ctx, client.NewMemory{RoomID: room, Content: client.Content{Text: "Agent X: the customer's renewal is due in March " + u}})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := x.Get(ctx, xs.ID); err != nil || m.AgentID != "x" {
		t.Fatalf("x reads its own: %+v %v", m, err)
	}
	for _, tc := range []struct {
		name    string
		c       *client.Client
		visible bool
	}{
		{"agent y", y, false},
		{"org b", other, false},
		{"org a", org, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.Get(ctx, xs.ID)
			if tc.visible != (err == nil) || (!tc.visible && !client.IsNotFound(err)) {
				t.Fatalf("get: %v (visible %v)", err, tc.visible)
			}
			page, err := tc.c.List(ctx, client.ListOptions{Filter: client.Filter{RoomID: room}})
			if err != nil || tc.visible != (len(page.Memories) == 1) {
				t.Fatalf("list: %+v %v", page, err)
			}
			res, err := tc.c.Search(ctx, client.SearchRequest{Query: "customer renewal due in March " + u, Mode: "keyword", K: 10})
			if err != nil {
				t.Fatal(err)
			}
			seen := slices.ContainsFunc(res.Results, func(r client.SearchResult) bool { return r.Memory.ID == xs.ID })
			if seen != tc.visible {
				t.Fatalf("search finds x's memory: %v, want %v", seen, tc.visible)
			}
			if !tc.visible {
				if err := tc.c.Delete(ctx, xs.ID); !client.IsNotFound(err) {
					t.Fatalf("delete another's: %v, want not_found", err)
				}
			}
		})
	}
	if _, err := y.List(ctx, client.ListOptions{Filter: client.Filter{AgentID: "x"}}); client.ErrorCode(err) != client.CodeForbidden {
		t.Fatalf("agent y lists agent x's scope: %v, want forbidden", err)
	}
	if _, err := x.Get(ctx, xs.ID); err != nil {
		t.Fatalf("x's memory after the others tried: %v", err)
	}
}

func TestUnauthorized(t *testing.T) {
	c := newClient(t, "clients-test-not-a-key-000000")
	_, err := c.Get(context.Background(), "anything")
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Code != client.CodeUnauthorized || apiErr.Status != http.StatusUnauthorized {
		t.Fatalf("unknown key: %v", err)
	}
}

func TestContextCancellation(t *testing.T) {
	c := newClient(t, srv.org)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Search(ctx, client.SearchRequest{Query: "anything"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
}

// TestPutByKey runs where the server has PUT /v1/memories/by-key/{key}.
func TestPutByKey(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	key := "prefs/" + unique(t)
	m, created, err := c.PutByKey(ctx, key, client.NewMemory{Content: client.Content{Text: "theme: dark"}})
	var apiErr *client.Error
	if errors.As(err, &apiErr) && (apiErr.Status == http.StatusMethodNotAllowed || apiErr.Status == http.StatusNotFound && strings.Contains(apiErr.Message, "no route")) {
		t.Skipf("the server has no PUT /v1/memories/by-key/{key}: %v", err)
	}
	if err != nil || !created || m.ID == "" || m.Content.Text != "theme: dark" {
		t.Fatalf("first put: %+v %v %v", m, created, err)
	}
	m2, created, err := c.PutByKey(ctx, key, client.NewMemory{Content: client.Content{Text: "theme: light"}})
	if err != nil || created || m2.ID != m.ID || m2.Content.Text != "theme: light" {
		t.Fatalf("second put: %+v %v %v", m2, created, err)
	}
	if got, err := c.Get(ctx, m.ID); err != nil || got.Content.Text != "theme: light" {
		t.Fatalf("get after the second put: %+v %v", got, err)
	}
	if _, _, err := newClient(t, srv.otherOrg).PutByKey(ctx, key, client.NewMemory{Content: client.Content{Text: "org b's own"}}); err != nil {
		t.Fatalf("another org's put under the same key: %v", err)
	}
	if got, err := c.Get(ctx, m.ID); err != nil || got.Content.Text != "theme: light" {
		t.Fatalf("another org's put changed org a's memory: %+v %v", got, err)
	}
}

// TestRateLimitRetries talks to a server limited to one request a second
// per key: without retries a burst is refused with rate_limited and a
// Retry-After; with them, every request of the same burst succeeds.
func TestRateLimitRetries(t *testing.T) {
	needServer(t)
	if srv.limitedURL == "" {
		t.Skip("AGENTMEM_LIMITED_URL is not set")
	}
	ctx := context.Background()
	burst := func(c *client.Client, n int) []error {
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { _, errs[i] = c.Count(ctx, client.Filter{}) })
		}
		wg.Wait()
		return errs
	}
	noRetry, err := client.New(srv.limitedURL, srv.limitedKey, client.WithRetries(0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var limited *client.Error
	for _, err := range burst(noRetry, 6) {
		if errors.As(err, &limited) {
			break
		}
	}
	if limited == nil || limited.Code != client.CodeRateLimited || limited.Status != 429 || limited.RetryAfter <= 0 {
		t.Fatalf("a burst of 6 without retries: %#v, want rate_limited with a Retry-After", limited)
	}
	retrying, err := client.New(srv.limitedURL, srv.limitedKey, client.WithRetries(8, 50*time.Millisecond, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range burst(retrying, 3) {
		if err != nil {
			t.Fatalf("request %d of a burst with retries: %v", i, err)
		}
	}
}
