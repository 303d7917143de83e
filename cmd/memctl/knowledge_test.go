package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// TestKnowledgeCommand runs memctl knowledge on a data directory written by
// the embedded backend: tables and JSON, the org and agent of the flags.
func TestKnowledgeCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := local.Open(ctx, dir, hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := func(speaker, text string, at int64) service.NewMemory {
		return service.NewMemory{Type: memory.TypeMessage, EntityID: speaker, RoomID: "chat", Content: memory.Content{Text: text}, CreatedAt: at}
	}
	if _, err := b.Service.Create(ctx, memory.Caller{OrgID: "acme"}, []service.NewMemory{
		msg("Ana", "I tried fencing last week and I loved it.", 1_683_000_000_000),
		msg("Bo", "My sister Maria started climbing at the gym in Lisbon.", 1_684_000_000_000),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Service.Create(ctx, memory.Caller{OrgID: "acme", AgentID: "y"}, []service.NewMemory{
		msg("Yoav", "I practice archery in Marrakesh.", 1_685_000_000_000)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Service.Create(ctx, memory.Caller{OrgID: "other"}, []service.NewMemory{
		msg("Olga", "I tried rowing in Kyoto.", 1_685_000_000_000)}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	t.Setenv("DATA_DIR", dir)
	t.Setenv("BACKEND", "")
	t.Setenv("LLM_PROVIDER", "none")

	tests := []struct {
		name    string
		args    []string
		want    []string // in the output
		notWant []string
		err     string
	}{
		{name: "search a question", args: []string{"search", "-org", "acme", "What", "sports", "did", "they", "try?"},
			want: []string{"expression:", "fencing", "climbing", "archery", "memories (3)"}, notWant: []string{"rowing"}},
		{name: "search as an agent", args: []string{"search", "-org", "acme", "-agent", "x", "-query", `{"select": {"entity": {"types": ["sport"]}}}`},
			want: []string{"fencing", "climbing", "memories (2)"}, notWant: []string{"archery", "rowing"}},
		{name: "search in a time range", args: []string{"search", "-org", "acme", "-start", "2023-05-10T00:00:00Z", "-end", "1684500000000", "-query", `{"terms": ["climbing", "fencing"]}`},
			want: []string{"climbing", "memories (1)"}, notWant: []string{"fencing last week"}},
		{name: "search as JSON", args: []string{"search", "-org", "acme", "-json", "-query", `{"select": {"entity": {"name": "Lisbon"}}}`},
			want: []string{`"expression"`, `"name": "Lisbon"`, `"sources"`}},
		{name: "entities of a type", args: []string{"entities", "-org", "acme", "-type", "person"},
			want: []string{"NAME", "ana", "bo", "maria", "yoav"}, notWant: []string{"olga", "fencing"}},
		{name: "entities page", args: []string{"entities", "-org", "acme", "-type", "person", "-limit", "1"},
			want: []string{"ana", "next page: -cursor"}, notWant: []string{"maria"}},
		{name: "entities of the org scope", args: []string{"entities", "-org", "acme", "-scope", "_org", "-prefix", "y"},
			notWant: []string{"yoav"}},
		{name: "topics as JSON", args: []string{"topics", "-org", "acme", "-json"}, want: []string{`"topics"`, `"nextCursor"`}},
		{name: "terms", args: []string{"terms", "-org", "acme", "li"}, want: []string{"TERM", "lisbon", "entity", "name"}},
		{name: "terms of another org", args: []string{"terms", "-org", "other", "ky"}, want: []string{"kyoto"}, notWant: []string{"lisbon"}},
		{name: "no org", args: []string{"terms", "li"}, err: "-org is required"},
		{name: "unknown command", args: []string{"people", "-org", "acme"}, err: `unknown command "people"`},
		{name: "bad expression", args: []string{"search", "-org", "acme", "-query", `{"select": {"entity": {}}}`}, err: "query.select.entity: one of name, types, facets required"},
		{name: "another agent", args: []string{"entities", "-org", "acme", "-agent", "x", "-scope", "y"}, err: "bound to agent"},
		{name: "bad time", args: []string{"entities", "-org", "acme", "-start", "soon"}, err: `-start: "soon"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := knowledgeCmd(ctx, tc.args, &out)
			if tc.err != "" {
				if err == nil || !strings.Contains(memory.ErrorMessage(err)+err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			low := strings.ToLower(out.String())
			for _, w := range tc.want {
				if !strings.Contains(low, strings.ToLower(w)) {
					t.Fatalf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(low, strings.ToLower(w)) {
					t.Fatalf("output has %q:\n%s", w, out.String())
				}
			}
			if strings.Contains(strings.Join(tc.args, " "), "-json") && !json.Valid(out.Bytes()) {
				t.Fatalf("not JSON:\n%s", out.String())
			}
		})
	}
}
