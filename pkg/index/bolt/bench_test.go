package bolt_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// BenchmarkSearch measures the index alone (no store, no embedding) on one
// org of 100,000 memories with 384-dimension vectors: go test -bench Search
// -run ^$ ./pkg/bolt.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	ix, _, err := bolt.Open(b.TempDir(), model, 384)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 5000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i)
	}
	word := func() string { return words[int(float64(len(words))*rng.Float64()*rng.Float64())] }
	vec := func() []float32 {
		v := make([]float32, 384)
		var n float64
		for i := range v {
			v[i] = rng.Float32() - 0.5
			n += float64(v[i] * v[i])
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	const size = 100_000
	batch := make([]*memory.Memory, 0, 1000)
	for i := 0; i < size; i++ {
		text := ""
		for j := 0; j < 8+rng.IntN(40); j++ {
			text += word() + " "
		}
		m := memorytest.New(memorytest.OrgA, "", memory.TypeMessage, text, memorytest.Base+int64(i))
		m.Embedding = vec()
		batch = append(batch, m)
		if len(batch) == cap(batch) {
			if err := ix.Upsert(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := ix.WaitANN(ctx); err != nil { // past the threshold: measure the graph, not the exact scan answering while it builds
		b.Fatal(err)
	}
	queries := make([]memory.IndexQuery, 64)
	for i := range queries {
		queries[i] = memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA},
			Text: word() + " " + word() + " " + word() + " " + word(), Vector: vec(), K: 40}
	}
	for _, mode := range []string{"keyword", "semantic", "hybrid"} {
		b.Run(mode, func(b *testing.B) {
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				if mode == "keyword" {
					q.Vector = nil
				}
				if mode == "semantic" {
					q.Text = ""
				}
				if _, err := ix.Search(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
