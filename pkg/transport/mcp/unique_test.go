package mcp_test

import (
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/transport/mcp"
)

// TestListUnique: the list tool's unique argument keeps the newest memory
// of each content, over every page of a cursor chain.
func TestListUnique(t *testing.T) {
	e := server(t)
	a := connectHTTP(t, e, "a")
	session := "unique-" + strings.ReplaceAll(t.Name(), "/", "-")
	for _, text := range []string{"yes", "no", "yes", "maybe", "no", "yes"} {
		var out mcp.RememberOutput
		mustCall(t, a, mcp.ToolRemember, map[string]any{"content": text, "type": "message", "sessionId": session}, &out)
	}
	for _, tc := range []struct {
		name   string
		unique bool
		want   int
	}{{"every turn", false, 6}, {"one per content", true, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			var texts []string
			cursor := ""
			for range 10 {
				var page mcp.ListOutput
				mustCall(t, a, mcp.ToolList, map[string]any{"sessionId": session, "limit": 1, "unique": tc.unique, "cursor": cursor}, &page)
				for _, m := range page.Memories {
					texts = append(texts, m.Text)
				}
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
			seen := map[string]bool{}
			for _, s := range texts {
				if tc.unique && seen[s] {
					t.Fatalf("%q listed twice: %v", s, texts)
				}
				seen[s] = true
			}
			if len(texts) != tc.want || len(seen) != 3 {
				t.Fatalf("listed %v, want %d memories of 3 contents", texts, tc.want)
			}
		})
	}
}
