package bolt_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/synth"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// BenchmarkKeyword measures keyword search alone (no store, no vectors) on
// one org of 100,000 of bench-latency's Zipf texts (internal/synth) (KEYWORD_SIZE to change),
// top 10 (KEYWORD_K to change), and reports the p50 and p95 latency of a fixed set of 3–8 word
// queries, with MaxScore pruning (split across the cores past
// keywordParallelMin postings, and in one part) and scoring every posting
// in one part. With
// KEYWORD_CORPUS=dir it also writes the texts and queries there (docs.txt,
// queries.txt, one a line) for scripts/tantivy_keyword.py to index and time
// the same workload: go test -run ^$ -bench Keyword ./index/bolt/.
func BenchmarkKeyword(b *testing.B) {
	ctx := context.Background()
	ix, _, err := bolt.Open(b.TempDir(), model, 384)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	g := synth.New(1)
	size := benchSize()
	texts := make([]string, size)
	batch := make([]*memory.Memory, 0, 1000)
	for i := range texts {
		texts[i] = g.Memory(i).Text
		m := memorytest.New(memorytest.OrgA, "", memory.TypeMessage, texts[i], memorytest.Base+int64(i))
		m.Embedding = nil // keywords only
		batch = append(batch, m)
		if len(batch) == cap(batch) {
			if err := ix.Upsert(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = g.Query()
	}
	if dir := os.Getenv("KEYWORD_CORPUS"); dir != "" {
		writeLines(b, filepath.Join(dir, "docs.txt"), texts)
		writeLines(b, filepath.Join(dir, "queries.txt"), queries)
	}
	for _, mode := range []struct {
		name    string
		pruning bool
		parts   int // 0: split across the cores when the lists are long
	}{{"maxscore", true, 0}, {"maxscore-one-part", true, 1}, {"every-posting", false, 1}} {
		b.Run(mode.name, func(b *testing.B) {
			defer bolt.SetPruning(mode.pruning)()
			defer bolt.SetKeywordParts(mode.parts)()
			lat := make([]time.Duration, 0, 1<<16)
			hits := 0
			i := 0
			for b.Loop() {
				q := memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA}, Text: queries[i%len(queries)], K: benchK()}
				i++
				t := time.Now()
				res, err := ix.Search(ctx, q)
				lat = append(lat, time.Since(t))
				if err != nil {
					b.Fatal(err)
				}
				hits += len(res.Keyword)
			}
			if hits == 0 {
				b.Fatal("no query found anything")
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-µs")
		})
	}
}

func writeLines(b *testing.B, path string, lines []string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// benchSize is the org size of the keyword benchmarks: KEYWORD_SIZE,
// default 100,000.
func benchSize() int {
	if v, err := strconv.Atoi(os.Getenv("KEYWORD_SIZE")); err == nil && v > 0 {
		return v
	}
	return 100_000
}

// benchK is the k of BenchmarkKeyword: KEYWORD_K, default 10 (the service
// asks each of its lists for max(50, 4k) candidates).
func benchK() int {
	if v, err := strconv.Atoi(os.Getenv("KEYWORD_K")); err == nil && v > 0 {
		return v
	}
	return 10
}
