package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/client"
)

// TestWorkstreams: create, append, get, list and delete a memory block,
// with another agent's and another org's reads refused.
func TestWorkstreams(t *testing.T) {
	ctx := context.Background()
	x, y, b := newClient(t, srv.agentX), newClient(t, srv.agentY), newClient(t, srv.otherOrg)
	id := "ws-" + unique(t)
	w, err := x.CreateWorkstream(ctx, client.NewWorkstream{ID: id, Name: "Launch", Limit: 5})
	if err != nil || w.ID != id || w.Limit != 5 || w.Visibility != "agent" {
		t.Fatalf("create: %+v %v", w, err)
	}
	for i, text := range []string{"ship on Friday", "freeze the schema", "book the room", "print the badges", "order the cake", "test the demo"} {
		imp := 0.5
		if i == 0 {
			imp = 0.9
		}
		if _, err = x.AppendEntry(ctx, id, client.NewEntry{Role: "chief", Text: text, Importance: &imp}); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	got, err := x.Workstream(ctx, id)
	if err != nil || len(got.Entries) > 5 || len(got.History) == 0 || got.Entries[len(got.Entries)-1].Text != "test the demo" {
		t.Fatalf("get after 6 appends to a block of 5: %+v %v", got, err)
	}
	list, err := x.Workstreams(ctx, client.Page{Limit: 1000})
	if err != nil || !hasWorkstream(list.Workstreams, id) {
		t.Fatalf("list: %+v %v", list, err)
	}
	for name, c := range map[string]*client.Client{"another agent": y, "another org": b} {
		if _, err := c.Workstream(ctx, id); client.ErrorCode(err) != client.CodeNotFound {
			t.Errorf("%s reads the block: %v", name, err)
		}
	}
	pc, err := x.Context(ctx, client.ContextRequest{WorkstreamID: id, Providers: []string{"block"}, BudgetTokens: 600, ReserveTokens: 500})
	if err != nil || len(pc.Sections) != 1 || pc.Sections[0].Provider != "block" || pc.UsedTokens > 100 || !strings.Contains(pc.Context, "test the demo") {
		t.Fatalf("the block's context: %+v %v", pc, err)
	}
	if err := x.DeleteWorkstream(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Workstream(ctx, id); client.ErrorCode(err) != client.CodeNotFound {
		t.Fatalf("a deleted block: %v", err)
	}
}

func hasWorkstream(ws []client.Workstream, id string) bool {
	for _, w := range ws {
		if w.ID == id {
			return true
		}
	}
	return false
}

// TestRelationsAndRestore: an edge created, listed and deleted; a memory
// archived and restored; the context's new fields and its cache.
func TestRelationsAndRestore(t *testing.T) {
	ctx := context.Background()
	x, y := newClient(t, srv.agentX), newClient(t, srv.agentY)
	u := unique(t)
	res, err := x.CreateBatch(ctx, []client.NewMemory{{Content: client.Content{Text: "the launch is Friday " + u}, Type: "fact"},
		{Content: client.Content{Text: "the venue holds forty " + u}, Type: "fact"}})
	if err != nil {
		t.Fatal(err)
	}
	a, v := res[0].ID, res[1].ID
	rel, err := x.CreateRelation(ctx, client.NewRelation{FromID: a, ToID: v, Type: "depends_on"})
	if err != nil || rel.ID == "" || rel.Confidence != 1 {
		t.Fatalf("create relation: %+v %v", rel, err)
	}
	if _, err := y.CreateRelation(ctx, client.NewRelation{FromID: v, ToID: a, Type: "supports"}); client.ErrorCode(err) != client.CodeNotFound {
		t.Fatalf("another agent relates x's memories: %v", err)
	}
	rels, err := x.Relations(ctx, a)
	if err != nil || len(rels) != 1 || rels[0].ID != rel.ID {
		t.Fatalf("relations: %+v %v", rels, err)
	}
	if err := x.DeleteRelation(ctx, rel.ID); err != nil {
		t.Fatal(err)
	}
	if rels, err := x.Relations(ctx, a); err != nil || len(rels) != 0 {
		t.Fatalf("after the delete: %+v %v", rels, err)
	}

	m, err := x.Archive(ctx, v, "stale")
	if err != nil || !m.Archived {
		t.Fatalf("archive: %+v %v", m, err)
	}
	m, err = x.Restore(ctx, v)
	if err != nil || m.Archived {
		t.Fatalf("restore: %+v %v", m, err)
	}

	req := client.ContextRequest{Query: "when is the launch " + u, BudgetTokens: 800, ReserveTokens: 500,
		Providers: []string{"core", "facts", "recent"}, MessageID: "msg-" + u}
	first, err := x.Context(ctx, req)
	if err != nil || first.Cached || first.UsedTokens > 300 || len(first.Sections) != 3 || first.Sections[1].Provider != "facts" {
		t.Fatalf("context: %+v %v", first, err)
	}
	if again, err := x.Context(ctx, req); err != nil || !again.Cached {
		t.Fatalf("the same request again: %+v %v", again, err)
	}
	if _, err := x.Create(ctx, client.NewMemory{Content: client.Content{Text: "a write " + u}}); err != nil {
		t.Fatal(err)
	}
	if after, err := x.Context(ctx, req); err != nil || after.Cached {
		t.Fatalf("after a write: %+v %v", after, err)
	}
}
