package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// knowledgeTables are the term index's tables, each with the columns a
// dump compares (knowledge_status without its clock).
var knowledgeTables = map[string]string{
	"knowledge_refs":   "*",
	"knowledge_terms":  "*",
	"knowledge_props":  "*",
	"knowledge_vocab":  "*",
	"knowledge_status": "org_id, memory_id, state, extractor, refs",
}

// dumpKnowledge returns every row of the term index's tables, one string
// each, sorted, per table.
func dumpKnowledge(t *testing.T, path string) map[string][]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string][]string{}
	for table, cols := range knowledgeTables {
		rows, err := db.Query(`SELECT ` + cols + ` FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		names, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals := make([]any, len(names))
			dests := make([]any, len(names))
			for i := range vals {
				dests[i] = &vals[i]
			}
			if err := rows.Scan(dests...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%s=%v ", names[i], v)
			}
			out[table] = append(out[table], b.String())
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out[table])
	}
	return out
}

// knowledgeCorpus returns n memories of org o with varied knowledge:
// messages of three speakers naming people, places, actions and times,
// facts and fragments, under two agents, some with a sender and a place
// in their metadata.
func knowledgeCorpus(n int) []*memory.Memory {
	texts := []string{
		"I went hiking with Melanie in the Alps last weekend and we saw a golden eagle.",
		"Caroline adopted a puppy named Biscuit from the shelter in Portland.",
		"We are planning a trip to Kyoto in April to see the cherry blossoms.",
		"My sister Anna started a pottery class on Tuesday evenings.",
		"I finished reading Dune by Frank Herbert, the best novel I read this year.",
		"Bob is training for the Boston marathon and runs forty miles a week.",
		"The team shipped version 2.3 of the billing service to production on Friday.",
		"I painted a watercolor of the lake at sunrise for my mother's birthday.",
		"Jon lost his job at the bank and opened a dance studio downtown.",
		"We baked sourdough bread with rye flour; it took two days to proof.",
		"Maria prefers green tea over coffee and avoids sugar.",
		"The violin recital is at the community hall next Saturday at 7 pm.",
	}
	speakers := []string{"alice", "bob", "carol"}
	types := []memory.Type{memory.TypeMessage, memory.TypeMessage, memory.TypeFact, memory.TypeFragment}
	out := make([]*memory.Memory, n)
	for i := range out {
		text := fmt.Sprintf("%s (%d)", texts[i%len(texts)], i/len(texts))
		m := memorytest.New("o", []string{"", memorytest.AgentX}[i%2], types[i%len(types)], text, memorytest.Base+int64(i)*60_000)
		m.RoomID, m.SessionID = "room-1", "s1"
		if m.Type == memory.TypeMessage {
			m.EntityID = speakers[i%len(speakers)]
		}
		if i%5 == 0 { // provided structure: property postings
			m.Metadata = []byte(fmt.Sprintf(`{"from": %q, "location": "Lisbon"}`, speakers[i%len(speakers)]))
		}
		out[i] = m
	}
	return out
}

// TestBatchedKnowledgeIsTheSame: the term index holds the same rows,
// counters and statuses whether a corpus's knowledge is written one
// memory per call (single creates), one batch per call (a batch create
// extracted at once), or left pending by a bulk write and extracted by
// the worker's ExtractPending (knowledge.Service.DeferFrom).
func TestBatchedKnowledgeIsTheSame(t *testing.T) {
	ctx := context.Background()
	corpus := knowledgeCorpus(240)
	ways := []struct {
		name     string
		batch    int // memories per Index call
		deferred bool
	}{
		{"one memory per call", 1, false},
		{"batches of 100 at once", 100, false},
		{"batches of 100 deferred, then the worker", 100, true},
	}
	var want map[string][]string
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "memories.db")
			s := open(t, path)
			defer s.Close()
			ms := make([]*memory.Memory, len(corpus))
			for i, m := range corpus {
				c := *m
				ms[i] = &c
			}
			if _, err := s.Create(ctx, ms); err != nil {
				t.Fatal(err)
			}
			k := &knowledge.Service{Store: s, Terms: s, Extractor: offline.New(offline.Options{})}
			woken := 0
			if w.deferred {
				k.DeferFrom, k.OnPending = 2, func(string) { woken++ }
			}
			for start := 0; start < len(ms); start += w.batch {
				if err := k.Index(ctx, "o", ms[start:min(len(ms), start+w.batch)]); err != nil {
					t.Fatal(err)
				}
			}
			if w.deferred {
				pending, err := s.PendingKnowledge(ctx, "o", "", memory.MaxKnowledgePage)
				if err != nil || len(pending) != len(ms) || woken != 3 {
					t.Fatalf("after the bulk writes: %d pending (%v), worker woken %d times; want %d and 3", len(pending), err, woken, len(ms))
				}
				if n, err := k.ExtractPending(ctx, "o", 0); err != nil || n != len(ms) {
					t.Fatalf("ExtractPending: %d, %v; want %d in one page", n, err, len(ms))
				}
			}
			got := dumpKnowledge(t, path)
			if len(got["knowledge_terms"]) == 0 || len(got["knowledge_vocab"]) == 0 || len(got["knowledge_props"]) == 0 {
				t.Fatalf("the corpus indexed no terms, counters or properties: %d, %d, %d rows",
					len(got["knowledge_terms"]), len(got["knowledge_vocab"]), len(got["knowledge_props"]))
			}
			if want == nil {
				want = got
				return
			}
			for table := range knowledgeTables {
				if !slices.Equal(got[table], want[table]) {
					t.Errorf("%s: %d rows, want %d as one memory per call; first difference: %s", table, len(got[table]),
						len(want[table]), firstDiff(got[table], want[table]))
				}
			}
		})
	}
}

// firstDiff names the first row where a and b differ.
func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("%q against %q", a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}
