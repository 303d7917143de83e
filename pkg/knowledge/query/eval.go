package query

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Index is what the evaluator reads from the term index: the two lookups
// of memory.TermReader, which every TermReader satisfies. Errors are those
// of memory.TermReader.
type Index interface {
	LookupTerms(ctx context.Context, q memory.TermLookup) ([]memory.TermPosting, error)
	LookupProperty(ctx context.Context, q memory.PropertyLookup) ([]memory.PropertyPosting, error)
}

// RefLoader loads semantic refs by key, as memory.TermReader.Refs does. An
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
	// MaxRelatedPerQuery bounds the related terms of one question in the
	// knowledge list, and of one expression (boundRelated), the most
	// similar kept (MostSimilar): each is a postings read, so a
	// question of many words read up to ten times as many terms as it has
	// words, and its least similar related terms are the noisiest. At a
	// million memories the knowledge list's p50 fell from 3.0 to 2.0 ms
	// and its p95 from 9.8 to 6.2-6.7; on the four LoCoMo files `full`'s
	// recall@10 rose from 0.828 to 0.833 (mean of the files), none lower
	// (docs/benchmarks.md, issue 41).
	MaxRelatedPerQuery = 40
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
//
// An evaluation narrows f by x's scope and time (here, with the anchor
// event's lookup), then runs three steps: plan (plan.go: what to look up,
// no I/O), fetch (fetch.go: related terms, term and property lookups) and
// score (score.go: the postings combined into ranked memories and refs).
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
	s.plan()
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

// evaluation is the state of one Evaluate: the plan (root, leaves, free),
// what fetch read (related, posts, props, created, kinds, df), the refs
// loaded for scoring, and counters for the debug line.
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
