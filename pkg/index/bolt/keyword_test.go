package bolt_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/agentmem/agentmem/internal/synth"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// TestKeywordPruningIsExact checks that MaxScore pruning returns what
// scoring every posting returns: the same memories, in the same order up to
// exact ties, with the same scores, for queries of one to eight Zipf words
// (common words among them, whose lists pruning skips), with and without
// filters (a broad one, which most memories pass and which is checked
// late, and narrow ones, checked first), k from 1 to 50, after deletes
// left as holes in the postings, with the search split across ordinal
// ranges as on several cores, and with MaxScore's last phase seeking in
// the lists or reading them through.
func TestKeywordPruningIsExact(t *testing.T) {
	ctx := context.Background()
	ix, _ := open(t, t.TempDir(), model)
	defer ix.Close()
	g := synth.New(7)
	var ids []string
	batch := make([]*memory.Memory, 0, 500)
	agents := []string{"", "agent-1", "agent-2"}
	for i := range annSize {
		typ := memory.TypeMessage
		if i%5 == 0 {
			typ = memory.TypeFact
		}
		m := memorytest.New(memorytest.OrgA, agents[i%3], typ, g.Memory(i).Text, memorytest.Base+int64(i)*1000)
		m.Embedding = nil
		m.RoomID = fmt.Sprintf("room-%d", i%7)
		ids = append(ids, m.ID)
		batch = append(batch, m)
		if len(batch) == cap(batch) {
			if err := ix.Upsert(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := ix.Upsert(ctx, batch); err != nil {
		t.Fatal(err)
	}
	var gone []string
	for i := 0; i < len(ids); i += 11 {
		gone = append(gone, ids[i])
	}
	if err := ix.Delete(ctx, memorytest.OrgA, gone); err != nil {
		t.Fatal(err)
	}
	filters := []struct {
		name string
		f    memory.Filter
	}{
		{"none", memory.Filter{OrgID: memorytest.OrgA}},
		{"agent", memory.Filter{OrgID: memorytest.OrgA, AgentID: "agent-1"}},
		{"type", memory.Filter{OrgID: memorytest.OrgA, Types: []memory.Type{memory.TypeFact}}},
		{"room", memory.Filter{OrgID: memorytest.OrgA, RoomID: "room-3"}},
		{"time", memory.Filter{OrgID: memorytest.OrgA, Start: memorytest.Base + int64(annSize/4)*1000, End: memorytest.Base + int64(annSize/2)*1000}},
	}
	queries := []string{"time", "time person year", "kalomi time"}
	for i := 0; i < annQueries*2; i++ {
		queries = append(queries, g.Words(1+i%8))
	}
	pruned, before := 0, bolt.PrunedSearches()
	for _, f := range filters {
		for _, k := range []int{1, 10, 50} {
			for _, text := range queries {
				q := memory.IndexQuery{Filter: f.f, Text: text, K: k}
				restore := bolt.SetPruning(false)
				want, err := ix.Search(ctx, q)
				restore()
				if err != nil {
					t.Fatal(err)
				}
				// Pruned in one part, and split across three ordinal
				// ranges as a long query is on several cores; the last
				// phase seeking the candidates in every list, and reading
				// every list through.
				for _, parts := range []int{1, 3} {
					for _, through := range []int{0, 1 << 30} {
						restore := bolt.SetKeywordParts(parts)
						undo := bolt.SetReadThrough(through)
						got, err := ix.Search(ctx, q)
						undo()
						restore()
						if err != nil {
							t.Fatal(err)
						}
						if !sameHits(want.Keyword, got.Keyword) {
							t.Fatalf("%s k=%d %q, %d part(s), read through %d:\n full %v\n pruned %v", f.name, k, text, parts, through, want.Keyword, got.Keyword)
						}
					}
				}
				if len(want.Keyword) > 0 {
					pruned++
				}
			}
		}
	}
	if pruned == 0 {
		t.Fatal("no query found anything")
	}
	// Each query ran in one part, then in three, each twice: 2 × (1 + 3)
	// searches of parts.
	if n, total := bolt.PrunedSearches()-before, len(filters)*3*len(queries)*8; n < int64(len(queries)) {
		t.Fatalf("only %d of %d searches (parts) were pruned: the test does not exercise MaxScore", n, total)
	} else {
		t.Logf("%d of %d searches (parts) pruned", n, total)
	}
}

// sameHits reports whether two ranked lists agree: the same scores to
// float32 rounding, and the same ids except where scores tie exactly.
func sameHits(a, b []memory.Hit) bool {
	if len(a) != len(b) {
		return false
	}
	tie := func(x, y float64) bool { return math.Abs(x-y) <= 1e-5*math.Max(math.Abs(x), 1) }
	for i := range a {
		if !tie(a[i].Score, b[i].Score) {
			return false
		}
		if a[i].ID != b[i].ID {
			// Tied with a neighbour: the order within a tie, and which of
			// the tied memories the k-th place keeps, are not defined.
			if !(i > 0 && tie(a[i].Score, a[i-1].Score)) && !(i+1 < len(a) && tie(a[i].Score, a[i+1].Score)) {
				return false
			}
		}
	}
	return true
}
