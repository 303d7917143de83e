package query

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Index is what the evaluator reads from the term index: the two lookups
// of memory.TermIndex, which every TermIndex satisfies. Errors are those
// of memory.TermIndex.
type Index interface {
	LookupTerms(ctx context.Context, q memory.TermLookup) ([]memory.TermPosting, error)
	LookupProperty(ctx context.Context, q memory.PropertyLookup) ([]memory.PropertyPosting, error)
}

// RefLoader loads semantic refs by key, as memory.TermIndex.Refs does. An
// Index that also implements it lets the evaluator check an action leaf's
// tense and prefer timed actions for askTime; without it those are
// ignored.
type RefLoader interface {
	Refs(ctx context.Context, orgID string, keys []memory.RefKey) (map[memory.RefKey]memory.SemanticRef, error)
}

// Related is a term related to a query term, with its similarity in [0, 1].
type Related struct {
	Term   string  `json:"term"`
	Weight float64 `json:"weight"`
}

// RelatedTerms finds the terms of an org's vocabulary related to a term
// (aliases, types, nearest terms by embedding). The evaluator calls it for
// each expandable term when the expression's relatedTerms is on. Errors
// other than a done context are logged and the term is not expanded.
type RelatedTerms interface {
	Related(ctx context.Context, orgID, term string) ([]Related, error)
}

// NoRelated is the RelatedTerms that finds none.
type NoRelated struct{}

// Related implements RelatedTerms.
func (NoRelated) Related(context.Context, string, string) ([]Related, error) { return nil, nil }

// Scoring constants.
const (
	// RelatedWeight scales a related term's similarity into its weight.
	RelatedWeight = 0.5
	// MaxRelatedPerTerm bounds the related terms of one query term.
	MaxRelatedPerTerm = 10
	// TimeBoost multiplies the score of a matched action ref with a time
	// parameter when the expression asks when (askTime).
	TimeBoost = 1.5
	// MaxResultRefs bounds the refs of a result.
	MaxResultRefs = memory.MaxRefKeys
)

// Evaluator runs expressions against an index. Index is required; the
// other fields have working zero values.
type Evaluator struct {
	Index Index
	// Related expands terms (default NoRelated).
	Related RelatedTerms
	// Now is the clock time expressions are resolved against, in its
	// location (default time.Now).
	Now func() time.Time
	// Postings is the most postings read per term (default
	// memory.DefaultTermPostings): the newest ones.
	Postings int
	// Logger receives a debug line per evaluation and warnings (default:
	// discard).
	Logger *slog.Logger
	// Scopes resolves position and message ranges and topic descriptions
	// (see scope.go); without it such scopes are rejected.
	Scopes ScopeResolver
}

// Result is what an expression matched, best first.
type Result struct {
	Memories []ScoredMemory `json:"memories"`
	Refs     []ScoredRef    `json:"refs"`
}

// ScoredMemory is a matched memory with its score and the terms that
// matched it (query terms, or the related terms that stood for them).
type ScoredMemory struct {
	ID        string   `json:"id"`
	Score     float64  `json:"score"`
	Terms     []string `json:"terms"`
	CreatedAt int64    `json:"createdAt"`
}

// ScoredRef is a matched semantic ref of a returned memory.
type ScoredRef struct {
	Ref   memory.RefKey        `json:"ref"`
	Kind  memory.KnowledgeKind `json:"kind"`
	Score float64              `json:"score"`
	Terms []string             `json:"terms"`
}

// Evaluate runs x within the base filter f (the caller's org, visibility
// and any narrowing), adding x's scope and time. Errors: EINVALID for a bad
// expression or filter; the index's errors (EUNAVAILABLE...) wrapped.
func (e *Evaluator) Evaluate(ctx context.Context, f memory.Filter, x *Expr) (*Result, error) {
	x, err := x.Normalized()
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	e, f, ok, err := e.withinScope(ctx, f, x.Scope) // scope.go: documents, ranges, topics
	if err != nil || !ok {
		return &Result{}, err
	}
	began := time.Now()
	s := &evaluation{e: e, x: x, org: f.OrgID, posts: map[string]map[string][]memory.TermPosting{},
		props: map[propCond][]memory.PropertyPosting{}, created: map[string]int64{},
		kinds: map[memory.RefKey]memory.KnowledgeKind{}, loaded: map[memory.RefKey]memory.SemanticRef{}}
	s.loader, _ = e.Index.(RefLoader)
	f, ok, err = s.narrow(ctx, f)
	if err != nil || !ok {
		return &Result{}, err
	}
	s.f = f
	if err := s.plan(ctx); err != nil {
		return nil, err
	}
	if err := s.fetch(ctx); err != nil {
		return nil, err
	}
	res, err := s.score(ctx)
	if err != nil {
		return nil, err
	}
	e.log().DebugContext(ctx, "knowledge query", "org", f.OrgID, "leaves", len(s.leaves), "freeTerms", len(s.free),
		"lookups", s.lookups, "postings", s.npostings, "seen", len(s.created), "memories", len(res.Memories),
		"ms", time.Since(began).Milliseconds())
	return res, nil
}

func (e *Evaluator) log() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (e *Evaluator) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Evaluator) postings() int {
	if e.Postings > 0 {
		return min(e.Postings, memory.MaxTermPostings)
	}
	return memory.DefaultTermPostings
}

// alt is one way a part of a leaf can match: a term in some roles, with a
// weight (1 for the query's own terms).
type alt struct {
	term   string
	weight float64
	roles  string // roleKey; "" for any role
}

// part is one condition of a leaf: any of its alternatives, or a property.
type part struct {
	alts []alt
	prop *propCond
}

// propCond is a property condition: a name, a comparison and its operands
// (the values of "in" joined by NUL), comparable as a map key.
type propCond struct {
	Name  string
	Op    memory.CompareOp
	Value string
}

// lookup is the property lookup of c under f.
func (c propCond) lookup(f memory.Filter, limit int) memory.PropertyLookup {
	q := memory.PropertyLookup{Filter: f, Name: c.Name, Op: c.Op, Value: c.Value, Limit: limit}
	if c.Op == memory.OpIn {
		q.Value, q.Values = "", strings.Split(c.Value, "\x00")
	}
	return q
}

// label is how c is shown among the terms a ref matched by.
func (c propCond) label() string {
	if c.Op == memory.OpExact {
		return c.Name + "=" + c.Value
	}
	return c.Name + " " + string(c.Op) + " " + strings.ReplaceAll(c.Value, "\x00", ",")
}

type leaf struct {
	parts    []part
	tense    string
	positive bool // under an even number of nots: it scores
}

// enode is the select tree with its leaves numbered.
type enode struct {
	and, or []*enode
	not     *enode
	leaf    int
}

// hit is how well a ref matched a part or leaf, and by which terms.
type hit struct {
	score float64
	terms []string
}

type evaluation struct {
	e      *Evaluator
	x      *Expr
	org    string
	f      memory.Filter
	loader RefLoader

	root    *enode
	leaves  []leaf
	free    []part
	related map[string][]Related

	posts     map[string]map[string][]memory.TermPosting // roles -> term -> postings
	props     map[propCond][]memory.PropertyPosting
	created   map[string]int64
	kinds     map[memory.RefKey]memory.KnowledgeKind
	loaded    map[memory.RefKey]memory.SemanticRef
	lookups   int
	npostings int
	df        map[string]int // roles + "\x00" + term -> distinct memories
}

func roleKey(roles ...string) string {
	rs := slices.Clone(roles)
	sort.Strings(rs)
	return strings.Join(rs, ",")
}

func roles(key string) []string {
	if key == "" {
		return nil
	}
	return strings.Split(key, ",")
}

// narrow adds the expression's scope and time to the base filter,
// resolving a time expression and an anchor event. ok is false when the
// result is certainly empty (a scope or range that excludes the base's).
func (s *evaluation) narrow(ctx context.Context, f memory.Filter) (memory.Filter, bool, error) {
	if sc := s.x.Scope; sc != nil {
		for _, p := range []struct {
			dst *string
			v   string
		}{{&f.RoomID, sc.RoomID}, {&f.SessionID, sc.SessionID}, {&f.AgentID, sc.AgentID}} {
			switch {
			case p.v == "":
			case *p.dst == "":
				*p.dst = p.v
			case *p.dst != p.v:
				return f, false, nil
			}
		}
	}
	t := s.x.Time
	if t == nil {
		return f, true, nil
	}
	var r Range
	switch {
	case t.Expression != "":
		var err error
		if r, err = ResolveTime(t.Expression, s.e.now()); err != nil {
			return f, false, memory.Errorf(memory.EINVALID, "time.expression: %q is not a time expression this language knows", t.Expression)
		}
	default:
		r.Start, _ = time.Parse(time.RFC3339, t.Start) // validated; zero when absent
		r.End, _ = time.Parse(time.RFC3339, t.End)
	}
	if t.Relation != "" {
		at, ok, err := s.anchorTime(ctx, f, t.Anchor)
		if err != nil {
			return f, false, err
		}
		if ok && t.Relation == RelationBefore {
			f.End = minBound(f.End, at)
		} else if ok {
			f.Start = max(f.Start, at+1)
		}
	}
	if !r.Start.IsZero() {
		f.Start = max(f.Start, r.Start.UnixMilli())
	}
	if !r.End.IsZero() {
		end := r.End.UnixMilli()
		if end <= 0 {
			return f, false, nil
		}
		f.End = minBound(f.End, end)
	}
	f.Start = max(f.Start, 0)
	if f.End != 0 && f.End <= f.Start {
		return f, false, nil
	}
	return f, true, nil
}

// minBound is the smaller of two exclusive ends, 0 being open.
func minBound(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// anchorTime finds when the anchor event happened: the CreatedAt of the
// earliest memory that matches the most anchor terms (in any role), within
// the scope but not the time range. ok is false when no memory matches.
func (s *evaluation) anchorTime(ctx context.Context, f memory.Filter, terms []string) (int64, bool, error) {
	ps, err := s.e.Index.LookupTerms(ctx, memory.TermLookup{Filter: f, Terms: terms, Limit: s.e.postings()})
	s.lookups++
	if err != nil {
		return 0, false, fmt.Errorf("query: look up the anchor %q: %w", terms, err)
	}
	matched := map[string]map[string]bool{}
	at := map[string]int64{}
	for _, p := range ps {
		if matched[p.Ref.MemoryID] == nil {
			matched[p.Ref.MemoryID] = map[string]bool{}
		}
		matched[p.Ref.MemoryID][p.Term] = true
		at[p.Ref.MemoryID] = p.Attrs.CreatedAt
	}
	best, bestN := "", 0
	for id, ts := range matched {
		n := len(ts)
		if n > bestN || n == bestN && (at[id] < at[best] || at[id] == at[best] && id < best) {
			best, bestN = id, n
		}
	}
	if best == "" {
		s.e.log().DebugContext(ctx, "knowledge query: anchor not found", "org", s.org, "anchor", terms)
		return 0, false, nil
	}
	return at[best], true, nil
}

// plan numbers the leaves, splits them into parts, and expands the
// expandable terms with related terms.
func (s *evaluation) plan(ctx context.Context) error {
	s.related = map[string][]Related{}
	var err error
	if s.x.Select != nil {
		if s.root, err = s.planNode(ctx, s.x.Select, true); err != nil {
			return err
		}
	}
	for _, t := range s.x.Terms {
		p, err := s.expand(ctx, t, roleKey(), roleKey())
		if err != nil {
			return err
		}
		s.free = append(s.free, p)
	}
	return nil
}

func (s *evaluation) planNode(ctx context.Context, n *Node, positive bool) (*enode, error) {
	out := &enode{leaf: -1}
	kids := func(ns []Node) ([]*enode, error) {
		var ks []*enode
		for i := range ns {
			k, err := s.planNode(ctx, &ns[i], positive)
			if err != nil {
				return nil, err
			}
			ks = append(ks, k)
		}
		return ks, nil
	}
	var err error
	switch {
	case n.And != nil:
		out.and, err = kids(n.And)
		return out, err
	case n.Or != nil:
		out.or, err = kids(n.Or)
		return out, err
	case n.Not != nil:
		out.not, err = s.planNode(ctx, n.Not, !positive)
		return out, err
	}
	l := leaf{positive: positive}
	add := func(p part, err error) error {
		if err == nil {
			l.parts = append(l.parts, p)
		}
		return err
	}
	exact := func(t string, rs ...string) part {
		return part{alts: []alt{{term: t, weight: 1, roles: roleKey(rs...)}}}
	}
	switch {
	case n.Entity != nil:
		en := n.Entity
		if en.Name != "" {
			if len(en.Facets) > 0 { // an action's subject facet describes its subject
				l.parts = append(l.parts, exact(en.Name, memory.RoleName, memory.RoleSubject))
			} else {
				l.parts = append(l.parts, exact(en.Name, memory.RoleName))
			}
		}
		if len(en.Types) > 0 {
			var p part
			for _, t := range en.Types {
				q, err := s.expand(ctx, t, roleKey(memory.RoleType), roleKey(memory.RoleName, memory.RoleType))
				if err != nil {
					return nil, err
				}
				p.alts = append(p.alts, q.alts...)
			}
			l.parts = append(l.parts, dedupe(p))
		}
		for _, f := range en.Facets {
			if f.Value == "" {
				l.parts = append(l.parts, exact(f.Name, memory.RoleFacetName))
			} else {
				l.parts = append(l.parts, part{prop: &propCond{Name: f.Name, Value: f.Value}})
			}
		}
	case n.Action != nil:
		a := n.Action
		if len(a.Verbs) > 0 {
			var p part
			for _, v := range a.Verbs {
				q, err := s.expand(ctx, v, roleKey(memory.RoleVerb), roleKey(memory.RoleVerb))
				if err != nil {
					return nil, err
				}
				p.alts = append(p.alts, q.alts...)
			}
			l.parts = append(l.parts, dedupe(p))
		}
		if a.Subject != "" {
			l.parts = append(l.parts, exact(a.Subject, memory.RoleSubject))
		}
		if a.Object != "" {
			l.parts = append(l.parts, exact(a.Object, memory.RoleObject))
		}
		if a.IndirectObject != "" {
			l.parts = append(l.parts, exact(a.IndirectObject, memory.RoleObject))
		}
		l.tense = a.Tense
	case n.Topic != "":
		if err := add(s.expand(ctx, n.Topic, roleKey(memory.RoleTopic), roleKey(memory.RoleTopic))); err != nil {
			return nil, err
		}
	case n.Term != "":
		if err := add(s.expand(ctx, n.Term, roleKey(), roleKey())); err != nil {
			return nil, err
		}
	case n.Property != nil:
		l.parts = append(l.parts, part{prop: &propCond{Name: n.Property.Name, Op: n.Property.Op,
			Value: n.Property.Value + strings.Join(n.Property.Values, "\x00")}})
	}
	out.leaf = len(s.leaves)
	s.leaves = append(s.leaves, l)
	return out, nil
}

// dedupe keeps the heaviest alternative of each (term, roles).
func dedupe(p part) part {
	best := map[[2]string]int{}
	var out []alt
	for _, a := range p.alts {
		k := [2]string{a.term, a.roles}
		if i, ok := best[k]; ok {
			out[i].weight = max(out[i].weight, a.weight)
			continue
		}
		best[k] = len(out)
		out = append(out, a)
	}
	return part{alts: out, prop: p.prop}
}

// expand makes a part of term t in roles, plus its related terms (in
// relatedRoles) when the expression has relatedTerms on.
func (s *evaluation) expand(ctx context.Context, t, roles, relatedRoles string) (part, error) {
	p := part{alts: []alt{{term: t, weight: 1, roles: roles}}}
	if !s.x.UseRelated() || s.e.Related == nil {
		return p, nil
	}
	rs, ok := s.related[t]
	if !ok {
		var err error
		rs, err = s.e.Related.Related(ctx, s.org, t)
		if err != nil {
			if ctx.Err() != nil {
				return p, ctx.Err()
			}
			s.e.log().WarnContext(ctx, "knowledge query: related terms unavailable", "org", s.org, "err", err)
			rs = nil
		}
		rs = cleanRelated(t, rs)
		s.related[t] = rs
	}
	for _, r := range rs {
		p.alts = append(p.alts, alt{term: r.Term, weight: r.Weight * RelatedWeight, roles: relatedRoles})
	}
	return dedupe(p), nil
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

// fetch runs the lookups: one LookupTerms per role set (in batches of
// memory.MaxQueryTerms terms) and one LookupProperty per property.
func (s *evaluation) fetch(ctx context.Context) error {
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
