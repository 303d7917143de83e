package related

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// BenchmarkNearest compares scoring a search's query terms against a
// vocabulary one term at a time (a pass over the vocabulary each) with
// all of them in one pass.
func BenchmarkNearest(b *testing.B) {
	const dim, terms, queries = 384, 40_000, 6
	rng := rand.New(rand.NewPCG(1, 2))
	o := &orgTerms{dim: dim, cutoff: 0.5}
	unit := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		memory.Normalize(v)
		return v
	}
	for j := 0; j < terms; j++ {
		o.terms = append(o.terms, fmt.Sprintf("t%d", j))
		q := quantize(unit())
		o.vecs = append(o.vecs, q.q...)
		o.scales = append(o.scales, q.scale)
	}
	vs, ts := make([][]float32, queries), make([]string, queries)
	for i := range vs {
		vs[i], ts[i] = unit(), fmt.Sprintf("q%d", i)
	}
	b.Run("one pass per term", func(b *testing.B) {
		for b.Loop() {
			for i := range vs {
				o.nearest(vs[i:i+1], ts[i:i+1], nil)
			}
		}
	})
	b.Run("one pass", func(b *testing.B) {
		for b.Loop() {
			o.nearest(vs, ts, nil)
		}
	})
}
