package dynamodb_test

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
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

// BenchmarkTermIndex measures the knowledge index on the DynamoDB it is
// pointed at, over TERMINDEX_BENCH_N memories (default 2,000) of
// BenchKnowledge; each case reports its p50 and p95 besides the mean. On
// DynamoDB Local these figures are the emulator's, not the service's.
//
//	go test -run '^$' -bench TermIndex -benchtime 200x ./store/dynamodb/
func BenchmarkTermIndex(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("TERMINDEX_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	s := newStoreB(b)
	corpus := memorytest.Corpus(memorytest.OrgA, n)
	for i := 0; i < n; i += 100 {
		if _, err := s.Create(ctx, corpus[i:min(n, i+100)]); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, m := range corpus {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, m *memory.Memory) {
			defer wg.Done()
			defer func() { <-sem }()
			if err := s.PutKnowledge(ctx, m.OrgID, m.ID, m.Attrs(), "bench", memorytest.BenchKnowledge(i).Refs(m.ID)); err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
			}
		}(i, m)
	}
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	b.Logf("%d memories indexed in %v", n, time.Since(start).Round(time.Second))
	prefixes := func(size int) []string {
		var out []string
		for i := 0; i < 256; i++ {
			t := memory.NormalizeTerm(memorytest.BenchKnowledge(n + i).Entities[i%3].Name)
			out = append(out, t[:min(size, len(t))])
		}
		return out
	}
	org := memory.Filter{OrgID: memorytest.OrgA}
	viewer := memory.Filter{OrgID: memorytest.OrgA, Viewer: memorytest.AgentX}
	room := memory.Filter{OrgID: memorytest.OrgA, Viewer: memorytest.AgentX, RoomID: "room-1"}
	for _, c := range []struct {
		name string
		f    memory.Filter
		size int
	}{
		{"terms/org/prefix-1", org, 1}, {"terms/org/prefix-3", org, 3},
		{"terms/viewer/prefix-1", viewer, 1}, {"terms/viewer/prefix-3", viewer, 3},
		{"terms/room/prefix-3", room, 3},
	} {
		ps := prefixes(c.size)
		b.Run(c.name, func(b *testing.B) {
			timed(b, func(i int) error {
				_, err := s.Terms(ctx, c.f, ps[i%len(ps)], 10)
				return err
			})
		})
	}
	b.Run("lookup/3-terms", func(b *testing.B) {
		timed(b, func(i int) error {
			k := memorytest.BenchKnowledge(i)
			_, err := s.LookupTerms(ctx, memory.TermLookup{Filter: viewer, Limit: 100, Terms: []string{
				memory.NormalizeTerm(k.Entities[0].Name), memory.NormalizeTerm(k.Entities[2].Name), memory.NormalizeTerm(k.Topics[0])}})
			return err
		})
	})
	b.Run("put/replace", func(b *testing.B) {
		timed(b, func(i int) error {
			m := corpus[i%n]
			return s.PutKnowledge(ctx, m.OrgID, m.ID, m.Attrs(), "bench", memorytest.BenchKnowledge(n+i).Refs(m.ID))
		})
	})
}

// timed runs fn b.N times and reports the p50 and p95 in milliseconds.
func timed(b *testing.B, fn func(i int) error) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		if err := fn(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
}
