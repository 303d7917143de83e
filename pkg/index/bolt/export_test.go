package bolt

import "unsafe"

// SetWalkCost sets the weight of the graph's walk against the exact scan
// for a test (0: every filter that allows anything goes through the
// graph), and returns a function restoring it.
func SetWalkCost(c float64) (restore func()) {
	old := walkCost
	walkCost = c
	return func() { walkCost = old }
}

// RestoredGraphs is how many orgs' graphs Open restored from a snapshot.
func RestoredGraphs(ix *Index) int { return ix.restored }

// SetPruning turns keyword search's MaxScore pruning on or off for a test,
// and returns a function restoring it.
func SetPruning(on bool) (restore func()) {
	old := pruning
	pruning = on
	return func() { pruning = old }
}

// PrunedSearches is how many keyword searches (parts of a split search
// each count) MaxScore has pruned.
func PrunedSearches() int64 { return prunedSearches.Load() }

// HoldLinking stops the linkers before their next chunk until the returned
// function is called, and sets how many ordinals a graph may lack before
// writers link the excess themselves.
func HoldLinking(unlinked int) (release func()) {
	gate := make(chan struct{})
	wait := func() { <-gate }
	oldMax := maxUnlinked
	maxUnlinked = unlinked
	linkGate.Store(&wait)
	return func() {
		linkGate.Store(nil)
		close(gate)
		maxUnlinked = oldMax
	}
}

// Unlinked is how many of org's ordinals its ready graph lacks (-1: no
// ready graph).
func Unlinked(ix *Index, org string) int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	o := ix.orgs[org]
	if o == nil || o.graph == nil || !o.graph.ready {
		return -1
	}
	o.graph.mu.RLock()
	defer o.graph.mu.RUnlock()
	return len(o.ids) - o.graph.built
}

// SetKeywordParts makes every keyword search run in n parts (0: by the
// size of its lists, as in production), and returns a function restoring
// it.
func SetKeywordParts(n int) (restore func()) {
	old := forceParts
	forceParts = n
	return func() { forceParts = old }
}

// SetReadThrough sets how many postings per candidate a list may hold for
// MaxScore's last phase to read it through rather than seek in it (0:
// always seek).
func SetReadThrough(n int) (restore func()) {
	old := readThrough
	readThrough = n
	return func() { readThrough = old }
}

// Reachability is what a traversal of an org's graph on layer 0 finds
// about its live memories.
type Reachability struct {
	Linked    int // live memories in the graph
	Unreached int // of them, not reached from the entry point
	Orphans   int // of those, with no in-edge
	Stuck     int // live memories from which the entry point is not reached
}

// GraphReach traverses org's graph on layer 0 (zero: no graph).
func GraphReach(ix *Index, org string) Reachability {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var r Reachability
	o := ix.orgs[org]
	if o == nil || o.graph == nil {
		return r
	}
	g := o.graph
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.maxLevel < 0 {
		return r
	}
	seen := make([]bool, len(g.level))
	g.reach(seen, g.entry, 0)
	back := make([]bool, len(g.level))
	back[g.entry] = true
	var rest []uint32
	for ord, l := range g.level {
		if l >= 0 && uint32(ord) != g.entry {
			rest = append(rest, uint32(ord))
		}
	}
	g.settle(back, rest, 0)
	for ord, l := range g.level {
		if l < 0 || o.ids[ord] == "" {
			continue
		}
		r.Linked++
		if !back[ord] {
			r.Stuck++
		}
		if !seen[ord] {
			r.Unreached++
			if g.in0[ord] == 0 {
				r.Orphans++
			}
		}
	}
	return r
}

// SetFill turns on filling the lists the heuristic leaves short (on, the
// default) or off (the heuristic alone), a new node taking M on layer 0
// either way, and returns a function restoring them.
func SetFill(on bool) (restore func()) {
	k, l := keepPruned, layer0Links
	keepPruned, layer0Links = on, func(g *hnsw) int { return g.m }
	return func() { keepPruned, layer0Links = k, l }
}

// SetHugeMin sets the size from which the graph's arrays are put on huge
// pages, and returns a function restoring it.
func SetHugeMin(n int) (restore func()) {
	old := hugeMin
	hugeMin = n
	return func() { hugeMin = old }
}

// HugeArrays reports, for org's int8 vectors and its graph's layer-0
// lists, whether the backing array in use is the one last advised.
func HugeArrays(ix *Index, org string) (vectors, graph bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	o := ix.orgs[org]
	if o == nil || o.graph == nil {
		return false, false
	}
	o.graph.mu.RLock()
	defer o.graph.mu.RUnlock()
	at := func(p unsafe.Pointer) uintptr { return uintptr(p) }
	return o.huge.q8.Advised() == at(unsafe.Pointer(unsafe.SliceData(o.q8))),
		o.huge.nb0.Advised() == at(unsafe.Pointer(unsafe.SliceData(o.graph.nb0)))
}
