package bolt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// hardSpace is n unit vectors of dims drawn uniformly on the sphere (no
// clusters: every point's neighbours are about as far as the rest, the
// hard case for a graph, as the hashing embedder's vectors are), quantized
// as the index keeps them, and queries more of the same, not in the graph.
func hardSpace(n, queries, dims int) (space, [][]float32) {
	rng := rand.New(rand.NewPCG(41, uint64(n)))
	unit := func() []float32 {
		v := make([]float32, dims)
		var norm float64
		for j := range v {
			x := rng.NormFloat64()
			v[j] = float32(x)
			norm += x * x
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		return v
	}
	s := space{q8: make([]int8, n*dims), quants: make([]quant, n), dims: dims}
	for i := range n {
		s.quants[i] = quantize(unit(), s.q8[i*dims:(i+1)*dims])
	}
	qs := make([][]float32, queries)
	for i := range qs {
		qs[i] = unit()
	}
	return s, qs
}

// graphRecall is recall@k of the walk at width ef over s's graph g for the
// queries, against the exact ranking by the same (int8) scores.
func graphRecall(s space, g *hnsw, qs [][]float32, k, ef int) float64 {
	found := 0
	for _, v := range qs {
		qx := make([]int16, s.dims)
		p := probe{q: qx, x: quantizeQuery(v, qx)}
		exact := make([]node, len(s.quants))
		for o := range exact {
			exact[o] = node{s.score(&p, uint32(o)), uint32(o)}
		}
		slices.SortFunc(exact, byScore)
		want := map[uint32]bool{}
		for _, x := range exact[:k] {
			want[x.ord] = true
		}
		res := g.search(s, &p, ef, nil)
		slices.SortFunc(res, func(a, b node) int {
			switch {
			case a.s > b.s:
				return -1
			case a.s < b.s:
				return 1
			}
			return 0
		})
		for _, x := range res[:min(k, len(res))] {
			if want[x.ord] {
				found++
			}
		}
	}
	return float64(found) / float64(len(qs)*k)
}

// TestSelectNeighbours checks the heuristic on a base and three
// candidates: c1 the closest, c2 closer to c1 than to the base (dropped:
// c1 covers it), c3 in another direction (kept), and with keepPruned c2
// back at the end of a list with room.
func TestSelectNeighbours(t *testing.T) {
	const dims = 16
	at := func(xs ...float64) []float32 {
		v := make([]float32, dims)
		var n float64
		for i, x := range xs {
			v[i] = float32(x)
			n += x * x
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	vs := [][]float32{at(1), at(1, 0.3), at(1, 0.45, 0.05), at(1, 0, 0.6)} // base, c1, c2, c3
	s := space{q8: make([]int8, len(vs)*dims), quants: make([]quant, len(vs)), dims: dims}
	for i, v := range vs {
		s.quants[i] = quantize(v, s.q8[i*dims:(i+1)*dims])
	}
	g := newHNSW(DefaultANN.withDefaults())
	base := s.widen(0, make([]int16, dims))
	cands := func() []node {
		return []node{{s.score(&base, 3), 3}, {s.score(&base, 2), 2}, {s.score(&base, 1), 1}}
	}
	for _, tc := range []struct {
		name string
		keep bool
		m    int
		want []uint32
	}{
		{"heuristic", false, 3, []uint32{1, 3}},
		{"keepPruned", true, 3, []uint32{1, 3, 2}},
		{"keepPruned, full list", true, 2, []uint32{1, 3}},
		{"heuristic, one place", false, 1, []uint32{1}},
	} {
		if got := g.selectNeighbours(s, cands(), tc.m, tc.keep, make([]int16, dims)); !slices.Equal(got, tc.want) {
			t.Errorf("%s, m %d: %v, want %v", tc.name, tc.m, got, tc.want)
		}
	}
}

// TestGraphRecallOnUniformVectors builds the graph of a uniform (hard) set
// and checks recall@10 at a small width against a floor (seeded and
// independent of the cores: the figure is the same on every run), filled
// (the default) and with the paper's selection (the heuristic alone, a new
// node taking M on layer 0). At M 16 with a new node taking 2·M (the
// default until 2026-11-29) filling must find 0.03 more, the measurement
// that docs/benchmarks.md reports at 100,000, kept honest; at the default
// M and links, where the heuristic alone leaves fewer lists short, it must
// not find less.
func TestGraphRecallOnUniformVectors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four graphs of 4,000 vectors")
	}
	const n, dims, k, ef = 4000, 64, 10, 32
	s, qs := hardSpace(n, 150, dims)
	for _, tc := range []struct {
		m           int
		links       func(*hnsw) int // a new node's on layer 0
		floor, gain float64
	}{
		{16, func(g *hnsw) int { return g.m0 }, 0.80, 0.03},
		{DefaultANN.M, layer0Links, 0.85, 0},
	} {
		t.Run(fmt.Sprintf("M %d", tc.m), func(t *testing.T) {
			cfg := DefaultANN
			cfg.M = tc.m
			build := func(fill bool) float64 {
				defer func(k bool, l func(*hnsw) int) { keepPruned, layer0Links = k, l }(keepPruned, layer0Links)
				keepPruned, layer0Links = fill, tc.links
				if !fill { // the paper's selection: M for a new node
					layer0Links = func(g *hnsw) int { return g.m }
				}
				return graphRecall(s, buildBatchedWith(cfg, s, n, 64, 2), qs, k, ef)
			}
			filled, plain := build(true), build(false)
			t.Logf("recall@%d at ef %d: %.3f by default (lists filled), %.3f with the heuristic alone", k, ef, filled, plain)
			if filled < tc.floor {
				t.Errorf("recall@%d %.3f, want at least %.2f", k, filled, tc.floor)
			}
			if filled < plain+tc.gain {
				t.Errorf("filled lists: recall@%d %.3f, want %.2f above the heuristic's %.3f", k, filled, tc.gain, plain)
			}
		})
	}
}
