package extract_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/service"
)

// facts lists the live facts caller c can see.
func facts(t *testing.T, svc *service.Service, c memory.Caller) map[string]*memory.Memory {
	t.Helper()
	page, err := svc.List(ctx, c, memory.Filter{Types: []memory.Type{memory.TypeFact}}, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*memory.Memory{}
	for _, m := range page.Memories {
		out[m.Content.Text] = m
	}
	return out
}

// TestAgentFactsArePrivate: facts drawn from an agent-bound conversation
// go to that agent's scope; another agent of the org sees none of them,
// by search or list; only a fact about the org itself is promoted, and
// only when the pipeline allows agents to.
func TestAgentFactsArePrivate(t *testing.T) {
	p, _, svc := backend(t, extract.Local{})
	org, a1, a2 := memory.Caller{OrgID: "acme"}, memory.Caller{OrgID: "acme", AgentID: "a1"}, memory.Caller{OrgID: "acme", AgentID: "a2"}

	out, err := p.Process(ctx, a1, converse(t, svc, a1, "Ana: I'm allergic to penicillin.", "Ana: We as a company are moving our HQ to Austin."))
	if err != nil || len(out) != 2 {
		t.Fatalf("a1's conversation: %+v %v", out, err)
	}
	for _, o := range out {
		m, err := svc.Get(ctx, org, o.ID)
		if err != nil || m.AgentID != "a1" || o.AgentID != "a1" {
			t.Fatalf("%q written to scope %q (%v), want a1's", o.Fact.Text, m.AgentID, err)
		}
	}
	if res, err := svc.Search(ctx, a2, service.SearchRequest{Query: "Ana allergic penicillin HQ Austin"}); err != nil || len(res) != 0 {
		t.Fatalf("a2 finds a1's memories: %+v %v", res, err)
	}
	if fs := facts(t, svc, a2); len(fs) != 0 {
		t.Fatalf("a2 lists a1's facts: %v", fs)
	}
	if fs := facts(t, svc, a1); fs["Ana is allergic to penicillin"] == nil {
		t.Fatalf("a1 does not see its own fact: %v", fs)
	}

	// With org facts allowed from agents, the fact about the company goes
	// to the org scope, the personal one stays with a1.
	p.OrgFactsFromAgents = true
	out, err = p.Process(ctx, a1, converse(t, svc, a1, "Ana: Our company is hiring two designers.", "Ana: I'm vegan."))
	if err != nil || len(out) != 2 {
		t.Fatalf("%+v %v", out, err)
	}
	seen := facts(t, svc, a2)
	if seen["The company is hiring two designers"] == nil || seen["Ana is vegan"] != nil || len(seen) != 1 {
		t.Fatalf("a2 sees %v, want the company fact only", seen)
	}

	// An org-level job over messages written in a3's scope writes there.
	res, err := svc.Create(ctx, org, []service.NewMemory{{Type: memory.TypeMessage, AgentID: "a3", RoomID: "r", EntityID: "Bo",
		Content: memory.Content{Text: "My manager is Li."}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err = p.Run(ctx, extract.Job{OrgID: "acme", MessageIDs: []string{res[0].ID}})
	if err != nil || len(out) != 1 || out[0].AgentID != "a3" {
		t.Fatalf("org job over a3's messages: %+v %v", out, err)
	}
	if m, _ := svc.Get(ctx, org, out[0].ID); m.AgentID != "a3" {
		t.Fatalf("written to %q, want a3", m.AgentID)
	}

	// Classification looks in the scope the fact goes to: a2's "I love
	// jazz" is no contradiction of a1's "I hate jazz".
	if _, err := p.Process(ctx, a2, converse(t, svc, a2, "Cy: I love jazz.")); err != nil {
		t.Fatal(err)
	}
	out, err = p.Process(ctx, a1, converse(t, svc, a1, "Cy: I hate jazz."))
	if err != nil || len(out) != 1 || out[0].Decision != extract.New {
		t.Fatalf("a1's fact was compared with a2's: %+v %v", out, err)
	}
	// But an agent does not write again what the org already knows.
	if _, err := p.Process(ctx, org, converse(t, svc, org, "Dee: I live in Oslo.")); err != nil {
		t.Fatal(err)
	}
	out, err = p.Process(ctx, a1, converse(t, svc, a1, "Dee: I live in Oslo!"))
	if err != nil || len(out) != 1 || out[0].Decision != extract.Duplicate {
		t.Fatalf("a1 rewrote an org fact: %+v %v", out, err)
	}
}
