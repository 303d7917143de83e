package dynamodb_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/memory/memorytest"
)

func TestTermIndexContract(t *testing.T) {
	memorytest.TermIndexSuite(t, func(t *testing.T) memorytest.TermIndexStore { return newStore(t) },
		func(t *testing.T, _ memorytest.TermIndexStore, ordinal int) memory.SemanticRef {
			// An item over DynamoDB's 400 KB: the batch that holds its ref
			// fails after the batches before it were written.
			return memory.SemanticRef{Ordinal: ordinal, Kind: memory.KnowledgeEntity, Entity: &memory.Entity{
				Name: "Poison", Types: []string{"pill"}, Facets: []memory.Facet{{Name: "dose", Value: strings.Repeat("x", 420<<10)}}}}
		})
}

// TestTermIndexSurvivesInterruptedWrites cuts puts and deletes short at
// every stage (deadlines of 1 to 40 ms), as a crash would, then writes each
// memory once more: the vocabulary counters must agree with the postings
// (counted again under a filter the counters cannot answer), and the
// vocabulary must be the final refs' terms.
func TestTermIndexSurvivesInterruptedWrites(t *testing.T) {
	s := newStore(t)
	ms := memorytest.Corpus(memorytest.OrgA, 6)
	if _, err := s.Create(ctx, ms); err != nil {
		t.Fatal(err)
	}
	interrupted := 0
	for i := 0; i < 80; i++ {
		c, cancel := context.WithTimeout(ctx, time.Duration(1+i%40)*time.Millisecond)
		m := ms[i%len(ms)]
		var err error
		if i%4 == 3 {
			err = s.DeleteKnowledge(c, m.OrgID, []string{m.ID})
		} else {
			err = s.PutKnowledge(c, m.OrgID, m.ID, m.Attrs(), "chaos", memorytest.BenchKnowledge(i).Refs(m.ID))
		}
		cancel()
		if err != nil {
			interrupted++
		}
	}
	t.Logf("%d of 80 writes interrupted", interrupted)
	for j, m := range ms {
		if err := s.PutKnowledge(ctx, m.OrgID, m.ID, m.Attrs(), "final", memorytest.BenchKnowledge(1000+j).Refs(m.ID)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []memory.Filter{{OrgID: memorytest.OrgA}, {OrgID: memorytest.OrgA, Viewer: memorytest.AgentX}} {
		for _, prefix := range []string{"", "k", "l", "m", "ka", "lo"} {
			got, err := s.Terms(ctx, f, prefix, memory.MaxTermPrefixResult)
			if err != nil {
				t.Fatal(err)
			}
			slow := f
			slow.Start = 1
			exact, err := s.Terms(ctx, slow, prefix, memory.MaxTermPrefixResult)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, exact) {
				t.Fatalf("prefix %q for %+v:\ncounters %v\npostings %v", prefix, f, got, exact)
			}
		}
	}
	voc, _, err := s.Vocabulary(ctx, memorytest.OrgA, "", memory.MaxVocabularyPage)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for j := range ms {
		for _, r := range memorytest.BenchKnowledge(1000 + j).Refs("x") {
			for _, term := range memory.DistinctTerms(r) {
				all[term] = true
			}
		}
	}
	if len(voc) != len(all) {
		t.Fatalf("vocabulary of %d terms, want %d", len(voc), len(all))
	}
	for _, v := range voc {
		if !all[v] {
			t.Fatalf("vocabulary holds %q, a term of an interrupted write", v)
		}
	}
}
