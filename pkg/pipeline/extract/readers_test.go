package extract_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/service"
)

// looseCiter is an extractor that cites loosely, as a model may: one fact
// holding every turn it read, citing only the first. It records what each
// call read.
type looseCiter struct{ calls *[][]string }

func (l looseCiter) Name() string { return "loose" }

func (l looseCiter) Extract(_ context.Context, turns []extract.Turn) ([]extract.Fact, error) {
	var texts, ids []string
	for _, t := range turns {
		texts, ids = append(texts, t.Text), append(ids, t.ID)
	}
	*l.calls = append(*l.calls, ids)
	return []extract.Fact{{Text: "Noted: " + strings.Join(texts, " / "), Subject: "room", Sources: ids[:1], Confidence: 0.9, Importance: 0.5,
		Durability: memory.DurabilityStandard, Kind: memory.KindFact}}, nil
}

// TestFactsNeverReadPastTheirReaders: a job holding the room's turns and an
// end user's own turn extracts once per audience, and the room's extraction
// never reads Bob's own turn, so a fact citing only a room turn cannot
// carry it to Alice.
func TestFactsNeverReadPastTheirReaders(t *testing.T) {
	var calls [][]string
	p, svc := setup(t, looseCiter{calls: &calls})
	org := memory.Caller{OrgID: "acme"}
	msg := func(speaker, user, vis, say string, at int64) service.NewMemory {
		return service.NewMemory{Type: memory.TypeMessage, RoomID: "r1", EntityID: speaker, UserID: user, Visibility: vis, Content: memory.Content{Text: say}, CreatedAt: at}
	}
	res, err := svc.Create(ctx, org, []service.NewMemory{
		msg("host", "", "", "The planning meeting moves to Thursday at noon", 1_700_000_000_000),
		msg("bob", "bob", "user", "the spare key is under the flowerpot", 1_700_000_001_000),
		msg("alice", "alice", "room", "I will bring the projector on Thursday", 1_700_000_002_000),
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{res[0].ID, res[1].ID, res[2].ID}
	if _, err := p.Run(ctx, extract.Job{OrgID: "acme", MessageIDs: ids}); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 {
		t.Fatalf("%d extractions, want one per audience (room, Bob's own): %v", len(calls), calls)
	}
	for _, call := range calls {
		if len(call) == 2 && call[0] == ids[0] && call[1] == ids[2] {
			continue // the room's: its own turns
		}
		if len(call) == 3 {
			continue // Bob's: his turn and the room's, which he may read
		}
		t.Fatalf("an extraction read %v", call)
	}
	alice, err := svc.Act(ctx, org, memory.Acting{UserID: "alice", RoomID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	fs := facts(t, svc, alice)
	if len(fs) == 0 {
		t.Fatal("the room's own fact is missing")
	}
	for text := range fs {
		if strings.Contains(text, "flowerpot") {
			t.Fatalf("Alice reads %q", text)
		}
	}
}

// TestFactsNeverReadAnotherAgentsTurns: a job holding the org scope's
// turns and an agent's extracts once for each; the org scope's
// extraction never reads the agent's turn.
func TestFactsNeverReadAnotherAgentsTurns(t *testing.T) {
	var calls [][]string
	p, svc := setup(t, looseCiter{calls: &calls})
	org := memory.Caller{OrgID: "acme"}
	res, err := svc.Create(ctx, org, []service.NewMemory{
		{Type: memory.TypeMessage, SessionID: "s1", EntityID: "host", Content: memory.Content{Text: "The quarterly review is on Friday"}, CreatedAt: 1_700_000_000_000},
		{Type: memory.TypeMessage, SessionID: "s1", AgentID: "x", EntityID: "ana", Content: memory.Content{Text: "my badge number is 4711"}, CreatedAt: 1_700_000_001_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(ctx, extract.Job{OrgID: "acme", MessageIDs: []string{res[0].ID, res[1].ID}}); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 {
		t.Fatalf("%d extractions, want one for the org scope and one for agent x: %v", len(calls), calls)
	}
	for _, call := range calls {
		if len(call) == 2 && call[0] != res[0].ID {
			t.Fatalf("an extraction read %v", call)
		}
		if len(call) == 1 && call[0] != res[0].ID {
			t.Fatalf("the org scope's extraction read agent x's turn: %v", call)
		}
	}
	y := memory.Caller{OrgID: "acme", AgentID: "y"}
	for text := range facts(t, svc, y) {
		if strings.Contains(text, "4711") {
			t.Fatalf("agent y reads %q", text)
		}
	}
}
