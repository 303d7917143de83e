package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/client"
)

// The operations the coverage test added methods for, over the wire:
// history, by key, forget with its audit entry, export and import,
// whoami, the document, and the admin calls.

func TestMemoryHistoryAndByKey(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)
	key := "history-" + u
	m, created, err := c.PutByKey(ctx, key, client.NewMemory{Type: "fact", Content: client.Content{Text: "first words " + u}})
	if err != nil || !created {
		t.Fatalf("put by key: %v %v", created, err)
	}
	if got, err := c.GetByKey(ctx, key); err != nil || got.ID != m.ID {
		t.Fatalf("get by key: %+v %v, want %s", got, err, m.ID)
	}
	if _, err := c.Update(ctx, m.ID, client.Patch{Content: &client.Content{Text: "second words " + u}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Archive(ctx, m.ID, "coverage test"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Restore(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	h, err := c.MemoryHistory(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, v := range h.Versions {
		ops = append(ops, v.Op)
	}
	if h.ID != m.ID || !slices.Equal(ops, []string{"create", "update", "archive", "restore"}) {
		t.Fatalf("history %s: ops %v, want create, update, archive, restore", h.ID, ops)
	}
	if first := h.Versions[0]; first.Memory == nil || first.Memory.Content.Text != "first words "+u || first.At == 0 {
		t.Errorf("the first version: %+v, want the memory as created", first)
	}
	if err := c.DeleteByKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetByKey(ctx, key); client.ErrorCode(err) != client.CodeNotFound {
		t.Fatalf("get by key after its delete: %v, want not_found", err)
	}
	if _, err := c.GetByKey(ctx, ""); err == nil || !strings.Contains(err.Error(), "key") {
		t.Errorf("an empty key: %v, want an error naming key", err)
	}
}

func TestForgetIsAudited(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	session := "forget-" + unique(t)
	for _, text := range []string{"the locker code is 4411 " + session, "the spare key is under the mat " + session} {
		if _, err := c.Create(ctx, client.NewMemory{Type: "message", SessionID: session, EntityID: "dana", Content: client.Content{Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := c.Forget(ctx, client.ForgetRequest{SessionID: session})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Memories != 2 || rep.AuditID == "" {
		t.Fatalf("forget: %+v, want 2 memories and an audit id", rep)
	}
	if n, err := c.Count(ctx, client.Filter{SessionID: session}); err != nil || n != 0 {
		t.Fatalf("count after forget: %d %v, want 0", n, err)
	}
	if _, err := c.Forget(ctx, client.ForgetRequest{}); client.ErrorCode(err) != client.CodeInvalid {
		t.Errorf("an empty erasure: %v, want invalid_request", err)
	}
	// The audit log, newest first, holds the erasure.
	found := false
	for cursor, pages := "", 0; !found && pages < 20; pages++ {
		page, err := c.AuditLog(ctx, 50, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entries {
			if e.ID == rep.AuditID {
				found = e.OrgID == "org-a" && e.Report.Memories == 2
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if !found {
		t.Errorf("audit entry %s not in the audit log, or not as reported", rep.AuditID)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	a, b := newClient(t, srv.org), newClient(t, srv.otherOrg)
	u := unique(t)
	texts := []string{"the harbour ferry leaves at nine " + u, "the lighthouse keeper is Ines " + u}
	for _, text := range texts {
		if _, err := a.Create(ctx, client.NewMemory{Type: "fact", Content: client.Content{Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	// The lines of this test's memories, out of the org's export.
	var export bytes.Buffer
	for line, err := range a.Export(ctx, client.ExportOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(line, []byte(u)) {
			export.Write(line)
			export.WriteByte('\n')
		}
	}
	if n := bytes.Count(export.Bytes(), []byte("\n")); n != 2 {
		t.Fatalf("export: %d lines holding %s, want 2", n, u)
	}
	rep, err := b.Import(ctx, bytes.NewReader(export.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lines != 2 || rep.Memories.Created != 2 || len(rep.Errors) != 0 {
		t.Fatalf("import into org B: %+v", rep)
	}
	again, err := b.Import(ctx, bytes.NewReader(export.Bytes()))
	if err != nil || again.Memories.Created != 0 || again.Memories.Existing+again.Memories.Duplicate != 2 {
		t.Fatalf("the same import again: %+v %v, want both existing", again, err)
	}
	hits, err := b.Search(ctx, client.SearchRequest{Query: texts[1], Mode: "keyword", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits.Results) == 0 || hits.Results[0].Memory.Content.Text != texts[1] || hits.Results[0].Memory.OrgID != "org-b" {
		t.Fatalf("org B's search for the imported memory: %+v", hits.Results)
	}
}

func TestWhoamiAndTheDocument(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		key, agent string
		admin      bool
	}{
		{srv.org, "", true},
		{srv.agentX, "x", false},
	} {
		w, err := newClient(t, tc.key).Whoami(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if w.OrgID != "org-a" || w.AgentID != tc.agent || slices.Contains(w.Grants, "admin") != tc.admin || w.Binding != nil {
			t.Errorf("whoami of the key of agent %q: %+v", tc.agent, w)
		}
	}
	doc, err := newClient(t, srv.org).OpenAPI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		OpenAPI string `json:"openapi"`
	}
	if err := json.Unmarshal(doc, &head); err != nil || !strings.HasPrefix(head.OpenAPI, "3.1.") {
		t.Errorf("the document: openapi %q %v", head.OpenAPI, err)
	}
}

func TestAdminKeysAndUsage(t *testing.T) {
	ctx := context.Background()
	admin := newClient(t, srv.org)
	name := "coverage-" + unique(t)
	made, err := admin.CreateKey(ctx, client.KeyRequest{Name: name, AgentID: "x", Grants: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	if made.Secret == "" || made.Key.ID == "" || made.Key.OrgID != "org-a" || !strings.HasPrefix(made.Secret, made.Key.Prefix) {
		t.Fatalf("create key: %+v", made)
	}
	keys, err := admin.Keys(ctx)
	if err != nil || !slices.ContainsFunc(keys, func(k client.APIKey) bool { return k.ID == made.Key.ID && k.Name == name }) {
		t.Fatalf("keys: %v %v, want %s among them", keys, err, made.Key.ID)
	}
	w, err := newClient(t, made.Secret).Whoami(ctx)
	if err != nil || w.AgentID != "x" || !slices.Equal(w.Grants, []string{"read"}) {
		t.Fatalf("whoami of the new key: %+v %v", w, err)
	}
	if _, err := newClient(t, made.Secret).Keys(ctx); client.ErrorCode(err) != client.CodeForbidden {
		t.Errorf("keys with a read key: %v, want forbidden", err)
	}
	revoked, err := admin.RevokeKey(ctx, made.Key.ID)
	if err != nil || revoked.RevokedAt == nil {
		t.Fatalf("revoke: %+v %v", revoked, err)
	}
	if _, err := newClient(t, made.Secret).Whoami(ctx); client.ErrorCode(err) != client.CodeUnauthorized {
		t.Errorf("whoami with the revoked key: %v, want unauthorized", err)
	}
	usage, err := admin.Usage(ctx)
	if err != nil || usage.OrgID != "org-a" || usage.Limits.Memories <= 0 {
		t.Fatalf("usage: %+v %v", usage, err)
	}
}

func TestAdminSettingsAndConsolidation(t *testing.T) {
	ctx := context.Background()
	// Org B's: the suites that share the server keep their data in org A.
	c := newClient(t, srv.otherOrg)
	cur, err := c.ExtractionSettings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := cur.Settings
	want.Instructions = "coverage " + unique(t)
	want.ProvidedKeys = map[string]string{"Ticket": "subject", "assignee": "to"}
	put, err := c.PutExtractionSettings(ctx, want, client.RequestOptions{IfMatch: cur.Version}) // 0: none sent
	if err != nil || put.Settings.Instructions != want.Instructions || put.Version <= cur.Version {
		t.Fatalf("put settings: %+v %v", put, err)
	}
	// The keys are stored in lower case.
	if keys := put.Settings.ProvidedKeys; len(keys) != 2 || keys["ticket"] != "subject" || keys["assignee"] != "to" {
		t.Errorf("provided keys: %v, want ticket: subject, assignee: to", keys)
	}
	if got, err := c.ExtractionSettings(ctx); err != nil || got.Settings.Instructions != want.Instructions {
		t.Fatalf("settings after the put: %+v %v", got, err)
	}
	if _, err := c.PutExtractionSettings(ctx, want, client.RequestOptions{IfMatch: put.Version + 5}); !client.IsStale(err) {
		t.Errorf("a put over a version that is not the current: %v, want stale", err)
	}
	run, err := c.Consolidate(ctx)
	if err != nil || run.OrgID != "org-b" || run.StartedAt == 0 {
		t.Fatalf("consolidate: %+v %v", run, err)
	}
	last, err := c.LastConsolidation(ctx)
	if err != nil || last.StartedAt < run.StartedAt {
		t.Fatalf("last consolidation: %+v %v, want the run of %d or a later one", last, err, run.StartedAt)
	}
}
