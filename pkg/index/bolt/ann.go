package bolt

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/agentmem/agentmem/internal/hugepage"
	"github.com/agentmem/agentmem/pkg/memory"
)

// The Index's side of the approximate vector index (hnsw.go): when a graph
// is built, kept up to date and consulted.

// buildChunk is how many ordinals a background build inserts per hold of
// the read lock, so writers wait at most one chunk.
const buildChunk = 64

// walkCost weighs a node the walk scores (with its filter check and heap
// work) against a vector the exact scan reads, fitted on BenchmarkANN at
// 100,000 vectors (a 25% filter walked 5× faster than the scan, a 5% one
// 3.7× slower); tests set it to 0 to send every filter through the graph.
var walkCost = 0.7

// selectivitySample is how many ordinals a filtered search samples to
// estimate the share of the org's vectors its filter allows.
const selectivitySample = 512

// SetANN replaces the approximate index's configuration (DefaultANN at
// Open). A new M drops every org's graph and, for orgs at or above the
// threshold, rebuilds it in the background; searches stay exact meanwhile.
// A new EfConstruction applies to the nodes inserted from then on.
func (ix *Index) SetANN(c ANNConfig) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	c = c.withDefaults()
	ix.ann = c
	for id, o := range ix.orgs {
		if o.graph != nil && o.graph.m != c.M {
			o.graph = nil
		}
		ix.maintain(id, o)
	}
}

// ANN returns the approximate index's configuration.
func (ix *Index) ANN() ANNConfig {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.ann
}

// WaitANN waits until every org at or above the threshold has its graph
// built and every memory added since linked into it, or ctx ends. Searches
// do not need it (they are exact until then, and scan what the graph
// lacks); benchmarks and tests do.
func (ix *Index) WaitANN(ctx context.Context) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ix.mu.RLock()
		pending := false
		for _, o := range ix.orgs {
			if g := o.graph; g != nil {
				g.mu.RLock()
				pending = !g.ready || g.built < len(o.ids)
				g.mu.RUnlock()
				if pending {
					break
				}
			}
		}
		ix.mu.RUnlock()
		if !pending {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// maxUnlinked bounds how many of an org's newest ordinals a ready graph
// may lack: searches scan them exactly, so a writer that outruns the
// linker links the excess itself, under the write lock. (A variable for
// tests.)
var maxUnlinked = 16_384

// linkGate, when set (by tests), is called by the linker before each chunk.
var linkGate atomic.Pointer[func()]

// linkChunk is how many ordinals per core the linker inserts per hold of
// the read lock, so a writer waits at most one chunk; searches wait only
// for the chunk's apply step (hnswbatch.go).
const linkChunk = 4

// maintain brings org's graph up to date after its memories changed (ix.mu
// held for writing): a built graph's new ordinals are linked in the
// background (searches scan them meanwhile), and an org that reached the
// threshold without a graph gets one built in the background.
//
// Linking a node costs about half a millisecond of CPU at 384 dimensions;
// done inside the write, it capped one writer near 2,000 memories a second
// and held every search of the org for the batch's whole linking.
func (ix *Index) maintain(org string, o *orgIndex) {
	if g := o.graph; g != nil {
		// The linker also advises the arrays once it has caught up: it
		// runs for arrays a compaction moved too, with nothing to link.
		if g.ready && (g.built < len(o.ids) || o.hugeDue()) {
			if over := len(o.ids) - g.built - maxUnlinked; over > 0 {
				g.extend(o, ix.dims, over)
			}
			ix.startLinker(org, o)
		}
		return
	}
	if ix.ann.Threshold < 0 || ix.dims == 0 || o.vectors < ix.ann.Threshold {
		return
	}
	select {
	case <-ix.closing:
		return
	default:
	}
	o.graph = newHNSW(ix.ann)
	ix.startBuild(org, o)
}

// startBuild completes o's graph in the background.
func (ix *Index) startBuild(org string, o *orgIndex) {
	ix.builders.Add(1)
	go ix.build(org, o, o.graph)
}

// build inserts the org's ordinals into g a chunk at a time under the read
// lock, and marks it ready once it has caught up. It gives up when the org
// or its graph was replaced (compaction, SetANN, Clear) or the index
// closes.
func (ix *Index) build(org string, o *orgIndex, g *hnsw) {
	defer ix.builders.Done()
	start := time.Now()
	for {
		select {
		case <-ix.closing:
			return
		default:
		}
		ix.mu.RLock()
		if ix.orgs[org] != o || o.graph != g {
			ix.mu.RUnlock()
			return
		}
		g.mu.Lock()
		g.extend(o, ix.dims, buildChunk)
		caught := g.built == len(o.ids)
		if caught {
			g.connect(spaceOf(o, ix.dims)) // every node reachable before it answers (hnsw.go)
		}
		g.mu.Unlock()
		ix.mu.RUnlock()
		if !caught {
			continue
		}
		ix.mu.Lock()
		if ix.orgs[org] != o || o.graph != g {
			ix.mu.Unlock()
			return
		}
		if g.built == len(o.ids) {
			g.ready = true
			n := o.vectors
			ix.mu.Unlock()
			slog.Info("boltindex: vector graph built", "org", org, "vectors", n, "ms", time.Since(start).Milliseconds())
			ix.adviseHuge(org, o)
			return
		}
		ix.mu.Unlock()
	}
}

// startLinker starts o's linker unless one runs (ix.mu held).
func (ix *Index) startLinker(org string, o *orgIndex) {
	select {
	case <-ix.closing:
		return
	default:
	}
	ix.linkMu.Lock()
	defer ix.linkMu.Unlock()
	if ix.linking[o] {
		return
	}
	if ix.linking == nil {
		ix.linking = map[*orgIndex]bool{}
	}
	ix.linking[o] = true
	ix.builders.Add(1)
	go ix.link(org, o)
}

// link inserts the ordinals a ready graph lacks, a chunk per hold of the
// read lock and one insert per hold of the graph's lock, until it has
// caught up; it follows the graph through compactions (which renumber the
// tail it has not reached) and stops when the org or its graph goes or
// the index closes.
func (ix *Index) link(org string, o *orgIndex) {
	defer ix.builders.Done()
	for {
		select {
		case <-ix.closing:
			ix.linkMu.Lock()
			delete(ix.linking, o)
			ix.linkMu.Unlock()
			return
		default:
		}
		if gate := linkGate.Load(); gate != nil {
			(*gate)()
		}
		done := true
		ix.mu.RLock()
		if g := o.graph; ix.orgs[org] == o && g != nil && g.ready {
			// Planned under the graph's read lock, so searches walk it
			// meanwhile; applied under its write lock. This goroutine is
			// the graph's only writer while it holds ix.mu for reading.
			s, workers := spaceOf(o, ix.dims), buildWorkers()
			g.mu.RLock()
			ords, next := g.pending(o, len(o.ids), linkChunk*workers)
			plan := g.plan(s, ords, workers)
			g.mu.RUnlock()
			g.mu.Lock()
			g.apply(s, plan, workers)
			g.built = next
			done = g.built >= len(o.ids)
			g.mu.Unlock()
		}
		ix.mu.RUnlock()
		if !done {
			continue
		}
		ix.adviseHuge(org, o)
		// A write between the last insert and this may have found the
		// linker still running: look again after leaving.
		ix.linkMu.Lock()
		delete(ix.linking, o)
		ix.linkMu.Unlock()
		ix.mu.RLock()
		g := o.graph
		again := ix.orgs[org] == o && g != nil && g.ready && g.built < len(o.ids)
		ix.mu.RUnlock()
		if !again {
			return
		}
		ix.linkMu.Lock()
		if ix.linking[o] {
			ix.linkMu.Unlock()
			return
		}
		ix.linking[o] = true
		ix.linkMu.Unlock()
	}
}

// hugeDue reports whether o's int8 vectors or layer-0 lists are to be put
// on huge pages (ix.mu held): large, and not the arrays advised last.
func (o *orgIndex) hugeDue() bool {
	return hugepage.Due(&o.huge.q8, o.q8, hugeMin) || (o.graph != nil && hugepage.Due(&o.huge.nb0, o.graph.nb0, hugeMin))
}

// adviseHuge puts the org's int8 vectors and layer-0 lists on huge pages
// (internal/hugepage) once they are large, and again whenever they have
// moved: an append that grew them, a compaction. A walk reads a few
// thousand rows of each, scattered over hundreds of megabytes: on huge
// pages, 32 scattered rows of 384 bytes out of a million are scored in
// 2.1–2.3 µs against 3.1–3.6 (BenchmarkInt16Int8Rows). The builder and the
// linker call it when they have caught up (maintain starts the linker for
// arrays a compaction moved), without holding ix.mu, since the kernel
// copies the pages already touched (about a second at a million
// memories); searches go on meanwhile.
func (ix *Index) adviseHuge(org string, o *orgIndex) {
	ix.mu.RLock()
	if ix.orgs[org] != o {
		ix.mu.RUnlock()
		return
	}
	q8, h := o.q8, o.huge
	var nb0 []uint32
	if g := o.graph; g != nil {
		g.mu.RLock()
		nb0 = g.nb0
		g.mu.RUnlock()
	}
	ix.mu.RUnlock()
	adviseArray(org, "vectors", &h.q8, q8)
	adviseArray(org, "graph", &h.nb0, nb0)
}

// hugeMin is the size from which adviseHuge advises an array (tests lower
// it).
var hugeMin = hugepage.Min

// hugeArrays tracks the backing arrays of an org's int8 vectors and of its
// graph's layer-0 lists last put on huge pages.
type hugeArrays struct{ q8, nb0 hugepage.Tracker }

// adviseArray advises one array through its tracker, and logs what the
// kernel did.
func adviseArray[T any](org, name string, t *hugepage.Tracker, s []T) {
	start := time.Now()
	n, tried, err := hugepage.Track(t, s, hugeMin)
	switch {
	case err != nil:
		slog.Warn("boltindex: huge pages refused; the array stays on small pages", "org", org, "array", name, "err", err)
	case tried:
		slog.Info("boltindex: array put on huge pages", "org", org, "array", name, "MiB", n>>20, "ms", time.Since(start).Milliseconds())
	}
}

// stopANN ends the background builds.
func (ix *Index) stopANN() {
	ix.closeOnce.Do(func() { close(ix.closing) })
	ix.builders.Wait()
}

// approximate is the graph's first pass for q (ix.mu held for reading):
// the candidates for the exact re-rank and the floor their upper bounds
// must reach, as the exact scan's first pass returns them. ok is false
// when the exact scan should answer: no graph yet, an org under the
// threshold, or a filter too selective for the graph.
func (ix *Index) approximate(o *orgIndex, q memory.IndexQuery) (cands []candidate, floor float32, ok bool) {
	g := o.graph
	if g == nil || !g.ready || ix.ann.Threshold < 0 || o.vectors < ix.ann.Threshold {
		return nil, 0, false
	}
	m := newMatcher(o, q.Filter)
	allow := func(ord uint32) bool { return o.hasVec[ord] && m.match(int(ord)) }
	sel := selectivity(o, allow)
	if sel <= 0 {
		return nil, 0, false
	}
	ef := max(SearchWidth(ix.ann.EfSearch, o.vectors), q.K)
	if sel < 1 {
		ef = min(4*ef, int(float64(ef)/math.Sqrt(sel)))
	}
	// The walk scores about m0 neighbours of each node it expands and
	// expands about ef/sel of them before ef allowed ones are found, each
	// with a filter check; the exact scan checks the filter on every vector
	// and scores the allowed ones. Past even odds the exact scan answers:
	// it is certain.
	if walk, scan := walkCost*float64(ef*g.m0)/sel, float64(o.vectors)*(0.5+sel); walk > scan {
		return nil, 0, false
	}
	qx := make([]int16, ix.dims)
	xq := quantizeQuery(q.Vector, qx)
	s := spaceOf(o, ix.dims)
	g.mu.RLock()
	found := g.search(s, &probe{q: qx, x: xq}, ef, allow)
	built := g.built
	g.mu.RUnlock()
	lows := make([]float32, 0, len(found))
	cands = make([]candidate, 0, len(found))
	for _, n := range found {
		v := o.quants[n.ord]
		bound := xq.norm*v.resid + xq.resid*(v.norm+v.resid) + boundSlack
		lows = append(lows, n.s-bound)
		cands = append(cands, candidate{ord: int(n.ord), upper: n.s + bound})
	}
	if built < len(o.ids) { // the newest memories, not linked yet: scanned exactly
		lower, more := ix.scan(o, q, qx, xq, built, len(o.ids))
		lows = append(lows, lower...)
		cands = append(cands, more...)
	}
	return cands, kthBest(lows, q.K), true
}

// widthFrom is the org size up to which a query walks EfSearch wide.
const widthFrom = 100_000

// SearchWidth is the width of an unfiltered walk over an org of n vectors
// for the configured EfSearch base: base up to 100,000 vectors, then
// growing as the 0.6th power of the size, at most 8× base. At a fixed width
// a larger graph loses recall, because more near neighbours compete for the
// same ef places; the exponent is measured (BenchmarkANN, clustered
// 384-dimension vectors, M 16, efConstruction 128), recall@10 against the
// exact scan:
//
//	vectors      width 128   width 256   width 512
//	100,000      0.993
//	300,000      0.967       0.984
//	1,000,000    0.938       0.971       0.987
//
// so 128 at 100,000, 247 at 300,000 and 509 at 1,000,000 keep it at 0.98
// and above, for about 0.4 ms more at a million (p95 0.97 → 1.35 ms).
func SearchWidth(base, n int) int {
	if n <= widthFrom {
		return base
	}
	return min(8*base, int(float64(base)*math.Pow(float64(n)/widthFrom, 0.6)))
}

// selectivity estimates the share of the org's vectors allow accepts from
// a fixed sample of its ordinals (1 when every sampled vector passes, 0
// when the sample holds no vector).
func selectivity(o *orgIndex, allow func(uint32) bool) float64 {
	n := len(o.ids)
	rng := rand.New(rand.NewPCG(uint64(n), 0x5e1))
	vecs, hits := 0, 0
	for range selectivitySample {
		ord := uint32(rng.IntN(n))
		if !o.hasVec[ord] {
			continue
		}
		vecs++
		if allow(ord) {
			hits++
		}
	}
	if vecs == 0 {
		return 0
	}
	return float64(hits) / float64(vecs)
}
