package service_test

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
)

// TestDecomposeList: a question that asks for many answers over time puts
// each session's best turn of the person it names in the decomposition
// list, runs no neighbours stage, and never brings in what the caller may
// not see; a question joined by time searches both parts; a plain question
// gets no decomposition list.
func TestDecomposeList(t *testing.T) {
	b := open(t)
	base := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC).UnixMilli()
	turn := func(i int, session, who, s string) service.NewMemory {
		return service.NewMemory{Type: memory.TypeMessage, EntityID: who, SessionID: session, RoomID: "r-" + session,
			CreatedAt: base + int64(i)*60_000, Content: text(s)}
	}
	org := memory.Caller{OrgID: "acme"}
	res := create(t, b.Service, org,
		turn(0, "s1", "Ana", "I played tennis with my sister this morning."),
		turn(1, "s1", "Bo", "Nice! Tennis is fun."),
		turn(2, "s1", "Ana", "We played two sets of tennis before lunch."),
		turn(3, "s2", "Ana", "Went swimming at the lake today, my favourite sport lately."),
		turn(4, "s2", "Bo", "Swimming sounds great."),
		turn(5, "s3", "Ana", "Signed up for a climbing course, a new sport for me."),
		turn(6, "s3", "Bo", "After the marathon I slept for a day."),
		turn(7, "s3", "Bo", "The marathon was in Rotterdam."),
	)
	private := create(t, b.Service, memory.Caller{OrgID: "acme", AgentID: "y"},
		turn(8, "s4", "Ana", "Ana's private sport note: fencing, agent y only"))[0].ID

	x := memory.Caller{OrgID: "acme", AgentID: "x"}
	search := func(q string) []service.SearchResult {
		t.Helper()
		out, err := b.Service.Search(ctx, x, service.SearchRequest{Query: q, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	in := func(out []service.SearchResult) map[string]*memory.ModeScore {
		got := map[string]*memory.ModeScore{}
		for _, r := range out {
			if r.Memory.ID == private {
				t.Fatalf("agent x got agent y's private turn")
			}
			if r.Scores[retrieval.StageNeighbours] != nil {
				t.Fatalf("a question that asks for many answers ran the neighbours stage: %s", r.Memory.Content.Text)
			}
			if s := r.Scores[retrieval.ListDecompose]; s != nil {
				got[r.Memory.ID] = s
			}
		}
		return got
	}
	got := in(search("What sports does Ana play?"))
	for _, i := range []int{0, 3, 5} { // the best of each session (Ana's, in s1, s2 and s3)
		if got[res[i].ID] == nil {
			t.Errorf("turn %d is not in the decomposition list: %v", i, got)
		}
	}
	for id := range got {
		for _, i := range []int{1, 4, 6, 7} {
			if id == res[i].ID {
				t.Errorf("Bo's turn %d is in the decomposition list of a question about Ana", i)
			}
		}
	}

	// Joined by time: both parts searched.
	out, err := b.Service.Search(ctx, x, service.SearchRequest{Query: "Where did Bo sleep after the marathon?", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range out {
		if r.Scores[retrieval.ListDecompose] != nil {
			n++
		}
	}
	if n == 0 {
		t.Fatalf("a question joined by time got no decomposition list")
	}

	// A plain question: no list.
	out, err = b.Service.Search(ctx, x, service.SearchRequest{Query: "Who went swimming at the lake?", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out {
		if r.Scores[retrieval.ListDecompose] != nil {
			t.Fatalf("a plain question got a decomposition list")
		}
	}
}
