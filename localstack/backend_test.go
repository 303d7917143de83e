package localstack_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring"
)

// TestBackend opens the AWS backend (wiring/aws) on LocalStack's DynamoDB
// and checks what every Lambda relies on: the declared capabilities, writes
// that reach the table and the index, and searches and reads that never
// cross an org or an agent.
func TestBackend(t *testing.T) {
	t.Parallel()
	b, _ := backend(t)
	if err := b.Caps.Require("every pipeline", wiring.Relations, wiring.Records, wiring.OrgListing); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	acme, acmeX, acmeY, globex := memory.Caller{OrgID: "acme"}, memory.Caller{OrgID: "acme", AgentID: "x"},
		memory.Caller{OrgID: "acme", AgentID: "y"}, memory.Caller{OrgID: "globex"}
	create := func(c memory.Caller, text string) string {
		t.Helper()
		res, err := b.Service.Create(ctx, c, []service.NewMemory{{Type: memory.TypeFact, Content: memory.Content{Text: text}}})
		must(t, "create", err)
		return res[0].ID
	}
	org := create(acme, "The quarterly budget review is on Thursday")
	x := create(acmeX, "Agent x keeps the budget spreadsheet")
	y := create(acmeY, "Agent y drafts the budget summary")
	g := create(globex, "Globex budget freeze until March")
	refresh(t, b)

	tests := []struct {
		name   string
		caller memory.Caller
		want   []string
	}{
		{"org caller sees the org and every agent of it", acme, []string{org, x, y}},
		{"agent x sees the org scope and its own", acmeX, []string{org, x}},
		{"agent y sees the org scope and its own", acmeY, []string{org, y}},
		{"another org sees its own only", globex, []string{g}},
	}
	for _, tc := range tests {
		for _, mode := range []service.Mode{service.ModeKeyword, service.ModeHybrid} {
			res, err := b.Service.Search(ctx, tc.caller, service.SearchRequest{Query: "budget", Mode: mode, K: 10})
			must(t, "search", err)
			var got []string
			for _, r := range res {
				got = append(got, r.Memory.ID)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Errorf("%s (%s): %v, want %v", tc.name, mode, got, want)
			}
		}
	}
	// Reads by id: across orgs and agents the memory does not exist.
	for _, tc := range []struct {
		caller memory.Caller
		id     string
	}{{globex, org}, {acme, g}, {acmeY, x}, {acmeX, y}} {
		if _, err := b.Service.Get(ctx, tc.caller, tc.id); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("%+v reads %s: %v, want not found", tc.caller, tc.id, err)
		}
	}
	if n, err := b.Service.Count(ctx, acme, memory.Filter{}); err != nil || n != 3 {
		t.Errorf("acme counts %d memories in DynamoDB (%v), want 3", n, err)
	}
}
