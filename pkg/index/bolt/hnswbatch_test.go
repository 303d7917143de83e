package bolt

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomSpace is n clustered unit vectors of dims, quantized as the index
// keeps them.
func randomSpace(n, dims int) space {
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	centres := make([][]float64, 20)
	for i := range centres {
		centres[i] = make([]float64, dims)
		for j := range centres[i] {
			centres[i][j] = rng.NormFloat64()
		}
	}
	s := space{q8: make([]int8, n*dims), quants: make([]quant, n), dims: dims}
	v := make([]float32, dims)
	for i := range n {
		c := centres[rng.IntN(len(centres))]
		var norm float64
		for j := range v {
			x := c[j] + rng.NormFloat64()*0.5
			v[j] = float32(x)
			norm += x * x
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		s.quants[i] = quantize(v, s.q8[i*dims:(i+1)*dims])
	}
	return s
}

// buildBatched inserts the n ordinals of s in batches of batch, planned
// and applied by workers goroutines.
func buildBatched(s space, n, batch, workers int) *hnsw {
	return buildBatchedWith(DefaultANN, s, n, batch, workers)
}

// buildBatchedWith is buildBatched with cfg's graph.
func buildBatchedWith(cfg ANNConfig, s space, n, batch, workers int) *hnsw {
	g := newHNSW(cfg.withDefaults())
	g.grow(n)
	for at := 0; at < n; at += batch {
		ords := make([]uint32, 0, batch)
		for o := at; o < min(n, at+batch); o++ {
			ords = append(ords, uint32(o))
		}
		g.apply(s, g.plan(s, ords, workers), workers)
	}
	return g
}

// TestBatchedGraphDoesNotDependOnWorkers builds one corpus's graph on 1, 2
// and 8 goroutines: every list, level and the entry must be the same, so a
// build is reproducible whatever the machine's cores.
func TestBatchedGraphDoesNotDependOnWorkers(t *testing.T) {
	const n, dims = 3000, 32
	s := randomSpace(n, dims)
	want := buildBatched(s, n, 64, 1)
	for _, tc := range []struct {
		name    string
		workers int
	}{{"two", 2}, {"eight", 8}} {
		t.Run(tc.name, func(t *testing.T) {
			got := buildBatched(s, n, 64, tc.workers)
			if got.entry != want.entry || got.maxLevel != want.maxLevel {
				t.Fatalf("entry %d level %d, want %d level %d", got.entry, got.maxLevel, want.entry, want.maxLevel)
			}
			if !slices.Equal(got.level, want.level) || !slices.Equal(got.n0, want.n0) || !slices.Equal(got.nb0, want.nb0) {
				t.Fatal("layer 0 differs from the one-goroutine build")
			}
			for ord, layers := range want.upper {
				for l, nb := range layers {
					if !slices.Equal(got.upper[ord][l], nb) {
						t.Fatalf("node %d layer %d: %v, want %v", ord, l+1, got.upper[ord][l], nb)
					}
				}
			}
		})
	}
}

// TestBatchedGraphFindsNeighbours checks the batched build against the
// serial one (batches of one node) and both against the exact answer: recall@10 of the walk at ef 10 (its candidates re-ranked,
// as the index does) over the corpus's own vectors as queries, for batch sizes from one node (a serial insert) to
// more than the nodes of a small graph (the first batch has no graph to
// walk and links its nodes among themselves).
func TestBatchedGraphFindsNeighbours(t *testing.T) {
	const n, dims, k, queries = 4000, 32, 10, 200
	s := randomSpace(n, dims)
	serial := 0.0
	for _, batch := range []int{1, 16, 64, 512} {
		g := buildBatched(s, n, batch, 2)
		rng := rand.New(rand.NewPCG(9, 9))
		found := 0
		for range queries {
			q := uint32(rng.IntN(n))
			p := s.widen(q, make([]int16, dims))
			exact := make([]node, n)
			for o := range n {
				exact[o] = node{s.score(&p, uint32(o)), uint32(o)}
			}
			slices.SortFunc(exact, func(a, b node) int {
				if a.s != b.s {
					if a.s > b.s {
						return -1
					}
					return 1
				}
				return int(a.ord) - int(b.ord)
			})
			want := map[uint32]bool{}
			for _, x := range exact[:k] {
				want[x.ord] = true
			}
			for _, x := range g.search(s, &p, k, nil) {
				if want[x.ord] {
					found++
				}
			}
		}
		r := float64(found) / float64(queries*k)
		t.Logf("batch %d: recall@10 %.3f", batch, r)
		if batch == 1 {
			serial = r
		}
		if r < 0.97 || r < serial-0.01 {
			t.Errorf("batch %d: recall@10 %.3f, want at least 0.97 and within 0.01 of one node at a time (%.3f)", batch, r, serial)
		}
	}
}

// TestVisited checks the walk's visited set: an ordinal is new once, a
// fresh walk (next, or the set back from the pool) forgets every mark,
// marks in one word and across words are independent, and a set grown for
// a larger org starts empty.
func TestVisited(t *testing.T) {
	v := getVisited(200)
	for _, tc := range []struct {
		ords []uint32
		want []bool
	}{
		{[]uint32{0, 63, 64, 199, 0, 64, 1}, []bool{true, true, true, true, false, false, true}},
		{[]uint32{5, 5, 130, 131, 130}, []bool{true, false, true, true, false}},
	} {
		v.next()
		for i, ord := range tc.ords {
			if got := v.visit(ord); got != tc.want[i] {
				t.Fatalf("visit(%d) #%d = %v, want %v", ord, i, got, tc.want[i])
			}
		}
	}
	v.visit(7)
	visitedPool.Put(v)
	w := getVisited(200)
	if !w.visit(7) {
		t.Fatal("a set from the pool kept a mark of its last walk")
	}
	w.visit(9)
	visitedPool.Put(w)
	big := getVisited(100_000)
	for _, ord := range []uint32{7, 9, 99_999} {
		if !big.visit(ord) {
			t.Fatalf("a set grown for 100,000 ordinals had %d marked", ord)
		}
	}
	visitedPool.Put(big)
}
