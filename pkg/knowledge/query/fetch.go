package query

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The fetch step of an evaluation: the term-index reads the plan asks
// for, the property comparisons pushed down to the index, and the refs the
// score step loads to check a tense or a time.

// fetch runs the lookups: the related terms of the expandable terms, then
// one LookupTerms per role set (in batches of memory.MaxQueryTerms terms)
// and one LookupProperty per property.
func (s *evaluation) fetch(ctx context.Context) error {
	if err := s.expandRelated(ctx); err != nil {
		return err
	}
	want := map[string]map[string]bool{}
	props := map[propCond]bool{}
	collect := func(p part) {
		if p.prop != nil {
			props[*p.prop] = true
		}
		for _, a := range p.alts {
			if want[a.roles] == nil {
				want[a.roles] = map[string]bool{}
			}
			want[a.roles][a.term] = true
		}
	}
	for _, l := range s.leaves {
		for _, p := range l.parts {
			collect(p)
		}
	}
	for _, p := range s.free {
		collect(p)
	}
	s.df = map[string]int{}
	for _, rk := range slices.Sorted(maps.Keys(want)) {
		terms := slices.Sorted(maps.Keys(want[rk]))
		s.posts[rk] = map[string][]memory.TermPosting{}
		for len(terms) > 0 {
			batch := terms[:min(len(terms), memory.MaxQueryTerms)]
			terms = terms[len(batch):]
			ps, err := s.e.Index.LookupTerms(ctx, memory.TermLookup{Filter: s.f, Terms: batch, Roles: roles(rk), Limit: s.e.postings()})
			s.lookups++
			if err != nil {
				return fmt.Errorf("query: look up terms: %w", err)
			}
			s.npostings += len(ps)
			for _, p := range ps {
				s.posts[rk][p.Term] = append(s.posts[rk][p.Term], p)
				s.see(p.Ref, p.Kind, p.Attrs)
			}
		}
		for t, ps := range s.posts[rk] {
			s.df[rk+"\x00"+t] = distinctMemories(ps, func(p memory.TermPosting) string { return p.Ref.MemoryID })
		}
	}
	for _, p := range slices.SortedFunc(maps.Keys(props), func(a, b propCond) int {
		return strings.Compare(a.Name+"\x00"+string(a.Op)+"\x00"+a.Value, b.Name+"\x00"+string(b.Op)+"\x00"+b.Value)
	}) {
		ps, err := s.e.Index.LookupProperty(ctx, p.lookup(s.f, s.e.postings()))
		s.lookups++
		if err != nil {
			return fmt.Errorf("query: look up property %s: %w", p.label(), err)
		}
		s.npostings += len(ps)
		s.props[p] = ps
		for _, pp := range ps {
			s.see(pp.Ref, pp.Kind, pp.Attrs)
		}
	}
	return nil
}

// expandRelated adds after each expandable alternative of the plan its
// related terms, weighted RelatedWeight times their similarity, asking
// Related once per term, in the order of the plan (the leaves, then the
// free terms), then bounds them (boundRelated).
func (s *evaluation) expandRelated(ctx context.Context) error {
	s.related = map[string][]Related{}
	var err error
	s.eachPart(func(p *part) {
		if err == nil {
			err = s.expandPart(ctx, p)
		}
	})
	if err != nil {
		return err
	}
	s.boundRelated()
	return nil
}

// boundRelated keeps the expression's MaxRelatedPerQuery most similar
// related terms, whichever terms they stand for, as the knowledge list
// keeps a question's: each is one more postings read. A related term's
// similarity is its greatest in any part.
func (s *evaluation) boundRelated() {
	weights := map[string]float64{}
	s.eachPart(func(p *part) {
		for _, a := range p.alts {
			if a.expanded {
				weights[a.term] = max(weights[a.term], a.weight)
			}
		}
	})
	if len(weights) <= MaxRelatedPerQuery {
		return
	}
	keep := MostSimilar(weights, MaxRelatedPerQuery)
	s.eachPart(func(p *part) {
		p.alts = slices.DeleteFunc(p.alts, func(a alt) bool { return a.expanded && !keep[a.term] })
	})
}

// eachPart calls fn with each part of the plan: the leaves', then the free
// terms'.
func (s *evaluation) eachPart(fn func(p *part)) {
	for i := range s.leaves {
		for j := range s.leaves[i].parts {
			fn(&s.leaves[i].parts[j])
		}
	}
	for j := range s.free {
		fn(&s.free[j])
	}
}

// MostSimilar returns the n terms of weights with the greatest weight, the
// alphabetically first among equals: the related terms one question keeps
// (MaxRelatedPerQuery), in an expression and in the knowledge list alike.
// With n or fewer terms it returns them all.
func MostSimilar(weights map[string]float64, n int) map[string]bool {
	ts := slices.Collect(maps.Keys(weights))
	slices.SortFunc(ts, func(a, b string) int {
		if c := cmp.Compare(weights[b], weights[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	keep := make(map[string]bool, min(n, len(ts)))
	for _, t := range ts[:min(n, len(ts))] {
		keep[t] = true
	}
	return keep
}

// expandPart adds the related terms of p's expandable alternatives, each
// after the alternative it stands for, keeping the heaviest of each (term,
// roles).
func (s *evaluation) expandPart(ctx context.Context, p *part) error {
	if !slices.ContainsFunc(p.alts, func(a alt) bool { return a.related }) {
		return nil
	}
	var alts []alt
	for _, a := range p.alts {
		alts = append(alts, a)
		if !a.related {
			continue
		}
		rs, err := s.relatedOf(ctx, a.term)
		if err != nil {
			return err
		}
		for _, r := range rs {
			alts = append(alts, alt{term: r.Term, weight: r.Weight * RelatedWeight, roles: a.relatedRoles, expanded: true})
		}
	}
	*p = dedupe(part{alts: alts, prop: p.prop})
	return nil
}

// relatedOf is the related terms of t, cleaned, asked once per
// evaluation. A failure other than a done context is logged and t has
// none.
func (s *evaluation) relatedOf(ctx context.Context, t string) ([]Related, error) {
	if rs, ok := s.related[t]; ok {
		return rs, nil
	}
	rs, err := s.e.Related.Related(ctx, s.org, t)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.e.log().WarnContext(ctx, "knowledge query: related terms unavailable", "org", s.org, "err", err)
		rs = nil
	}
	rs = cleanRelated(t, rs)
	s.related[t] = rs
	return rs, nil
}

// cleanRelated normalizes related terms, drops the unusable ones and t
// itself, and keeps the MaxRelatedPerTerm most similar.
func cleanRelated(t string, rs []Related) []Related {
	var out []Related
	seen := map[string]bool{t: true}
	for _, r := range rs {
		n := memory.NormalizeTerm(r.Term)
		w := r.Weight
		if math.IsNaN(w) || w <= 0 || seen[n] || !memory.IndexableTerm(n) || memory.NormalizeTerm(n) != n {
			continue
		}
		seen[n] = true
		out = append(out, Related{Term: n, Weight: min(w, 1)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Weight > out[j].Weight })
	if len(out) > MaxRelatedPerTerm {
		out = out[:MaxRelatedPerTerm]
	}
	return out
}

func (s *evaluation) see(r memory.RefKey, k memory.KnowledgeKind, a memory.Attrs) {
	s.created[r.MemoryID] = a.CreatedAt
	s.kinds[r] = k
}

func distinctMemories[P any](ps []P, id func(P) string) int {
	seen := map[string]bool{}
	for _, p := range ps {
		seen[id(p)] = true
	}
	return len(seen)
}

// load reads refs through the RefLoader, in batches, with a cache.
func (s *evaluation) load(ctx context.Context, keys []memory.RefKey) (map[memory.RefKey]memory.SemanticRef, error) {
	var missing []memory.RefKey
	for _, k := range keys {
		if _, ok := s.loaded[k]; !ok {
			missing = append(missing, k)
		}
	}
	slices.SortFunc(missing, compareKeys)
	for len(missing) > 0 {
		batch := missing[:min(len(missing), memory.MaxRefKeys)]
		missing = missing[len(batch):]
		got, err := s.loader.Refs(ctx, s.org, batch)
		if err != nil {
			return nil, fmt.Errorf("query: load refs: %w", err)
		}
		for _, k := range batch {
			s.loaded[k] = got[k] // a zero ref for an absent key: loaded, not found
		}
	}
	out := make(map[memory.RefKey]memory.SemanticRef, len(keys))
	for _, k := range keys {
		if r := s.loaded[k]; r.Kind != "" {
			out[k] = r
		}
	}
	return out, nil
}

func compareKeys(a, b memory.RefKey) int {
	if c := strings.Compare(a.MemoryID, b.MemoryID); c != 0 {
		return c
	}
	return a.Ordinal - b.Ordinal
}
