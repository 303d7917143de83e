package extract_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
)

// TestDualWritesOrgFacts: under dual writes (the deployment's or the
// org's setting), a fact about the org learnt in an agent's conversation
// is written to the org scope and to the agent's, linked by relates_to;
// another agent sees the org's only. Off, nothing is copied.
func TestDualWritesOrgFacts(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		name       string
		deployment bool
		setting    *bool
		dual       bool
	}{
		{"off by default", false, nil, false},
		{"on for the deployment", true, nil, true},
		{"on by the org's setting", false, &on, true},
		{"off by the org's setting", true, &off, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, svc := backend(t, extract.Local{})
			p.DualWriteOrgFacts = tc.deployment
			p.Settings = fixedSettings{set: memory.ExtractionSettings{DualWriteOrgFacts: tc.setting}}
			org, a1, a2 := memory.Caller{OrgID: "acme"}, memory.Caller{OrgID: "acme", AgentID: "a1"}, memory.Caller{OrgID: "acme", AgentID: "a2"}
			out, err := p.Process(ctx, a1, converse(t, svc, a1, "Ana: Our company is hiring two designers.", "Ana: I'm vegan."))
			if err != nil || len(out) != 2 {
				t.Fatalf("%+v %v", out, err)
			}
			var company extract.Outcome
			for _, o := range out {
				if o.Fact.Subject != "Ana" {
					company = o
				} else if o.CopyID != "" {
					t.Fatalf("a personal fact was copied: %+v", o)
				}
			}
			if (company.CopyID != "") != tc.dual {
				t.Fatalf("copy %q, want a copy: %v", company.CopyID, tc.dual)
			}
			if !tc.dual {
				if m, err := svc.Get(ctx, org, company.ID); err != nil || m.AgentID != "a1" {
					t.Fatalf("without dual writes nor promotion the fact stays with a1: %+v %v", m, err)
				}
				return
			}
			orgFact, err := svc.Get(ctx, org, company.ID)
			if err != nil || orgFact.AgentID != "" {
				t.Fatalf("the org's fact: %+v %v", orgFact, err)
			}
			cp, err := svc.Get(ctx, org, company.CopyID)
			if err != nil || cp.AgentID != "a1" || cp.Content.Text != orgFact.Content.Text {
				t.Fatalf("a1's copy: %+v %v", cp, err)
			}
			rels, err := svc.Relations(ctx, a1, company.CopyID)
			if err != nil {
				t.Fatal(err)
			}
			linked := false
			for _, r := range rels {
				linked = linked || (r.Type == memory.RelRelatesTo && r.FromID == cp.ID && r.ToID == orgFact.ID)
			}
			if !linked {
				t.Fatalf("the copy is not linked to the org's fact: %+v", rels)
			}
			seen := facts(t, svc, a2)
			if seen[orgFact.Content.Text] == nil || seen[orgFact.Content.Text].ID != orgFact.ID || len(seen) != 1 {
				t.Fatalf("a2 sees %v, want the org's fact only", seen)
			}
		})
	}
}
