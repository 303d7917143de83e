package query

import (
	"context"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The score step of an evaluation: the postings fetched combined into
// ranked memories and refs, by the select tree (and, or, not over the
// leaves' memories), idf-weighted parts and the time boost.

// hit is how well a ref matched a part or leaf, and by which terms.
type hit struct {
	score float64
	terms []string
}

// idf is log(1 + N/df), N the distinct memories seen by this evaluation.
func (s *evaluation) idf(df int) float64 {
	if df == 0 {
		return 0
	}
	return math.Log1p(float64(len(s.created)) / float64(df))
}

// partRefs is the refs matching part p, each with its best alternative's
// weight × idf.
func (s *evaluation) partRefs(p part) map[memory.RefKey]hit {
	out := map[memory.RefKey]hit{}
	if p.prop != nil {
		ps := s.props[*p.prop]
		w := s.idf(distinctMemories(ps, func(p memory.PropertyPosting) string { return p.Ref.MemoryID }))
		label := p.prop.label()
		for _, pp := range ps {
			out[pp.Ref] = hit{score: w, terms: []string{label}}
		}
		return out
	}
	for _, a := range p.alts {
		sc := a.weight * s.idf(s.df[a.roles+"\x00"+a.term])
		for _, tp := range s.posts[a.roles][a.term] {
			if h, ok := out[tp.Ref]; !ok || sc > h.score {
				out[tp.Ref] = hit{score: sc, terms: []string{a.term}}
			}
		}
	}
	return out
}

// leafRefs is the refs matching every part of leaf l (and its tense),
// scored by the sum of the parts.
func (s *evaluation) leafRefs(ctx context.Context, l leaf) (map[memory.RefKey]hit, error) {
	var out map[memory.RefKey]hit
	for i, p := range l.parts {
		pr := s.partRefs(p)
		if i == 0 {
			out = pr
			continue
		}
		for k, h := range out {
			ph, ok := pr[k]
			if !ok {
				delete(out, k)
				continue
			}
			out[k] = hit{score: h.score + ph.score, terms: append(slices.Clip(h.terms), ph.terms...)}
		}
	}
	if l.tense != "" && s.loader != nil && len(out) > 0 {
		refs, err := s.load(ctx, slices.Collect(maps.Keys(out)))
		if err != nil {
			return nil, err
		}
		for k := range out {
			if r, ok := refs[k]; !ok || r.Action == nil || (r.Action.Tense != "" && r.Action.Tense != l.tense) {
				delete(out, k)
			}
		}
	}
	return out, nil
}

// mset is a set of memories, or its complement when neg.
type mset struct {
	ids map[string]bool
	neg bool
}

// eval combines the leaves' memory sets through the tree, by De Morgan's
// laws: and intersects, or unites, not complements.
func eval(n *enode, leafMems []map[string]bool) mset {
	switch {
	case n.not != nil:
		m := eval(n.not, leafMems)
		m.neg = !m.neg
		return m
	case n.and != nil:
		var pos, negs []map[string]bool
		for _, k := range n.and {
			m := eval(k, leafMems)
			if m.neg {
				negs = append(negs, m.ids)
			} else {
				pos = append(pos, m.ids)
			}
		}
		ex := union(negs)
		if len(pos) == 0 {
			return mset{ids: ex, neg: true} // ¬A ∩ ¬B = ¬(A ∪ B)
		}
		out := map[string]bool{}
		for id := range pos[0] {
			if ex[id] {
				continue
			}
			in := true
			for _, p := range pos[1:] {
				if !p[id] {
					in = false
					break
				}
			}
			if in {
				out[id] = true
			}
		}
		return mset{ids: out}
	case n.or != nil:
		var pos, negs []map[string]bool
		for _, k := range n.or {
			m := eval(k, leafMems)
			if m.neg {
				negs = append(negs, m.ids)
			} else {
				pos = append(pos, m.ids)
			}
		}
		in := union(pos)
		if len(negs) == 0 {
			return mset{ids: in}
		}
		out := map[string]bool{} // A ∪ ¬B ∪ ¬C = ¬((B ∩ C) \ A)
		for id := range negs[0] {
			all := !in[id]
			for _, q := range negs[1:] {
				all = all && q[id]
			}
			if all {
				out[id] = true
			}
		}
		return mset{ids: out, neg: true}
	}
	return mset{ids: leafMems[n.leaf]}
}

func union(sets []map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, s := range sets {
		for id := range s {
			out[id] = true
		}
	}
	return out
}

// score selects the memories and scores them and their refs.
func (s *evaluation) score(ctx context.Context) (*Result, error) {
	if len(s.created) == 0 {
		return &Result{}, nil
	}
	leafHits := make([]map[memory.RefKey]hit, len(s.leaves))
	leafMems := make([]map[string]bool, len(s.leaves))
	for i, l := range s.leaves {
		hs, err := s.leafRefs(ctx, l)
		if err != nil {
			return nil, err
		}
		leafHits[i] = hs
		leafMems[i] = map[string]bool{}
		for k := range hs {
			leafMems[i][k.MemoryID] = true
		}
	}
	freeHits := make([]map[memory.RefKey]hit, len(s.free))
	freeMems := map[string]bool{}
	for i, p := range s.free {
		freeHits[i] = s.partRefs(p)
		for k := range freeHits[i] {
			freeMems[k.MemoryID] = true
		}
	}
	// The selected memories.
	var selected map[string]bool
	if s.root == nil {
		selected = freeMems
	} else if m := eval(s.root, leafMems); !m.neg {
		selected = m.ids
	} else { // validated: free terms are present
		selected = map[string]bool{}
		for id := range freeMems {
			if !m.ids[id] {
				selected[id] = true
			}
		}
	}
	// Scores: each positive leaf adds its best ref per memory, each free
	// term its best ref per memory; a ref adds every leaf and term it
	// matched.
	memScore := map[string]float64{}
	memTerms := map[string]map[string]bool{}
	refScore := map[memory.RefKey]float64{}
	refTerms := map[memory.RefKey]map[string]bool{}
	addHits := func(hs map[memory.RefKey]hit) {
		best := map[string]float64{}
		for k, h := range hs {
			if !selected[k.MemoryID] {
				continue
			}
			refScore[k] += h.score
			if refTerms[k] == nil {
				refTerms[k] = map[string]bool{}
			}
			if memTerms[k.MemoryID] == nil {
				memTerms[k.MemoryID] = map[string]bool{}
			}
			for _, t := range h.terms {
				refTerms[k][t] = true
				memTerms[k.MemoryID][t] = true
			}
			best[k.MemoryID] = max(best[k.MemoryID], h.score)
		}
		for id, b := range best {
			memScore[id] += b
		}
	}
	for i, l := range s.leaves {
		if l.positive {
			addHits(leafHits[i])
		}
	}
	for _, hs := range freeHits {
		addHits(hs)
	}
	for id := range selected {
		if _, ok := memScore[id]; !ok {
			memScore[id] = 0 // selected only through a negated or weightless match
		}
	}
	if s.x.AskTime && s.loader != nil {
		if err := s.boostTimed(ctx, memScore, refScore); err != nil {
			return nil, err
		}
	}
	// Rank, limit, and keep the refs of the returned memories.
	ids := slices.Collect(maps.Keys(memScore))
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		if memScore[a] != memScore[b] {
			return memScore[a] > memScore[b]
		}
		if s.created[a] != s.created[b] {
			return s.created[a] > s.created[b]
		}
		return a < b
	})
	limit := s.x.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if len(ids) > limit {
		ids = ids[:limit]
	}
	res := &Result{Memories: make([]ScoredMemory, 0, len(ids)), Refs: []ScoredRef{}}
	returned := map[string]bool{}
	for _, id := range ids {
		returned[id] = true
		res.Memories = append(res.Memories, ScoredMemory{ID: id, Score: memScore[id], Terms: sortedSet(memTerms[id]), CreatedAt: s.created[id]})
	}
	for k, sc := range refScore {
		if returned[k.MemoryID] {
			res.Refs = append(res.Refs, ScoredRef{Ref: k, Kind: s.kinds[k], Score: sc, Terms: sortedSet(refTerms[k])})
		}
	}
	sort.Slice(res.Refs, func(i, j int) bool {
		a, b := res.Refs[i], res.Refs[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if ca, cb := s.created[a.Ref.MemoryID], s.created[b.Ref.MemoryID]; ca != cb {
			return ca > cb
		}
		return compareKeys(a.Ref, b.Ref) < 0
	})
	if len(res.Refs) > MaxResultRefs {
		res.Refs = res.Refs[:MaxResultRefs]
	}
	return res, nil
}

// boostTimed multiplies by TimeBoost the score of each matched action ref
// that carries a time parameter, and adds to each memory the largest such
// gain among its refs. Only the refs of the best memories are loaded.
func (s *evaluation) boostTimed(ctx context.Context, memScore map[string]float64, refScore map[memory.RefKey]float64) error {
	var keys []memory.RefKey
	for k, sc := range refScore {
		if s.kinds[k] == memory.KnowledgeAction && sc > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if memScore[a.MemoryID] != memScore[b.MemoryID] {
			return memScore[a.MemoryID] > memScore[b.MemoryID]
		}
		return compareKeys(a, b) < 0
	})
	if len(keys) > memory.MaxRefKeys {
		keys = keys[:memory.MaxRefKeys]
	}
	refs, err := s.load(ctx, keys)
	if err != nil {
		return err
	}
	gain := map[string]float64{}
	for _, k := range keys {
		r, ok := refs[k]
		if !ok || r.Action == nil || !timed(r.Action) {
			continue
		}
		g := refScore[k] * (TimeBoost - 1)
		refScore[k] += g
		gain[k.MemoryID] = max(gain[k.MemoryID], g)
	}
	for id, g := range gain {
		memScore[id] += g
	}
	return nil
}

// timed reports whether an action carries a time parameter, as the
// extractors name it ("time"; "when" and "date" from models).
func timed(a *memory.Action) bool {
	for _, p := range a.Params {
		if strings.EqualFold(p.Name, "time") || strings.EqualFold(p.Name, "when") || strings.EqualFold(p.Name, "date") {
			return true
		}
	}
	return false
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
