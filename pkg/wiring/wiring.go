// Package wiring holds what the composition roots share; the roots
// themselves are its subpackages, one per deployment flavour:
//
//	wiring/local   the embedded backend: SQLite, the bolt index, the offline or hashing embedder
//	wiring/aws     the AWS backend of the Lambdas: DynamoDB, OpenSearch, Bedrock or hashing
//	wiring/server  memoryd's root (and the CLIs'): any store with any index, every pipeline
//
// and the builders that only the binaries running a pipeline import, so
// that no binary links a pipeline it does not run:
//
//	wiring/ingestion      document ingestion (needs records)
//	wiring/extraction     fact extraction (needs relations)
//	wiring/consolidation  the consolidation job (needs records and org listing)
//	wiring/api            the HTTP API, its quotas and the MCP mount, from the parts a root has
//	wiring/llm            config.LLM -> memory.LLM, the one place a provider is added
//
// This package imports the vocabulary, the service and the configuration,
// never an adapter.
package wiring

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/pkg/knowledge"
	kllm "github.com/agentmem/agentmem/pkg/knowledge/extractor/llm"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/knowledge/related"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

// accessQueue is how many searches' accesses may wait to be recorded.
const accessQueue = 4096

// ServiceOptions returns the service options cfg selects (the sentence
// view of EMBED_SENTENCES, access recording), with log, then opts, then
// the list weights of SEARCH_WEIGHTS, which win over every default (the
// knowledge list's, for example).
func ServiceOptions(cfg config.Config, log *slog.Logger, opts ...service.Option) []service.Option {
	out := []service.Option{service.WithLogger(log), service.WithSentenceView(cfg.Embedder.Sentences)}
	if cfg.Service.AccessRecording == config.AccessAsync {
		out = append(out, service.WithAsyncAccess(accessQueue, cfg.Service.AccessWindow))
	}
	out = append(out, opts...)
	return append(out, service.WithListWeights(cfg.Service.Weights))
}

// Refill writes every memory of the store into ix (see service.Rebuild): the
// store is the truth, the index is derived and refilled from it when an
// index opener finds it new, lost or stale (reason says which, for the
// log).
func Refill(ctx context.Context, store memory.Store, ix memory.Index, emb memory.Embedder, sentences bool, reason string, log *slog.Logger) error {
	start := time.Now()
	st, err := service.Rebuild(ctx, store, ix, emb, sentences)
	if err != nil {
		return fmt.Errorf("refill the index from the store: %w", err)
	}
	if st.Indexed > 0 {
		log.Info("index filled from the store", "reason", reason, "indexed", st.Indexed, "reembedded", st.Reembedded,
			"model", emb.Model(), "ms", time.Since(start).Milliseconds())
	}
	return nil
}

// Closers releases what a root opened, last opened first.
type Closers []func() error

// Add registers f.
func (c *Closers) Add(f func() error) { *c = append(*c, f) }

// Close calls every closer, last added first, and joins their errors.
func (c Closers) Close() error {
	var errs []error
	for i := len(c) - 1; i >= 0; i-- {
		errs = append(errs, c[i]())
	}
	return errors.Join(errs...)
}

// Logger is the JSON logger of the Lambdas and servers at level.
func Logger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// KnowledgeOptions wires the structured lists: the time list (a query that
// names a time searches that time, retrieval.TimeList), the entity list (a
// query that names an entity searches its memories, retrieval.EntityList)
// and, when the store
// keeps a term index (SQLite and DynamoDB both do), Structured RAG:
// knowledge extracted offline as memories are written, forgotten with
// them, searched as the "knowledge" list at weight KnowledgeWeight, query
// terms expanded with their related terms (the is-a table, the extractors'
// types and aliases, and the nearest vocabulary terms by emb, whose vectors
// the store keeps as records when it can), and the structured section of
// the prompt context.
func KnowledgeOptions(store memory.Store, emb memory.Embedder, log *slog.Logger) []service.Option {
	return KnowledgeServiceOptions(NewKnowledge(store, emb, log), nil)
}

// NewKnowledge returns the Structured RAG service of KnowledgeOptions, or
// nil when the store keeps no term index.
func NewKnowledge(store memory.Store, emb memory.Embedder, log *slog.Logger) *knowledge.Service {
	ti, ok := store.(memory.TermIndex)
	if !ok {
		return nil
	}
	rel := &related.Index{Terms: ti, Embedder: emb, Log: log, Foreground: &retrieval.Foreground{}}
	k := &knowledge.Service{Store: store, Terms: ti, Extractor: offline.New(offline.Options{}), Related: rel, Log: log,
		DeferFrom: DeferKnowledgeFrom}
	if rs, ok := store.(memory.RecordStore); ok {
		rel.Records, k.Records = rs, rs
	}
	return k
}

// DeferKnowledgeFrom is the knowledge.Service.DeferFrom of NewKnowledge:
// a create of at least this many memories (a bulk import, a batch of the
// API) leaves their knowledge to StartKnowledge's worker, where one runs
// (memoryd); a turn of a conversation (one or two messages) and smaller
// writes get it at once. See docs/benchmarks.md for the measurements.
const DeferKnowledgeFrom = 10

// KnowledgeModel makes k extract knowledge with model, when there is one
// (LLM_PROVIDER): the LLM knowledge extractor (knowledge/extractor/llm),
// whose entities keep the related terms the model offers, off the write
// path (knowledge.Service.Deferred): a write extracts offline, at once,
// and leaves its memories pending; the model's knowledge replaces the
// offline one when ExtractPending runs (memoryd's worker, StartKnowledge;
// in the Lambdas, the extract function after each batch and the
// scheduled maintenance). When the model fails, the offline extractor's
// knowledge is kept (logged and counted: knowledge.Service.Fallbacks).
// Without k or model, k stays offline.
func KnowledgeModel(k *knowledge.Service, model memory.LLM, log *slog.Logger) error {
	if k == nil || model == nil {
		return nil
	}
	x, err := kllm.New(model, kllm.Options{Logger: log})
	if err != nil {
		return fmt.Errorf("knowledge: the LLM extractor: %w", err)
	}
	k.Fallback, k.Extractor, k.Deferred = k.Extractor, x, true
	return nil
}

// KnowledgeServiceOptions plugs the time, entity and when lists, the
// decomposition list planned by plan (nil: the offline rules; see
// Planner), the neighbours stage, and k (nil: no term index)
// into the service: the knowledge list, forgetting, deriving on write, and
// the structured section of the prompt context.
func KnowledgeServiceOptions(k *knowledge.Service, plan retrieval.Decomposer) []service.Option {
	out := []service.Option{service.WithTimeList(FindTime), service.WithEntityList(),
		service.WithWhenList(query.AsksWhen, query.StatesTime), service.WithNeighbours(retrieval.Neighbours{Skip: retrieval.AsksMany}),
		service.WithDecomposeList(plan),
		service.WithListWeights(map[string]float64{retrieval.ListEntity: EntityWeight, retrieval.ListWhen: WhenWeight,
			retrieval.ListDecompose: DecomposeWeight})}
	if k == nil {
		return out
	}
	if k.Related != nil && k.Related.Foreground != nil {
		out = append(out, service.WithForeground(k.Related.Foreground))
	}
	return append(out, service.WithRetriever(k.Retriever()), service.WithForgetter(k), service.WithDeriver(k),
		service.WithKnowledgeContext(k.ContextSection()),
		service.WithListWeights(map[string]float64{retrieval.ListKnowledge: KnowledgeWeight}))
}

// Planner is the decomposition list's planner when a model is configured
// (LLM_PROVIDER): the model splits a question into its sub-queries and
// tells a spread one (retrieval.LLMPlanner, within
// retrieval.DefaultPlanTimeout), the offline rules answering when it
// fails. Without a model, nil: the offline rules alone.
func Planner(model memory.LLM, log *slog.Logger) retrieval.Decomposer {
	if model == nil {
		return nil
	}
	return (&retrieval.LLMPlanner{LLM: model, Logger: log}).Plan
}

// QueryModel is the model searches call (the decomposition planner, the
// knowledge search translator): model, unless LLM_QUERIES=false keeps
// searches on the offline rules (then nil), the model serving extraction
// only.
func QueryModel(cfg config.LLM, model memory.LLM) memory.LLM {
	if !cfg.Queries {
		return nil
	}
	return model
}

// FindTime is the time list's retrieval.Resolver: the offline time
// expressions of knowledge/query.
func FindTime(text string, now time.Time) (start, end time.Time, ok bool) {
	r, ok := query.FindTime(text, now)
	return r.Start, r.End, ok
}

// KnowledgeExplorer is the use case of the knowledge API
// (/v1/knowledge/*, memctl knowledge) when the store keeps a term index,
// nil otherwise. model, when not nil, translates natural-language searches
// (the offline translator answers otherwise, and when the model fails).
func KnowledgeExplorer(store memory.Store, model memory.LLM, log *slog.Logger) *knowledge.Explorer {
	ti, ok := store.(memory.TermIndex)
	if !ok {
		return nil
	}
	return &knowledge.Explorer{Index: ti, Status: ti, Store: store, LLM: model, Log: log}
}

// ShareRelated lends k's related terms to x, so that the knowledge API and
// the search lists expand terms alike and share one cache; it returns x.
// Either may be nil.
func ShareRelated(x *knowledge.Explorer, k *knowledge.Service) *knowledge.Explorer {
	if x != nil && k != nil && k.Related != nil {
		x.Related = k.Related
	}
	return x
}

// StartKnowledge extracts knowledge in the background, one org at a time,
// and returns the function that stops it and waits. At start, for every
// org, the memories that have none (written before extraction existed:
// knowledge.Service.Backfill, one bounded pass at a time) and those left
// pending (ExtractPending); then, whenever a write leaves memories
// pending (for the model, knowledge.Service.Deferred, or a bulk write,
// DeferFrom; through OnPending), those of its org, once the writes that
// follow it have gathered (KnowledgeSettle). Stopping it ends the
// start-up pass at once, and extracts what this process's writes left
// pending, within KnowledgeDrain. A failure is logged; the pending status
// stays, and the next wake-up or start resumes.
func StartKnowledge(ctx context.Context, k *knowledge.Service, orgs memory.OrgLister, log *slog.Logger) func() error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	start, cancelStart := context.WithCancel(ctx) // the start-up pass: stopped at once
	stopping := make(chan struct{})
	done := make(chan struct{})
	wake := make(chan struct{}, 1)
	var mu sync.Mutex
	dirty := map[string]bool{}
	k.OnPending = func(org string) {
		mu.Lock()
		dirty[org] = true
		mu.Unlock()
		select {
		case wake <- struct{}{}:
		default: // a wake-up is already due
		}
	}
	// take returns the orgs woken since the last call, and forgets them.
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		todo := slices.Sorted(maps.Keys(dirty))
		clear(dirty)
		return todo
	}
	extract := func(orgs []string) {
		for _, org := range orgs {
			ExtractPending(ctx, k, org, 0, log)
		}
	}
	go func() {
		defer close(done)
		ids, err := orgs.Orgs(start)
		if err != nil && start.Err() == nil {
			log.Warn("knowledge backfill: list orgs", "err", err)
		}
		for _, org := range ids {
			backfill(start, k, org, log)
			ExtractPending(start, k, org, 0, log)
		}
		for {
			select {
			case <-stopping:
				extract(take()) // what this process's writes left pending
				return
			case <-wake:
			}
			mu.Lock()
			woken := slices.Collect(maps.Keys(dirty))
			mu.Unlock()
			gather(ctx, k, woken, wake, stopping)
			extract(take())
		}
	}()
	return func() error {
		cancelStart()
		close(stopping)
		select {
		case <-done:
		case <-time.After(KnowledgeDrain):
			cancel() // the rest stays pending, for the next start
			<-done
		}
		cancel()
		return nil
	}
}

// KnowledgeDrain bounds how long stopping StartKnowledge's worker waits
// for it to extract what this process's writes left pending (a bulk
// import by memctl, which stops right after). What is left stays pending,
// for the next start.
var KnowledgeDrain = 10 * time.Second

// KnowledgeSettle is how long, at most, StartKnowledge's worker lets the
// pending memories of a bulk import gather before it extracts them. It
// starts sooner when one of the orgs woken has a full page
// (knowledge.Service.PendingPage) pending, or when no write has come for
// a quarter of it (the import is over). Extracted together, a page's
// term-index writes are one transaction: in pages of 1,000, the
// knowledge costs a quarter less CPU per memory than extracted with each
// create of 100 (docs/benchmarks.md).
var KnowledgeSettle = 2 * time.Second

// gather waits, after a wake-up, while writes keep leaving memories
// pending (wake), within KnowledgeSettle (see there), and not past
// stopping.
func gather(ctx context.Context, k *knowledge.Service, orgs []string, wake, stopping <-chan struct{}) {
	deadline := time.After(KnowledgeSettle)
	page := k.PendingPage()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stopping:
			return
		case <-deadline:
			return
		case <-time.After(KnowledgeSettle / 4):
			return // no more writes
		case <-wake:
		}
		for _, org := range orgs {
			if st, err := k.Terms.PendingKnowledge(ctx, org, "", page); err != nil || len(st) >= page {
				return // a full page, or failing: ExtractPending logs it
			}
		}
	}
}

// AwaitKnowledge waits until no memory of org is pending extraction: a
// bulk write's knowledge is in the term index. Whoever searches the
// knowledge right after a bulk import (the benchmarks) waits for it. With
// a language model (knowledge.Service.Deferred), every write waits for
// it. k nil: nothing to wait for.
func AwaitKnowledge(ctx context.Context, k *knowledge.Service, org string) error {
	if k == nil {
		return nil
	}
	for {
		st, err := k.Terms.PendingKnowledge(ctx, org, "", 1)
		if err != nil || len(st) == 0 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// backfill runs Backfill passes over the org until it is done.
func backfill(ctx context.Context, k *knowledge.Service, org string, log *slog.Logger) {
	total := 0
	for ctx.Err() == nil {
		res, err := k.Backfill(ctx, org, knowledge.DefaultBackfillPass)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("knowledge backfill failed", "org", org, "err", err)
			}
			break
		}
		total += res.Indexed
		if res.Done || res.Examined == 0 {
			break
		}
	}
	if total > 0 {
		log.Info("knowledge backfilled", "org", org, "indexed", total)
	}
}

// ExtractPending extracts again the org's memories whose knowledge is
// pending (knowledge.Service.ExtractPending), a page at a time, until none
// is left or max are done (0: no bound), and returns how many it
// extracted. A failure is logged and ends the call: the memories stay
// pending.
func ExtractPending(ctx context.Context, k *knowledge.Service, org string, max int, log *slog.Logger) int {
	total := 0
	for ctx.Err() == nil && (max <= 0 || total < max) {
		page := k.PendingPage()
		if max > 0 {
			page = min(page, max-total)
		}
		n, err := k.ExtractPending(ctx, org, page)
		total += n
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("knowledge: pending extraction failed, left pending", "org", org, "err", err)
			}
			break
		}
		if n < page {
			break
		}
	}
	if total > 0 {
		log.Debug("knowledge: pending extracted", "org", org, "extracted", total)
	}
	return total
}

// KnowledgeWeight is the knowledge list's weight in the fusion; keyword and
// semantic weigh 1. See docs/benchmarks.md for the measurements behind it.
const KnowledgeWeight = 0.5

// EntityWeight is the entity list's weight in the fusion. The list is
// keyword and semantic again, within the named entity's memories: each of
// its hits is already in those two lists, and at weight 1 a memory of the
// entity counted three times over, crowding out the other speaker's turns
// that some answers are in. At 0.5 it counts as half a list, as the
// knowledge list does (docs/benchmarks.md has both weights measured).
const EntityWeight = 0.5

// WhenWeight is the when list's weight in the fusion: half a list, as the
// entity and knowledge lists, since each of its hits is already a keyword
// or semantic hit. Weight 1 was measured too (docs/benchmarks.md): no
// better at recall@10, and it pushed single-hop answers out.
const WhenWeight = 0.5

// DecomposeWeight is the decomposition list's weight in the fusion: half a
// list, as the other lists made of keyword and semantic hits.
const DecomposeWeight = 0.5
