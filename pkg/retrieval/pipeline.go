package retrieval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Candidate bounds: each list returns K×OverFetch candidates, within these
// bounds, before fusion.
const (
	MinCandidates = 50
	MaxCandidates = 400
	OverFetch     = 4
)

// RRFK is the fusion constant of the pipeline's lists (and of the keyword
// and semantic lists inside the time, entity, when and decompose lists):
// each list gives a memory weight/(RRFK+rank), blended with its score by
// ScoreShare. Cormack et al.'s 60 (still
// memory.RRFK) was chosen for fusing many systems' runs to depth 1,000;
// this pipeline fuses five to seven lists whose first ranks carry the
// evidence. On the four development conversations, recall@10 of `full`
// rose from 0.820 (mean of the files) at 60 to 0.826 at 40, recall@5 from
// 0.710 to 0.727, with no file losing more than 0.01; 35 to 50 all gain,
// 120 loses 0.05 (docs/benchmarks.md, issue 43).
const RRFK = 40

// ScoreShare is the share of the lists' own scores in the fusion
// (memory.FuseScores): each list's hit counts 0.3 of its reciprocal rank
// and 0.7 of its score, min-max normalized over the list. On the four
// development conversations `full`'s recall@1 rose from 0.444 to 0.481 and
// recall@5 from 0.727 to 0.755, recall@10 from 0.826 to 0.828 (mean of the
// files); every share from 0.5 to 1 gains as much at recall@1 and @5
// (docs/benchmarks.md, issue 43).
const ScoreShare = 0.7

// Rerank defaults, after the Lota SDK memory design: retrieve at least 12
// candidates, or twice what is returned, and let the reranker choose.
const (
	DefaultRerankMin     = 12
	DefaultRerankRatio   = 2
	DefaultRerankTimeout = 5 * time.Second
	MaxRerankCandidates  = 100
)

// Pipeline runs the stages. Its zero value is not usable: Store and at
// least one Retriever are required. It is safe for concurrent use.
type Pipeline struct {
	Retrievers []Retriever
	// Weights of the lists in the fusion; a list without one weighs 1.
	Weights map[string]float64
	// Store loads the fused candidates (the source of truth).
	Store memory.Store
	// Reranker, if set, reorders the loaded candidates.
	Reranker memory.Reranker
	// RerankCandidates is how many fused candidates the reranker sees:
	// 0 means max(DefaultRerankMin, DefaultRerankRatio×K).
	RerankCandidates int
	// RerankTimeout bounds one rerank call (default DefaultRerankTimeout).
	RerankTimeout time.Duration
	// Relations, if set, expands results with related memories.
	Relations memory.RelationStore
	// Neighbours, if set, brings in the turns next to the best results
	// (the neighbours stage) in searches of two lists or more.
	Neighbours *Neighbours
	// Foreground, if set, counts the runs in flight for background work
	// that yields to them (related.Index).
	Foreground *Foreground
	Log        *slog.Logger

	rerankFailures atomic.Int64
}

// Request is one run of the pipeline.
type Request struct {
	Caller memory.Caller
	// Query carries the text, the bound filter and the query vector.
	Query *Query
	// Lists to retrieve, in order of trust (which breaks fusion ties).
	Lists []string
	// K is how many results to return.
	K int
	// Threshold in 0..1 drops weak candidates before fusion: semantic hits
	// below this cosine similarity, keyword hits below this fraction of the
	// best BM25 score.
	Threshold float64
	// MinScore, when above 0, is the relevance floor (see RelevanceFloor):
	// a result that only the semantic list ranked is left out when its
	// cosine similarity is below it. A result another list found (a word
	// of the question, a name, a time, a knowledge term) stays.
	MinScore float64
	// Rerank runs the rerank stage when a reranker is configured.
	Rerank bool
	// ExpandRelations appends, after the ranked results, the memories
	// related to them that are not results already.
	ExpandRelations bool
}

// Result is one ranked memory. Score is the score of the final order: the
// reranker's relevance when reranked, otherwise the fused RRF score (or the
// list's native score when one list ran). Lists holds each list's score
// and rank, and the rerank stage's.
type Result struct {
	Memory    *memory.Memory
	Score     float64
	Lists     map[string]*memory.ModeScore
	RelatedTo *memory.Relation
}

// Response is the results with what happened on the way.
type Response struct {
	Results []Result
	// Reranked is true when the rerank stage ran and succeeded.
	Reranked bool
	// RerankError says why the results are in fused order although a rerank
	// was asked for (the reranker failed or timed out); empty otherwise.
	RerankError string
	// Stages are the durations of the stages that ran, in order.
	Stages []Stage
}

// Stage is one stage's duration. A stage Within another ran inside it,
// concurrently with its siblings: each retriever's call (named by its
// lists, "list:keyword+semantic") runs within "retrieve".
type Stage struct {
	Name     string        `json:"name"`
	Duration time.Duration `json:"durationNs"`
	Within   string        `json:"within,omitempty"`
}

// StageRetrieve is the stage of the lists' retrieval; each retriever's
// call is a stage Within it.
const StageRetrieve = "retrieve"

// RerankFailures counts the rerank calls that failed since start.
func (p *Pipeline) RerankFailures() int64 { return p.rerankFailures.Load() }

func (p *Pipeline) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

// Available lists the names of the lists the pipeline can retrieve.
func (p *Pipeline) Available() []string {
	var out []string
	for _, r := range p.Retrievers {
		out = append(out, r.Lists()...)
	}
	return out
}

// Run retrieves, fuses, loads, reranks and expands. Errors: EINVALID for an
// unknown list, EUNAVAILABLE when a list's backend or the store fails.
func (p *Pipeline) Run(ctx context.Context, r Request) (*Response, error) {
	defer p.Foreground.Enter()()
	resp := &Response{}
	stage := func(name string, start time.Time) {
		resp.Stages = append(resp.Stages, Stage{Name: name, Duration: time.Since(start)})
	}
	t := time.Now()
	lists, calls, err := p.retrieve(ctx, r)
	if err != nil {
		return nil, err
	}
	stage(StageRetrieve, t)
	resp.Stages = append(resp.Stages, calls...)

	t = time.Now()
	ranked := make([]memory.RankedList, 0, len(r.Lists))
	for _, name := range r.Lists {
		w, ok := p.Weights[name]
		if !ok {
			w = 1
		}
		ranked = append(ranked, memory.RankedList{Name: name, Hits: threshold(name, lists[name], r.Threshold), Weight: w})
	}
	fused := memory.FuseScores(RRFK, ScoreShare, ranked...)
	stage("fuse", t)

	t = time.Now()
	want := r.K
	rerank := r.Rerank && p.Reranker != nil
	if rerank {
		want = min(max(p.rerankCandidates(r.K), r.K), MaxRerankCandidates)
	}
	results, err := p.load(ctx, r.Caller, r.Query.Filter, fused, want)
	if err != nil {
		return nil, err
	}
	if len(r.Lists) == 1 {
		for i := range results {
			results[i].Score = results[i].Lists[r.Lists[0]].Score
		}
	}
	stage("load", t)

	results = floor(results, r.MinScore)

	if p.Neighbours != nil && len(r.Lists) > 1 && len(results) > 0 && !p.Neighbours.skips(r.Query.Text) {
		t = time.Now()
		if results, err = p.Neighbours.apply(ctx, p.Store, r.Caller, r.Query.Filter, results); err != nil {
			return nil, &memory.Error{Code: memory.EUNAVAILABLE, Message: "store: unavailable"}
		}
		stage(StageNeighbours, t)
	}

	if rerank && len(results) > 0 {
		t = time.Now()
		if err := p.rerank(ctx, r.Query.Text, results); err != nil {
			p.rerankFailures.Add(1)
			level := slog.LevelWarn
			if memory.ErrorCode(err) == memory.EINTERNAL {
				level = slog.LevelError // a request the reranker rejects: a bug or a misconfiguration
			}
			p.log().Log(ctx, level, "rerank failed: results keep the fused order", "op", "rerank", "org", r.Caller.OrgID,
				"reranker", p.Reranker.Name(), "candidates", len(results), "err", err)
			resp.RerankError = "the reranker failed or timed out: results are in fused order"
		} else {
			resp.Reranked = true
		}
		stage("rerank", t)
	}
	if len(results) > r.K {
		results = results[:r.K]
	}
	if r.ExpandRelations && p.Relations != nil {
		t = time.Now()
		results = p.expand(ctx, r.Caller, results)
		stage("expand", t)
	}
	resp.Results = results
	return resp, nil
}

func (p *Pipeline) rerankCandidates(k int) int {
	if p.RerankCandidates > 0 {
		return p.RerankCandidates
	}
	return max(DefaultRerankMin, DefaultRerankRatio*k)
}

// retrieve asks each retriever for its requested lists, concurrently, and
// times each call (a Stage within StageRetrieve).
func (p *Pipeline) retrieve(ctx context.Context, r Request) (map[string][]memory.Hit, []Stage, error) {
	// Each retriever is asked once for all its lists (by index: a
	// retriever need not be comparable).
	asked := make([][]string, len(p.Retrievers))
	var order []int
	for _, name := range r.Lists {
		found := -1
		for i, rt := range p.Retrievers {
			if slices.Contains(rt.Lists(), name) {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, nil, memory.Errorf(memory.EINVALID, "lists: %q is not available (available: %v)", name, p.Available())
		}
		if len(asked[found]) == 0 {
			order = append(order, found)
		}
		asked[found] = append(asked[found], name)
	}
	out := make([]map[string][]memory.Hit, len(order))
	calls := make([]Stage, len(order))
	g, gctx := errgroup.WithContext(ctx)
	for i, ri := range order {
		g.Go(func() error {
			t := time.Now()
			got, err := p.Retrievers[ri].Retrieve(gctx, r.Query, asked[ri])
			calls[i] = Stage{Name: callName(p.Retrievers[ri], asked[ri]), Duration: time.Since(t), Within: StageRetrieve}
			if err != nil {
				if code := memory.ErrorCode(err); code != memory.EINTERNAL {
					return err
				}
				p.log().ErrorContext(ctx, "retrieve failed", "op", "retrieve", "lists", asked[ri], "org", r.Caller.OrgID, "err", err)
				return &memory.Error{Code: memory.EUNAVAILABLE, Message: fmt.Sprintf("%v: unavailable", asked[ri])}
			}
			out[i] = got
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	merged := map[string][]memory.Hit{}
	for _, m := range out {
		for k, v := range m {
			merged[k] = v
		}
	}
	return merged, calls, nil
}

// callName names a retriever's call by the lists asked of it, in the
// retriever's own order whatever the request's ("list:keyword+semantic"),
// so that the stage metrics have one series per call.
func callName(r Retriever, asked []string) string {
	var in []string
	for _, l := range r.Lists() {
		if slices.Contains(asked, l) {
			in = append(in, l)
		}
	}
	return "list:" + strings.Join(in, "+")
}

// floor leaves out the results below the relevance floor min: those only
// the semantic list ranked, at a cosine similarity below min.
func floor(results []Result, min float64) []Result {
	if min <= 0 {
		return results
	}
	return slices.DeleteFunc(results, func(r Result) bool {
		sem, ok := r.Lists[ListSemantic]
		return ok && len(r.Lists) == 1 && sem.Score < min
	})
}

// threshold drops weak hits of the keyword and semantic lists.
func threshold(list string, hs []memory.Hit, t float64) []memory.Hit {
	if t == 0 || len(hs) == 0 {
		return hs
	}
	floor := t
	switch list {
	case ListKeyword:
		floor = t * hs[0].Score // relative: BM25 has no absolute scale
	case ListSemantic:
	default:
		return hs
	}
	for i, h := range hs {
		if h.Score < floor {
			return hs[:i]
		}
	}
	return hs
}

// load fetches fused hits from the store, the source of truth, until k are
// found, skipping ids the store no longer has and re-checking visibility and
// the filter so a stale index can never show what the caller may not see.
func (p *Pipeline) load(ctx context.Context, c memory.Caller, f memory.Filter, fused []memory.Fused, k int) ([]Result, error) {
	out := make([]Result, 0, k)
	for start := 0; start < len(fused) && len(out) < k; {
		end := min(len(fused), start+k-len(out)+5)
		ids := make([]string, 0, end-start)
		for _, h := range fused[start:end] {
			ids = append(ids, h.ID)
		}
		got, err := p.Store.GetMany(ctx, c.OrgID, ids)
		if err != nil {
			return nil, &memory.Error{Code: memory.EUNAVAILABLE, Message: "store: unavailable"}
		}
		for _, h := range fused[start:end] {
			m := got[h.ID]
			if m == nil || !c.CanSeeMemory(m) || !f.Match(m.Attrs()) || len(out) == k {
				continue
			}
			out = append(out, Result{Memory: m, Score: h.Score, Lists: h.Lists})
		}
		start = end
	}
	return out, nil
}

// rerank reorders results by the reranker's relevance, in place; on error
// it leaves them as they are.
func (p *Pipeline) rerank(ctx context.Context, query string, results []Result) error {
	timeout := p.RerankTimeout
	if timeout == 0 {
		timeout = DefaultRerankTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	docs := make([]string, len(results))
	for i, r := range results {
		docs[i] = r.Memory.SearchText()
	}
	scores, err := p.Reranker.Rerank(ctx, query, docs)
	if err == nil && len(scores) != len(docs) {
		err = fmt.Errorf("%d scores for %d documents", len(scores), len(docs))
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("rerank: timed out after %s: %w", timeout, err)
		}
		return fmt.Errorf("rerank: %w", err)
	}
	type scored struct {
		r     Result
		score float64
		fused int
	}
	tmp := make([]scored, len(results))
	for i, r := range results {
		tmp[i] = scored{r: r, score: scores[i], fused: i}
	}
	// Ties (and unscored candidates, at -Inf) keep the fused order.
	sort.SliceStable(tmp, func(i, j int) bool { return tmp[i].score > tmp[j].score })
	for i, s := range tmp {
		r := s.r
		if !math.IsInf(s.score, -1) {
			lists := make(map[string]*memory.ModeScore, len(r.Lists)+1)
			for k, v := range r.Lists {
				lists[k] = v
			}
			lists[StageRerank] = &memory.ModeScore{Score: s.score, Rank: i + 1}
			r.Lists, r.Score = lists, s.score
		}
		results[i] = r
	}
	return nil
}

// expand appends the related memories of results (best effort: relation
// lookups that fail are logged and skipped).
func (p *Pipeline) expand(ctx context.Context, c memory.Caller, out []Result) []Result {
	seen := map[string]bool{}
	for _, r := range out {
		seen[r.Memory.ID] = true
	}
	n := len(out)
	for i := 0; i < n; i++ {
		rels, err := p.Relations.Relations(ctx, c.OrgID, out[i].Memory.ID)
		if err != nil {
			p.log().WarnContext(ctx, "expanding relations", "org", c.OrgID, "err", err)
			continue
		}
		var others []string
		for _, rel := range rels {
			other := rel.ToID
			if other == out[i].Memory.ID {
				other = rel.FromID
			}
			if !seen[other] {
				others = append(others, other)
			}
		}
		if len(others) == 0 {
			continue
		}
		got, err := p.Store.GetMany(ctx, c.OrgID, others)
		if err != nil {
			p.log().WarnContext(ctx, "expanding relations", "org", c.OrgID, "err", err)
			continue
		}
		for _, rel := range rels {
			other := rel.ToID
			if other == out[i].Memory.ID {
				other = rel.FromID
			}
			m := got[other]
			if seen[other] || m == nil || !c.CanSeeMemory(m) {
				continue
			}
			seen[other] = true
			rel := rel
			out = append(out, Result{Memory: m, RelatedTo: &rel})
		}
	}
	return out
}
