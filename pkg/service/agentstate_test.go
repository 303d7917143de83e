package service_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/workstream"
)

// wantCode fails t unless err has the code want ("" for nil).
func wantCode(t *testing.T, what string, err error, want string) {
	t.Helper()
	if got := memory.ErrorCode(err); got != want {
		t.Fatalf("%s: %v (code %q), want %q", what, err, got, want)
	}
}

func TestRelationsAnAgentCanUse(t *testing.T) {
	b := open(t)
	s := b.Service
	org := create(t, s, orgA, service.NewMemory{Content: text("the launch is on Friday"), Type: memory.TypeFact})[0].ID
	xs := create(t, s, agentX, service.NewMemory{Content: text("x plans the launch demo"), Type: memory.TypeFact},
		service.NewMemory{Content: text("x books the room"), Type: memory.TypeFact})
	y := create(t, s, agentY, service.NewMemory{Content: text("y thinks the launch slips"), Type: memory.TypeFact})[0].ID
	other := create(t, s, orgB, service.NewMemory{Content: text("org b's launch"), Type: memory.TypeFact})[0].ID
	x1, x2 := xs[0].ID, xs[1].ID

	rel, err := s.CreateRelation(ctx, agentX, memory.Relation{FromID: x1, ToID: org, Type: memory.RelImplements})
	wantCode(t, "x relates its fact to the org's", err, "")
	if rel.ID != memory.RelationID(x1, memory.RelImplements, org) || rel.Confidence != 1 || rel.OrgID != orgA.OrgID {
		t.Fatalf("created: %+v", rel)
	}
	_, err = s.CreateRelation(ctx, agentX, memory.Relation{FromID: x2, ToID: x1, Type: memory.RelPartOf})
	wantCode(t, "x relates two of its facts", err, "")

	for _, tc := range []struct {
		name string
		c    memory.Caller
		r    memory.Relation
		want string
	}{
		{"another org's memory at one end", orgA, memory.Relation{FromID: org, ToID: other, Type: memory.RelSupports}, memory.ENOTFOUND},
		{"org b relates org a's memories", orgB, memory.Relation{FromID: org, ToID: x1, Type: memory.RelSupports}, memory.ENOTFOUND},
		{"agent y relates agent x's memory", agentY, memory.Relation{FromID: y, ToID: x1, Type: memory.RelContradicts}, memory.ENOTFOUND},
		{"an unknown type", agentX, memory.Relation{FromID: x1, ToID: org, Type: "likes"}, memory.EINVALID},
		{"no type", agentX, memory.Relation{FromID: x1, ToID: org}, memory.EINVALID},
		{"no toId", agentX, memory.Relation{FromID: x1, Type: memory.RelEnriches}, memory.EINVALID},
		{"to itself", agentX, memory.Relation{FromID: x1, ToID: x1, Type: memory.RelRelatesTo}, memory.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateRelation(ctx, tc.c, tc.r)
			wantCode(t, "create", err, tc.want)
		})
	}

	// Listing: y sees the org's fact, but not the edge to x's.
	for _, tc := range []struct {
		c    memory.Caller
		id   string
		want int
		code string
	}{
		{agentX, org, 1, ""}, {agentX, x1, 2, ""}, {agentY, org, 0, ""}, {orgA, x1, 2, ""},
		{orgB, org, 0, memory.ENOTFOUND}, {agentY, x1, 0, memory.ENOTFOUND},
	} {
		got, err := s.Relations(ctx, tc.c, tc.id)
		wantCode(t, "relations", err, tc.code)
		if len(got) != tc.want {
			t.Errorf("%+v lists %d relations of %s, want %d: %+v", tc.c, len(got), tc.id, tc.want, got)
		}
		for _, r := range got {
			if r.ID != memory.RelationID(r.FromID, r.Type, r.ToID) {
				t.Errorf("relation without its id: %+v", r)
			}
		}
	}

	// Deleting: the caller must see both ends.
	wantCode(t, "org b deletes", s.DeleteRelation(ctx, orgB, rel.ID), memory.ENOTFOUND)
	wantCode(t, "agent y deletes", s.DeleteRelation(ctx, agentY, rel.ID), memory.ENOTFOUND)
	wantCode(t, "a bad id", s.DeleteRelation(ctx, agentX, "not-an-id"), memory.EINVALID)
	wantCode(t, "agent x deletes", s.DeleteRelation(ctx, agentX, rel.ID), "")
	wantCode(t, "deleted twice", s.DeleteRelation(ctx, agentX, rel.ID), memory.ENOTFOUND)
	if got, _ := s.Relations(ctx, orgA, org); len(got) != 0 {
		t.Fatalf("the deleted relation is still listed: %+v", got)
	}
}

func TestRestore(t *testing.T) {
	b := open(t)
	s := b.Service
	org := create(t, s, orgA, service.NewMemory{Content: text("the office is on floor 3"), Type: memory.TypeFact, Metadata: []byte(`{"src":"hr"}`)})[0].ID
	x := create(t, s, agentX, service.NewMemory{Content: text("x's desk is by the window"), Type: memory.TypeFact})[0].ID
	for _, id := range []string{org, x} {
		wantCode(t, "archive", s.Archive(ctx, orgA, id, "outdated"), "")
	}
	for _, tc := range []struct {
		name string
		c    memory.Caller
		id   string
		want string
	}{
		{"org b", orgB, org, memory.ENOTFOUND},
		{"agent y restores agent x's", agentY, x, memory.ENOTFOUND},
		{"agent x restores the org's", agentX, org, memory.EFORBIDDEN},
		{"agent x restores its own", agentX, x, ""},
		{"the org restores its own", orgA, org, ""},
		{"restoring again changes nothing", orgA, org, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := s.Restore(ctx, tc.c, tc.id)
			wantCode(t, "restore", err, tc.want)
			if err == nil && (m.Archived || strings.Contains(string(m.Metadata), "archived")) {
				t.Fatalf("restored: archived %v, metadata %s", m.Archived, m.Metadata)
			}
		})
	}
	m, err := s.Get(ctx, orgA, org)
	wantCode(t, "get", err, "")
	if m.Archived || string(m.Metadata) != `{"src":"hr"}` {
		t.Fatalf("after restore: archived %v, metadata %s", m.Archived, m.Metadata)
	}
	h, err := b.Store.History(ctx, orgA.OrgID, org)
	wantCode(t, "history", err, "")
	var ops []string
	for _, r := range h {
		ops = append(ops, r.Op)
	}
	if strings.Join(ops, ",") != "create,archive,restore" {
		t.Fatalf("history ops: %v", ops)
	}
	found, err := s.Search(ctx, orgA, service.SearchRequest{Query: "office floor", K: 5})
	wantCode(t, "search", err, "")
	if len(found) == 0 || found[0].Memory.ID != org {
		t.Fatalf("the restored memory is not found by search: %+v", found)
	}
}

func TestContextCarriesTheMemoryBlock(t *testing.T) {
	b := open(t)
	s := b.Service
	create(t, s, agentX, service.NewMemory{Content: text("the launch is on Friday"), Type: memory.TypeFact})
	w, err := b.Workstreams.Create(ctx, agentX, workstream.NewWorkstream{ID: "launch", Name: "Launch plan"})
	wantCode(t, "create workstream", err, "")
	for _, e := range []workstream.NewEntry{{Role: "chief", Text: "ship on Friday"}, {Role: "cto", Text: "freeze the schema on Wednesday"}} {
		_, err := b.Workstreams.Append(ctx, agentX, w.ID, e)
		wantCode(t, "append", err, "")
	}
	res, err := s.BuildContext(ctx, agentX, service.ContextRequest{Query: "when is the launch", WorkstreamID: "launch", BudgetTokens: 500})
	wantCode(t, "context", err, "")
	if !strings.Contains(res.Context, "## Memory block (Launch plan)\n- chief: ship on Friday\n- cto: freeze the schema on Wednesday") {
		t.Fatalf("the context lacks the block:\n%s", res.Context)
	}
	var names []string
	for _, sec := range res.Sections {
		names = append(names, sec.Name)
	}
	if names[1] != "block" || res.Sections[1].Tokens == 0 || res.UsedTokens > 500 {
		t.Fatalf("sections %v, block %+v, used %d", names, res.Sections[1], res.UsedTokens)
	}
	// Only the block: no query, no room.
	res, err = s.BuildContext(ctx, agentX, service.ContextRequest{WorkstreamID: "launch"})
	wantCode(t, "block alone", err, "")
	if !strings.Contains(res.Context, "- chief: ship on Friday") {
		t.Fatalf("the context lacks the block:\n%s", res.Context)
	}
	for _, tc := range []struct {
		name string
		c    memory.Caller
		id   string
		want string
	}{
		{"another agent's block", agentY, "launch", memory.ENOTFOUND},
		{"another org's block", orgB, "launch", memory.ENOTFOUND},
		{"an absent block", agentX, "nope", memory.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.BuildContext(ctx, tc.c, service.ContextRequest{Query: "launch", WorkstreamID: tc.id})
			wantCode(t, "context", err, tc.want)
		})
	}
}

func TestContextShowsContestedFactsTogether(t *testing.T) {
	b := open(t)
	s := b.Service
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	old := create(t, s, orgA, service.NewMemory{Content: text("Ana plays jazz piano"), Type: memory.TypeFact, CreatedAt: day.UnixMilli()})[0].ID
	meta, _ := json.Marshal(map[string]any{"contested": true, "contestedWith": []string{old}})
	cur := create(t, s, orgA, service.NewMemory{Content: text("Ana does not play any instrument"), Type: memory.TypeFact,
		CreatedAt: day.AddDate(0, 1, 0).UnixMilli(), Metadata: meta})[0].ID
	meta, _ = json.Marshal(map[string]any{"contested": true, "contestedWith": []string{cur}})
	_, err := s.Update(ctx, orgA, old, service.Patch{Metadata: (*json.RawMessage)(&meta)})
	wantCode(t, "mark the old fact", err, "")
	create(t, s, orgA, service.NewMemory{Content: text("Ana likes window seats"), Type: memory.TypeFact})

	res, err := s.BuildContext(ctx, orgA, service.ContextRequest{Query: "does Ana play an instrument", BudgetTokens: 500})
	wantCode(t, "context", err, "")
	var contested []string
	for _, line := range strings.Split(res.Context, "\n") {
		if strings.HasPrefix(line, "- [contested] ") {
			contested = append(contested, line)
		}
	}
	if len(contested) != 2 {
		t.Fatalf("want both contested facts marked, got %q in\n%s", contested, res.Context)
	}
	joined := strings.Join(contested, "\n")
	for _, want := range []string{"2026-03-01) Ana plays jazz piano", "2026-04-01) Ana does not play any instrument"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %q among %q", want, contested)
		}
	}
	if !strings.Contains(res.Context, contested[0]+"\n"+contested[1]) {
		t.Errorf("the contested facts are not shown together:\n%s", res.Context)
	}
}
