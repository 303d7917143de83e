package bolt_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/index/bolt"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/memory/memorytest"
)

// zipfGen makes bench-latency's synthetic texts: words drawn from a Zipf
// distribution (s = 1.1) over 20,000 words, one short sentence to a paragraph.
type zipfGen struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newZipfGen(seed uint64) *zipfGen {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	base := strings.Fields(`time person year way day thing man world life hand part child eye woman place work week
		case point government company number group problem fact meeting project budget travel flight hotel dinner
		coffee tea pizza book movie music concert guitar piano painting garden dog cat family friend school doctor
		hospital birthday wedding holiday summer winter spring autumn beach mountain hike run marathon gym yoga
		recipe kitchen bread cake wine beer restaurant office manager team client contract invoice payment bank
		house apartment rent car bike train bus airport visa passport ticket museum city country language course
		exam degree job interview salary promotion deadline launch release bug feature design review sprint plan
		allergy medicine appointment dentist sister brother mother father son daughter partner neighbour camping
		photo camera phone laptop email message call video game football tennis swimming chess podcast novel`)
	vocab := append([]string(nil), base...)
	syll := []string{"ka", "lo", "mi", "ra", "ten", "vos", "ne", "da", "sul", "pri", "an", "tor", "el", "zu"}
	for len(vocab) < 20000 {
		vocab = append(vocab, syll[rng.IntN(len(syll))]+syll[rng.IntN(len(syll))]+syll[rng.IntN(len(syll))])
	}
	return &zipfGen{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1)), vocab: vocab}
}

func (g *zipfGen) words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = g.vocab[g.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

func (g *zipfGen) text(i int) string {
	n := 5 + g.rng.IntN(20)
	if g.rng.IntN(5) == 0 {
		n = 40 + g.rng.IntN(120) // a paragraph
	}
	return fmt.Sprintf("%s (%d)", g.words(n), i)
}

// BenchmarkKeyword measures keyword search alone (no store, no vectors) on
// one org of 100,000 of bench-latency's Zipf texts (KEYWORD_SIZE to change),
// top 10, and reports the p50 and p95 latency of a fixed set of 3–8 word
// queries, with MaxScore pruning and scoring every posting. With
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
	g := newZipfGen(1)
	size := 100_000
	if v, err := strconv.Atoi(os.Getenv("KEYWORD_SIZE")); err == nil && v > 0 {
		size = v
	}
	texts := make([]string, size)
	batch := make([]*memory.Memory, 0, 1000)
	for i := range texts {
		texts[i] = g.text(i)
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
		queries[i] = g.words(3 + g.rng.IntN(6))
	}
	if dir := os.Getenv("KEYWORD_CORPUS"); dir != "" {
		writeLines(b, filepath.Join(dir, "docs.txt"), texts)
		writeLines(b, filepath.Join(dir, "queries.txt"), queries)
	}
	for _, mode := range []struct {
		name    string
		pruning bool
	}{{"maxscore", true}, {"every-posting", false}} {
		b.Run(mode.name, func(b *testing.B) {
			defer bolt.SetPruning(mode.pruning)()
			lat := make([]time.Duration, 0, 1<<16)
			hits := 0
			i := 0
			for b.Loop() {
				q := memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA}, Text: queries[i%len(queries)], K: 10}
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
