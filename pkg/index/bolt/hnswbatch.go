package bolt

import (
	"math"
	"runtime"
	"slices"
)

// Batched, parallel inserts into the graph. A node's insert is two parts
// of about equal cost (BenchmarkANN's profile: 56% walking the graph for
// candidates, 40% choosing neighbours with the heuristic, its own and, when
// a neighbour's list is full, that neighbour's again): the first only reads
// the graph, the second writes the lists of the node and its neighbours.
// A batch of new nodes is inserted in two steps:
//
//   - plan, reading the graph only (under its read lock, so searches walk
//     it meanwhile), each node on its own goroutine: the walks of insert,
//     and its own neighbours chosen among what the walks found and the
//     other nodes of the batch, which are not in the graph yet and are
//     scored directly: those a serial insert's walk would have kept (above
//     the walk's ef-th best), not the far ones, which the heuristic would
//     take as long edges a serial build does not have;
//   - apply, under the graph's write lock: each node's own lists, then the
//     edges back to it, one goroutine per share of the neighbours, each
//     applying the edges into its neighbours in the batch's order.
//
// Every list is written by one goroutine in a fixed order, so the graph
// does not depend on the number of goroutines: a batch gives the same graph
// on one core as on sixteen.

// planned is one node's insert as plan found it.
type planned struct {
	ord   uint32
	level int
	nbs   [][]uint32 // the node's neighbours on each layer, 0 to level
}

// buildWorkers is how many goroutines plan and apply a batch: every core.
// (A variable for tests.)
var buildWorkers = func() int { return runtime.GOMAXPROCS(0) }

// levelOf is ord's level, -1 when it is not in the graph.
func (g *hnsw) levelOf(ord int) int {
	if ord >= len(g.level) {
		return -1
	}
	return int(g.level[ord])
}

// pending returns the ordinals from g.built up to end that the graph lacks
// and that have a vector, at most max of them, and the ordinal after the
// last one looked at.
func (g *hnsw) pending(o *orgIndex, end, max int) (ords []uint32, next int) {
	next = g.built
	for ; next < end && len(ords) < max; next++ {
		if o.hasVec[next] && g.levelOf(next) < 0 { // present when restored from a snapshot
			ords = append(ords, uint32(next))
		}
	}
	return ords, next
}

// plan draws the levels of ords (ascending, none in the graph) and finds
// each one's neighbours (see the top of this file). It reads the graph
// only; the caller is its only writer and holds its lock for reading at
// least.
func (g *hnsw) plan(s space, ords []uint32, workers int) []planned {
	ps := make([]planned, len(ords))
	for i, ord := range ords {
		ps[i] = planned{ord: ord, level: g.randomLevel()}
	}
	parallel(workers, len(ps), func(i int) { g.planOne(s, ps, i) })
	return ps
}

// planOne finds the neighbours of ps[i] on each of its layers.
func (g *hnsw) planOne(s space, ps []planned, i int) {
	me := &ps[i]
	p := s.widen(me.ord, make([]int16, s.dims))
	scratch := make([]int16, s.dims)
	peers := make([]node, 0, len(ps)-1)
	levels := make([]int, 0, len(ps)-1)
	for j := range ps {
		if j != i {
			peers = append(peers, node{s.score(&p, ps[j].ord), ps[j].ord})
			levels = append(levels, ps[j].level)
		}
	}
	me.nbs = make([][]uint32, me.level+1)
	var eps []node
	var vis *visited
	if g.maxLevel >= 0 {
		vis = getVisited(len(g.level))
		defer visitedPool.Put(vis)
		eps = []node{g.greedy(s, &p, node{s.score(&p, g.entry), g.entry}, g.maxLevel, max(me.level, beamFrom))}
	}
	first := true
	for l := max(me.level, min(beamFrom, g.maxLevel)); l >= 0; l-- {
		var cands []node
		floor := float32(math.Inf(-1))
		if eps != nil && l <= g.maxLevel {
			if !first {
				vis.next() // each layer is a fresh walk
			}
			first = false
			width := g.efC
			if l > me.level {
				width = g.m // above the node's layers: where to start below (beamFrom, hnsw.go)
			}
			res := g.walk(s, &p, eps, l, width, nil, vis)
			eps = res
			cands = slices.Clone([]node(res))
			if len(res) >= g.efC {
				floor = res[0].s // the walk's worst: a peer below it a serial walk would not have kept
			}
		}
		if l > me.level {
			continue
		}
		for j, peer := range peers {
			if levels[j] >= l && peer.s > floor {
				cands = append(cands, peer)
			}
		}
		links := g.m
		if l == 0 {
			links = layer0Links(g)
		}
		me.nbs[l] = g.selectNeighbours(s, cands, links, keepPruned, scratch)
	}
}

// edge is a link to add: to into from's list on layer l.
type edge struct {
	from, to uint32
	l        int
}

// apply writes a plan into the graph (its lock held for writing): the
// nodes' own lists, then the edges back to them, each neighbour's edges on
// one goroutine (by ordinal modulo workers) in the plan's order.
func (g *hnsw) apply(s space, ps []planned, workers int) {
	if len(ps) == 0 {
		return
	}
	g.grow(int(ps[len(ps)-1].ord) + 1)
	var edges []edge
	for _, p := range ps {
		if p.level > 0 {
			g.upper[p.ord] = make([][]uint32, p.level)
		}
		for l, nb := range p.nbs {
			g.setNeighbours(p.ord, l, nb)
			for _, n := range nb {
				edges = append(edges, edge{from: n, to: p.ord, l: l})
			}
		}
	}
	workers = max(1, min(workers, len(edges)/64)) // a goroutine for at least 64 edges
	dropped := make([][]uint32, workers)
	parallel(workers, workers, func(w int) {
		buf := make([]int16, s.dims)
		for _, e := range edges {
			if int(e.from)%workers != w {
				continue
			}
			limit := g.m
			if e.l == 0 {
				limit = g.m0
			}
			g.link(s, e.from, e.to, e.l, limit, buf, &dropped[w])
		}
	})
	for _, p := range ps {
		g.level[p.ord] = int8(p.level)
		if p.level > g.maxLevel {
			g.entry, g.maxLevel = p.ord, p.level
		}
	}
	// The reverse-edge guarantee (hnsw.go, adopt): the batch's nodes and
	// the targets the re-selections dropped, in order, whatever the cores.
	orphans := make([]uint32, 0, len(ps))
	for _, p := range ps {
		orphans = append(orphans, p.ord)
	}
	for _, d := range dropped {
		orphans = append(orphans, d...)
	}
	slices.Sort(orphans)
	buf := make([]int16, s.dims)
	for _, ord := range slices.Compact(orphans) {
		if g.in0[ord] == 0 && ord != g.entry {
			g.adopt(s, ord, buf)
		}
	}
}
