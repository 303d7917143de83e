package knowledge_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

var ctx = context.Background()

func open(t *testing.T) *local.Backend {
	t.Helper()
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func say(speaker, text string, at int64) service.NewMemory {
	return service.NewMemory{Type: memory.TypeMessage, EntityID: speaker, RoomID: "r", Content: memory.Content{Text: text}, CreatedAt: at}
}

// TestKnowledgeList: messages get knowledge as they are written; the
// knowledge list finds a memory by a type its words never say (fencing is
// a sport), ignores the speakers' names that every turn carries, respects
// the caller's view, and forgets a deleted memory's refs.
func TestKnowledgeList(t *testing.T) {
	b := open(t)
	svc := b.Service
	org := memory.Caller{OrgID: "o"}
	res, err := svc.Create(ctx, org, []service.NewMemory{
		say("Ana", "I tried fencing last weekend and loved it", 1000),
		say("Bo", "My sister adopted a puppy in May", 2000),
		say("Ana", "The weather was grey all week", 3000),
		say("Bo", "We cooked pasta for dinner", 4000),
	})
	if err != nil {
		t.Fatal(err)
	}
	fencing, puppy := res[0].ID, res[1].ID
	private, err := svc.Create(ctx, memory.Caller{OrgID: "o", AgentID: "x"}, []service.NewMemory{
		{Scope: "agent", Type: memory.TypeMessage, EntityID: "Ana", RoomID: "r", Content: memory.Content{Text: "I also tried archery, a secret sport"}, CreatedAt: 5000}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.Store.KnowledgeStatus(ctx, "o", []string{fencing, puppy})
	if err != nil || st[fencing].State != memory.KnowledgeDone || st[fencing].Refs == 0 {
		t.Fatalf("knowledge status %+v, %v", st, err)
	}
	search := func(c memory.Caller, q string) []string {
		t.Helper()
		out, err := svc.Search(ctx, c, service.SearchRequest{Query: q, Lists: []string{retrieval.ListKnowledge}, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range out {
			ids = append(ids, r.Memory.ID)
		}
		return ids
	}
	for _, tc := range []struct {
		name   string
		caller memory.Caller
		query  string
		want   []string
	}{
		{"by entity type (an org key sees every agent's)", org, "What sports has Ana tried?", []string{private[0].ID, fencing}},
		{"by a lexicon type", org, "Does anyone have a dog?", []string{puppy}},
		{"a speaker's name alone singles out nothing", org, "Ana", nil},
		{"an agent sees its own and the org's", memory.Caller{OrgID: "o", AgentID: "x"}, "which sport", []string{private[0].ID, fencing}},
		{"another agent does not see x's", memory.Caller{OrgID: "o", AgentID: "y"}, "which sport", []string{fencing}},
		{"another org sees nothing", memory.Caller{OrgID: "p"}, "which sport", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := search(tc.caller, tc.query)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
	if _, err := svc.Delete(ctx, org, fencing, service.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := search(org, "What sports has Ana tried?"); len(got) != 1 || got[0] != private[0].ID {
		t.Fatalf("a deleted memory is still found by its knowledge: %v", got)
	}
	if st, _ := b.Store.KnowledgeStatus(ctx, "o", []string{fencing}); len(st) != 0 {
		t.Fatalf("a deleted memory keeps its knowledge status: %+v", st)
	}
}

// TestKnowledgeListKeepsTheNamedSpeaker: a question that names one person
// who speaks in the memories ("What sports has Ana tried?") is answered by
// the messages that person said, as KnowPro scopes a query by the entities
// it names; a fact about the person is not something they said; a question
// naming none, two, or a name no message carries, is answered by all; the
// caller's view still applies.
func TestKnowledgeListKeepsTheNamedSpeaker(t *testing.T) {
	b := open(t)
	svc := b.Service
	org := memory.Caller{OrgID: "o"}
	res, err := svc.Create(ctx, org, []service.NewMemory{
		say("Ana", "I tried fencing last weekend and loved it", 1000),
		say("Bo", "We went swimming at the lake on Sunday", 2000),
		say("Ana", "Archery is my new favourite", 3000),
		{Type: memory.TypeFact, EntityID: "Ana", Content: memory.Content{Text: "Ana plays tennis"}, CreatedAt: 3500},
	})
	if err != nil {
		t.Fatal(err)
	}
	fencing, swimming, archery, tennis := res[0].ID, res[1].ID, res[2].ID, res[3].ID
	private, err := svc.Create(ctx, memory.Caller{OrgID: "o", AgentID: "x"}, []service.NewMemory{
		{Scope: "agent", Type: memory.TypeMessage, EntityID: "Ana", RoomID: "r", Content: memory.Content{Text: "I also tried skiing"}, CreatedAt: 5000}})
	if err != nil {
		t.Fatal(err)
	}
	skiing := private[0].ID
	everyone := []string{fencing, swimming, archery, tennis, skiing}
	for _, tc := range []struct {
		name   string
		caller memory.Caller
		query  string
		want   []string
	}{
		{"one speaker: what they said", org, "What sports has Ana tried?", []string{fencing, archery, skiing}},
		{"the other speaker", org, "What sports has Bo tried?", []string{swimming}},
		{"no name: everyone's", org, "which sports were tried?", everyone},
		{"two names: everyone's", org, "Have Ana and Bo tried sports?", everyone},
		{"a name no message carries: everyone's", org, "What sports has Zed tried?", everyone},
		{"the view still applies", memory.Caller{OrgID: "o", AgentID: "y"}, "What sports has Ana tried?", []string{fencing, archery}},
		{"another org sees nothing", memory.Caller{OrgID: "p"}, "What sports has Ana tried?", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := svc.Search(ctx, tc.caller, service.SearchRequest{Query: tc.query, Lists: []string{retrieval.ListKnowledge}, K: 10})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, r := range out {
				got[r.Memory.ID] = true
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d memories %v, want %v", len(got), got, tc.want)
			}
			for _, id := range tc.want {
				if !got[id] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestKnowledgeListBoundsCommonTerms: a term indexed under more than
// MaxTermDF memories takes no part in the knowledge list, whether the term
// index's counters answer the filter (org-wide) or its postings are read
// (a room filter), so the list's cost does not grow with the org.
func TestKnowledgeListBoundsCommonTerms(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "o"}
	var in []service.NewMemory
	for i := 0; i < knowledge.MaxTermDF+20; i++ {
		in = append(in, say("Ana", fmt.Sprintf("I repaired the lamp number %d", i), int64(1000+i)))
	}
	in = append(in, say("Bo", "I repaired the kayak and the lamp", 900))
	var kayak string
	for len(in) > 0 {
		n := min(len(in), memory.MaxBatch)
		res, err := b.Service.Create(ctx, org, in[:n])
		if err != nil {
			t.Fatal(err)
		}
		kayak, in = res[n-1].ID, in[n:]
	}
	for _, tc := range []struct {
		name string
		room string
	}{{"counters", ""}, {"postings", "r"}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, q := range []struct {
				text string
				want []string
			}{{"lamp kayak", []string{kayak}}, {"lamp", nil}} {
				out, err := b.Service.Search(ctx, org, service.SearchRequest{Query: q.text, Filter: memory.Filter{RoomID: tc.room}, Lists: []string{retrieval.ListKnowledge}, K: 5})
				if err != nil {
					t.Fatal(err)
				}
				if len(out) != len(q.want) || (len(out) > 0 && out[0].Memory.ID != q.want[0]) {
					var got []string
					for _, r := range out {
						got = append(got, r.Memory.Content.Text)
					}
					t.Fatalf("%q: got %q, want only the kayak's turn (%d)", q.text, got, len(q.want))
				}
			}
		})
	}
}
