package mcp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestIsolation crosses orgs (b reads and deletes org a's memories) and
// agents (y, x's) with every tool, as TestTenantIsolation does on the HTTP
// API; each case first checks that the owner does reach the memory, so
// that no check passes by finding nothing at all. The org comes from the
// key: no argument names one.
func TestIsolation(t *testing.T) {
	e := server(t)
	sess := map[string]*sdk.ClientSession{}
	for _, who := range []string{"a", "b", "x", "y"} {
		sess[who] = connectHTTP(t, e, who)
	}
	// The victims: an org-a memory (written by the org-level key, in the
	// org scope) and an agent-x memory.
	type victim struct {
		owner, text, entity, session, query string
		id                                  string
	}
	victims := map[string]*victim{
		"org": {owner: "a", text: "Marguerite keeps the spare passport in the blue folder", entity: "marguerite", session: "iso-a",
			query: "spare passport blue folder"},
		"agent": {owner: "x", text: "Agent X private note: the warehouse alarm code is kept by Bartholomew", entity: "bartholomew", session: "iso-x",
			query: "warehouse alarm code"},
	}
	for _, v := range victims {
		var out mcp.RememberOutput
		mustCall(t, sess[v.owner], mcp.ToolRemember, map[string]any{"content": v.text, "entityId": v.entity, "sessionId": v.session}, &out)
		v.id = out.ID
	}
	listed := func(who string, args map[string]any) []string {
		t.Helper()
		var page mcp.ListOutput
		mustCall(t, sess[who], mcp.ToolList, args, &page)
		return ids(page.Memories, func(m mcp.Memory) string { return m.ID })
	}
	recalled := func(who string, v *victim, mode string) []string {
		t.Helper()
		var out mcp.RecallOutput
		mustCall(t, sess[who], mcp.ToolRecall, map[string]any{"query": v.query, "mode": mode, "k": 100}, &out)
		return ids(out.Results, func(r mcp.RecallResult) string { return r.ID })
	}
	contextOf := func(who string, v *victim) string {
		t.Helper()
		var out mcp.ContextOutput
		mustCall(t, sess[who], mcp.ToolGetContext, map[string]any{"query": v.query, "budgetTokens": 4000}, &out)
		return out.Context
	}
	known := func(who string, v *victim) []string {
		t.Helper()
		var out mcp.KnowledgeOutput
		mustCall(t, sess[who], mcp.ToolKnowledgeSearch, map[string]any{"query": map[string]any{"terms": strings.Fields(v.query)}, "limit": 100}, &out)
		return ids(out.Memories, func(m mcp.KnowledgeMemory) string { return m.ID })
	}
	stillThere := func(t *testing.T, v *victim) {
		t.Helper()
		if !slices.Contains(listed(v.owner, map[string]any{"sessionId": v.session}), v.id) {
			t.Fatalf("%s's memory %s is gone", v.owner, v.id)
		}
	}

	for _, tc := range []struct {
		name, victim, who string
	}{
		{"org b vs org a", "org", "b"},
		{"agent y vs agent x", "agent", "y"},
	} {
		v := victims[tc.victim]
		t.Run(tc.name, func(t *testing.T) {
			cases := []struct {
				tool string
				run  func(t *testing.T)
			}{
				{mcp.ToolRecall, func(t *testing.T) {
					for _, mode := range []string{"full", "hybrid", "semantic", "keyword", "knowledge"} {
						if (mode == "full" || mode == "hybrid" || mode == "keyword") && !slices.Contains(recalled(v.owner, v, mode), v.id) { // the lists that match its words
							t.Fatalf("the owner does not recall %s in %s mode", v.id, mode)
						}
						if got := recalled(tc.who, v, mode); slices.Contains(got, v.id) {
							t.Fatalf("%s recalls %s in %s mode", tc.who, v.id, mode)
						}
					}
				}},
				{mcp.ToolList, func(t *testing.T) {
					if !slices.Contains(listed(v.owner, map[string]any{"limit": 1000}), v.id) {
						t.Fatalf("the owner does not list %s", v.id)
					}
					if got := listed(tc.who, map[string]any{"limit": 1000}); slices.Contains(got, v.id) {
						t.Fatalf("%s lists %s", tc.who, v.id)
					}
					if got := listed(tc.who, map[string]any{"sessionId": v.session}); len(got) != 0 {
						t.Fatalf("%s lists %v in %s's session", tc.who, got, v.owner)
					}
					if tc.who == "y" {
						wantError(t, call(t, sess["y"], mcp.ToolList, map[string]any{"agentId": "x"}, nil), memory.EFORBIDDEN)
					}
				}},
				{mcp.ToolGetContext, func(t *testing.T) {
					if !strings.Contains(contextOf(v.owner, v), v.text) {
						t.Fatalf("the owner's context lacks %q", v.text)
					}
					if got := contextOf(tc.who, v); strings.Contains(got, v.entity) || strings.Contains(strings.ToLower(got), strings.ToLower(v.entity)) {
						t.Fatalf("%s's context shows %s's memory: %q", tc.who, v.owner, got)
					}
				}},
				{mcp.ToolKnowledgeSearch, func(t *testing.T) {
					if !slices.Contains(known(v.owner, v), v.id) {
						t.Fatalf("the owner's knowledge search misses %s", v.id)
					}
					if got := known(tc.who, v); slices.Contains(got, v.id) {
						t.Fatalf("%s's knowledge search finds %s", tc.who, v.id)
					}
					if tc.who == "y" {
						wantError(t, call(t, sess["y"], mcp.ToolKnowledgeSearch, map[string]any{"text": v.query, "agentId": "x"}, nil), memory.EFORBIDDEN)
					}
				}},
				{mcp.ToolForget, func(t *testing.T) {
					wantError(t, call(t, sess[tc.who], mcp.ToolForget, map[string]any{"id": v.id}, nil), memory.ENOTFOUND)
					var out mcp.ForgetOutput
					for _, args := range []map[string]any{{"entity": v.entity}, {"sessionId": v.session}} {
						mustCall(t, sess[tc.who], mcp.ToolForget, args, &out)
						if out.Deleted != 0 || out.Matched != 0 {
							t.Fatalf("%s's erasure %v reached %s's memories: %+v", tc.who, args, v.owner, out)
						}
					}
					if tc.who == "y" {
						wantError(t, call(t, sess["y"], mcp.ToolForget, map[string]any{"sessionId": v.session, "agentId": "x"}, nil), memory.EFORBIDDEN)
					}
					stillThere(t, v)
				}},
				{mcp.ToolRemember, func(t *testing.T) {
					if tc.who == "y" {
						wantError(t, call(t, sess["y"], mcp.ToolRemember, map[string]any{"content": "written for agent x by agent y", "agentId": "x"}, nil), memory.EFORBIDDEN)
					}
					// No argument names an org: one given is refused, and
					// nothing reaches the victim's org.
					res := call(t, sess[tc.who], mcp.ToolRemember, map[string]any{"content": "planted into another org", "orgId": "org-a", "sessionId": v.session}, nil)
					if !res.IsError || !strings.Contains(text(res), "orgId") {
						t.Fatalf("remember with orgId: %v %q", res.IsError, text(res))
					}
					if got := listed(v.owner, map[string]any{"sessionId": v.session}); !slices.Equal(got, []string{v.id}) {
						t.Fatalf("%s's session holds %v, want only %s", v.owner, got, v.id)
					}
				}},
			}
			for _, c := range cases {
				t.Run(c.tool, c.run)
			}
		})
	}
}

// TestForgetOrgScope: forget by id follows the HTTP API's rule of a single
// delete (the service's): an agent-bound key cannot delete an org-scope
// memory, which every agent shares, unless it holds delete:org; with it,
// the memory is gone for everyone.
func TestForgetOrgScope(t *testing.T) {
	e := server(t)
	sess := map[string]*sdk.ClientSession{}
	for _, who := range []string{"a", "x", "xd"} {
		sess[who] = connectHTTP(t, e, who)
	}
	var rem mcp.RememberOutput
	mustCall(t, sess["a"], mcp.ToolRemember, map[string]any{"content": "The office wifi password rotates every Monday", "sessionId": "forget-org"}, &rem)
	wantError(t, call(t, sess["x"], mcp.ToolForget, map[string]any{"id": rem.ID}, nil), memory.EFORBIDDEN)
	var page mcp.ListOutput
	mustCall(t, sess["a"], mcp.ToolList, map[string]any{"sessionId": "forget-org"}, &page)
	if len(page.Memories) != 1 {
		t.Fatalf("after agent x's refused forget, org a lists %d memories, want 1", len(page.Memories))
	}
	var out mcp.ForgetOutput
	mustCall(t, sess["xd"], mcp.ToolForget, map[string]any{"id": rem.ID}, &out)
	if out.Deleted != 1 {
		t.Fatalf("forget with delete:org deleted %d, want 1", out.Deleted)
	}
	mustCall(t, sess["a"], mcp.ToolList, map[string]any{"sessionId": "forget-org"}, &page)
	if len(page.Memories) != 0 {
		t.Fatalf("org a still lists %d memories after the forget", len(page.Memories))
	}
}
