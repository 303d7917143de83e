package service_test

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
)

// TestNeighbours: a search brings in the turns next to its best result in
// the same session, scored below it, and never a turn of another session,
// another agent's private turn, or one the filter excludes; a search of
// one list does not run the stage.
func TestNeighbours(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "acme"}
	base := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC).UnixMilli()
	turn := func(i int, session, who, s string) service.NewMemory {
		return service.NewMemory{Type: memory.TypeMessage, EntityID: who, SessionID: session, RoomID: "r",
			CreatedAt: base + int64(i)*1000, Content: text(s)}
	}
	res := create(t, b.Service, org,
		turn(0, "s1", "Bo", "Morning! Big day for you?"),
		turn(1, "s1", "Bo", "How do you feel about the grand opening of the bakery?"),
		turn(2, "s1", "Ana", "Thanks! Nervous but ready."),
		turn(3, "s1", "Bo", "You will do great."),
		turn(4, "s1", "Ana", "See you there tomorrow."),
		turn(5, "s1", "Bo", "Bye now."),
		turn(1, "s2", "Cy", "Unrelated chat in another session, a minute apart"),
	)
	private := create(t, b.Service, memory.Caller{OrgID: "acme", AgentID: "y"},
		service.NewMemory{Type: memory.TypeMessage, SessionID: "s1", RoomID: "r", CreatedAt: base + 2500, Content: text("agent y's private aside")})[0].ID

	x := memory.Caller{OrgID: "acme", AgentID: "x"}
	out, err := b.Service.Search(ctx, x, service.SearchRequest{Query: "bakery", Mode: service.ModeHybrid, K: 20})
	if err != nil {
		t.Fatal(err)
	}
	session := []string{res[0].ID, res[1].ID, res[2].ID, res[3].ID, res[4].ID, res[5].ID} // s1 in time order
	anchor := -1
	for i, id := range session {
		if len(out) > 0 && out[0].Memory.ID == id {
			anchor = i
		}
	}
	if anchor < 0 {
		t.Fatalf("the best result is not a turn of session s1: %+v", out)
	}
	rank := map[string]int{}
	for i, r := range out {
		rank[r.Memory.ID] = i
		if r.Memory.ID == private {
			t.Fatalf("agent x got agent y's private turn through the neighbours stage")
		}
		if r.Memory.ID == res[6].ID && r.Scores[retrieval.StageNeighbours] != nil {
			t.Fatalf("a turn of another session came in as a neighbour")
		}
	}
	for n := max(0, anchor-2); n <= min(len(session)-1, anchor+2); n++ { // two turns on each side
		r, ok := rank[session[n]]
		if !ok {
			t.Fatalf("turn %d, next to the best result, is not in the results", n)
		}
		if out[r].Score > out[0].Score {
			t.Fatalf("neighbour %d scored %v above its anchor's %v", n, out[r].Score, out[0].Score)
		}
	}

	// A filter holds for neighbours: Bo's turns only.
	out, err = b.Service.Search(ctx, org, service.SearchRequest{Query: "bakery", Mode: service.ModeHybrid, K: 20,
		Filter: memory.Filter{EntityID: "Bo"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out {
		if r.Memory.EntityID != "Bo" {
			t.Fatalf("the filter entity=Bo let %s's turn in", r.Memory.EntityID)
		}
	}

	// One list: native scores, no neighbours stage.
	out, err = b.Service.Search(ctx, org, service.SearchRequest{Query: "bakery", Mode: service.ModeKeyword, K: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out {
		if r.Scores[retrieval.StageNeighbours] != nil {
			t.Fatalf("a keyword search ran the neighbours stage")
		}
	}
}
