// Package backend builds the service from the configuration: the store, the
// index and the embedder it names. Every entry point (local server, Lambda,
// CLI, benchmarks) wires through it.
package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/agentmem/agentmem/pkg/config"
	"github.com/agentmem/agentmem/pkg/embedded"
	"github.com/agentmem/agentmem/pkg/hashembed"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/opensearch"
	"github.com/agentmem/agentmem/pkg/sqlite"
)

// Backend is an opened service with its adapters.
type Backend struct {
	Service  *memory.Service
	Store    memory.Store
	Index    memory.Index
	Embedder memory.Embedder
	// OpenSearch is the index when INDEX=opensearch (for reindexing).
	OpenSearch *opensearch.Index
	close      func() error
}

// Embedder returns the embedder the configuration selects.
func Embedder(cfg config.Config) memory.Embedder {
	return hashembed.New(hashembed.DefaultDimensions)
}

// Open opens the backend of cfg with the embedder it selects.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger, opts ...memory.Option) (*Backend, error) {
	return OpenWith(ctx, cfg, Embedder(cfg), log, opts...)
}

// OpenWith opens the backend of cfg with the given embedder (benchmarks
// wrap it to time it).
func OpenWith(ctx context.Context, cfg config.Config, emb memory.Embedder, log *slog.Logger, opts ...memory.Option) (*Backend, error) {
	if log == nil {
		log = slog.Default()
	}
	opts = append([]memory.Option{memory.WithLogger(log)}, opts...)
	switch cfg.Index {
	case "", "embedded":
		b, err := embedded.Open(ctx, cfg.DataDir, emb, log, opts...)
		if err != nil {
			return nil, err
		}
		return &Backend{Service: b.Service, Store: b.Store, Index: b.Index, Embedder: emb, close: b.Close}, nil
	case "opensearch":
		store, err := sqlite.Open(filepath.Join(cfg.DataDir, "memories.db"))
		if err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
		ix, err := opensearch.New(opensearch.Config{URLs: cfg.OpenSearchURLs, Alias: cfg.OpenSearchAlias,
			Username: cfg.OpenSearchUser, Password: cfg.OpenSearchSecret, Dimensions: emb.Dimensions()})
		if err != nil {
			store.Close()
			return nil, err
		}
		created, err := ix.Ensure(ctx)
		if err != nil {
			store.Close()
			return nil, err
		}
		if created {
			// A new alias over an existing store: fill it from the store.
			start := time.Now()
			st, err := memory.Rebuild(ctx, store, ix, emb)
			if err != nil {
				store.Close()
				return nil, err
			}
			if st.Indexed > 0 {
				log.Info("opensearch index filled from the store", "indexed", st.Indexed, "ms", time.Since(start).Milliseconds())
			}
		}
		svc := memory.NewService(store, ix, emb, opts...)
		return &Backend{Service: svc, Store: store, Index: ix, Embedder: emb, OpenSearch: ix, close: store.Close}, nil
	}
	return nil, errors.New("backend: unknown index " + cfg.Index)
}

// Close releases the adapters.
func (b *Backend) Close() error { return b.close() }
