// Package server is the composition root of memoryd, and of the commands
// that work on the same data (memctl, invoke, the benchmarks): the store
// the configuration names (SQLite in DATA_DIR, or DynamoDB with
// BACKEND=aws) with the index it names (bolt in DATA_DIR, or OpenSearch),
// the embedder, the LLM and every pipeline. Unlike the Lambdas' root
// (wiring/aws) it may mix flavours: BACKEND=aws with the bolt index is
// make run-aws-local. It opens each piece with the flavour roots' own
// openers, so both flavours fill their indexes by the same rules.
package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/index/opensearch"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/registry"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	"github.com/agentmem/agentmem/pkg/wiring/consolidation"
	"github.com/agentmem/agentmem/pkg/wiring/extraction"
	"github.com/agentmem/agentmem/pkg/wiring/ingestion"
	"github.com/agentmem/agentmem/pkg/wiring/llm"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/agentmem/agentmem/pkg/wiring/rerank"
	"github.com/agentmem/agentmem/pkg/workstream"
)

// Backend is an opened service with its adapters and pipelines.
type Backend struct {
	Service  *service.Service
	Store    memory.Store
	Index    memory.Index
	Embedder memory.Embedder
	// OpenSearch is the index when INDEX=opensearch (for reindexing).
	OpenSearch *opensearch.Index
	// DynamoDB is the store when BACKEND=aws (API keys, records).
	DynamoDB *dynamodb.Store
	// Keys keeps the API keys created through the admin API or memctl
	// (the store's key table).
	Keys memory.KeyStore
	// Usage counts what each org stores, for quotas.
	Usage memory.UsageCounter
	// Tokens mints and verifies end-user tokens, signed with keys kept in
	// the store's records (nil when the store keeps none).
	Tokens *auth.Tokens
	// Idempotency keeps the responses of requests sent with an
	// Idempotency-Key (the store's table).
	Idempotency memory.IdempotencyStore
	// Caps are what the store keeps beyond memories; each pipeline
	// checked what it needs when it was built.
	Caps wiring.Capabilities
	// Documents is the ingestion pipeline.
	Documents *ingest.Pipeline
	// Facts is the extraction pipeline, with the LLM the configuration
	// names (LLM_PROVIDER) or the local pattern extractor.
	Facts *extract.Pipeline
	// Settings keeps the orgs' extraction settings, read by Facts (nil
	// when the store keeps no records): give it to the API's settings
	// endpoint so that a change applies to the next job.
	Settings *service.SettingsStore
	// Consolidation is the scheduled consolidation job.
	Consolidation *consolidate.Job
	closers       wiring.Closers
	// Knowledge is the knowledge API's use case, translating natural
	// language with the configured LLM when there is one; nil when the
	// store keeps no term index.
	Knowledge *knowledge.Explorer
	// Extraction is the Structured RAG service that extracts knowledge
	// as memories are written (with the LLM when one is configured); nil
	// when the store keeps no term index.
	Extraction *knowledge.Service
	// Registry keeps the orgs' entities, worlds and rooms in the store's
	// records (nil when the store keeps none).
	Registry *registry.Registry
	// Workstreams keeps the orgs' memory blocks in the store's records
	// (nil when the store keeps none).
	Workstreams *workstream.Service
	// Bolt is the index when it is the embedded one; Reembedder, when not
	// nil, is rebuilding its vectors after a model change.
	Bolt       *bolt.Index
	Reembedder *local.Reembedder
}

// The cache of composed contexts (service.WithContextCache): writes
// through this process invalidate it at once; the TTL bounds what another
// process writing the same store (memctl, a second memoryd on DynamoDB)
// leaves stale.
const (
	contextCacheSize = 1000
	contextCacheTTL  = time.Minute
)

// RecoverGrace is how long a document may stay pending in a shared store
// (DynamoDB) before recovery rolls it back: longer than the ingest
// function's timeout (15 minutes), so no run still in flight is touched.
const RecoverGrace = 20 * time.Minute

// Recover repairs what an interrupted ingestion left (see
// ingest.Pipeline.Recover): every run, on the embedded store that only
// this process opens; runs older than RecoverGrace on a shared one.
func (b *Backend) Recover(ctx context.Context) (ingest.Recovered, error) {
	if b.Caps.Orgs == nil || b.Caps.Records == nil {
		return ingest.Recovered{}, nil
	}
	grace := time.Duration(0)
	if b.DynamoDB != nil {
		grace = RecoverGrace
	}
	return b.Documents.RecoverAll(ctx, b.Caps.Orgs, grace)
}

// Health reports what is degraded ("" when nothing is) and the details
// /v1/healthz shows: the embedder, and the re-embedding's progress.
func (b *Backend) Health() (string, map[string]any) {
	details := map[string]any{"embedder": b.Embedder.Model()}
	degraded := ""
	if b.Reembedder != nil {
		st := b.Reembedder.Status()
		details["reembedding"] = st
		if b.Bolt != nil && b.Bolt.Reembedding() {
			degraded = fmt.Sprintf("semantic search is off while the memories are re-embedded for %s (%d of %d done): results are ranked by keywords",
				st.Model, st.Done, st.Total)
		}
	}
	return degraded, details
}

// NewEmbedder returns the embedder the configuration selects: bedrock
// through the AWS root, the others (auto, onnx, hash) through the local
// one (see local.NewEmbedder for the fallback of auto).
func NewEmbedder(ctx context.Context, cfg config.Config) (memory.Embedder, error) {
	return newEmbedder(ctx, cfg, slog.Default())
}

func newEmbedder(ctx context.Context, cfg config.Config, log *slog.Logger) (memory.Embedder, error) {
	if cfg.Embedder.Kind == config.EmbedderBedrock {
		return aws.NewEmbedder(ctx, cfg.Embedder, cfg.AWS, log)
	}
	return local.NewEmbedder(cfg.Embedder, log)
}

// Open opens the backend of cfg with the embedder it selects.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger, opts ...service.Option) (*Backend, error) {
	if log == nil {
		log = slog.Default()
	}
	emb, err := newEmbedder(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	b, err := OpenWith(ctx, cfg, emb, log, opts...)
	if c, ok := emb.(io.Closer); ok {
		if err != nil {
			c.Close()
		} else {
			b.closers = append(wiring.Closers{c.Close}, b.closers...) // closed last
		}
	}
	return b, err
}

// OpenWith opens the backend of cfg with the given embedder (benchmarks
// wrap it to time it). opts follow the options cfg selects.
func OpenWith(ctx context.Context, cfg config.Config, emb memory.Embedder, log *slog.Logger, opts ...service.Option) (*Backend, error) {
	if log == nil {
		log = slog.Default()
	}
	b := &Backend{Embedder: emb}
	fail := func(err error) (*Backend, error) {
		b.Close()
		return nil, err
	}
	switch cfg.Store.Backend {
	case config.BackendAWS:
		s, err := aws.OpenStore(ctx, cfg.Store, cfg.AWS)
		if err != nil {
			return fail(err)
		}
		b.DynamoDB, b.Store, b.Caps = s, s, aws.Capabilities(s)
		b.Keys, b.Usage = s, s
		b.Idempotency = s.Idempotency()
	default:
		s, err := local.OpenStore(cfg.DataDir)
		if err != nil {
			return fail(err)
		}
		b.closers.Add(s.Close)
		b.Store, b.Caps = s, local.Capabilities(s)
		b.Keys, b.Usage = s, s
		if b.Idempotency, err = s.Idempotency(ctx); err != nil {
			return fail(err)
		}
	}
	if b.Caps.Records != nil {
		b.Tokens = auth.NewTokens(auth.NewRecordKeys(b.Caps.Records))
	}
	switch cfg.Index.Kind {
	case config.IndexOpenSearch:
		ix, err := aws.OpenIndex(ctx, cfg.Index, cfg.AWS, b.Store, emb, cfg.Embedder.Sentences, log)
		if err != nil {
			return fail(err)
		}
		b.OpenSearch, b.Index = ix, ix
	default:
		a := cfg.Index.ANN
		ix, stale, err := local.OpenIndex(ctx, cfg.DataDir, b.Store, emb, log,
			bolt.ANNConfig{Threshold: a.Threshold, M: a.M, EfConstruction: a.EfConstruction, EfSearch: a.EfSearch})
		if err != nil {
			return fail(err)
		}
		ix.ReleasePages(cfg.Index.ReleasePages)
		b.closers.Add(ix.Close)
		b.Index, b.Bolt = ix, ix
		if stale > 0 || ix.Reembedding() {
			// A model change: the server answers at once, keyword search
			// works, and the vectors are rebuilt in the background.
			b.Reembedder = &local.Reembedder{Store: b.Store, Index: ix, Embedder: emb, Log: log, Sentences: cfg.Embedder.Sentences}
			b.Reembedder.Start(stale)
			b.closers.Add(b.Reembedder.Stop) // stopped before the index closes
		}
	}
	model, err := llm.New(ctx, cfg.LLM, cfg.AWS)
	if err != nil {
		return fail(err)
	}
	rr, err := rerank.New(ctx, cfg.Rerank, model, cfg.AWS)
	if err != nil {
		return fail(err)
	}
	// The service sees the ports traced when tracing is on; the Backend keeps them bare.
	store, index, tracedEmb := telemetry.Ports(b.Store, b.Index, emb)
	k := wiring.NewKnowledge(store, tracedEmb, log)
	if err := wiring.KnowledgeModel(k, model, log); err != nil {
		return fail(err)
	}
	b.Extraction = k
	opts = append(append(wiring.KnowledgeServiceOptions(k, wiring.Planner(wiring.QueryModel(cfg.LLM, model), log)), rerank.Options(cfg.Rerank, rr)...), opts...)
	if b.Caps.Records != nil {
		b.Registry = registry.New(b.Caps.Records)
		if k != nil {
			k.Entities = b.Registry // speakers and mentions resolved by the entity registry
		}
		opts = append(opts, service.WithRoomDirectory(b.Registry))
		b.Workstreams = workstream.New(b.Caps.Records, workstream.WithLLM(model), workstream.WithLogger(log),
			workstream.WithOnWrite(func(org string) { b.Service.Invalidate(org) })) // b.Service is set below
		opts = append(opts, service.WithBlockSource(b.Workstreams))
	}
	// One process serves memoryd: its cache of composed contexts sees every write.
	opts = append(opts, service.WithContextCache(contextCacheSize, contextCacheTTL))
	b.Service = service.NewService(store, index, tracedEmb, wiring.ServiceOptions(cfg, log, opts...)...)
	b.closers.Add(b.Service.Close) // closed first: its queued accesses need the store
	if k != nil && k.Related != nil {
		b.closers.Add(k.Related.Close) // first loads stopped; term vectors still being stored, expansions under way
	}
	if ol, ok := b.Store.(memory.OrgLister); ok && k != nil {
		b.closers.Add(wiring.StartKnowledge(ctx, k, ol, log)) // stopped before the service and store close
	}
	b.Knowledge = wiring.ShareRelated(wiring.KnowledgeExplorer(b.Store, wiring.QueryModel(cfg.LLM, model), log), k)
	if b.Documents, err = ingestion.New(b.Service, b.Caps, cfg.Ingest, log); err != nil {
		return fail(err)
	}
	if b.Facts, err = extraction.New(b.Service, b.Caps, model, log); err != nil {
		return fail(err)
	}
	b.Settings = extraction.SettingsOf(b.Facts)
	if k != nil && b.Settings != nil {
		k.Settings = b.Settings // an org's provided keys, changed through the API, apply to its next write
	}
	if b.Registry != nil {
		b.Facts.Entities = b.Registry // the API's registry: its entity changes are seen at once
	}
	if b.Consolidation, err = consolidation.New(b.Service, b.Caps, cfg.Consolidation, log); err != nil {
		return fail(err)
	}
	return b, nil
}

// Close releases the adapters.
func (b *Backend) Close() error { return b.closers.Close() }
