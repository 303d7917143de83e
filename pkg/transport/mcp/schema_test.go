package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/transport/mcp"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSchemas reads the tool list a model sees (in process, over the
// SDK's in-memory transport): every input property is described, unknown
// arguments are refused, and the closed sets are enums.
func TestSchemas(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(64), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	srv := mcp.New(b.Service, mcp.WithKnowledge(b.Knowledge)).ForCaller(mcp.Request{Caller: memory.Caller{OrgID: "o", Grants: memory.AllGrants}})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Type                 any                `json:"type"`
		Required             []string           `json:"required"`
		AdditionalProperties any                `json:"additionalProperties"`
		Properties           map[string]*schema `json:"properties"`
		Description          string             `json:"description"`
		Enum                 []any              `json:"enum"`
		Items                *schema            `json:"items"`
	}
	tools := map[string]schema{}
	for _, tl := range res.Tools {
		var s schema
		js, _ := json.Marshal(tl.InputSchema)
		if err := json.Unmarshal(js, &s); err != nil {
			t.Fatal(err)
		}
		tools[tl.Name] = s
		if s.Type != "object" || s.AdditionalProperties != false {
			t.Errorf("%s: input schema %s, want a closed object", tl.Name, js)
		}
		for name, p := range s.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", tl.Name, name)
			}
		}
		if tl.Annotations == nil {
			t.Errorf("%s has no annotations", tl.Name)
		}
	}
	tests := []struct {
		tool, prop string
		required   bool
		enum       []any // a few of the values
	}{
		{mcp.ToolRemember, "content", true, nil},
		{mcp.ToolRemember, "type", false, []any{"fact", "message"}},
		{mcp.ToolRemember, "scope", false, []any{"org", "agent"}},
		{mcp.ToolRecall, "query", true, nil},
		{mcp.ToolRecall, "mode", false, []any{"full", "keyword", "semantic"}},
		{mcp.ToolRecall, "types", false, []any{"fact", "fragment"}},
		{mcp.ToolGetContext, "query", true, nil},
		{mcp.ToolForget, "id", false, nil},
		{mcp.ToolList, "cursor", false, nil},
		{mcp.ToolKnowledgeSearch, "text", false, nil},
	}
	for _, tc := range tests {
		s, ok := tools[tc.tool]
		if !ok {
			t.Fatalf("no tool %s", tc.tool)
		}
		p := s.Properties[tc.prop]
		if p == nil {
			t.Fatalf("%s has no %s", tc.tool, tc.prop)
		}
		if got := slices.Contains(s.Required, tc.prop); got != tc.required {
			t.Errorf("%s.%s required: %v, want %v", tc.tool, tc.prop, got, tc.required)
		}
		enum := p.Enum
		if p.Items != nil {
			enum = p.Items.Enum
		}
		for _, v := range tc.enum {
			if !slices.Contains(enum, v) {
				t.Errorf("%s.%s enum %v lacks %v", tc.tool, tc.prop, enum, v)
			}
		}
	}
}

// BenchmarkForCaller is what a server per request would cost (the SDK
// validates each tool's schemas as it is added): why Handler shares one
// server and passes the caller in the context.
func BenchmarkForCaller(b *testing.B) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	bk, err := local.Open(context.Background(), b.TempDir(), hashing.New(64), log)
	if err != nil {
		b.Fatal(err)
	}
	defer bk.Close()
	s := mcp.New(bk.Service, mcp.WithKnowledge(bk.Knowledge))
	r := mcp.Request{Caller: memory.Caller{OrgID: "o", Grants: memory.AllGrants}}
	b.ReportAllocs()
	for b.Loop() {
		s.ForCaller(r)
	}
}

// BenchmarkHandlerToolsList is one stateless MCP request over HTTP
// (tools/list), through the API's mount and authentication.
func BenchmarkHandlerToolsList(b *testing.B) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	bk, err := local.Open(context.Background(), b.TempDir(), hashing.New(64), log)
	if err != nil {
		b.Fatal(err)
	}
	defer bk.Close()
	const key = "bench-key-00000000000"
	km, err := auth.ParseKeys(key + "=org-bench")
	if err != nil {
		b.Fatal(err)
	}
	api := httpapi.New(bk.Service, km, log, httpapi.WithMount("/mcp", mcp.New(bk.Service, mcp.WithKnowledge(bk.Knowledge)).Handler()))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"recall"`) {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}
