package bolt

import (
	"math"

	"github.com/agentmem/agentmem/memory"
)

// accumulator holds one keyword query's partial scores by ordinal, all zero
// between uses, and the ordinals it touched.
type accumulator struct {
	score   []float32
	touched []uint32
}

// keyword scores the query's terms over the org's postings (ix.mu held for
// reading).
func (ix *Index) keyword(o *orgIndex, q memory.IndexQuery, terms []string, qtfs []uint16) []memory.Hit {
	acc, _ := ix.acc.Get().(*accumulator)
	if acc == nil {
		acc = &accumulator{}
	}
	defer ix.acc.Put(acc)
	if len(acc.score) < len(o.ids) {
		acc.score = make([]float32, len(o.ids)+len(o.ids)/4)
	}
	n := float64(o.live)
	avgdl := float64(o.totalLen) / n
	// norm[l] caches k1*(1-b+b*l/avgdl) for short documents.
	var norm [256]float32
	for l := range norm {
		norm[l] = float32(k1 * (1 - b + b*float64(l)/avgdl))
	}
	for i, t := range terms {
		id, ok := o.dict[t]
		if !ok || o.df[id] == 0 {
			continue
		}
		df := float64(o.df[id])
		w := float32(math.Log(1+(n-df+0.5)/(df+0.5)) * (k1 + 1) * float64(qtfs[i]))
		p := &o.postings[id]
		// Deleted ordinals (awaiting compaction) are scored too and dropped
		// below: checking o.ids here cost a cache miss per posting, a
		// quarter of the query.
		for j, d := range p.docs {
			tf := float32(p.tfs[j])
			l := o.length[d]
			var nm float32
			if l < uint32(len(norm)) {
				nm = norm[l]
			} else {
				nm = float32(k1 * (1 - b + b*float64(l)/avgdl))
			}
			if acc.score[d] == 0 {
				acc.touched = append(acc.touched, d)
			}
			acc.score[d] += w * tf / (tf + nm)
		}
	}
	top := make(scored, 0, q.K+1)
	m := newMatcher(o, q.Filter)
	for _, d := range acc.touched {
		s := float64(acc.score[d])
		acc.score[d] = 0
		if o.ids[d] == "" {
			continue // deleted, awaiting compaction
		}
		if len(top) == q.K && s < top[0].Score {
			continue // cannot enter: skip the filter check
		}
		if !m.match(int(d)) {
			continue
		}
		pushTop(&top, memory.Hit{ID: o.ids[d], Score: s}, q.K)
	}
	acc.touched = acc.touched[:0]
	return drain(top)
}
