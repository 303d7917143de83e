// Package backend builds the service from the configuration: the store, the
// index and the embedder it names. Every entry point (local server, Lambda,
// CLI, benchmarks) wires through it.
package backend

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/service"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/agentmem/agentmem/embed/hashing"
	"github.com/agentmem/agentmem/embed/onnx"
	"github.com/agentmem/agentmem/index/bolt"
	"github.com/agentmem/agentmem/index/opensearch"
	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/llm/bedrock"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/pipeline/consolidate"
	"github.com/agentmem/agentmem/pipeline/extract"
	"github.com/agentmem/agentmem/pipeline/ingest"
	"github.com/agentmem/agentmem/store/dynamodb"
	"github.com/agentmem/agentmem/store/sqlite"
	"github.com/agentmem/agentmem/wiring/local"
)

// Backend is an opened service with its adapters.
type Backend struct {
	Service  *service.Service
	Store    memory.Store
	Index    memory.Index
	Embedder memory.Embedder
	// OpenSearch is the index when INDEX=opensearch (for reindexing).
	OpenSearch *opensearch.Index
	// DynamoDB is the store when BACKEND=aws (API keys, records).
	DynamoDB *dynamodb.Store
	// Records keeps document status and job checkpoints.
	Records memory.RecordStore
	// Documents is the ingestion pipeline.
	Documents *ingest.Pipeline
	// Facts is the extraction pipeline, with the extractor the
	// configuration selects (EXTRACTOR: local, or bedrock with
	// BEDROCK_LLM_MODEL).
	Facts *extract.Pipeline
	// Consolidation is the scheduled consolidation job.
	Consolidation *consolidate.Job
	closers       []func() error
}

// finish sets what every backend derives from its store and service.
func (b *Backend) finish(cfg config.Config, log *slog.Logger) *Backend {
	if r, ok := b.Store.(memory.RecordStore); ok {
		b.Records = r
	}
	b.Documents = &ingest.Pipeline{Service: b.Service, Records: b.Records, Log: log, MaxBytes: cfg.Ingest.MaxBytes,
		Splitter: ingest.Splitter{Size: cfg.Ingest.ChunkSize, Overlap: cfg.Ingest.ChunkOverlap}}
	b.Facts = &extract.Pipeline{Service: b.Service, Extractor: extract.Local{}, Log: log}
	b.Consolidation = &consolidate.Job{Service: b.Service, Records: b.Records, Log: log, Config: consolidate.Config{
		HalfLifeStandard: cfg.Consolidation.HalfLifeStandard, HalfLifeEphemeral: cfg.Consolidation.HalfLifeEphemeral,
		ArchiveBelow: cfg.Consolidation.ArchiveBelow, Retention: cfg.Consolidation.Retention}}
	return b
}

// UseBedrockExtractor makes the extraction pipeline call model through
// Bedrock's Converse API.
func (b *Backend) UseBedrockExtractor(ctx context.Context, cfg config.Config, model string) error {
	c, err := bedrock.NewClient(ctx, bedrock.ClientOptions{Endpoint: cfg.AWS.BedrockEndpoint, Region: cfg.AWS.Region})
	if err != nil {
		return err
	}
	llm, err := bedrock.NewConverser(c, bedrock.ConverserOptions{Model: model})
	if err != nil {
		return err
	}
	b.Facts.Extractor = extract.Bedrock{LLM: llm}
	return nil
}

// NewEmbedder returns the embedder the configuration selects. With "auto"
// it is the offline model (bge-small-en-v1.5, pkg/onnx) when its files are
// in MODEL_DIR, else the hashing embedder, and the fallback is logged as a
// warning that says why and how to fix it; "onnx" fails instead of falling
// back.
func NewEmbedder(ctx context.Context, cfg config.Config) (memory.Embedder, error) {
	return newEmbedder(ctx, cfg, slog.Default())
}

func newEmbedder(ctx context.Context, cfg config.Config, log *slog.Logger) (memory.Embedder, error) {
	switch cfg.Embedder.Kind {
	case "", "auto", "onnx":
		e, err := onnx.Open(cfg.Embedder.ModelDir)
		if err == nil {
			return e, nil
		}
		if cfg.Embedder.Kind == "onnx" {
			return nil, err
		}
		log.Warn("the semantic embedding model is not available: falling back to the hashing embedder, "+
			"which matches words, not meaning; run scripts/models.sh fetch (make run does) or set MODEL_DIR",
			"model_dir", cfg.Embedder.ModelDir, "reason", err.Error())
		return hashing.New(hashing.DefaultDimensions), nil
	case "hash":
		return hashing.New(hashing.DefaultDimensions), nil
	case "bedrock":
		c, err := bedrock.NewClient(ctx, bedrock.ClientOptions{Endpoint: cfg.AWS.BedrockEndpoint, Region: cfg.AWS.Region})
		if err != nil {
			return nil, err
		}
		return bedrock.NewEmbedder(c, bedrock.EmbedderOptions{Model: cfg.Embedder.BedrockModel, Dimensions: cfg.Embedder.BedrockDimensions})
	}
	return nil, errors.New("backend: unknown embedder " + cfg.Embedder.Kind)
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
			b.closers = append([]func() error{c.Close}, b.closers...)
		}
	}
	return b, err
}

// accessQueue is how many searches' accesses may wait to be recorded.
const accessQueue = 4096

// OpenWith opens the backend of cfg with the given embedder (benchmarks
// wrap it to time it).
func OpenWith(ctx context.Context, cfg config.Config, emb memory.Embedder, log *slog.Logger, opts ...service.Option) (*Backend, error) {
	if log == nil {
		log = slog.Default()
	}
	opts = append([]service.Option{service.WithLogger(log)}, opts...)
	if cfg.Service.AccessRecording == "async" {
		opts = append(opts, service.WithAsyncAccess(accessQueue))
	}
	if cfg.Store.Backend != "aws" && (cfg.Index.Kind == "" || cfg.Index.Kind == "embedded") {
		b, err := local.Open(ctx, cfg.DataDir, emb, log, opts...)
		if err != nil {
			return nil, err
		}
		return (&Backend{Service: b.Service, Store: b.Store, Index: b.Index, Embedder: emb, closers: []func() error{b.Close}}).finish(cfg, log), nil
	}
	b := &Backend{Embedder: emb}
	fail := func(err error) (*Backend, error) {
		b.Close()
		return nil, err
	}
	// The store.
	if cfg.Store.Backend == "aws" {
		c, err := dynamodb.NewClient(ctx, dynamodb.ClientOptions{Endpoint: cfg.Store.DynamoDBEndpoint, Region: cfg.AWS.Region})
		if err != nil {
			return fail(err)
		}
		if cfg.Store.DynamoDBCreateTable {
			if err := dynamodb.CreateTable(ctx, c, cfg.Store.DynamoDBTable); err != nil {
				return fail(err)
			}
		}
		b.DynamoDB = dynamodb.New(c, cfg.Store.DynamoDBTable)
		b.Store = b.DynamoDB
	} else {
		s, err := sqlite.Open(filepath.Join(cfg.DataDir, "memories.db"))
		if err != nil {
			return fail(fmt.Errorf("open store: %w", err))
		}
		b.Store = s
		b.closers = append(b.closers, s.Close)
	}
	// The index, filled from the store when it is new or stale.
	fill := false
	switch cfg.Index.Kind {
	case "opensearch":
		oc := opensearch.Config{URLs: cfg.Index.OpenSearchURLs, Alias: cfg.Index.OpenSearchAlias,
			Username: cfg.Index.OpenSearchUser, Password: cfg.Index.OpenSearchSecret, Dimensions: emb.Dimensions()}
		if cfg.Index.OpenSearchSigV4 {
			sig, err := opensearch.NewSigV4Signer(ctx, cfg.AWS.Region, "es")
			if err != nil {
				return fail(err)
			}
			oc.Signer = sig
		}
		ix, err := opensearch.New(oc)
		if err != nil {
			return fail(err)
		}
		if fill, err = ix.Ensure(ctx); err != nil {
			return fail(err)
		}
		if len(cfg.Index.OpenSearchWriterRoles) > 0 {
			if err := ix.MapWriterRoles(ctx, cfg.Index.OpenSearchWriterRoles); err != nil {
				return fail(fmt.Errorf("map the pipeline roles in OpenSearch: %w", err))
			}
		}
		b.OpenSearch, b.Index = ix, ix
	default:
		ix, rebuild, err := bolt.Open(filepath.Join(cfg.DataDir, "index"), emb.Model(), emb.Dimensions())
		if err != nil {
			return fail(err)
		}
		b.closers = append(b.closers, ix.Close)
		b.Index = ix
		docs, err := ix.DocCount()
		if err != nil {
			return fail(err)
		}
		fill = rebuild || docs == 0
		if rebuild {
			if err := ix.Clear(); err != nil {
				return fail(err)
			}
		}
	}
	if fill {
		start := time.Now()
		st, err := service.Rebuild(ctx, b.Store, b.Index, emb)
		if err != nil {
			return fail(err)
		}
		if st.Indexed > 0 {
			log.Info("index filled from the store", "indexed", st.Indexed, "reembedded", st.Reembedded, "ms", time.Since(start).Milliseconds())
		}
	}
	b.Service = service.NewService(b.Store, b.Index, emb, opts...)
	b.closers = append(b.closers, b.Service.Close) // closed first: its queued accesses need the store
	return b.finish(cfg, log), nil
}

// Close releases the adapters.
func (b *Backend) Close() error {
	var errs []error
	for i := len(b.closers) - 1; i >= 0; i-- {
		errs = append(errs, b.closers[i]())
	}
	return errors.Join(errs...)
}

// Setup is the start of every Lambda: the configuration from the
// environment, a JSON logger on standard output and the backend; it exits
// the process with a logged error if any of them fails.
func Setup(ctx context.Context) (*Backend, config.Config, *slog.Logger) {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		log.Error("config", "err", err)
		os.Exit(1)
	}
	log = slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
	b, err := Open(ctx, cfg, log)
	if err != nil {
		log.Error("backend", "err", err)
		os.Exit(1)
	}
	return b, cfg, log
}

// Must exits the process with a logged error when err is not nil.
func Must(log *slog.Logger, what string, err error) {
	if err != nil {
		log.Error(what, "err", err)
		os.Exit(1)
	}
}
