package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
)

func TestTermIndexContract(t *testing.T) {
	paths := map[memorytest.TermIndexStore]string{}
	memorytest.TermIndexSuite(t, func(t *testing.T) memorytest.TermIndexStore {
		path := filepath.Join(t.TempDir(), "memories.db")
		s := open(t, path)
		t.Cleanup(func() { s.Close() })
		paths[s] = path
		return s
	}, func(t *testing.T, s memorytest.TermIndexStore, ordinal int) memory.SemanticRef {
		// A trigger aborts the insert of the ref named "poison pill", so
		// that the Put fails after it has written the refs before it.
		db, err := sql.Open("sqlite", "file:"+paths[s]+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TRIGGER poison BEFORE INSERT ON knowledge_refs
			WHEN NEW.name = 'poison pill' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`); err != nil {
			t.Fatal(err)
		}
		return memory.SemanticRef{Ordinal: ordinal, Kind: memory.KnowledgeTopic, Topic: "Poison Pill"}
	})
}

// BenchmarkTermIndex measures the knowledge index of an org of
// TERMINDEX_BENCH_N memories (default 100,000) with BenchKnowledge (about
// seven refs and forty postings each): prefix completion per keystroke,
// for an org-level and an agent-bound caller (counters) and for a filter
// the counters cannot answer (postings), term lookups, a list page and a
// replacing put. Each reports its p50 and p95 besides the mean.
//
//	go test -run '^$' -bench TermIndex -benchtime 2000x ./store/sqlite/
func BenchmarkTermIndex(b *testing.B) {
	ctx := context.Background()
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("TERMINDEX_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	// TERMINDEX_BENCH_DB keeps the database for the next run, which then
	// skips the indexing.
	path := os.Getenv("TERMINDEX_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "memories.db")
	}
	s, err := sqlite.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	if total, err := s.Total(ctx); err != nil {
		b.Fatal(err)
	} else if total == 0 {
		corpus := memorytest.Corpus(memorytest.OrgA, n)
		for i := 0; i < n; i += 1000 {
			if _, err := s.Create(ctx, corpus[i:min(n, i+1000)]); err != nil {
				b.Fatal(err)
			}
		}
		var puts []memory.KnowledgePut
		for i, m := range corpus {
			puts = append(puts, memory.KnowledgePut{MemoryID: m.ID, Attrs: m.Attrs(), Refs: memorytest.BenchKnowledge(i).Refs(m.ID)})
			if len(puts) == 1000 || i == len(corpus)-1 {
				if _, err := s.PutKnowledgeMany(ctx, m.OrgID, "bench", puts); err != nil {
					b.Fatal(err)
				}
				puts = puts[:0]
			}
		}
	} else {
		n = total
	}
	page, err := s.List(ctx, memory.ListQuery{Filter: memory.Filter{OrgID: memorytest.OrgA, IncludeArchived: true}, Limit: 1000})
	if err != nil {
		b.Fatal(err)
	}
	sample := page.Memories
	var terms int
	for after := ""; ; {
		page, next, err := s.Vocabulary(ctx, memorytest.OrgA, after, memory.MaxVocabularyPage)
		if err != nil {
			b.Fatal(err)
		}
		terms += len(page)
		if after = next; next == "" {
			break
		}
	}
	b.Logf("%d memories indexed in %v; vocabulary of %d terms", n, time.Since(start).Round(time.Second), terms)

	// Keystroke prefixes: the first 1, 2 and 3 bytes of terms drawn as
	// queries would draw them.
	prefixes := func(size int) []string {
		var out []string
		for i := 0; i < 512; i++ {
			k := memorytest.BenchKnowledge(n + i)
			t := memory.NormalizeTerm(k.Entities[i%3].Name)
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
		{"terms/org/prefix-1", org, 1}, {"terms/org/prefix-2", org, 2}, {"terms/org/prefix-3", org, 3},
		{"terms/viewer/prefix-1", viewer, 1}, {"terms/viewer/prefix-2", viewer, 2}, {"terms/viewer/prefix-3", viewer, 3},
		{"terms/org/prefix-0", org, 0},
		{"terms/room/prefix-2", room, 2}, {"terms/room/prefix-3", room, 3},
	} {
		ps := prefixes(c.size)
		b.Run(c.name, func(b *testing.B) {
			lat := latencies(b, func(i int) error {
				_, err := s.Terms(ctx, c.f, ps[i%len(ps)], 10)
				return err
			})
			lat.report(b)
		})
	}
	b.Run("lookup/3-terms", func(b *testing.B) {
		lat := latencies(b, func(i int) error {
			k := memorytest.BenchKnowledge(i)
			q := memory.TermLookup{Filter: viewer, Limit: 100, Terms: []string{
				memory.NormalizeTerm(k.Entities[0].Name), memory.NormalizeTerm(k.Entities[2].Name), memory.NormalizeTerm(k.Topics[0])}}
			_, err := s.LookupTerms(ctx, q)
			return err
		})
		lat.report(b)
	})
	// A knowledge-list query: 40 terms (query words and their related
	// terms), 256 postings each at most.
	b.Run("lookup/40-terms", func(b *testing.B) {
		lat := latencies(b, func(i int) error {
			var terms []string
			for j := range 20 {
				k := memorytest.BenchKnowledge(i*20 + j)
				terms = append(terms, memory.NormalizeTerm(k.Entities[2].Name), memory.NormalizeTerm(k.Topics[0]))
			}
			_, err := s.LookupTerms(ctx, memory.TermLookup{Filter: viewer, Limit: 256, Terms: terms})
			return err
		})
		lat.report(b)
	})
	b.Run("lookup/40-terms-keys", func(b *testing.B) {
		lat := latencies(b, func(i int) error {
			var terms []string
			for j := range 20 {
				k := memorytest.BenchKnowledge(i*20 + j)
				terms = append(terms, memory.NormalizeTerm(k.Entities[2].Name), memory.NormalizeTerm(k.Topics[0]))
			}
			_, err := s.LookupTerms(ctx, memory.TermLookup{Filter: viewer, Limit: 256, Terms: terms, KeysOnly: true})
			return err
		})
		lat.report(b)
	})
	b.Run("list/entities-page-50", func(b *testing.B) {
		ps := prefixes(2)
		lat := latencies(b, func(i int) error {
			_, err := s.ListKnowledge(ctx, memory.KnowledgeListQuery{Filter: viewer, Kind: memory.KnowledgeEntity, Prefix: ps[i%len(ps)], Limit: 50})
			return err
		})
		lat.report(b)
	})
	b.Run("put/replace", func(b *testing.B) {
		lat := latencies(b, func(i int) error {
			m := sample[i%len(sample)]
			return s.PutKnowledge(ctx, m.OrgID, m.ID, m.Attrs(), "bench", memorytest.BenchKnowledge(n+i).Refs(m.ID))
		})
		lat.report(b)
	})
}

type latency []time.Duration

// latencies runs fn b.N times and returns the duration of each call.
func latencies(b *testing.B, fn func(i int) error) latency {
	out := make(latency, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		if err := fn(i); err != nil {
			b.Fatal(err)
		}
		out = append(out, time.Since(t))
	}
	return out
}

// report adds the p50 and p95 in milliseconds to the benchmark's line.
func (l latency) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	q := func(p float64) float64 { return float64(l[int(p*float64(len(l)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
}

// TestTermsCountersAgreeWithPostings completes prefixes over a vocabulary
// whose ranges are large enough to be read in count order, and summed over
// two scopes by the threshold algorithm, and checks the answers against the
// same filter counted from the postings (a Start before every memory makes
// the filter one the counters cannot answer).
func TestTermsCountersAgreeWithPostings(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 600 memories of 40 topics")
	}
	ctx := context.Background()
	s, corpus := openWithCorpus(t, 600)
	r := rand.New(rand.NewPCG(1, 2))
	firsts := map[string]int{}
	for _, m := range corpus {
		var k memory.Knowledge
		for j := 0; j < 40; j++ { // Zipf-like over 20,000 words
			k.Topics = append(k.Topics, fmt.Sprintf("q%05d", int(math.Exp(r.Float64()*math.Log(20001)))-1))
		}
		for j := 0; j < 16; j++ { // uniform over 20,000 words: most once
			k.Topics = append(k.Topics, fmt.Sprintf("rz%05d", r.IntN(20000)))
		}
		// A flat head in the org scope (rza*, ten each) and in agent x's
		// (rzb*), and "rzt", nine in each: fifth in each scope, first in
		// their sum.
		if n := firsts[m.AgentID]; (m.AgentID == "" || m.AgentID == memorytest.AgentX) && n < 10 && !m.Archived {
			firsts[m.AgentID]++
			for j := 0; j < 50; j++ {
				k.Topics = append(k.Topics, fmt.Sprintf("rz%s%02d", map[string]string{"": "a", memorytest.AgentX: "b"}[m.AgentID], j))
			}
			if n < 9 {
				k.Topics = append(k.Topics, "rzt")
			}
		}
		if err := s.PutKnowledge(ctx, m.OrgID, m.ID, m.Attrs(), "test", k.Refs(m.ID)); err != nil {
			t.Fatal(err)
		}
	}
	x := memory.Filter{OrgID: memorytest.OrgA, Viewer: memorytest.AgentX}
	if got, err := s.Terms(ctx, x, "rz", 1); err != nil || len(got) != 1 || got[0] != (memory.TermCount{Term: "rzt", Count: 18}) {
		t.Fatalf("top completion of rz for viewer x: %v %v, want rzt 18", got, err)
	}
	for _, f := range []memory.Filter{
		{OrgID: memorytest.OrgA}, x,
		{OrgID: memorytest.OrgA, AgentID: memorytest.AgentY}, {OrgID: memorytest.OrgA, Viewer: memorytest.AgentY, IncludeArchived: true},
	} {
		for _, prefix := range []string{"", "q", "q0", "q00", "q01", "q1", "q19", "rz", "x"} {
			// The postings' answer (a Start before every memory), once at the
			// largest limit: a smaller limit's answer is its head, since the
			// order (count, then term) is total.
			slow := f
			slow.Start = 1
			all, err := s.Terms(ctx, slow, prefix, memory.MaxTermPrefixResult)
			if err != nil {
				t.Fatal(err)
			}
			for _, limit := range []int{1, 10, memory.MaxTermPrefixResult} {
				got, err := s.Terms(ctx, f, prefix, limit)
				if err != nil {
					t.Fatal(err)
				}
				want := all[:min(limit, len(all))]
				if !(len(got) == 0 && len(want) == 0) && !reflect.DeepEqual(got, want) {
					t.Fatalf("terms %q limit %d for %+v:\ncounters %v\npostings %v", prefix, limit, f, got, want)
				}
			}
		}
	}
}

// TestRefsByKeyInChunks: Refs and RefNames seek each key, in chunks padded
// to a power of two; counts across the chunks' bounds, repeated keys and
// keys of no ref give each ref once, named as KnowledgeName says.
func TestRefsByKeyInChunks(t *testing.T) {
	ctx := context.Background()
	s, corpus := openWithCorpus(t, 3)
	var all []memory.RefKey
	names := map[memory.RefKey]string{}
	for i, m := range corpus {
		var k memory.Knowledge
		for j := range 200 {
			k.Entities = append(k.Entities, memory.Entity{Name: fmt.Sprintf("Name %d %d", i, j), Types: []string{"person"}})
		}
		refs := k.Refs(m.ID)
		if err := s.PutKnowledge(ctx, m.OrgID, m.ID, m.Attrs(), "test", refs); err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			all = append(all, r.Key())
			names[r.Key()] = memory.KnowledgeName(r)
		}
	}
	tests := []struct {
		name string
		keys []memory.RefKey
	}{
		{"one", all[:1]},
		{"three: padded to four", all[:3]},
		{"a chunk and one", all[:sqlite.RefKeyChunk+1]},
		{"two chunks and some", all[:2*sqlite.RefKeyChunk+37]},
		{"repeated and absent keys", append(append(slices.Clone(all[:5]), all[:5]...), memory.RefKey{MemoryID: "no-such", Ordinal: 1}, memory.RefKey{MemoryID: corpus[0].ID, Ordinal: 250})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := map[memory.RefKey]string{}
			for _, k := range tc.keys {
				if n, ok := names[k]; ok {
					want[k] = n
				}
			}
			refs, err := s.Refs(ctx, memorytest.OrgA, tc.keys)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.RefNames(ctx, memorytest.OrgA, tc.keys)
			if err != nil {
				t.Fatal(err)
			}
			if len(refs) != len(want) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%d refs and %d names, want %d", len(refs), len(got), len(want))
			}
			for k, r := range refs {
				if r.Key() != k || memory.KnowledgeName(r) != want[k] {
					t.Fatalf("ref %v: %+v", k, r)
				}
			}
		})
	}
}

// openWithCorpus opens a store in a temporary directory, closed when the
// test ends, holding memorytest's corpus of n memories of OrgA.
func openWithCorpus(t *testing.T, n int) (*sqlite.Store, []*memory.Memory) {
	t.Helper()
	s := open(t, filepath.Join(t.TempDir(), "memories.db"))
	t.Cleanup(func() { s.Close() })
	corpus := memorytest.Corpus(memorytest.OrgA, n)
	if _, err := s.Create(context.Background(), corpus); err != nil {
		t.Fatal(err)
	}
	return s, corpus
}
