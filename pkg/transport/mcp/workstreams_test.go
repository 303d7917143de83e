package mcp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// post sends body to path of memoryd as who and fails t unless it answers
// want.
func post(t *testing.T, e *env, who, path, body string, want int) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+keys[who])
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != want {
		t.Fatalf("POST %s as %s: %d, want %d", path, who, res.StatusCode, want)
	}
}

// TestWorkstreamTools reads and appends to memory blocks through MCP, with
// the blocks' isolation: another agent, another org and another user see
// nothing, a read-only key appends nothing.
func TestWorkstreamTools(t *testing.T) {
	e := server(t)
	x, y, b, ro, a := connectHTTP(t, e, "x"), connectHTTP(t, e, "y"), connectHTTP(t, e, "b"), connectHTTP(t, e, "ro"), connectHTTP(t, e, "a")
	post(t, e, "x", "/v1/workstreams", `{"id":"mcp-launch","name":"Launch"}`, http.StatusCreated)
	post(t, e, "a", "/v1/workstreams", `{"id":"mcp-bob","visibility":"user","userId":"bob"}`, http.StatusCreated)

	var out mcp.WorkstreamOutput
	mustCall(t, x, mcp.ToolWorkstreamAppend, map[string]any{"id": "mcp-launch", "role": "chief", "text": "ship on Friday"}, &out)
	mustCall(t, x, mcp.ToolWorkstreamAppend, map[string]any{"id": "mcp-launch", "role": "cto", "text": "freeze the schema", "importance": 0.9}, &out)
	if len(out.Entries) != 2 || out.Entries[1].Role != "cto" || out.Entries[1].Importance != 0.9 || out.Name != "Launch" {
		t.Fatalf("appended: %+v", out)
	}
	var got mcp.WorkstreamOutput
	mustCall(t, x, mcp.ToolWorkstreamGet, map[string]any{"id": "mcp-launch"}, &got)
	if len(got.Entries) != 2 || got.Entries[0].Text != "ship on Friday" || got.Entries[0].At == "" || got.Limit != 15 {
		t.Fatalf("read: %+v", got)
	}
	mustCall(t, a, mcp.ToolWorkstreamGet, map[string]any{"id": "mcp-bob", "userId": "bob"}, &got)
	for _, tc := range []struct {
		name string
		sess *sdk.ClientSession
		tool string
		args map[string]any
		code string
	}{
		{"another agent reads", y, mcp.ToolWorkstreamGet, map[string]any{"id": "mcp-launch"}, memory.ENOTFOUND},
		{"another org reads", b, mcp.ToolWorkstreamGet, map[string]any{"id": "mcp-launch"}, memory.ENOTFOUND},
		{"another agent appends", y, mcp.ToolWorkstreamAppend, map[string]any{"id": "mcp-launch", "role": "y", "text": "hijack"}, memory.ENOTFOUND},
		{"acting for alice reads bob's", a, mcp.ToolWorkstreamGet, map[string]any{"id": "mcp-bob", "userId": "alice"}, memory.ENOTFOUND},
		{"a read-only key appends", ro, mcp.ToolWorkstreamAppend, map[string]any{"id": "mcp-bob", "role": "r", "text": "t"}, memory.EFORBIDDEN},
		{"an empty role", x, mcp.ToolWorkstreamAppend, map[string]any{"id": "mcp-launch", "role": "", "text": "t"}, memory.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, call(t, tc.sess, tc.tool, tc.args, nil), tc.code)
		})
	}
}

// TestContextProvidersAndCache: get_context with three providers and a
// reserve stays within the budget, in that order; the same request is
// served from memoryd's cache until a write.
func TestContextProvidersAndCache(t *testing.T) {
	e := server(t)
	x := connectHTTP(t, e, "x")
	mustCall(t, x, mcp.ToolRemember, map[string]any{"content": "The cache test launch is on Friday"}, nil)
	post(t, e, "x", "/v1/workstreams", `{"id":"mcp-cache","name":"Cache"}`, http.StatusCreated)
	mustCall(t, x, mcp.ToolWorkstreamAppend, map[string]any{"id": "mcp-cache", "role": "chief", "text": "ship on Friday"}, nil)
	args := map[string]any{"query": "when is the cache test launch", "budgetTokens": 800, "reserveTokens": 500, "workstreamId": "mcp-cache",
		"providers": []string{"block", "facts", "recent"}, "messageId": "mcp-msg-1"}
	var first, second, third mcp.ContextOutput
	mustCall(t, x, mcp.ToolGetContext, args, &first)
	var order []string
	for _, s := range first.Sections {
		order = append(order, s.Provider)
	}
	if strings.Join(order, ",") != "block,facts,recent" || first.UsedTokens > 300 || first.Sections[0].Tokens == 0 || first.Cached {
		t.Fatalf("first: %+v", first)
	}
	mustCall(t, x, mcp.ToolGetContext, args, &second)
	if !second.Cached || second.Context != first.Context {
		t.Fatalf("the second identical request was composed again: %+v", second)
	}
	mustCall(t, x, mcp.ToolRemember, map[string]any{"content": "The cache test venue is booked"}, nil)
	mustCall(t, x, mcp.ToolGetContext, args, &third)
	if third.Cached {
		t.Fatal("a write did not invalidate the cached context")
	}
}
