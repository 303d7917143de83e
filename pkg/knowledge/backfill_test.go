package knowledge_test

import (
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/service"
)

// termMemories returns the memories of org indexed under term.
func termMemories(t *testing.T, ti memory.TermIndex, org, term string) map[string]bool {
	t.Helper()
	ps, err := ti.LookupTerms(ctx, memory.TermLookup{Filter: memory.Filter{OrgID: org}, Terms: []string{term}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, p := range ps {
		out[p.Ref.MemoryID] = true
	}
	return out
}

// TestStaleExtraction: an extraction computed from a version of a memory
// that was patched meanwhile is not written over the newer one.
func TestStaleExtraction(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "o"}
	res, err := b.Service.Create(ctx, org, []service.NewMemory{say("Ana", "I tried fencing last weekend", 1000)})
	if err != nil {
		t.Fatal(err)
	}
	id := res[0].ID
	old, err := b.Store.Get(ctx, "o", id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Service.Update(ctx, org, id, service.Patch{Content: &memory.Content{Text: "I tried archery last weekend"}}); err != nil {
		t.Fatal(err)
	}
	k := &knowledge.Service{Store: b.Store, Terms: b.Store, Extractor: offline.New(offline.Options{})}
	if err := k.Index(ctx, "o", []*memory.Memory{old}); err != nil { // the late extraction of version 1
		t.Fatal(err)
	}
	if termMemories(t, b.Store, "o", "fencing")[id] {
		t.Fatal("the extraction of the older version was written over the newer one")
	}
	if !termMemories(t, b.Store, "o", "archery")[id] {
		t.Fatal("the newer version's knowledge is gone")
	}
}

// rowsOnly hides a store's key listing (memory.MemoryKeyLister), so that
// Backfill walks it with List, as it walks a store without one.
type rowsOnly struct{ memory.Store }

// TestBackfill: a pass examines at most its limit, resumes where the last
// stopped, extracts the extractable memories without a status (not a
// document, not one already done, not one staged by an uncommitted
// document), stays in its org, and a done org costs nothing; alike whether
// the store lists keys or only whole memories.
func TestBackfill(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys bool // the walk lists keys
		wrap func(memory.Store) memory.Store
	}{
		{"keys", true, func(s memory.Store) memory.Store { return s }},
		{"rows", false, func(s memory.Store) memory.Store { return rowsOnly{s} }},
	} {
		t.Run(tc.name, func(t *testing.T) { testBackfill(t, tc.keys, tc.wrap) })
	}
}

func testBackfill(t *testing.T, keys bool, wrap func(memory.Store) memory.Store) {
	b := open(t)
	if _, ok := wrap(b.Store).(memory.MemoryKeyLister); ok != keys {
		t.Fatalf("the store lists keys: %v; want %v", ok, keys)
	}
	var ms []*memory.Memory
	for i, tx := range []string{"I tried fencing last weekend", "My sister adopted a puppy", "We cooked pasta for dinner",
		"The museum had a Monet exhibition", "I started learning the violin", "Our trip to Lisbon was lovely", "A note"} {
		typ := memory.TypeMessage
		if i == 6 {
			typ = memory.TypeDocument // not extractable: skipped
		}
		ms = append(ms, memorytest.New("o", "", typ, tx, memorytest.Base+int64(i)*1000))
	}
	other := memorytest.New("p", "", memory.TypeMessage, "I tried fencing too", memorytest.Base)
	staged := memorytest.New("o", "", memory.TypeFragment, "The staged fragment mentions fencing", memorytest.Base+3500)
	staged.Pending = true
	if _, err := b.Store.Create(ctx, append(ms, other, staged)); err != nil {
		t.Fatal(err)
	}
	k := &knowledge.Service{Store: wrap(b.Store), Terms: b.Store, Records: b.Store, Extractor: offline.New(offline.Options{})}
	// One memory already has knowledge: it keeps it.
	if err := b.Store.PutKnowledge(ctx, "o", ms[1].ID, ms[1].Attrs(), "manual", nil); err != nil {
		t.Fatal(err)
	}
	indexed, passes := 0, 0
	for {
		res, err := k.Backfill(ctx, "o", 2)
		if err != nil {
			t.Fatal(err)
		}
		passes++
		if res.Examined > 2 {
			t.Fatalf("a pass of 2 examined %d", res.Examined)
		}
		indexed += res.Indexed
		if res.Done {
			break
		}
		if passes > 10 {
			t.Fatal("the backfill does not resume: it never ends")
		}
	}
	if indexed != 5 || passes != 4 {
		t.Fatalf("indexed %d memories in %d passes; want 5 (the 8 less the document, the one done and the staged one) in 4", indexed, passes)
	}
	st, err := b.Store.KnowledgeStatus(ctx, "o", []string{ms[0].ID, ms[1].ID, ms[6].ID})
	if err != nil {
		t.Fatal(err)
	}
	if st[ms[0].ID].State != memory.KnowledgeDone || st[ms[1].ID].Extractor != "manual" || st[ms[6].ID].State != "" {
		t.Fatalf("statuses %+v", st)
	}
	if got := termMemories(t, b.Store, "o", "fencing"); !got[ms[0].ID] || got[staged.ID] {
		t.Fatalf("fencing's memories after the backfill: %v; want %s, not the staged %s", got, ms[0].ID, staged.ID)
	}
	if res, err := k.Backfill(ctx, "o", 2); err != nil || !res.Done || res.Examined != 0 {
		t.Fatalf("a done org: %+v, %v", res, err)
	}
	if got := termMemories(t, b.Store, "p", "fencing"); len(got) != 0 {
		t.Fatalf("another org was backfilled: %v", got)
	}
	// RetryPending's scheduled path backfills too.
	n, err := k.RetryPending(ctx, "p", 10)
	if err != nil || n != 1 || !termMemories(t, b.Store, "p", "fencing")[other.ID] {
		t.Fatalf("RetryPending backfilled %d, %v", n, err)
	}
}

// TestAnswerContext: the structured section of the prompt context lists
// the entities and topics of the question first, with types and counts,
// then the messages they point to, within the budget; an agent-bound
// caller never sees another agent's knowledge in it.
func TestAnswerContext(t *testing.T) {
	b := open(t)
	svc := b.Service
	org := memory.Caller{OrgID: "o"}
	if _, err := svc.Create(ctx, org, []service.NewMemory{
		say("Ana", "My sister Mel is a painter and she loves pottery", 1000),
		say("Bo", "Mel showed me her pottery at the fair", 2000),
		say("Ana", "The weather was grey all week", 3000),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Create(ctx, memory.Caller{OrgID: "o", AgentID: "x"}, []service.NewMemory{
		{Scope: "agent", Type: memory.TypeMessage, EntityID: "Ana", RoomID: "r", Content: memory.Content{Text: "Mel secretly hates Zanzibar pottery"}, CreatedAt: 4000}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		caller memory.Caller
		budget int
		secret bool
		full   bool // room for the entity lines
	}{
		{"an org key sees every agent's", org, 2000, true, true},
		{"agent y does not see x's", memory.Caller{OrgID: "o", AgentID: "y"}, 2000, false, true},
		{"a small budget", org, 120, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := svc.BuildContext(ctx, tc.caller, service.ContextRequest{Query: "What does Mel like about pottery?", BudgetTokens: tc.budget})
			if err != nil {
				t.Fatal(err)
			}
			var sec *service.ContextSection
			sum := 0
			for i := range res.Sections {
				sum += res.Sections[i].Tokens
				if res.Sections[i].Name == "structured" {
					sec = &res.Sections[i]
				}
			}
			if sec == nil || len(sec.Items) == 0 {
				t.Fatalf("no structured section: %+v", res.Sections)
			}
			if sum != res.UsedTokens || res.UsedTokens > tc.budget {
				t.Fatalf("sections sum to %d, used %d of %d", sum, res.UsedTokens, tc.budget)
			}
			// Knowledge items first, then memories.
			seenMemory, items := false, 0
			for _, it := range sec.Items {
				switch {
				case it.ID != "":
					seenMemory = true
				case seenMemory:
					t.Fatalf("a knowledge item after a memory: %+v", sec.Items)
				default:
					items++
				}
			}
			if !tc.full {
				return
			}
			if items == 0 {
				t.Fatalf("no entity or topic: %+v", sec.Items)
			}
			if !strings.Contains(res.Context, "- mel (") || !strings.Contains(res.Context, "mentions in") {
				t.Fatalf("the entity line is missing:\n%s", res.Context)
			}
			if got := strings.Contains(res.Context, "zanzibar") || strings.Contains(res.Context, "Zanzibar"); got != tc.secret {
				t.Fatalf("agent x's secret in the context: %v, want %v\n%s", got, tc.secret, res.Context)
			}
		})
	}
}

// TestAnswerContextKeepsTheNamedSpeaker: a question that names one person
// who speaks in the memories gets, in the structured section, the
// knowledge of what that person said, as the knowledge list does; a
// question naming none gets everyone's.
func TestAnswerContextKeepsTheNamedSpeaker(t *testing.T) {
	b := open(t)
	svc := b.Service
	org := memory.Caller{OrgID: "o"}
	if _, err := svc.Create(ctx, org, []service.NewMemory{
		say("Ana", "I spent the weekend on pottery", 1000),
		say("Bo", "I spent the weekend on chess", 2000),
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query      string
		want, lose []string
	}{
		{"What hobbies does Ana have?", []string{"pottery"}, []string{"chess"}},
		{"What hobbies does Bo have?", []string{"chess"}, []string{"pottery"}},
		{"What hobbies do they have?", []string{"pottery", "chess"}, nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res, err := svc.BuildContext(ctx, org, service.ContextRequest{Query: tc.query, BudgetTokens: 2000})
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, sec := range res.Sections {
				if sec.Name != "structured" {
					continue
				}
				for _, it := range sec.Items {
					if it.ID == "" {
						lines = append(lines, it.Name)
					}
				}
			}
			text := strings.Join(lines, "\n")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Fatalf("%q is not among the knowledge lines:\n%s", w, text)
				}
			}
			for _, w := range tc.lose {
				if strings.Contains(text, w) {
					t.Fatalf("%q, which the named speaker did not say, is among the knowledge lines:\n%s", w, text)
				}
			}
		})
	}
}
