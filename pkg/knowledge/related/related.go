package related

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/agentmem/agentmem/internal/vecdot"
	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"golang.org/x/sync/errgroup"
)

// Limits and principles of related terms.
const (
	// MaxPerTerm is the most related terms per query term, as
	// query.MaxRelatedPerTerm.
	MaxPerTerm = query.MaxRelatedPerTerm
	// Quantile places the embedding cut-off: a neighbour must be
	// more similar than this fraction of random pairs of the org's own
	// vocabulary (a one-sided test at the 1% level against the model's
	// noise), whatever the model and its similarity scale.
	Quantile = 0.99
	// MinNoiseTerms is the vocabulary below which the noise cannot be
	// estimated: no neighbours by embedding.
	MinNoiseTerms = 32
	// noisePairs is the number of random pairs the cut-off is estimated on.
	noisePairs = 4000
	// MaxWords is the most words of a vocabulary term that takes
	// part in embedding neighbours; longer phrases are left out.
	MaxWords = 3
	// ExtractedSimilarity is the similarity of an is-a or alias relation
	// (the table or an extractor's types and aliases): certain, 1.
	ExtractedSimilarity = 1.0
	// DefaultMaxAge is how long an org's related-terms state is
	// trusted before its vocabulary is listed again (writes of other
	// processes, terms gone by updates).
	DefaultMaxAge = 5 * time.Minute
	// MaxOrgs is how many orgs' states are kept in process, least
	// recently used evicted.
	MaxOrgs = 64
	// maxTermCache bounds the cached expansions per org.
	maxTermCache = 4096
	// DefaultSyncScan is the most term vectors a search scores against
	// its new query terms (vocabulary size × terms not cached) while it
	// waits, about 2 ms: a larger org's new query terms get their
	// embedding neighbours and the extractors' related terms in the
	// background, for the searches after, and this one the is-a table's
	// kinds. Scoring 130,000
	// vocabulary terms against one new query term took about 4 ms, half a
	// hybrid search at 100,000 memories, and the query terms' embedding
	// with the default model as much again. A conversation of a few
	// hundred turns (a few thousand terms) stays under it.
	DefaultSyncScan = 1 << 16
	// laterTimeout bounds a background expansion.
	laterTimeout = 30 * time.Second
	// YieldMax is the longest the background expansion waits at each step
	// while searches are in flight: under a steady stream of searches it
	// still runs about a hundredth of the time, until it has waited
	// maxYieldWait in all for one batch.
	YieldMax = 100 * time.Millisecond
	// maxYieldWait bounds the waits of one background batch, so that its
	// work finishes within laterTimeout however busy the searches keep
	// the foreground (a vocabulary of a million terms is some thousand
	// steps).
	maxYieldWait = laterTimeout / 2
	// yieldRows is the vocabulary terms a background vocabulary scan scores
	// between two yields (about a millisecond for a batch of query terms).
	yieldRows = 1024
	// nearestBlock is how many vocabulary rows nearest scores at a time
	// (yieldRows is a multiple of it).
	nearestBlock = 256
	// yieldEmbed is the query terms the background embeds between two
	// yields.
	yieldEmbed = 8
	// maxLaterBatch is the most query terms one background expansion
	// takes from the org's queue: their embedding neighbours are scored in
	// one pass over the vocabulary.
	maxLaterBatch = 32
	// typePostings is the most refs read per query term to find the names
	// of a type and the aliases of a name.
	typePostings = 256
	embedBatch   = 128
	recordPage   = 500
)

// VectorKind is the record kind of a vocabulary term's vector.
const VectorKind = "related-term-vector"

// aliasFacets are the facet names whose value is another name of the
// entity, the terms a model offered as related to it among them
// (memory.FacetRelatedTerm).
var aliasFacets = map[string]bool{"alias": true, "aka": true, "also known as": true, "nickname": true,
	"other name": true, "full name": true, "short name": true, "abbreviation": true, "known as": true,
	memory.FacetRelatedTerm: true}

// Index finds the related terms of query terms in an org's
// vocabulary. Terms is required; without Embedder there are no neighbours
// by embedding, without Records vectors are kept in process only. It is
// safe for concurrent use and implements query.RelatedTerms.
type Index struct {
	Terms    memory.TermReader
	Embedder memory.Embedder
	Records  memory.RecordStore
	Log      *slog.Logger
	// MaxAge defaults to DefaultMaxAge.
	MaxAge time.Duration
	// Now defaults to time.Now.
	Now func() time.Time
	// SyncScan defaults to DefaultSyncScan.
	SyncScan int
	// SyncBuildTerms is the largest vocabulary whose first build a lookup
	// waits for (default, and at most, memory.MaxVocabularyPage: one page
	// of the listing). A larger org's vectors load in the background, and
	// its lookups meanwhile get the related terms that need no embedding,
	// as its searches with new words do (DefaultSyncScan).
	SyncBuildTerms int
	// Foreground, if set, counts the searches in flight: the background
	// expansion yields to them between steps of about a millisecond
	// (YieldMax at most each), so that new query words cost the searches
	// beside them little. Without it the background runs flat out.
	Foreground *retrieval.Foreground

	mu sync.Mutex
	bg sync.WaitGroup // expansions finishing in the background
	// stop ends the first loads under way (Close); they have no time
	// limit otherwise.
	stopOnce sync.Once
	stopCtx  context.Context
	stop     context.CancelFunc
	orgs     map[string]*orgTerms
	used     map[string]int64
	tick     int64
}

// orgTerms is one org's vocabulary vectors and cached expansions.
type orgTerms struct {
	mu      sync.Mutex
	built   bool
	builtAt time.Time
	stale   bool
	pending map[string]bool // indexed since the last refresh, not yet embedded
	// embedding is true while the org's background worker embeds the
	// pending terms; inflight are the terms of its current batch (a drop
	// takes a term out, and the worker then leaves it out).
	embedding bool
	inflight  map[string]bool
	model     string
	dim       int
	terms     []string
	index     map[string]int
	vecs      []int8 // len(terms) × dim
	scales    []float32
	cutoff    float64
	cache     map[string][]query.Related
	vcache    map[string][]float32 // query vectors of cached expansions
	// ext caches the extractors' and the is-a table's related terms of a
	// query term, computed by a search that could not wait for the
	// embedding neighbours and reused by the background expansion that
	// finds them (and by the searches before it ends).
	ext map[string][]string
	// kinds caches, by query term, the is-a kinds the org mentions, for
	// the searches that cannot wait (one read of the counters per type
	// otherwise, as many as a search has type words, until the background
	// fills ext); a new term drops the types it is a kind of.
	kinds map[string][]string
	later map[string]bool // query terms queued or expanding in the background
	queue []string        // query terms waiting for the background worker
	// draining is true while the org's background worker runs.
	draining bool
	// unsaved are term vectors embedded but not yet stored as records; the
	// org's saver stores them in batches, off the search that embedded
	// them, while saving is true. saveMu orders its writes with DropTerms.
	unsaved map[string]savedVec
	saving  bool
	saveMu  sync.Mutex
	// dead are the rows of terms dropped since the last full build (their
	// memories forgotten): skipped by the scans, out of index. Replaced,
	// never written in place: a scan's snapshot holds the old one.
	dead map[int]bool
	// epoch counts the full builds. dropped is not nil while a build runs
	// in the background (rebuilding), and collects the terms dropped
	// meanwhile, which its listing may predate.
	epoch   int
	dropped map[string]bool
	// gen counts the drops and full builds: an expansion computed across
	// one is returned but not cached, as it may name a dropped term.
	gen int
}

// savedVec is a term vector waiting to be stored, with its model.
type savedVec struct {
	v     qvec
	model string
}

// saveBatch is how many term vectors the saver stores per write.
const saveBatch = 512

type vectorRecord struct {
	Term  string  `json:"term"`
	Model string  `json:"model"`
	Scale float32 `json:"scale"`
	Vec   []byte  `json:"vec"` // int8
}

func (r *Index) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (r *Index) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Index) maxAge() time.Duration {
	if r.MaxAge > 0 {
		return r.MaxAge
	}
	return DefaultMaxAge
}

// org returns the state of orgID, creating it (and evicting the least
// recently used) as needed.
func (r *Index) org(orgID string) *orgTerms {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.orgs == nil {
		r.orgs, r.used = map[string]*orgTerms{}, map[string]int64{}
	}
	r.tick++
	r.used[orgID] = r.tick
	if o := r.orgs[orgID]; o != nil {
		return o
	}
	if len(r.orgs) >= MaxOrgs {
		oldest, at := "", int64(math.MaxInt64)
		for id, t := range r.used {
			if _, ok := r.orgs[id]; ok && t < at && id != orgID {
				oldest, at = id, t
			}
		}
		delete(r.orgs, oldest)
		delete(r.used, oldest)
	}
	o := &orgTerms{pending: map[string]bool{}}
	r.orgs[orgID] = o
	return o
}

// Observe records the refs just indexed for a memory of orgID: their new
// terms are embedded in the background and join the vocabulary's vectors
// as soon as they are (before the first lookup, that lookup's listing
// finds them), and the cached expansions they may change are dropped. No
// write and no search waits for the embedding: with a remote embedder it
// costs a request per batch of new terms, which the first search after
// each write used to pay.
func (r *Index) Observe(orgID string, refs []memory.SemanticRef) {
	// An org without vectors in process (never looked up, or evicted) has
	// nothing to update: its first lookup's listing finds the new terms.
	// Keeping them pending grew without bound in a process that writes
	// and does not search (a pipeline's).
	r.mu.Lock()
	o := r.orgs[orgID]
	r.mu.Unlock()
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.built && !o.rebuilding() {
		return
	}
	defer r.embedLater(orgID, o) // once built, for a first build's listing may miss them
	for _, ref := range refs {
		for _, t := range memory.DistinctTerms(ref) {
			if _, ok := o.index[t]; !ok && !o.pending[t] && !o.inflight[t] {
				o.pending[t] = true
				// A new kind of a type ("nephew" of person, family): the
				// expansions of the words that name the type change. Once
				// per new term, not per memory that repeats it before the
				// next refresh: dropType walks the org's caches.
				for _, b := range InferTypes(t) {
					o.dropType(b)
				}
			}
		}
		if ref.Entity == nil {
			continue
		}
		// The type -> names and alias expansions these refs add.
		for _, t := range entityTerms(ref.Entity) {
			delete(o.cache, t)
			delete(o.vcache, t) // else the next refresh brings o.cache[t] back, holding only the new terms
			delete(o.ext, t)
		}
	}
}

// dropType drops the cached expansions of the query terms that name the
// table type ty ("person", "people"). o.mu held.
func (o *orgTerms) dropType(ty string) {
	for q := range o.kinds {
		if typeOf(q) == ty {
			delete(o.kinds, q)
		}
	}
	for q := range o.ext {
		if typeOf(q) == ty {
			delete(o.ext, q)
		}
	}
	for q := range o.cache {
		if typeOf(q) == ty {
			delete(o.cache, q)
			delete(o.vcache, q)
		}
	}
}

// Forgot marks orgID stale: its next lookup lists the vocabulary again,
// while it waits, and drops the vectors of the terms gone. Forgetting
// calls it only when DropTerms fails; another process's Index can
// be told with it.
func (r *Index) Forgot(orgID string) {
	o := r.org(orgID)
	o.mu.Lock()
	o.stale = true
	o.mu.Unlock()
}

// DropTerms drops, at once, those of terms that no memory of the org is
// indexed under any more (the terms of memories just forgotten): their
// vectors in process, the cached expansions that name them, and their
// stored vectors. A vector names its term, which must not outlive the
// content it came from. The rest of the vocabulary stays as it is: a
// forget used to make the next lookup list the whole vocabulary again
// (Forgot), which every search of the org waited for.
func (r *Index) DropTerms(ctx context.Context, orgID string, terms []string) error {
	var dead []string
	for len(terms) > 0 {
		n := min(len(terms), memory.MaxQueryTerms)
		batch := terms[:n]
		terms = terms[n:]
		posts, err := r.Terms.LookupTerms(ctx, memory.TermLookup{Filter: memory.Filter{OrgID: orgID, IncludeArchived: true},
			Terms: batch, Limit: 1, KeysOnly: true})
		if err != nil {
			return fmt.Errorf("related terms: drop forgotten terms: %w", err)
		}
		live := map[string]bool{}
		for _, p := range posts {
			live[p.Term] = true
		}
		for _, t := range batch {
			if !live[t] {
				dead = append(dead, t)
			}
		}
	}
	if len(dead) == 0 {
		return nil
	}
	// A vector still waiting for the saver is dropped before it is
	// written; one being written is deleted after.
	o := r.org(orgID)
	o.saveMu.Lock()
	defer o.saveMu.Unlock()
	o.mu.Lock()
	o.drop(dead)
	for _, t := range dead {
		delete(o.unsaved, t)
	}
	o.mu.Unlock()
	return r.dropRecords(ctx, orgID, dead)
}

// Related implements query.RelatedTerms.
func (r *Index) Related(ctx context.Context, orgID, term string) ([]query.Related, error) {
	m, err := r.Expand(ctx, orgID, []string{term})
	if err != nil {
		return nil, err
	}
	return m[memory.NormalizeTerm(term)], nil
}

// Expand returns the related terms of each term (normalized), most similar
// first, at most MaxPerTerm each, the term itself excluded. Errors: the
// term index's, record store's and embedder's, wrapped.
func (r *Index) Expand(ctx context.Context, orgID string, terms []string) (map[string][]query.Related, error) {
	if orgID == "" {
		return nil, memory.Errorf(memory.EINTERNAL, "related terms: lookup without org")
	}
	o := r.org(orgID)
	if err := r.refresh(ctx, orgID, o); err != nil {
		return nil, err
	}
	out := map[string][]query.Related{}
	var todo []string
	o.mu.Lock()
	for _, t := range terms {
		t = memory.NormalizeTerm(t)
		if !memory.IndexableTerm(t) {
			continue
		}
		if rs, ok := o.cache[t]; ok {
			out[t] = rs
		} else if _, seen := out[t]; !seen {
			out[t] = nil
			todo = append(todo, t)
		}
	}
	o.mu.Unlock()
	if len(todo) == 0 {
		return out, nil
	}
	o.mu.Lock()
	scan, loading := len(todo)*len(o.terms), !o.built
	o.mu.Unlock()
	if r.Embedder != nil && loading {
		// A large org's vectors still loading: what needs no embedding,
		// and nothing queued (the scans need the vocabulary).
		got, err := r.expand(ctx, orgID, o, todo, false, nil)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, got)
		return out, nil
	}
	if r.Embedder != nil && scan > r.syncScan() {
		r.expandLater(ctx, orgID, o, todo)
		got, err := r.expand(ctx, orgID, o, todo, false, nil)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, got)
		return out, nil
	}
	got, err := r.expand(ctx, orgID, o, todo, true, nil)
	if err != nil {
		return nil, err
	}
	maps.Copy(out, got)
	return out, nil
}

func (r *Index) syncScan() int {
	if r.SyncScan > 0 {
		return r.SyncScan
	}
	return DefaultSyncScan
}

// expandLater queues those of terms not already queued or under way for
// expansion in the background, on a context that outlives the search's,
// and caches them. One worker per org drains the queue, maxLaterBatch
// terms at a time: a burst of searches with new words then costs one core
// of background work, not one goroutine each competing with the searches
// for every core (cold searches at 100,000 memories waited on their own
// background expansions).
func (r *Index) expandLater(ctx context.Context, orgID string, o *orgTerms, terms []string) {
	o.mu.Lock()
	if o.later == nil {
		o.later = map[string]bool{}
	}
	for _, t := range terms {
		if !o.later[t] {
			o.later[t] = true
			o.queue = append(o.queue, t)
		}
	}
	if o.draining || len(o.queue) == 0 {
		o.mu.Unlock()
		return
	}
	o.draining = true
	o.mu.Unlock()
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		for {
			o.mu.Lock()
			batch := o.queue[:min(len(o.queue), maxLaterBatch)]
			o.queue = o.queue[len(batch):]
			if len(batch) == 0 {
				o.draining, o.queue = false, nil
				o.mu.Unlock()
				return
			}
			batch = slices.Clone(batch)
			o.mu.Unlock()
			bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), laterTimeout)
			if _, err := r.expand(bctx, orgID, o, batch, true, r.yielder(bctx)); err != nil {
				r.log().WarnContext(bctx, "related terms: background expansion failed", "org", orgID, "terms", len(batch), "err", err)
			}
			cancel()
			o.mu.Lock()
			for _, t := range batch {
				delete(o.later, t)
			}
			o.mu.Unlock()
		}
	}()
}

// Wait returns once the expansions and term-vector writes under way in the
// background are done (tests, and a clean shutdown).
func (r *Index) Wait() { r.bg.Wait() }

// Close stops the first loads under way, which embedding a vocabulary
// never embedded before can make long, and waits for the rest of the
// background work (term vectors being stored, expansions): at most
// laterTimeout. Lookups after it work, without background first loads.
func (r *Index) Close() error {
	r.stopper()
	r.stop()
	r.Wait()
	return nil
}

// stopper returns the context that Close cancels.
func (r *Index) stopper() context.Context {
	r.stopOnce.Do(func() { r.stopCtx, r.stop = context.WithCancel(context.Background()) })
	return r.stopCtx
}

// expand finds the related terms of todo (normalized, none cached): the
// is-a table's and the extractors' and the nearest vocabulary terms by
// embedding, then caches them. Without neighbours (a search of a large org
// that cannot wait) it caches nothing and returns the is-a table's kinds
// and what an earlier expansion cached; the background expansion finds
// the rest. yield, if not nil, is called between steps of about a
// millisecond (the background's, to let searches run).
func (r *Index) expand(ctx context.Context, orgID string, o *orgTerms, todo []string, neighbours bool, yield func()) (map[string][]query.Related, error) {
	out := make(map[string][]query.Related, len(todo))
	near := make([][]query.Related, len(todo))
	var vecs [][]float32
	o.mu.Lock()
	gen := o.gen
	o.mu.Unlock()
	if neighbours {
		var err error
		if vecs, err = r.queryVectors(ctx, o, todo, yield); err != nil {
			return nil, err
		}
		// Scored on a snapshot, without the org's lock: a background
		// batch scans the whole vocabulary, and the searches that only
		// read the cache must not wait for it. The vocabulary's slices are
		// only appended to or replaced, never written in place.
		o.mu.Lock()
		snap := orgTerms{terms: o.terms, vecs: o.vecs, scales: o.scales, cutoff: o.cutoff, dim: o.dim, dead: o.dead}
		o.mu.Unlock()
		near = snap.nearest(vecs, todo, yield)
	}
	for i, t := range todo {
		found := map[string]float64{}
		add := func(term string, w float64) {
			term = memory.NormalizeTerm(term)
			if term != t && memory.IndexableTerm(term) && w > found[term] {
				found[term] = w
			}
		}
		var ex []string
		var err error
		if neighbours {
			if yield != nil {
				yield()
			}
			if ex, err = r.extractedOf(ctx, orgID, o, t, gen); err != nil {
				return nil, err
			}
		} else {
			// A search that cannot wait: the is-a table's kinds (one
			// read, for a type word only) and what an earlier expansion
			// cached; the extractors' terms come with the background
			// expansion, whose reads (the refs of up to typePostings
			// entities) are most of a new term's cost.
			ty := typeOf(t)
			o.mu.Lock()
			cached, ok := o.ext[t]
			if !ok {
				cached, ok = o.kinds[t]
			}
			o.mu.Unlock()
			switch {
			case ok:
				ex = cached
			case ty != "":
				if ex, err = r.present(ctx, orgID, NarrowerTypes(t)); err != nil {
					return nil, err
				}
				o.mu.Lock()
				if o.kinds == nil || len(o.kinds) >= maxTermCache {
					o.kinds = map[string][]string{}
				}
				if o.gen == gen {
					o.kinds[t] = ex
				}
				o.mu.Unlock()
			}
		}
		for _, n := range ex {
			add(n, ExtractedSimilarity)
		}
		for _, n := range near[i] {
			add(n.Term, n.Weight)
		}
		rs := ranked(found)
		out[t] = rs
		if !neighbours {
			continue
		}
		o.mu.Lock()
		if o.gen != gen {
			o.mu.Unlock()
			continue
		}
		if len(o.cache) >= maxTermCache {
			o.cache, o.vcache = nil, nil
		}
		if o.cache == nil {
			o.cache, o.vcache = map[string][]query.Related{}, map[string][]float32{}
		}
		o.cache[t], o.vcache[t] = rs, vecs[i]
		o.mu.Unlock()
	}
	return out, nil
}

// extractedOf returns the related terms of t that need no embedding: the
// kinds of it the org mentions (the is-a table) and what the extractors
// said about it, cached in o.ext until a write touches t or the
// vocabulary is reloaded.
func (r *Index) extractedOf(ctx context.Context, orgID string, o *orgTerms, t string, gen int) ([]string, error) {
	o.mu.Lock()
	got, ok := o.ext[t]
	o.mu.Unlock()
	if ok {
		return got, nil
	}
	kinds, err := r.present(ctx, orgID, NarrowerTypes(t))
	if err != nil {
		return nil, err
	}
	ex, err := r.extracted(ctx, orgID, t)
	if err != nil {
		return nil, err
	}
	got = append(kinds[:len(kinds):len(kinds)], ex...)
	o.mu.Lock()
	if o.ext == nil || len(o.ext) >= maxTermCache {
		o.ext = map[string][]string{}
	}
	if o.gen == gen {
		o.ext[t] = got
	}
	o.mu.Unlock()
	return got, nil
}

// entityTerms are the normalized terms an entity's extractor relations
// hang on: its name, its types and its facets' values (aliases).
func entityTerms(e *memory.Entity) []string {
	out := []string{memory.NormalizeTerm(e.Name)}
	for _, t := range e.Types {
		out = append(out, memory.NormalizeTerm(t))
	}
	for _, f := range e.Facets {
		out = append(out, memory.NormalizeTerm(f.Value))
	}
	return out
}

// ranked orders related terms by similarity, then term, and keeps
// MaxPerTerm.
func ranked(found map[string]float64) []query.Related {
	out := make([]query.Related, 0, len(found))
	for t, w := range found {
		out = append(out, query.Related{Term: t, Weight: w})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		return out[i].Term < out[j].Term
	})
	if len(out) > MaxPerTerm {
		out = out[:MaxPerTerm]
	}
	return out
}

// present returns the terms of the org's vocabulary among terms, most
// indexed first, at most MaxPerTerm: the is-a table names far more kinds
// than an org mentions. The counts come from the vocabulary counters when
// the term index keeps them (memory.TermCounter: one read per term; the
// narrower kinds of "person" are some two hundred words, and counting
// their postings instead read up to typePostings of each, which made a
// cold search at 100,000 memories wait 15 ms), else from the postings,
// counted up to typePostings.
func (r *Index) present(ctx context.Context, orgID string, terms []string) ([]string, error) {
	count := map[string]int{}
	tc, counters := r.Terms.(memory.TermCounter)
	for len(terms) > 0 {
		batch := terms[:min(len(terms), memory.MaxQueryTerms)]
		terms = terms[len(batch):]
		f := memory.Filter{OrgID: orgID}
		if counters {
			got, ok, err := tc.TermCounts(ctx, f, batch)
			if err != nil {
				return nil, fmt.Errorf("related terms: count kinds: %w", err)
			}
			if ok {
				for t, n := range got {
					if n > 0 {
						count[t] = n
					}
				}
				continue
			}
		}
		ps, err := r.Terms.LookupTerms(ctx, memory.TermLookup{Filter: f, Terms: batch, Limit: typePostings, KeysOnly: true})
		if err != nil {
			return nil, fmt.Errorf("related terms: look up kinds: %w", err)
		}
		for _, p := range ps {
			count[p.Term]++
		}
	}
	out := make([]string, 0, len(count))
	for t := range count {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if count[out[i]] != count[out[j]] {
			return count[out[i]] > count[out[j]]
		}
		return out[i] < out[j]
	})
	if len(out) > MaxPerTerm {
		out = out[:MaxPerTerm]
	}
	return out, nil
}

// extracted returns what the extractors said about t: the names of the
// entities typed t (most mentioned first), and the aliases of the entity
// named t or whose alias is t. The entities typed t need only their
// names, which a memory.RefNamer loads without decoding the refs; the
// others' facets need the refs.
func (r *Index) extracted(ctx context.Context, orgID, t string) ([]string, error) {
	ps, err := r.Terms.LookupTerms(ctx, memory.TermLookup{Filter: memory.Filter{OrgID: orgID}, Terms: []string{t},
		Roles: []string{memory.RoleType, memory.RoleName, memory.RoleValue}, Limit: typePostings, KeysOnly: true})
	if err != nil {
		return nil, fmt.Errorf("related terms: look up %q: %w", t, err)
	}
	namer, _ := r.Terms.(memory.RefNamer)
	var typed, facets []memory.RefKey // typed t: names only; the rest: whole refs
	seen := map[memory.RefKey]bool{}
	for _, p := range ps {
		if seen[p.Ref] || len(seen) >= memory.MaxRefKeys {
			continue
		}
		seen[p.Ref] = true
		if namer != nil && p.Role == memory.RoleType {
			typed = append(typed, p.Ref)
		} else {
			facets = append(facets, p.Ref)
		}
	}
	mentions := map[string]map[string]bool{} // related name -> memories
	add := func(name, memoryID string) {
		name = memory.NormalizeTerm(name)
		if name == "" || name == t {
			return
		}
		if mentions[name] == nil {
			mentions[name] = map[string]bool{}
		}
		mentions[name][memoryID] = true
	}
	if len(typed) > 0 {
		names, err := namer.RefNames(ctx, orgID, typed)
		if err != nil {
			return nil, fmt.Errorf("related terms: load the names typed %q: %w", t, err)
		}
		for k, name := range names {
			add(name, k.MemoryID)
		}
	}
	var refs map[memory.RefKey]memory.SemanticRef
	if len(facets) > 0 {
		if refs, err = r.Terms.Refs(ctx, orgID, facets); err != nil {
			return nil, fmt.Errorf("related terms: load refs of %q: %w", t, err)
		}
	}
	for _, ref := range refs {
		e := ref.Entity
		if e == nil || ref.Kind != memory.KnowledgeEntity {
			continue
		}
		name := memory.NormalizeTerm(e.Name)
		for _, ty := range e.Types {
			if memory.NormalizeTerm(ty) == t {
				add(name, ref.MemoryID)
			}
		}
		for _, f := range e.Facets {
			if !aliasFacets[memory.NormalizeTerm(f.Name)] {
				continue
			}
			switch memory.NormalizeTerm(f.Value) {
			case t:
				add(name, ref.MemoryID)
			}
			if name == t {
				add(f.Value, ref.MemoryID)
			}
		}
	}
	names := make([]string, 0, len(mentions))
	for n := range mentions {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if a, b := len(mentions[names[i]]), len(mentions[names[j]]); a != b {
			return a > b
		}
		return names[i] < names[j]
	})
	if len(names) > MaxPerTerm {
		names = names[:MaxPerTerm]
	}
	return names, nil
}

// queryVectors returns the unit vectors of terms: the vocabulary's own
// when a term is in it, else embedded now (one call; with yield, calls of
// yieldEmbed terms, yield before each). Nil entries when there is no
// embedder.
func (r *Index) queryVectors(ctx context.Context, o *orgTerms, terms []string, yield func()) ([][]float32, error) {
	out := make([][]float32, len(terms))
	if r.Embedder == nil {
		return out, nil
	}
	var miss []string
	var at []int
	o.mu.Lock()
	for i, t := range terms {
		if j, ok := o.index[t]; ok {
			out[i] = o.vector(j)
		} else {
			miss = append(miss, t)
			at = append(at, i)
		}
	}
	o.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	step := len(miss)
	if yield != nil {
		step = yieldEmbed
	}
	vs := make([][]float32, 0, len(miss))
	for start := 0; start < len(miss); start += step {
		if yield != nil {
			yield()
		}
		got, err := r.Embedder.Embed(ctx, miss[start:min(len(miss), start+step)], memory.PurposeDocument)
		if err != nil {
			return nil, fmt.Errorf("related terms: embed query terms: %w", err)
		}
		vs = append(vs, got...)
	}
	if len(vs) != len(miss) {
		return nil, fmt.Errorf("related terms: the embedder returned %d vectors for %d terms", len(vs), len(miss))
	}
	for k, i := range at {
		v := append([]float32(nil), vs[k]...)
		memory.Normalize(v)
		out[i] = v
	}
	return out, nil
}

// vector returns term j's vector, dequantized. o.mu held.
func (o *orgTerms) vector(j int) []float32 {
	v := make([]float32, o.dim)
	s := o.scales[j]
	for i, q := range o.vecs[j*o.dim : (j+1)*o.dim] {
		v[i] = float32(q) * s
	}
	return v
}

// dot is the cosine of a unit query vector with term j. o.mu held.
func (o *orgTerms) dot(v []float32, j int) float64 {
	var s float32
	row := o.vecs[j*o.dim : (j+1)*o.dim]
	for i, q := range row {
		s += v[i] * float32(q)
	}
	return float64(s * o.scales[j])
}

// nearest returns, for each query vector vs[i] (nil: none), the
// vocabulary terms at or above the cut-off, best first, at most
// MaxPerTerm, ts[i] excluded. The queries are rounded to int16 once and
// scored against the int8 vectors with the AVX2 kernel of internal/vecdot
// (the embedded index's), all of a search's query terms in one pass over
// the vocabulary: each term's vector is read from memory once for all of
// them, which is what the scan is bound by. yield, if not nil, is called
// every yieldRows vocabulary terms. o is a snapshot of the org's
// vocabulary that no one else changes (its lock is not taken: yield may
// wait a while).
func (o *orgTerms) nearest(vs [][]float32, ts []string, yield func()) [][]query.Related {
	out := make([][]query.Related, len(vs))
	if math.IsInf(o.cutoff, 1) {
		return out
	}
	type q struct {
		at    int
		v     []int16
		scale float32
	}
	var qs []q
	for i, v := range vs {
		if len(v) == o.dim {
			x, s := quantizeQuery(v)
			qs = append(qs, q{i, x, s})
		}
	}
	if len(qs) == 0 {
		return out
	}
	// A block of rows at a time, each query term scored over it in one
	// call while the block is in the cache (vecdot.Int16Int8Rows
	// prefetches the rows ahead), and the map of dropped rows read only
	// for a match: a call and a map lookup per row and term took
	// BenchmarkNearest 10% longer. The dot products themselves are the
	// rest of the scan's CPU.
	ords := make([]uint32, 0, nearestBlock)
	dots := make([]int32, nearestBlock)
	for start := 0; start < len(o.terms); start += nearestBlock {
		if yield != nil && start%yieldRows == 0 && start > 0 {
			yield()
		}
		end := min(start+nearestBlock, len(o.terms))
		ords = ords[:0]
		for j := start; j < end; j++ {
			ords = append(ords, uint32(j))
		}
		for _, x := range qs {
			vecdot.Int16Int8Rows(x.v, o.vecs, ords, dots)
			for i, d := range dots[:len(ords)] {
				j := start + i
				s := float64(float32(d) * x.scale * o.scales[j])
				if s >= o.cutoff && !o.dead[j] && o.terms[j] != ts[x.at] {
					out[x.at] = append(out[x.at], query.Related{Term: o.terms[j], Weight: min(s, 1)})
				}
			}
		}
	}
	for i, rs := range out {
		sort.Slice(rs, func(a, b int) bool {
			if rs[a].Weight != rs[b].Weight {
				return rs[a].Weight > rs[b].Weight
			}
			return rs[a].Term < rs[b].Term
		})
		if len(rs) > MaxPerTerm {
			out[i] = rs[:MaxPerTerm]
		}
	}
	return out
}

// quantizeQuery rounds v to int16 levels (vecdot.MaxLevels) and returns
// them with their scale.
func quantizeQuery(v []float32) ([]int16, float32) {
	var m float32
	for _, x := range v {
		m = max(m, x, -x)
	}
	q := make([]int16, len(v))
	if m == 0 {
		return q, 0
	}
	levels := float32(vecdot.MaxLevels(len(v)))
	for i, x := range v {
		q[i] = int16(math.Round(float64(x / m * levels)))
	}
	return q, m / levels
}

// candidate reports whether a vocabulary term takes part in embedding
// neighbours: a word or short phrase with a letter, not a date or number.
func candidate(t string) bool {
	if len(strings.Fields(t)) > MaxWords {
		return false
	}
	letters := 0
	for _, c := range t {
		if unicode.IsLetter(c) {
			letters++
		} else if unicode.IsDigit(c) {
			return false
		}
	}
	return letters >= 2
}

// refresh brings o up to date before a lookup. A first build, a build
// after Forgot, and one for another model list the vocabulary and load or
// embed every vector while the lookup waits: there is nothing to serve
// before, or what there is may name forgotten terms. Past MaxAge (writes
// of other processes) the vocabulary is listed again in the background,
// and lookups are served from the current vectors meanwhile: the listing
// takes about 200 ms at 100,000 memories, which every search of the org
// used to wait for once every MaxAge. Terms written since are embedded
// in the background (Observe).
func (r *Index) refresh(ctx context.Context, orgID string, o *orgTerms) error {
	if r.Embedder == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	model, dim := r.Embedder.Model(), r.Embedder.Dimensions()
	if o.built && (o.model != model || o.dim != dim) {
		o.reset() // vectors of two models do not compare: start over
	}
	if o.stale {
		return r.rebuild(ctx, orgID, o, model, dim, nil)
	}
	if !o.built && !o.rebuilding() {
		// A first build: waited for when the vocabulary is one page.
		page, next, err := r.Terms.Vocabulary(ctx, orgID, "", r.syncBuildTerms())
		if err != nil {
			return fmt.Errorf("related terms: vocabulary: %w", err)
		}
		if next != "" {
			r.rebuildLater(orgID, o, model, dim, true)
			return nil
		}
		return r.rebuild(ctx, orgID, o, model, dim, candidates(page))
	}
	if o.built && r.now().Sub(o.builtAt) > r.maxAge() && !o.rebuilding() {
		r.rebuildLater(orgID, o, model, dim, false)
	}
	return nil
}

func (r *Index) syncBuildTerms() int {
	if r.SyncBuildTerms > 0 && r.SyncBuildTerms < memory.MaxVocabularyPage {
		return r.SyncBuildTerms
	}
	return memory.MaxVocabularyPage
}

// reset forgets o's vocabulary, as if never built (o.mu held); a build in
// the background, and expansions under way, are not installed or cached.
func (o *orgTerms) reset() {
	o.built = false
	o.terms, o.index, o.vecs, o.scales, o.dead = nil, nil, nil, nil, nil
	o.cache, o.vcache, o.ext, o.kinds = nil, nil, nil, nil
	o.pending, o.inflight = map[string]bool{}, nil
	o.epoch++
	o.gen++
}

// embedLater starts the org's worker of pending terms unless it runs
// (o.mu held).
func (r *Index) embedLater(orgID string, o *orgTerms) {
	if o.built && len(o.pending) > 0 && !o.embedding && r.Embedder != nil {
		o.embedding = true
		r.bg.Add(1)
		go r.embedPending(orgID, o)
	}
}

// embedPending embeds the org's pending terms, embedBatch at a time, each
// batch off o.mu and after the searches in flight, and appends them to the
// vocabulary, until none is left. Terms dropped while their batch was
// embedded stay out; after a failure the batch waits for the next full
// listing (MaxAge).
func (r *Index) embedPending(orgID string, o *orgTerms) {
	defer r.bg.Done()
	ctx := context.Background()
	for {
		r.yieldOnce(ctx)
		o.mu.Lock()
		model, dim := r.Embedder.Model(), r.Embedder.Dimensions()
		var add []string
		if o.built && o.model == model && o.dim == dim { // else a full build lists them
			for t := range o.pending {
				delete(o.pending, t)
				if _, ok := o.index[t]; !ok && candidate(t) {
					if add = append(add, t); len(add) == embedBatch {
						break
					}
				}
			}
		}
		if len(add) == 0 {
			o.embedding, o.inflight = false, nil
			o.mu.Unlock()
			return
		}
		sort.Strings(add)
		o.inflight = make(map[string]bool, len(add))
		for _, t := range add {
			o.inflight[t] = true
		}
		o.mu.Unlock()
		vs, err := r.embedVectors(ctx, add, nil)
		o.mu.Lock()
		if err != nil {
			o.embedding, o.inflight = false, nil
			o.mu.Unlock()
			r.log().Warn("related terms: new terms not embedded; the next listing of the vocabulary retries them", "org", orgID,
				"terms", len(add), "err", err)
			return
		}
		var kept []string
		var kv []qvec
		for i, t := range add {
			if _, ok := o.index[t]; o.inflight[t] && !ok && o.model == model && o.dim == dim {
				kept, kv = append(kept, t), append(kv, vs[i])
			}
		}
		o.inflight = nil
		o.appendTerms(kept, kv)
		r.queueUnsaved(orgID, o, kept, kv, model)
		o.mu.Unlock()
	}
}

// appendTerms adds terms, with their vectors vs, to the vocabulary, and
// to the cached expansions they are neighbours of (o.mu held).
func (o *orgTerms) appendTerms(terms []string, vs []qvec) {
	for i, t := range terms {
		j := len(o.terms)
		o.terms = append(o.terms, t)
		o.index[t] = j
		o.vecs = append(o.vecs, vs[i].q...)
		o.scales = append(o.scales, vs[i].scale)
	}
	for q, v := range o.vcache {
		if v == nil {
			continue
		}
		found := map[string]float64{}
		for _, rel := range o.cache[q] {
			found[rel.Term] = rel.Weight
		}
		for _, t := range terms {
			if s := o.dot(v, o.index[t]); s >= o.cutoff && t != q && s > found[t] {
				found[t] = min(s, 1)
			}
		}
		o.cache[q] = ranked(found)
	}
}

// rebuild lists the vocabulary (unless listed holds it: not nil),
// loads (on a first build) or embeds the vectors it lacks, drops the
// stored vectors of the terms gone and installs the result (o.mu held).
func (r *Index) rebuild(ctx context.Context, orgID string, o *orgTerms, model string, dim int, listed []string) error {
	began := time.Now()
	// Vectors already known: in process, or in the store on a first build,
	// read beside the vocabulary's listing (the first search of an org
	// after a start waits for both).
	have := map[string]qvec{}
	if o.built && o.model == model && o.dim == dim {
		have = o.live()
	}
	vocab, err := r.listAndLoad(ctx, orgID, model, dim, have, !o.built, listed, nil)
	if err != nil {
		return err
	}
	missing, gone := vocabularyDiff(vocab, have)
	vs, err := r.embedTerms(ctx, orgID, o, missing)
	if err != nil {
		return err
	}
	for i, t := range missing {
		have[t] = vs[i]
	}
	if err := r.dropRecords(ctx, orgID, gone); err != nil {
		return err
	}
	// The worker's batch in flight was written before this listing, which
	// holds it (and leaves out what was forgotten since, which the batch
	// may not).
	o.inflight = nil
	o.install(vocab, have, model, dim, r.now())
	r.log().DebugContext(ctx, "related terms: vocabulary loaded", "org", orgID, "terms", len(vocab), "embedded", len(missing),
		"dropped", len(gone), "cutoff", o.cutoff, "ms", time.Since(began).Milliseconds())
	return nil
}

// rebuildLater runs rebuild's work in the background, off o.mu, and
// installs it unless a full build, a reset or Forgot came first (o.mu
// held). Terms dropped meanwhile stay out; terms embedded meanwhile stay
// in. A first build (first) also loads the stored vectors, without a
// time limit: a vocabulary never embedded before is embedded whole.
func (r *Index) rebuildLater(orgID string, o *orgTerms, model string, dim int, first bool) {
	o.dropped = map[string]bool{} // rebuilding
	// The vectors at hand, from a snapshot: mapping a large vocabulary
	// here would hold o.mu, and the lookup, for milliseconds.
	snap := orgTerms{terms: o.terms, vecs: o.vecs, scales: o.scales, dim: o.dim, dead: o.dead}
	epoch := o.epoch
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), laterTimeout)
		if first {
			ctx, cancel = context.WithCancel(r.stopper())
		}
		defer cancel()
		began := time.Now()
		have := snap.live()
		yield := r.yielder(ctx)
		vocab, err := r.listAndLoad(ctx, orgID, model, dim, have, first, nil, yield)
		var missing, gone []string
		var vs []qvec
		if err == nil {
			missing, gone = vocabularyDiff(vocab, have)
			vs, err = r.embedVectors(ctx, missing, yield)
		}
		if err == nil {
			err = r.dropRecords(ctx, orgID, gone)
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		dropped := o.dropped
		o.dropped = nil
		if err != nil {
			// Served as it is until the next MaxAge; a first build is
			// tried again by the next lookup.
			o.builtAt = r.now()
			r.log().Warn("related terms: background vocabulary listing failed", "org", orgID, "first", first, "err", err)
			return
		}
		if o.epoch != epoch || o.stale || o.built != !first || (!first && (o.model != model || o.dim != dim)) {
			return // a full build or a reset came first, or one is due
		}
		r.queueUnsaved(orgID, o, missing, vs, model)
		for i, t := range missing {
			have[t] = vs[i]
		}
		kept := vocab[:0]
		for _, t := range vocab {
			if !dropped[t] {
				kept = append(kept, t)
			}
		}
		// Embedded since the listing began (observed, or forgotten and
		// written again): not in the listing, still indexed.
		for t, j := range o.index {
			if _, ok := have[t]; !ok && !dropped[t] {
				kept = append(kept, t)
				have[t] = qvec{q: o.vecs[j*o.dim : (j+1)*o.dim], scale: o.scales[j]}
			}
		}
		o.install(kept, have, model, dim, r.now())
		r.embedLater(orgID, o)
		r.log().Debug("related terms: vocabulary listed again", "org", orgID, "terms", len(kept), "embedded", len(missing),
			"dropped", len(gone), "ms", time.Since(began).Milliseconds())
	}()
}

// listAndLoad lists the vocabulary, unless listed holds it (not nil),
// and, when load is set and records are kept, adds the stored vectors to
// have, side by side. yield, if not nil, is called before each page of
// stored vectors.
func (r *Index) listAndLoad(ctx context.Context, orgID, model string, dim int, have map[string]qvec, load bool, listed []string, yield func()) ([]string, error) {
	vocab := listed
	g, gctx := errgroup.WithContext(ctx)
	if listed == nil {
		g.Go(func() (err error) {
			vocab, err = r.vocabulary(gctx, orgID)
			return err
		})
	}
	if load && r.Records != nil {
		g.Go(func() error {
			stored, err := r.loadVectors(gctx, orgID, model, dim, yield)
			maps.Copy(have, stored)
			return err
		})
	}
	return vocab, g.Wait()
}

// yieldOnce waits, at most YieldMax, while searches are in flight: a
// background worker's turn before each batch (nothing without a
// Foreground).
func (r *Index) yieldOnce(ctx context.Context) {
	if r.Foreground != nil {
		r.Foreground.Yield(ctx, YieldMax)
	}
}

// yielder returns a yield for background work: each call waits while
// searches are in flight (YieldMax at most), until it has waited
// maxYieldWait in all; without a Foreground it does nothing. Safe for
// concurrent use.
func (r *Index) yielder(ctx context.Context) func() {
	if r.Foreground == nil {
		return nil
	}
	var mu sync.Mutex
	var waited time.Duration
	return func() {
		mu.Lock()
		left := maxYieldWait - waited
		mu.Unlock()
		if left <= 0 {
			return
		}
		t := time.Now()
		r.Foreground.Yield(ctx, min(YieldMax, left))
		mu.Lock()
		waited += time.Since(t)
		mu.Unlock()
	}
}

// vocabulary lists the org's terms that take part in embedding
// neighbours.
func (r *Index) vocabulary(ctx context.Context, orgID string) ([]string, error) {
	var vocab []string
	after := ""
	for {
		page, next, err := r.Terms.Vocabulary(ctx, orgID, after, memory.MaxVocabularyPage)
		if err != nil {
			return nil, fmt.Errorf("related terms: vocabulary: %w", err)
		}
		vocab = append(vocab, candidates(page)...)
		if next == "" {
			return vocab, nil
		}
		after = next
	}
}

// candidates returns the terms of page that take part in embedding
// neighbours (candidate), never nil.
func candidates(page []string) []string {
	out := make([]string, 0, len(page))
	for _, t := range page {
		if candidate(t) {
			out = append(out, t)
		}
	}
	return out
}

// vocabularyDiff returns the terms of vocab without a vector in have, in
// vocab's order, and the terms of have not in vocab, sorted.
func vocabularyDiff(vocab []string, have map[string]qvec) (missing, gone []string) {
	want := make(map[string]bool, len(vocab))
	for _, t := range vocab {
		want[t] = true
		if _, ok := have[t]; !ok {
			missing = append(missing, t)
		}
	}
	for t := range have {
		if !want[t] {
			gone = append(gone, t)
		}
	}
	sort.Strings(gone)
	return missing, gone
}

// dropRecords deletes the stored vectors of terms.
func (r *Index) dropRecords(ctx context.Context, orgID string, terms []string) error {
	if r.Records == nil {
		return nil
	}
	for _, t := range terms {
		if err := r.Records.DeleteRecord(ctx, orgID, VectorKind, recordID(t)); err != nil {
			return fmt.Errorf("related terms: drop the vector of a forgotten term: %w", err)
		}
	}
	return nil
}

// live returns the vectors of the rows of o not dead, the last row of a
// term winning (a term dropped and written again has a dead row and a live
// one). They share o.vecs, which is only appended to or replaced. o is a
// snapshot no one else changes, or o.mu is held.
func (o *orgTerms) live() map[string]qvec {
	have := make(map[string]qvec, len(o.terms))
	for j, t := range o.terms {
		if !o.dead[j] {
			have[t] = qvec{q: o.vecs[j*o.dim : (j+1)*o.dim], scale: o.scales[j]}
		}
	}
	return have
}

// rebuilding reports whether a build runs in the background (o.mu held).
func (o *orgTerms) rebuilding() bool { return o.dropped != nil }

// install makes vocab, with its vectors in have, o's vocabulary, and
// drops what was cached of the one before (o.mu held).
func (o *orgTerms) install(vocab []string, have map[string]qvec, model string, dim int, now time.Time) {
	o.terms, o.index = vocab, make(map[string]int, len(vocab))
	o.vecs, o.scales = make([]int8, 0, len(vocab)*dim), make([]float32, 0, len(vocab))
	for j, t := range vocab {
		o.index[t] = j
		o.vecs = append(o.vecs, have[t].q...)
		o.scales = append(o.scales, have[t].scale)
	}
	o.model, o.dim = model, dim
	o.dead = nil
	o.cutoff = o.noiseCutoff()
	o.cache, o.vcache, o.ext, o.kinds = nil, nil, nil, nil
	for t := range o.pending {
		if _, ok := o.index[t]; ok {
			delete(o.pending, t) // listed; the others wait for the worker
		}
	}
	o.built, o.stale, o.builtAt = true, false, now
	o.epoch++
	o.gen++
}

// drop removes terms from o at once (o.mu held): out of the index and the
// scans, out of the pending terms, and every cached expansion that holds
// one of them, or is of one, goes.
func (o *orgTerms) drop(terms []string) {
	gone := make(map[string]bool, len(terms))
	dead := maps.Clone(o.dead)
	for _, t := range terms {
		gone[t] = true
		delete(o.pending, t)
		delete(o.inflight, t)
		if o.dropped != nil {
			o.dropped[t] = true
		}
		if j, ok := o.index[t]; ok {
			if dead == nil {
				dead = map[int]bool{}
			}
			dead[j] = true
			delete(o.index, t)
		}
	}
	o.dead = dead
	o.gen++
	for q, rs := range o.cache {
		if gone[q] || slices.ContainsFunc(rs, func(r query.Related) bool { return gone[r.Term] }) {
			delete(o.cache, q)
			delete(o.vcache, q)
		}
	}
	for _, m := range []map[string][]string{o.ext, o.kinds} {
		for q, ts := range m {
			if gone[q] || slices.ContainsFunc(ts, func(t string) bool { return gone[t] }) {
				delete(m, q)
			}
		}
	}
}

// noiseCutoff is the Quantile of the cosine of random pairs of the
// vocabulary (a fixed seed: the same vocabulary gives the same cut-off);
// +Inf below MinNoiseTerms terms. o.mu held.
func (o *orgTerms) noiseCutoff() float64 {
	n := len(o.terms)
	if n < MinNoiseTerms {
		return math.Inf(1)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 0x5eed))
	sims := make([]float64, 0, noisePairs)
	for len(sims) < noisePairs {
		i, j := rng.IntN(n), rng.IntN(n)
		if i == j {
			continue
		}
		sims = append(sims, o.dot(o.vector(i), j))
	}
	sort.Float64s(sims)
	return sims[int(Quantile*float64(len(sims)-1))]
}

// qvec is a unit vector quantized to int8: v ≈ q × scale.
type qvec struct {
	q     []int8
	scale float32
}

func quantize(v []float32) qvec {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	out := qvec{q: make([]int8, len(v))}
	if m == 0 {
		return out
	}
	out.scale = m / 127
	for i, x := range v {
		out.q[i] = int8(math.Round(float64(x / out.scale)))
	}
	return out
}

// embedTerms embeds terms and queues their vectors for the org's saver
// (o.mu held).
func (r *Index) embedTerms(ctx context.Context, orgID string, o *orgTerms, terms []string) ([]qvec, error) {
	out, err := r.embedVectors(ctx, terms, nil)
	if err != nil {
		return nil, err
	}
	r.queueUnsaved(orgID, o, terms, out, r.Embedder.Model())
	return out, nil
}

// embedVectors embeds terms (as documents, so that term-to-term similarity
// is symmetric) and quantizes them. It takes no lock. yield, if not nil,
// is called before each call of the embedder.
func (r *Index) embedVectors(ctx context.Context, terms []string, yield func()) ([]qvec, error) {
	out := make([]qvec, 0, len(terms))
	dim := r.Embedder.Dimensions()
	for len(terms) > 0 {
		if yield != nil {
			yield()
		}
		batch := terms[:min(len(terms), embedBatch)]
		terms = terms[len(batch):]
		vs, err := r.Embedder.Embed(ctx, batch, memory.PurposeDocument)
		if err != nil {
			return nil, fmt.Errorf("related terms: embed the vocabulary: %w", err)
		}
		if len(vs) != len(batch) {
			return nil, fmt.Errorf("related terms: the embedder returned %d vectors for %d terms", len(vs), len(batch))
		}
		for _, v := range vs {
			if len(v) != dim {
				return nil, fmt.Errorf("related terms: a vector of %d dimensions, want %d", len(v), dim)
			}
			v = append([]float32(nil), v...)
			memory.Normalize(v)
			out = append(out, quantize(v))
		}
	}
	return out, nil
}

// queueUnsaved hands the vectors of terms to the org's saver, when records
// are kept (o.mu held).
func (r *Index) queueUnsaved(orgID string, o *orgTerms, terms []string, vs []qvec, model string) {
	if r.Records == nil || len(terms) == 0 {
		return
	}
	if o.unsaved == nil {
		o.unsaved = map[string]savedVec{}
	}
	for i, t := range terms {
		o.unsaved[t] = savedVec{vs[i], model}
	}
	if !o.saving {
		o.saving = true
		r.bg.Add(1)
		go r.save(orgID, o)
	}
}

// save stores the org's unsaved term vectors as records, saveBatch at a
// time (in one write when the store takes batches, memory.RecordBatcher),
// until none is left. The vectors are derived: one that fails to be stored
// is logged and embedded again at the next start. A search that embedded
// a vocabulary used to store each vector in a write of its own before it
// could answer: at 100,000 memories, seconds of fsyncs on the first search.
func (r *Index) save(orgID string, o *orgTerms) {
	defer r.bg.Done()
	ctx := context.Background()
	for {
		// Searches first: the vectors are stored for the next start, and a
		// batch waits at most YieldMax while searches are in flight.
		r.yieldOnce(ctx)
		o.saveMu.Lock()
		o.mu.Lock()
		// Any saveBatch of them, in key order: copying and sorting every
		// unsaved term for each batch held o.mu, which searches take,
		// through an O(n log n) sort per batch (3 s of CPU while 100,000
		// new memories' vocabulary was stored, and hybrid+knowledge p95 at
		// 30 ms meanwhile).
		terms := make([]string, 0, min(len(o.unsaved), saveBatch))
		for t := range o.unsaved {
			if len(terms) == saveBatch {
				break
			}
			terms = append(terms, t)
		}
		sort.Strings(terms)
		recs := make([]memory.RecordPut, len(terms))
		for i, t := range terms {
			sv := o.unsaved[t]
			delete(o.unsaved, t)
			b := make([]byte, len(sv.v.q))
			for k, x := range sv.v.q {
				b[k] = byte(x)
			}
			recs[i] = memory.RecordPut{ID: recordID(t), Value: vectorRecord{Term: t, Model: sv.model, Scale: sv.v.scale, Vec: b}}
		}
		if len(recs) == 0 {
			o.saving = false
		}
		o.mu.Unlock()
		if len(recs) == 0 {
			o.saveMu.Unlock()
			return
		}
		var err error
		if b, ok := r.Records.(memory.RecordBatcher); ok {
			err = b.PutRecords(ctx, orgID, VectorKind, recs)
		} else {
			for _, rec := range recs {
				if _, err = r.Records.PutRecord(ctx, orgID, VectorKind, rec.ID, rec.Value, 0); err != nil {
					break
				}
			}
		}
		o.saveMu.Unlock()
		if err != nil {
			r.log().Warn("related terms: term vectors not stored; they are embedded again at the next start", "org", orgID, "count", len(recs), "err", err)
		}
	}
}

// loadVectors reads the org's stored vectors of model: the pages are read
// in order while every core decodes those already read (decoding the JSON
// took half of a first build). Records of another model, or unreadable,
// are deleted: they are embedded again. yield, if not nil, is called
// before each page.
func (r *Index) loadVectors(ctx context.Context, orgID, model string, dim int, yield func()) (map[string]qvec, error) {
	pages := make(chan []memory.Record, runtime.GOMAXPROCS(0))
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(pages)
		after := ""
		for {
			if yield != nil {
				yield()
			}
			recs, next, err := r.Records.ListRecords(gctx, orgID, VectorKind, after, recordPage)
			if err != nil {
				return fmt.Errorf("related terms: load term vectors: %w", err)
			}
			select {
			case pages <- recs:
			case <-gctx.Done():
				return gctx.Err()
			}
			if next == "" {
				return nil
			}
			after = next
		}
	})
	var mu sync.Mutex
	out := map[string]qvec{}
	var bad []string
	for range runtime.GOMAXPROCS(0) {
		g.Go(func() error {
			for recs := range pages {
				got := make(map[string]qvec, len(recs))
				var drop []string
				for _, rec := range recs {
					var v vectorRecord
					if err := decodeVectorRecord(rec.Value, &v); err != nil || v.Model != model || len(v.Vec) != dim || recordID(v.Term) != rec.ID {
						drop = append(drop, rec.ID)
						continue
					}
					q := qvec{q: make([]int8, dim), scale: v.Scale}
					for i, b := range v.Vec {
						q.q[i] = int8(b)
					}
					got[v.Term] = q
				}
				mu.Lock()
				maps.Copy(out, got)
				bad = append(bad, drop...)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	sort.Strings(bad)
	for _, id := range bad {
		if err := r.Records.DeleteRecord(ctx, orgID, VectorKind, id); err != nil {
			return nil, fmt.Errorf("related terms: drop a stale term vector: %w", err)
		}
	}
	return out, nil
}

// recordID is the record id of a term's vector: terms hold spaces and any
// letter, ids do not.
func recordID(term string) string {
	h := sha256.Sum256([]byte(term))
	return hex.EncodeToString(h[:16])
}

// RecordID is the record id under which the vector of term is kept
// (VectorKind).
func RecordID(term string) string { return recordID(term) }

// Cutoff returns the embedding cut-off of an org as last estimated (+Inf
// before the first lookup, or below MinNoiseTerms terms).
func (r *Index) Cutoff(orgID string) float64 {
	o := r.org(orgID)
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.built {
		return math.Inf(1)
	}
	return o.cutoff
}
