package bolt

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/agentmem/agentmem/internal/vecdot"
)

// The approximate vector index: one HNSW graph (Malkov and Yashunin,
// "Efficient and robust approximate nearest neighbor search using
// Hierarchical Navigable Small World graphs") per org of at least
// ANNConfig.Threshold vectors, over the org's ordinals.
//
// The graph holds no vectors of its own: it walks the org's int8 matrix
// (o.q8), scoring an int16 query against int8 vectors with the same kernel
// as the exact scan (a node's unvisited neighbours in one call that
// prefetches their rows, and the lists of the nodes it may expand next
// prefetched too: at a million vectors the walk waits on memory, not on
// arithmetic), and the best candidates it finds are re-ranked on their
// float32 vectors exactly as the exact scan's survivors are. Edges are
// chosen with the paper's neighbour-selection heuristic (algorithm 4), which
// keeps clustered corpora connected, on insert and when a full list takes
// one more. On the hashing embedder's vectors the heuristic leaves layer 0
// half empty, so a new node takes up to 2·M neighbours on layer 0 and its
// lists are filled with the closest candidates the heuristic dropped
// (keepPruned), which finds more of what exact search finds at every
// width. Full lists drop the edges back to later nodes and a compaction
// splits clustered layers, so each batch gives every node left without a
// way in one back, and a build and a compaction end with every layer
// strongly connected ("Reachability" below). The descent walks layer 1 at
// the full width (beamFrom), not one node wide (docs/benchmarks.md, "The
// graph's recall curve").
//
// Filters are applied during the walk: every node is traversed, only the
// nodes the filter allows (and that are not deleted) enter the result set,
// and the walk ends when the result set holds ef allowed nodes that no
// candidate can improve (hnswlib's rule), so a selective filter widens the
// walk by itself. ef also grows as the filter's estimated selectivity (a
// sample of 512 ordinals) falls, up to 4×, and when the walk's estimated
// cost exceeds the exact scan's, the exact scan answers over the allowed
// vectors (at 100,000 vectors, filters allowing under about 12% of them;
// at 1,000,000, where the walk is wider (SearchWidth), under about 7%).
//
// Deletes are tombstones: a removed memory's node stays in the graph, with
// its int8 vector, as a waypoint that is never returned. When the org
// compacts (holes outnumber live memories), the graph is renumbered with
// it and every edge to a removed node is replaced by that node's live
// neighbours, re-selected with the heuristic (repair).
//
// The graph is derived and kept in memory only: it is built in the
// background when an org crosses the threshold (at start for orgs already
// above it), and until it has caught up the exact scan answers, so a
// search is never wrong, only slower, while it builds. Nodes go in by
// batches, planned and applied on every core (hnswbatch.go), and the graph
// is the same whatever the number of cores.

// ANNConfig sets the approximate vector index. The zero value of a field
// takes DefaultANN's.
type ANNConfig struct {
	// Threshold is the number of vectors an org needs for its searches to
	// use the graph; below it they stay exact. Negative: never.
	Threshold int
	// M is the number of neighbours kept per node above layer 0 (2·M on
	// layer 0).
	M int
	// EfConstruction is the width of the walk that finds a new node's
	// neighbours.
	EfConstruction int
	// EfSearch is the width of a query's walk on layer 0 over an org of
	// up to 100,000 vectors, before filters widen it; at least the k asked
	// for. Larger orgs walk wider (SearchWidth), so that recall holds.
	EfSearch int
}

// DefaultANN is the configuration an Index opens with.
//
// The threshold, 32,768 vectors, is where the exact scan stops being
// cheap: it is parallel from 16,384 vectors, and at 32,768 it costs about a
// third of a millisecond of int8 scoring per core plus the filter check of
// every entry, while the graph's walk costs about the same whatever the
// org's size; below it, building and keeping a graph would buy nothing.
//
// M 32 (64 places on layer 0): on 384-dimension vectors a wider graph
// finds more of the exact neighbours at the same latency, 0.921 of them at
// efSearch 128 and 100,000 vectors against 0.857 at M 16, for 1.85× the
// build's CPU and 126 more bytes per memory (docs/benchmarks.md, "A wider
// graph").
var DefaultANN = ANNConfig{Threshold: 32_768, M: 32, EfConstruction: 128, EfSearch: 128}

func (c ANNConfig) withDefaults() ANNConfig {
	if c.Threshold == 0 {
		c.Threshold = DefaultANN.Threshold
	}
	if c.M <= 0 {
		c.M = DefaultANN.M
	}
	if c.EfConstruction <= 0 {
		c.EfConstruction = DefaultANN.EfConstruction
	}
	if c.EfSearch <= 0 {
		c.EfSearch = DefaultANN.EfSearch
	}
	return c
}

// hnsw is one org's graph over its ordinals. Its users hold the Index's
// lock (reading at least); mu orders the background linker's inserts (ann.go)
// with the searches that walk a ready graph meanwhile.
type hnsw struct {
	mu         sync.RWMutex
	m, m0, efC int
	ml         float64
	rng        *rand.Rand

	level []int8   // by ordinal; -1: not in the graph (no vector, or not yet inserted)
	nb0   []uint32 // layer-0 neighbours, m0 slots per ordinal
	n0    []uint8  // how many of each ordinal's m0 slots are used
	in0   []uint32 // how many layer-0 lists hold each ordinal (its in-edges; see adopt)
	upper map[uint32][][]uint32

	entry    uint32
	maxLevel int // -1: empty

	built int  // ordinals below have been inserted (or skipped)
	ready bool // built caught up with the org once; searches then walk it, and scan the ordinals from built on
}

func newHNSW(c ANNConfig) *hnsw {
	return &hnsw{
		m: c.M, m0: 2 * c.M, efC: c.EfConstruction,
		ml:       1 / math.Log(float64(c.M)),
		rng:      rand.New(rand.NewPCG(0x4e5357, uint64(c.M))),
		upper:    map[uint32][][]uint32{},
		maxLevel: -1,
	}
}

// space is the org's int8 matrix as the graph reads it.
type space struct {
	q8     []int8
	quants []quant
	dims   int
}

func spaceOf(o *orgIndex, dims int) space { return space{o.q8, o.quants, dims} }

func (s space) vec(ord uint32) []int8 { return s.q8[int(ord)*s.dims : (int(ord)+1)*s.dims] }

// probe is a point the graph is searched from: a query in int16 form, or a
// stored vector widened to int16 (exactly).
type probe struct {
	q []int16
	x quant
}

// score is the estimated inner product of p and the stored vector ord.
func (s space) score(p *probe, ord uint32) float32 {
	return float32(vecdot.Int16Int8(p.q, s.vec(ord))) * p.x.scale * s.quants[ord].scale
}

// scores sets out[i] to score(p, ords[i]), out at least as long as ords:
// one kernel call that prefetches the scattered vectors ahead of the one it
// scores (vecdot.Int16Int8Rows), so that their cache misses overlap. dots is
// scratch of len(ords) int32s.
func (s space) scores(p *probe, ords []uint32, dots []int32, out []float32) {
	dots = dots[:len(ords)]
	vecdot.Int16Int8Rows(p.q, s.q8, ords, dots)
	for i, ord := range ords {
		out[i] = float32(dots[i]) * p.x.scale * s.quants[ord].scale
	}
}

// rowScores is a walk's buffers for scoring a node's neighbours at once.
type rowScores struct {
	ords []uint32
	dots []int32
	out  []float32
}

// fit empties sc with room for n neighbours.
func (sc *rowScores) fit(n int) {
	if cap(sc.ords) < n {
		sc.ords, sc.dots, sc.out = make([]uint32, 0, n), make([]int32, n), make([]float32, n)
	}
	sc.ords = sc.ords[:0]
}

// widen makes the probe of stored vector ord in buf.
func (s space) widen(ord uint32, buf []int16) probe {
	vecdot.Widen(buf, s.vec(ord))
	return probe{q: buf[:s.dims], x: s.quants[ord]}
}

// node is a scored ordinal.
type node struct {
	s   float32
	ord uint32
}

// byScore orders nodes best first, ties by ordinal.
func byScore(a, b node) int {
	switch {
	case a.s > b.s:
		return -1
	case a.s < b.s:
		return 1
	}
	return int(a.ord) - int(b.ord)
}

// nearHeap is a max-heap by score: the walk's frontier, best first.
type nearHeap []node

func (h *nearHeap) push(x node) {
	*h = append(*h, x)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].s >= a[i].s {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *nearHeap) pop() node {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, best := 2*i+1, i
		if l < len(a) && a[l].s > a[best].s {
			best = l
		}
		if l+1 < len(a) && a[l+1].s > a[best].s {
			best = l + 1
		}
		if best == i {
			break
		}
		a[i], a[best] = a[best], a[i]
		i = best
	}
	*h = a
	return top
}

// farHeap is a min-heap by score: the walk's results, worst first.
type farHeap []node

func (h *farHeap) push(x node) {
	*h = append(*h, x)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].s <= a[i].s {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *farHeap) pop() node {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, best := 2*i+1, i
		if l < len(a) && a[l].s < a[best].s {
			best = l
		}
		if l+1 < len(a) && a[l+1].s < a[best].s {
			best = l + 1
		}
		if best == i {
			break
		}
		a[i], a[best] = a[best], a[i]
		i = best
	}
	*h = a
	return top
}

// visited marks the ordinals a walk has scored, one bit each: at a million
// vectors the set is 125 KiB, which stays in the core's L2 cache where an
// array of generation counters (4 MiB) missed it on most checks (a third
// of a walk's time, by profile). Starting a fresh walk clears only the
// words the last one set.
type visited struct {
	words   []uint64
	touched []uint32 // the indexes of the words set since the last clear
}

var visitedPool = sync.Pool{New: func() any { return new(visited) }}

// getVisited returns an empty set for ordinals below n.
func getVisited(n int) *visited {
	v := visitedPool.Get().(*visited)
	if w := (n + 63) / 64; len(v.words) < w {
		v.words = make([]uint64, w+w/4)
		v.touched = v.touched[:0]
	}
	v.next()
	return v
}

// visit marks ord and reports whether it was not marked before.
func (v *visited) visit(ord uint32) bool {
	i := ord >> 6
	w, bit := v.words[i], uint64(1)<<(ord&63)
	if w&bit != 0 {
		return false
	}
	if w == 0 {
		v.touched = append(v.touched, i)
	}
	v.words[i] = w | bit
	return true
}

// next empties the set for a fresh walk.
func (v *visited) next() {
	for _, i := range v.touched {
		v.words[i] = 0
	}
	v.touched = v.touched[:0]
}

// neighbours returns ord's neighbours on layer l.
func (g *hnsw) neighbours(ord uint32, l int) []uint32 {
	if l == 0 {
		at := int(ord) * g.m0
		return g.nb0[at : at+int(g.n0[ord])]
	}
	return g.upper[ord][l-1]
}

// setNeighbours replaces ord's neighbours on layer l. On layer 0 it
// keeps the in-degrees, atomically: the edges back to a batch are applied
// on every core, each list by one goroutine but their targets shared.
func (g *hnsw) setNeighbours(ord uint32, l int, nb []uint32) {
	if l == 0 {
		for _, old := range g.neighbours(ord, 0) {
			atomic.AddUint32(&g.in0[old], ^uint32(0))
		}
		at := int(ord) * g.m0
		g.n0[ord] = uint8(copy(g.nb0[at:at+g.m0], nb))
		for _, nw := range g.neighbours(ord, 0) {
			atomic.AddUint32(&g.in0[nw], 1)
		}
		return
	}
	g.upper[ord][l-1] = append(g.upper[ord][l-1][:0], nb...)
}

// grow makes room for ordinals below n.
func (g *hnsw) grow(n int) {
	for len(g.level) < n {
		g.level = append(g.level, -1)
		g.n0 = append(g.n0, 0)
		g.in0 = append(g.in0, 0)
	}
	if want := n * g.m0; len(g.nb0) < want {
		g.nb0 = append(g.nb0, make([]uint32, want-len(g.nb0))...)
	}
}

// greedy descends from ep through layers top..stop+1, moving to the best
// neighbour until none is better, and returns the node it ends on.
func (g *hnsw) greedy(s space, p *probe, ep node, top, stop int) node {
	var sc rowScores
	for l := top; l > stop; l-- {
		for changed := true; changed; {
			changed = false
			nbs := g.neighbours(ep.ord, l)
			sc.fit(len(nbs))
			s.scores(p, nbs, sc.dots, sc.out)
			for i, nb := range nbs {
				if sc.out[i] > ep.s {
					ep, changed = node{sc.out[i], nb}, true
				}
			}
		}
	}
	return ep
}

// walk is the layer-l beam search from eps: the ef best nodes that allow
// accepts (all when allow is nil), worst first. Every node is traversed,
// allowed or not.
func (g *hnsw) walk(s space, p *probe, eps []node, l, ef int, allow func(uint32) bool, vis *visited) farHeap {
	var front nearHeap
	res := make(farHeap, 0, ef+1)
	for _, e := range eps {
		if !vis.visit(e.ord) {
			continue
		}
		front.push(e)
		if allow == nil || allow(e.ord) {
			res.push(e)
			if len(res) > ef {
				res.pop()
			}
		}
	}
	var fresh rowScores
	for len(front) > 0 {
		c := front.pop()
		if len(res) >= ef && c.s < res[0].s {
			break
		}
		nbs := g.neighbours(c.ord, l)
		fresh.fit(len(nbs))
		for _, nb := range nbs {
			if vis.visit(nb) {
				vecdot.Prefetch((*byte)(unsafe.Pointer(&s.quants[nb]))) // its scale, read after the kernel
				fresh.ords = append(fresh.ords, nb)
			}
		}
		s.scores(p, fresh.ords, fresh.dots, fresh.out)
		for i, nb := range fresh.ords {
			sc := fresh.out[i]
			if len(res) < ef || sc > res[0].s {
				if l == 0 { // its list and count are read if it is expanded
					row := g.nb0[int(nb)*g.m0 : int(nb+1)*g.m0]
					vecdot.Prefetch((*byte)(unsafe.Pointer(&row[0])))
					vecdot.Prefetch((*byte)(unsafe.Pointer(&row[len(row)-1])))
					vecdot.Prefetch(&g.n0[nb])
				}
				front.push(node{sc, nb})
				if allow == nil || allow(nb) {
					res.push(node{sc, nb})
					if len(res) > ef {
						res.pop()
					}
				}
			}
		}
	}
	return res
}

// Neighbour selection's knobs (variables for the sweep benchmark, which
// measures them on a corpus; see selectNeighbours).
var (
	// keepPruned fills a new node's lists, the lists repair rebuilds, and
	// on the upper layers the re-selection of a full list (link), where the
	// heuristic left them short, with the closest of the candidates it
	// dropped (the paper's keepPrunedConnections). A full list on layer 0
	// is re-selected by the heuristic alone: filling it too cost 3× the
	// build's CPU for 0.01 of recall. Off, with layer0Links m, is the
	// paper's (and hnswlib's) selection, kept for the sweep benchmark and
	// the tests that compare the two.
	keepPruned = true
	// layer0Links is how many neighbours a new node takes on layer 0: m,
	// as hnswlib does (faiss takes m0); its list and its neighbours' hold
	// up to m0 either way, and fill as later nodes link back. At M 32 and
	// 100,000 vectors taking m0 cost 1.8× the build's CPU for the same
	// recall (docs/benchmarks.md, "A wider graph").
	layer0Links = func(g *hnsw) int { return g.m }
)

// selectNeighbours keeps up to m of cands (any order) by the heuristic: a
// candidate is kept when it is closer to the base than to every candidate
// already kept, best first (the paper's algorithm 4); with fill, a list left
// short is topped up to m with the closest dropped ones. Vamana's
// relaxation (dropping c only when α·|c − k| ≤ |c − base|), measured at α
// 1.1 and 1.2 on uniform vectors, found no more than this rule. buf is
// scratch of dims int16s.
func (g *hnsw) selectNeighbours(s space, cands []node, m int, fill bool, buf []int16) []uint32 {
	slices.SortFunc(cands, byScore)
	kept := make([]uint32, 0, m)
	var dropped []uint32
	for _, c := range cands {
		if len(kept) == m {
			break
		}
		p := s.widen(c.ord, buf)
		good := true
		for _, k := range kept {
			if s.score(&p, k) > c.s {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c.ord)
		} else if fill {
			dropped = append(dropped, c.ord)
		}
	}
	for _, d := range dropped {
		if len(kept) == m {
			break
		}
		kept = append(kept, d)
	}
	return kept
}

// randomLevel draws a new node's top layer.
func (g *hnsw) randomLevel() int {
	u := 1 - g.rng.Float64() // (0, 1]
	return min(int(-math.Log(u)*g.ml), 30)
}

// link adds the edge from to to on layer l, re-selecting from's
// neighbours with the heuristic when it would exceed limit. The layer-0
// targets the re-selection drops (to among them, possibly) are appended
// to dropped: they may have lost their last in-edge (see adopt).
func (g *hnsw) link(s space, from, to uint32, l, limit int, buf []int16, dropped *[]uint32) {
	nb := g.neighbours(from, l)
	if len(nb) < limit {
		if l == 0 {
			at := int(from) * g.m0
			g.nb0[at+len(nb)] = to
			g.n0[from]++
			atomic.AddUint32(&g.in0[to], 1)
		} else {
			g.upper[from][l-1] = append(g.upper[from][l-1], to)
		}
		return
	}
	p := s.widen(from, buf)
	was := append(slices.Clone(nb), to)
	cands := make([]node, 0, len(was))
	for _, n := range was {
		cands = append(cands, node{s.score(&p, n), n})
	}
	kept := g.selectNeighbours(s, cands, limit, keepPruned && l > 0, make([]int16, s.dims)) // upper lists stay full: the descent's ways out
	if l == 0 {
		for _, n := range was {
			if !slices.Contains(kept, n) {
				*dropped = append(*dropped, n)
			}
		}
	}
	g.setNeighbours(from, l, kept)
}

// Reachability. A node is found only if a walk can reach it, and only
// the lists of other nodes lead to it. Two things cut nodes off:
//
//   - A full list that takes one more edge is re-selected (link) and drops
//     some: the edge back to the new node, or an older node's last
//     in-edge. With the heuristic alone, 5 of 30,000 clustered vectors
//     (TestGraphReachesEveryMemory) were left without an in-edge after the
//     build; with the lists filled nearly every list is full. So after
//     each batch, every node left without an in-edge on layer 0 is
//     adopted (the reverse-edge guarantee): the closest of its neighbours
//     that can takes it back (attach).
//   - A compaction removes the nodes that held the long links, and the
//     repair's replacements (a removed node's neighbours) stay inside the
//     clusters: on clustered vectors layer 0 fell apart into clusters
//     whose lists never leave them (1,338 of 1,400 nodes out of the entry
//     point's reach in TestANNFindsMemoriesBeforeTheyAreLinked, and from
//     where the descent landed only 190 reachable), whatever the lists.
//     So after a compaction, and once a build has caught up, connect makes
//     each layer strongly connected.

// attach adds the edge from → to on layer l: appended when from's list
// has room, else in place of from's farthest neighbour v that another of
// its neighbours links to (from → y → v), so that every node reached
// before is reached still: a path through from → v goes through y
// instead. It reports false when no neighbour of a full list is covered
// so.
func (g *hnsw) attach(s space, from, to uint32, l int, buf []int16) bool {
	nb := g.neighbours(from, l)
	if slices.Contains(nb, to) {
		return true
	}
	limit := g.m
	if l == 0 {
		limit = g.m0
	}
	if len(nb) < limit {
		if l == 0 {
			at := int(from) * g.m0
			g.nb0[at+len(nb)] = to
			g.n0[from]++
			g.in0[to]++
		} else {
			g.upper[from][l-1] = append(g.upper[from][l-1], to)
		}
		return true
	}
	p := s.widen(from, buf)
	far := make([]node, len(nb))
	for i, v := range nb {
		far[i] = node{s.score(&p, v), uint32(i)} // ord: the place in nb
	}
	slices.SortFunc(far, byScore)
	for k := len(far) - 1; k >= 0; k-- {
		i := far[k].ord
		v := nb[i]
		for _, y := range nb {
			if y != v && slices.Contains(g.neighbours(y, l), v) {
				nb[i] = to // the list's own storage
				if l == 0 {
					g.in0[v]--
					g.in0[to]++
				}
				return true
			}
		}
	}
	return false
}

// adopt gives ord, left without an in-edge on layer 0, one back from the
// closest node that can take it (attach): of its own neighbours, and of
// theirs when none of those can. The caller holds the graph for writing,
// alone.
func (g *hnsw) adopt(s space, ord uint32, buf []int16) {
	p := s.widen(ord, buf)
	scratch := make([]int16, s.dims)
	tried := map[uint32]bool{ord: true}
	ring := g.neighbours(ord, 0)
	for range 2 {
		var froms []node
		for _, nb := range ring {
			if !tried[nb] {
				tried[nb] = true
				froms = append(froms, node{s.score(&p, nb), nb})
			}
		}
		slices.SortFunc(froms, byScore)
		for _, f := range froms {
			if g.attach(s, f.ord, ord, 0, scratch) {
				return
			}
		}
		var next []uint32
		for _, f := range froms {
			next = append(next, g.neighbours(f.ord, 0)...)
		}
		ring = next
	}
}

// connect makes each layer strongly connected: every node is reached
// from the entry point, and leads back to it, so a walk reaches every
// node wherever the descent from the upper layers lands it. Top layer
// first, each node a breadth-first traversal from the entry misses is
// attached from the closest reached node, and each node that cannot lead
// back (a cluster whose lists all stay inside it, as compaction leaves
// them) takes an edge to the closest node that can; the closest nodes are
// those a walk on the layer from the entry finds for its vector.
// Attaching never cuts a path (attach), so one pass suffices. The caller
// holds the graph for writing, alone.
func (g *hnsw) connect(s space) {
	if g.maxLevel < 0 {
		return
	}
	buf, scratch := make([]int16, s.dims), make([]int16, s.dims)
	near := func(ord uint32, l int) []node {
		p := s.widen(ord, buf)
		vis := getVisited(len(g.level)) // on layer l alone: descending, a walk may land where the entry does not lead
		res := []node(g.walk(s, &p, []node{{s.score(&p, g.entry), g.entry}}, l, g.efC, nil, vis))
		visitedPool.Put(vis)
		slices.SortFunc(res, byScore)
		return res
	}
	for l := g.maxLevel; l >= 0; l-- {
		seen := make([]bool, len(g.level))
		g.reach(seen, g.entry, l)
		for ord, lvl := range g.level {
			if int(lvl) < l || seen[ord] {
				continue
			}
			for _, f := range near(uint32(ord), l) {
				if seen[f.ord] && g.attach(s, f.ord, uint32(ord), l, scratch) {
					g.reach(seen, uint32(ord), l)
					break
				}
			}
		}
		back := make([]bool, len(g.level)) // leads to the entry
		back[g.entry] = true
		var rest []uint32
		for ord, lvl := range g.level {
			if int(lvl) >= l && uint32(ord) != g.entry {
				rest = append(rest, uint32(ord))
			}
		}
		for rest = g.settle(back, rest, l); len(rest) > 0; rest = g.settle(back, rest, l) {
			ord := rest[0]
			rest = rest[1:]
			for _, f := range near(ord, l) {
				if f.ord != ord && back[f.ord] && g.attach(s, ord, f.ord, l, scratch) {
					back[ord] = true
					break
				}
			}
		}
	}
}

// settle marks in back each node of rest with a neighbour on layer l
// marked, until none changes, and returns the rest unmarked.
func (g *hnsw) settle(back []bool, rest []uint32, l int) []uint32 {
	for changed := true; changed; {
		changed = false
		left := rest[:0]
		for _, ord := range rest {
			for _, nb := range g.neighbours(ord, l) {
				if back[nb] {
					back[ord], changed = true, true
					break
				}
			}
			if !back[ord] {
				left = append(left, ord)
			}
		}
		rest = left
	}
	return rest
}

// reach marks in seen the nodes a walk reaches on layer l from start,
// breadth first, and not marked before (tombstones are waypoints until
// a compaction, and are traversed).
func (g *hnsw) reach(seen []bool, start uint32, l int) {
	if seen[start] {
		return
	}
	seen[start] = true
	queue := []uint32{start}
	for len(queue) > 0 {
		ord := queue[0]
		queue = queue[1:]
		for _, nb := range g.neighbours(ord, l) {
			if !seen[nb] {
				seen[nb] = true
				queue = append(queue, nb)
			}
		}
	}
}

// search walks the graph for the query p: the ef best allowed nodes by
// estimated score, worst first.
func (g *hnsw) search(s space, p *probe, ef int, allow func(uint32) bool) []node {
	if g.maxLevel < 0 {
		return nil
	}
	eps := []node{g.greedy(s, p, node{s.score(p, g.entry), g.entry}, g.maxLevel, beamFrom)}
	vis := getVisited(len(g.level))
	defer visitedPool.Put(vis)
	for l := min(beamFrom, g.maxLevel); l > 0; l-- {
		eps = g.walk(s, p, eps, l, min(ef, g.m), nil, vis)
		vis.next()
	}
	return g.walk(s, p, eps, 0, ef, allow, vis)
}

// beamFrom is the highest layer the descent walks M wide, for a query
// and for an insert above the node's own layers; above it the descent is
// greedy, one node wide. Greedy down to layer 0, as in
// the paper, a descent on clustered vectors can stop in another cluster,
// which layer 0's walk then cannot leave within its width
// (TestANNFindsMemoriesBeforeTheyAreLinked, TestANNRecall after a
// compaction). Walking layer 1 costs a query about M·M scores more.
var beamFrom = 1

// extend inserts the org's ordinals from g.built, at most limit of them
// (all when limit ≤ 0), skipping those without a vector, in batches of
// buildChunk planned and applied on every core (hnswbatch.go); the caller
// holds g.mu for writing.
func (g *hnsw) extend(o *orgIndex, dims, limit int) {
	s := spaceOf(o, dims)
	end := len(o.ids)
	if limit > 0 {
		end = min(end, g.built+limit)
	}
	g.grow(len(o.ids))
	workers := buildWorkers()
	for g.built < end {
		ords, next := g.pending(o, end, buildChunk)
		g.apply(s, g.plan(s, ords, workers), workers)
		g.built = next
	}
}

// compacted returns the graph renumbered by next (old ordinal → new, -1
// for a removed memory), over the org's matrix s of size ordinals: each edge to a
// removed node is replaced by that node's surviving neighbours, and
// overfull lists are re-selected with the heuristic.
func (g *hnsw) compacted(s space, next []int32, size int) *hnsw {
	n := &hnsw{m: g.m, m0: g.m0, efC: g.efC, ml: g.ml, rng: g.rng, upper: map[uint32][][]uint32{}, maxLevel: -1}
	n.grow(size)
	buf := make([]int16, s.dims)
	for old, nw := range next {
		if nw < 0 || old >= len(g.level) || g.level[old] < 0 {
			continue
		}
		lvl := int(g.level[old])
		n.level[nw] = int8(lvl)
		if lvl > 0 {
			n.upper[uint32(nw)] = make([][]uint32, lvl)
		}
		var p probe
		widened := false
		for l := 0; l <= lvl; l++ {
			nbs := g.neighbours(uint32(old), l)
			intact := true
			for _, nb := range nbs {
				intact = intact && next[nb] >= 0
			}
			if intact { // the common case (every restore, most of a compaction): renumber only
				kept := make([]uint32, len(nbs))
				for i, nb := range nbs {
					kept[i] = uint32(next[nb])
				}
				n.setNeighbours(uint32(nw), l, kept)
				continue
			}
			if !widened {
				p, widened = s.widen(uint32(nw), buf), true
			}
			seen := map[uint32]bool{}
			var cands []node
			add := func(o uint32) {
				if int(o) >= len(next) || next[o] < 0 || next[o] == nw {
					return
				}
				m := uint32(next[o])
				if !seen[m] {
					seen[m] = true
					cands = append(cands, node{s.score(&p, m), m})
				}
			}
			for _, nb := range nbs {
				if next[nb] >= 0 {
					add(nb)
					continue
				}
				for _, nb2 := range g.neighbours(nb, l) {
					add(nb2)
				}
			}
			limit := n.m
			if l == 0 {
				limit = n.m0
			}
			var kept []uint32
			if len(cands) > limit {
				kept = n.selectNeighbours(s, cands, limit, keepPruned, make([]int16, s.dims))
			} else {
				for _, c := range cands[:min(len(cands), limit)] {
					kept = append(kept, c.ord)
				}
			}
			n.setNeighbours(uint32(nw), l, kept)
		}
		if lvl > n.maxLevel {
			n.entry, n.maxLevel = uint32(nw), lvl
		}
	}
	n.connect(s)
	// The ordinals the linker had not reached keep their order: the new
	// graph lacks the same tail, renumbered.
	n.built, n.ready = size, g.ready
	for old := g.built; old < len(next); old++ {
		if next[old] >= 0 {
			n.built = int(next[old])
			break
		}
	}
	return n
}
