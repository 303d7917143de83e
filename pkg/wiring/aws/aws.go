// Package aws is the composition root of the AWS deployment, which every
// Lambda but the authorizer opens: the memory service on the DynamoDB
// store, the OpenSearch index and the Bedrock (or hashing) embedder. It
// links no SQLite, bolt or ONNX code. The pipelines are built by the
// Lambdas that run them (wiring/ingestion, wiring/extraction,
// wiring/consolidation), so none links a pipeline it does not run.
package aws

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/index/opensearch"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/registry"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/telemetry/emf"
	"github.com/agentmem/agentmem/pkg/telemetry/otlp"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/llm"
	"github.com/agentmem/agentmem/pkg/workstream"
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// Backend is an opened AWS backend.
type Backend struct {
	Service  *service.Service
	Store    *dynamodb.Store
	Index    *opensearch.Index
	Embedder memory.Embedder
	// Caps are what the store keeps beyond memories (see Capabilities).
	Caps wiring.Capabilities
	// Metrics are CloudWatch embedded-metric-format lines on standard
	// output (set by Setup; telemetry.Discard otherwise).
	Metrics telemetry.Metrics
	closers wiring.Closers
	// Knowledge is the knowledge API's use case (offline translation).
	Knowledge *knowledge.Explorer
	// Extraction is the Structured RAG service the memory service derives
	// knowledge with (nil when the store keeps no term index); the
	// scheduled maintenance retries its pending extractions. With Model,
	// it extracts with the model off the write path (wiring.KnowledgeModel):
	// see ExtractPending.
	Extraction *knowledge.Service
	// Model is the language model LLM_PROVIDER configures (wiring/llm),
	// nil without one: knowledge extraction uses it, the extract
	// function its facts, and the service's searches plan their
	// decomposition list with it (wiring.Planner).
	Model memory.LLM
	// Registry keeps the orgs' entities, worlds and rooms in the store's
	// records (the API's /v1/entities, /v1/worlds, /v1/rooms).
	Registry *registry.Registry
	// Workstreams keeps the orgs' memory blocks in the store's records
	// (the API's /v1/workstreams; offline compaction: the API Lambda
	// links no LLM).
	Workstreams *workstream.Service
}

// MaintenanceGrace is how old an ingestion left pending must be before the
// scheduled maintenance (ingest.Maintenance) rolls it back: three times the
// ingest function's 300 s timeout, so that no run in flight is touched.
const MaintenanceGrace = 15 * time.Minute

// Open opens the backend cfg describes, which must name the AWS adapters
// (BACKEND=aws, INDEX=opensearch): the store, the index (created and filled
// from the store when new) and the embedder. opts follow the options cfg
// selects.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger, opts ...service.Option) (*Backend, error) {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Store.Backend != config.BackendAWS {
		return nil, fmt.Errorf("BACKEND: the AWS deployment needs BACKEND=aws, not %q", cfg.Store.Backend)
	}
	if cfg.Index.Kind != config.IndexOpenSearch {
		return nil, fmt.Errorf("INDEX: the AWS deployment needs INDEX=opensearch, not %q", cfg.Index.Kind)
	}
	emb, err := NewEmbedder(ctx, cfg.Embedder, cfg.AWS, log)
	if err != nil {
		return nil, err
	}
	store, err := OpenStore(ctx, cfg.Store, cfg.AWS)
	if err != nil {
		return nil, err
	}
	return OpenWith(ctx, cfg, store, emb, log, opts...)
}

// OpenWith is Open on a store and an embedder opened by the caller (the
// capacity benchmark's store counts the units its client consumes): the
// index of cfg, and the service over the three.
func OpenWith(ctx context.Context, cfg config.Config, store *dynamodb.Store, emb memory.Embedder, log *slog.Logger, opts ...service.Option) (*Backend, error) {
	if log == nil {
		log = slog.Default()
	}
	model, err := llm.New(ctx, cfg.LLM, cfg.AWS)
	if err != nil {
		return nil, err
	}
	ix, err := OpenIndex(ctx, cfg.Index, cfg.AWS, store, emb, cfg.Embedder.Sentences, log)
	if err != nil {
		return nil, err
	}
	b := &Backend{Store: store, Index: ix, Embedder: emb, Caps: Capabilities(store), Metrics: telemetry.Discard, Model: model,
		Registry: registry.New(store), Workstreams: workstream.New(store, workstream.WithLogger(log))}
	// The service sees the ports traced when tracing is on; the Backend keeps them bare.
	ts, tix, temb := telemetry.Ports(store, ix, emb)
	k := wiring.NewKnowledge(ts, temb, log)
	if err := wiring.KnowledgeModel(k, model, log); err != nil {
		return nil, err
	}
	if k != nil {
		k.Entities = b.Registry                      // speakers and mentions resolved by the entity registry
		k.Settings = service.NewSettingsStore(store) // each org's provided keys
	}
	b.Knowledge = wiring.ShareRelated(wiring.KnowledgeExplorer(store, wiring.QueryModel(cfg.LLM, model), log), k)
	b.Extraction = k
	opts = append(opts, service.WithRoomDirectory(b.Registry), service.WithBlockSource(b.Workstreams))
	b.Service = service.NewService(ts, tix, temb, wiring.ServiceOptions(cfg, log, append(wiring.KnowledgeServiceOptions(k, wiring.Planner(wiring.QueryModel(cfg.LLM, model), log)), opts...)...)...)
	b.closers.Add(b.Service.Close)
	return b, nil
}

// Close flushes the service's queued accesses.
func (b *Backend) Close() error { return b.closers.Close() }

// PendingPerOrg is the most memories ExtractPending extracts per org and
// call: a page, so that one busy org does not hold a batch past its
// function's timeout (the rest waits for the next batch or the
// maintenance).
const PendingPerOrg = memory.DefaultKnowledgePage

// ExtractPending extracts, with the model, the knowledge the orgs' writes
// left pending (knowledge.Service.Deferred), at most PendingPerOrg memories
// per org, and returns how many it extracted. A Lambda runs nothing after
// it answers, so this is called inside an invocation: by the extract
// function after each batch (ExtractPendingAfter). Without a model or a
// term index it does nothing.
func (b *Backend) ExtractPending(ctx context.Context, orgs []string, log *slog.Logger) int {
	if b.Extraction == nil || !b.Extraction.Deferred {
		return 0
	}
	n := 0
	for _, org := range orgs {
		n += wiring.ExtractPending(ctx, b.Extraction, org, PendingPerOrg, log)
	}
	return n
}

// ExtractPendingAfter returns h, an SQS handler of extraction jobs, followed
// by ExtractPending over the orgs of the batch's jobs (those whose body
// names one): the knowledge of the messages the API stored, and of the
// facts h wrote, is extracted with the model before the batch returns.
func (b *Backend) ExtractPendingAfter(h func(context.Context, events.SQSEvent) (events.SQSEventResponse, error), log *slog.Logger) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		res, err := h(ctx, ev)
		var orgs []string
		seen := map[string]bool{}
		for _, m := range ev.Records {
			var j memory.ExtractionJob
			if json.Unmarshal([]byte(m.Body), &j) == nil && j.OrgID != "" && memory.ValidID("orgId", j.OrgID) == nil && !seen[j.OrgID] {
				seen[j.OrgID] = true
				orgs = append(orgs, j.OrgID)
			}
		}
		b.ExtractPending(ctx, orgs, log)
		return res, err
	}
}

// Capabilities declares what the DynamoDB store keeps beyond memories:
// relations, records and the list of its orgs.
func Capabilities(s *dynamodb.Store) wiring.Capabilities {
	return wiring.Capabilities{Store: "dynamodb", Relations: s, Records: s, Orgs: s}
}

// OpenStore connects to the DynamoDB table of cfg, creating it first with
// DYNAMODB_CREATE_TABLE (local servers).
func OpenStore(ctx context.Context, cfg config.Store, a config.AWS) (*dynamodb.Store, error) {
	c, err := dynamodb.NewClient(ctx, dynamodb.ClientOptions{Endpoint: cfg.DynamoDBEndpoint, Region: a.Region})
	if err != nil {
		return nil, err
	}
	if cfg.DynamoDBCreateTable {
		if err := dynamodb.CreateTable(ctx, c, cfg.DynamoDBTable); err != nil {
			return nil, err
		}
	}
	return dynamodb.New(c, cfg.DynamoDBTable), nil
}

// OpenIndex connects to the OpenSearch alias of cfg for emb's vectors. When
// the alias is new it is created and filled from store (memories of
// another model re-embedded, messages with the sentence view when
// sentences is set); with writer roles
// configured (the API function, master of the domain) they are mapped to
// the index writer role.
func OpenIndex(ctx context.Context, cfg config.Index, a config.AWS, store memory.Store, emb memory.Embedder, sentences bool, log *slog.Logger) (*opensearch.Index, error) {
	oc := opensearch.Config{URLs: cfg.OpenSearchURLs, Alias: cfg.OpenSearchAlias,
		Username: cfg.OpenSearchUser, Password: cfg.OpenSearchSecret, Dimensions: emb.Dimensions()}
	if cfg.OpenSearchSigV4 {
		sig, err := opensearch.NewSigV4Signer(ctx, a.Region, "es")
		if err != nil {
			return nil, err
		}
		oc.Signer = sig
	}
	ix, err := opensearch.New(oc)
	if err != nil {
		return nil, err
	}
	created, err := ix.Ensure(ctx)
	if err != nil {
		return nil, err
	}
	if len(cfg.OpenSearchWriterRoles) > 0 {
		if err := ix.MapWriterRoles(ctx, cfg.OpenSearchWriterRoles); err != nil {
			return nil, fmt.Errorf("map the pipeline roles in OpenSearch: %w", err)
		}
	}
	if created {
		if err := wiring.Refill(ctx, store, ix, emb, sentences, "new alias "+ix.Alias(), log); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// NewEmbedder returns the embedder cfg selects among those the AWS build
// has: bedrock, or hash. The offline model is not part of it: auto falls
// back to hashing with a warning, and onnx is an error.
func NewEmbedder(ctx context.Context, cfg config.Embedder, a config.AWS, log *slog.Logger) (memory.Embedder, error) {
	switch cfg.Kind {
	case config.EmbedderBedrock:
		c, err := bedrock.NewClient(ctx, bedrock.ClientOptions{Endpoint: a.BedrockEndpoint, Region: a.Region})
		if err != nil {
			return nil, err
		}
		e, err := bedrock.NewEmbedder(c, bedrock.EmbedderOptions{Model: cfg.BedrockModel, Dimensions: cfg.BedrockDimensions})
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return e, nil
	case config.EmbedderHash:
		return hashing.New(hashing.DefaultDimensions), nil
	case config.EmbedderAuto, "":
		log.Warn("EMBEDDER=auto in the AWS build: the offline model is not part of it, so the hashing embedder is used, "+
			"which matches words, not meaning; set EMBEDDER=bedrock", "embedder", cfg.Kind)
		return hashing.New(hashing.DefaultDimensions), nil
	}
	return nil, fmt.Errorf("EMBEDDER: %q is not available in the AWS build (bedrock or hash)", cfg.Kind)
}

// Setup is the start of every Lambda that opens the backend: the
// configuration from the environment, a JSON logger on standard output,
// tracing when the OTEL_* variables ask for it (telemetry/otlp; the
// handler flushes the spans of each invocation: telemetry.Handler), the
// backend with the service options extras build, and its metrics as
// embedded-metric-format lines on standard output. It exits the process
// with a logged error if any of them fails.
func Setup(ctx context.Context, extras ...Extra) (*Backend, config.Config, *slog.Logger) {
	log := wiring.Logger(os.Stdout, slog.LevelInfo)
	cfg, err := config.FromEnv()
	Must(log, "config", err)
	log = wiring.Logger(os.Stdout, cfg.LogLevel)
	_, err = otlp.Setup(ctx, lambdacontext.FunctionName)
	Must(log, "tracing", err)
	var opts []service.Option
	for _, x := range extras {
		o, err := x(ctx, cfg)
		Must(log, "service options", err)
		opts = append(opts, o...)
	}
	b, err := Open(ctx, cfg, log, opts...)
	Must(log, "backend", err)
	b.Metrics = emf.New(os.Stdout, lambdacontext.FunctionName)
	return b, cfg, log
}

// Extra builds service options from the configuration for the one Lambda
// that needs them (the API's reranker, wiring/rerank.FromConfig), so that
// the others do not link their adapters.
type Extra func(ctx context.Context, cfg config.Config) ([]service.Option, error)

// Must exits the process with a logged error when err is not nil: a Lambda
// that cannot start must not take events.
func Must(log *slog.Logger, what string, err error) {
	if err != nil {
		log.Error(what, "err", err)
		os.Exit(1)
	}
}
