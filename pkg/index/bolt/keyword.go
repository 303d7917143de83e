package bolt

import (
	"container/heap"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/agentmem/agentmem/pkg/memory"
)

// accumulator holds one keyword query's partial scores by ordinal, all zero
// between uses, the ordinals it touched, and a bitmap of candidates.
type accumulator struct {
	score   []float32
	touched []uint32
	cands   []uint32 // finishPruned's candidates' backing array, reused
	marks   []uint64 // a bitmap by ordinal, all clear between uses
}

// mark sets the bits of ds in the bitmap, growing it to the scores' size.
func (a *accumulator) mark(ds []uint32) {
	if n := (len(a.score) + 63) / 64; len(a.marks) < n {
		a.marks = make([]uint64, n)
	}
	for _, d := range ds {
		a.marks[d>>6] |= 1 << (d & 63)
	}
}

// pruning turns MaxScore on; tests turn it off to compare. prunedSearches
// counts the searches that stopped opening new memories.
var (
	pruning        = true
	prunedSearches atomic.Int64
)

// qterm is one query term as keyword scores it: its postings, its weight
// (idf · (k1+1) · its frequency in the query) and the most it can add to
// any memory's score.
type qterm struct {
	p      *postings
	w, max float32
}

// keyword scores the query's terms over the org's postings (ix.mu held for
// reading), term at a time with MaxScore pruning (Turtle and Flood,
// "Query evaluation: strategies and optimizations", 1995):
//
//   - the terms go in order of their weight (idf), rare terms first; the
//     most each can add to a memory's score is its weight times the
//     greatest BM25 term factor of its list (postings.bound);
//   - before each term, when the terms left could not lift a memory that
//     none of the terms so far hold up to the k-th best score so far (among
//     the memories the filter allows), no such memory can reach the top k:
//     the search stops opening new memories and adds the remaining terms
//     only to the memories it holds, seeking each in the term's ascending
//     list, and drops those that can no longer reach the k-th best.
//
// The common words of a query have the longest lists and the smallest
// bounds, so they are the ones looked up instead of read through. The
// scores are BM25's, as without pruning; only the order of the additions
// differs (float32 rounding, well under the parity test's tolerance).
//
// A query whose lists hold more than keywordParallelMin postings is split
// by ordinal range across the cores, each part pruned on its own: a query
// of common words only, which MaxScore cannot prune until late, then
// takes a share of the time (Lucene searches an index's segments
// concurrently alike).
func (ix *Index) keyword(o *orgIndex, q memory.IndexQuery, terms []string, qtfs []uint16) []memory.Hit {
	st := o.readerStats(q.Filter) // what the reader may see, and nothing else (stats.go)
	if st.n == 0 {
		return nil
	}
	n := float64(st.n)
	nm, _ := ix.norms.Get().(*bm25)
	if nm == nil {
		nm = new(bm25)
	}
	defer ix.norms.Put(nm)
	nm.reset(float64(st.total)/n, o.longest)
	qs := make([]qterm, 0, len(terms))
	for i, t := range terms {
		id, ok := o.dict[t]
		if !ok {
			continue
		}
		dfv := st.df(id)
		if dfv == 0 {
			continue // no memory the reader sees holds it
		}
		df := float64(dfv)
		w := float32(math.Log(1+(n-df+0.5)/(df+0.5)) * (k1 + 1) * float64(qtfs[i]))
		p := &o.postings[id]
		qs = append(qs, qterm{p: p, w: w, max: w * p.bound(nm)})
	}
	// Rare terms first, by weight: the order in which a memory's float32
	// score is summed then depends on the reader's statistics only. The
	// bounds (postings.bound) also cover memories the reader does not see,
	// and ordering by them would let those change a visible score's last
	// bits.
	slices.SortStableFunc(qs, func(x, y qterm) int {
		switch {
		case x.w > y.w:
			return -1
		case x.w < y.w:
			return 1
		}
		return 0
	})
	parts := keywordParts(qs)
	if parts == 1 {
		return drain(ix.keywordPart(o, q, qs, nm))
	}
	// Each part scores the ordinals of its share of the org, from its
	// share of every list, exactly (MaxScore within the part); the best k
	// of the parts' best k are the best k.
	tops := make([]scored, parts)
	parallel(parts, parts, func(i int) {
		lo, hi := uint32(len(o.ids)*i/parts), uint32(len(o.ids)*(i+1)/parts)
		tops[i] = ix.keywordPart(o, q, within(qs, lo, hi), nm)
	})
	top := make(scored, 0, q.K+1)
	for _, t := range tops {
		for _, h := range t {
			pushTop(&top, h, q.K)
		}
	}
	return drain(top)
}

// keywordParallelMin is the postings a query's terms hold from which
// keyword search splits the org's ordinals across cores; forceParts, when
// positive, sets the number of parts (tests).
var (
	keywordParallelMin = 1 << 18
	forceParts         = 0
)

// keywordParts is how many parts a keyword search of qs runs in: one per
// core (up to 8) once the lists are long enough to be worth a goroutine
// each.
func keywordParts(qs []qterm) int {
	if forceParts > 0 {
		return forceParts
	}
	total := 0
	for _, t := range qs {
		total += len(t.p.docs)
	}
	if total < keywordParallelMin {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), 8))
}

// within returns qs restricted to the ordinals in [lo, hi): each list's
// slice of them, with the whole list's bounds (still bounds), empty ones
// left out.
func within(qs []qterm, lo, hi uint32) []qterm {
	out := make([]qterm, 0, len(qs))
	for _, t := range qs {
		docs := t.p.docs
		i, _ := slices.BinarySearch(docs, lo)
		j, _ := slices.BinarySearch(docs, hi)
		if i == j {
			continue
		}
		p := *t.p
		p.docs, p.tfs = docs[i:j], t.p.tfs[i:j]
		out = append(out, qterm{p: &p, w: t.w, max: t.max})
	}
	return out
}

// keywordPart runs MaxScore over qs (sorted by bound, rare first) and
// returns the best k as a heap.
func (ix *Index) keywordPart(o *orgIndex, q memory.IndexQuery, qs []qterm, nm *bm25) scored {
	acc, _ := ix.acc.Get().(*accumulator)
	if acc == nil {
		acc = &accumulator{}
	}
	defer ix.acc.Put(acc)
	if len(acc.score) < len(o.ids) {
		acc.score = make([]float32, len(o.ids)+len(o.ids)/4)
	}
	// rest[i] bounds what the terms from i on can add; left[i] is their
	// postings' total length.
	rest := make([]float32, len(qs)+1)
	left := make([]int, len(qs)+1)
	for i := len(qs) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + qs[i].max
		left[i] = left[i+1] + len(qs[i].p.docs)
	}
	m := newMatcher(o, q.Filter)
	allowed := func(d uint32) bool { return m.match(int(d)) } // a removed memory matches nothing
	var theta float32
	i := 0
	for ; i < len(qs); i++ {
		// Deciding costs a pass over the memories touched so far: worth it
		// only when the lists left are longer.
		if pruning && i > 0 && len(acc.touched) >= q.K && left[i] > len(acc.touched) {
			if kth, ok := kthScore(acc, acc.touched, q.K, allowed); ok && rest[i] < kth {
				theta = kth * (1 - 1e-6) // float32 sums in another order may round below
				break
			}
		}
		t := qs[i]
		// Deleted ordinals (awaiting compaction) are scored too and dropped
		// below: checking o.ids here cost a cache miss per posting, a
		// quarter of the query.
		for j, d := range t.p.docs {
			if acc.score[d] == 0 {
				acc.touched = append(acc.touched, d)
			}
			acc.score[d] += t.w * nm.factor(t.p.tfs[j], o.length, d)
		}
	}
	top := make(scored, 0, q.K+1)
	if i < len(qs) {
		prunedSearches.Add(1)
		top = finishPruned(o, m, acc, qs[i:], rest[i:], theta, nm, top, q.K)
	} else {
		for _, d := range acc.touched {
			s := float64(acc.score[d])
			if len(top) == q.K && s < top[0].Score {
				continue // cannot enter: skip the filter check
			}
			if !m.match(int(d)) {
				continue // filtered out, or removed and awaiting compaction
			}
			pushTop(&top, memory.Hit{ID: o.ids[d], Score: s}, q.K)
		}
	}
	for _, d := range acc.touched {
		acc.score[d] = 0
	}
	acc.touched = acc.touched[:0]
	return top
}

// finishPruned adds the terms qs (whose bounds from each on are rest) to
// the memories touched so far that the filter allows and that can still
// reach theta, a lower bound of the final k-th best score (raised after
// each term to the k-th best so far), and returns the k best.
//
// A term whose list is short next to the candidates is looked up: each
// candidate, in ascending order, sought in the list. A term whose list is
// not (common words, when the candidates are many) is read through, each
// posting tested against a bitmap of the candidates, which costs a load
// per posting instead of a search per candidate.
func finishPruned(o *orgIndex, m *matcher, acc *accumulator, qs []qterm, rest []float32, theta float32, nm *bm25, top scored, k int) scored {
	cands := acc.cands[:0]
	defer func() { acc.cands = cands[:0] }() // kept for the next search: up to hundreds of thousands at 1M
	// A filter that most memories pass (an org's search with no agent or
	// type, removed memories aside) is checked late: only on the
	// candidates that would enter the k best, not on every one touched (a
	// read of its class each: 18% of keyword search at a million memories
	// and the service's depth of 50).
	// A narrow one is checked first, so that the terms left are added to
	// its memories only.
	var allow func(d uint32) bool
	if m.broad {
		allow = func(d uint32) bool { return m.match(int(d)) }
	}
	for _, d := range acc.touched {
		if acc.score[d]+rest[0] >= theta && (m.broad || m.match(int(d))) {
			cands = append(cands, d)
		}
	}
	sorted, marked := false, false
	for i, t := range qs {
		if len(t.p.docs) <= readThrough*len(cands) {
			if !marked {
				acc.mark(cands)
				marked = true
			}
			for j, d := range t.p.docs {
				if acc.marks[d>>6]&(1<<(d&63)) != 0 {
					acc.score[d] += t.w * nm.factor(t.p.tfs[j], o.length, d)
				}
			}
		} else {
			if !sorted {
				slices.Sort(cands) // kept in order below
				sorted = true
			}
			at := 0
			for _, d := range cands {
				at = seek(t.p.docs, at, d)
				if at == len(t.p.docs) {
					break
				}
				if t.p.docs[at] == d {
					acc.score[d] += t.w * nm.factor(t.p.tfs[at], o.length, d)
				}
			}
		}
		// The k-th best score so far among the candidates is a lower bound
		// of the final k-th best (scores only grow): the threshold rises
		// as the terms are added, and more candidates drop before the next.
		if kth, ok := kthScore(acc, cands, k, allow); ok && kth*(1-1e-6) > theta {
			theta = kth * (1 - 1e-6)
		}
		kept := cands[:0]
		for _, d := range cands {
			if acc.score[d]+rest[i+1] >= theta {
				kept = append(kept, d)
			} else if marked {
				acc.marks[d>>6] &^= 1 << (d & 63)
			}
		}
		cands = kept
	}
	for _, d := range cands {
		if marked {
			acc.marks[d>>6] &^= 1 << (d & 63)
		}
		s := float64(acc.score[d])
		if (len(top) == k && s < top[0].Score) || (m.broad && !m.match(int(d))) {
			continue
		}
		pushTop(&top, memory.Hit{ID: o.ids[d], Score: s}, k)
	}
	return top
}

// readThrough: finishPruned reads a term's list through, rather than
// seeking each candidate in it, when the list holds at most this many
// postings per candidate (a seek costs a few probes, a posting read one).
// Tests set it to 0 and to a large number to run each way alone.
var readThrough = 4

// kthScore returns the k-th best score so far among ds that allow accepts
// (all of them when allow is nil); ok is false when fewer than k are.
func kthScore(acc *accumulator, ds []uint32, k int, allow func(d uint32) bool) (float32, bool) {
	h := make(floorHeap, 0, k)
	for _, d := range ds {
		s := acc.score[d]
		if len(h) == k && s <= h[0] {
			continue // cannot enter: skip the filter check
		}
		if allow != nil && !allow(d) {
			continue
		}
		if len(h) < k {
			heap.Push(&h, s)
			continue
		}
		h[0] = s
		heap.Fix(&h, 0)
	}
	if len(h) < k {
		return 0, false
	}
	return h[0], true
}

// seek returns the first index at or after from whose ordinal is at least
// d in the ascending docs (len(docs) when none), galloping then halving.
func seek(docs []uint32, from int, d uint32) int {
	if from >= len(docs) || docs[from] >= d {
		return from
	}
	// docs[lo] < d; docs[hi] >= d or hi == len(docs).
	lo, step, hi := from, 1, from+1
	for hi < len(docs) && docs[hi] < d {
		lo = hi
		step *= 2
		hi = lo + step
	}
	hi = min(hi, len(docs))
	lo++
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if docs[mid] < d {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
