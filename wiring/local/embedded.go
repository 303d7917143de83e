// Package embedded wires the service on the embedded adapters, so that it
// runs with no cloud: the SQLite store, the bleve hybrid index and a local
// embedder, all under one data directory.
package local

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/knowledge"
	"github.com/agentmem/agentmem/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/service"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/agentmem/agentmem/index/bolt"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/store/sqlite"
)

// Backend is an opened embedded backend.
type Backend struct {
	Store    *sqlite.Store
	Index    *bolt.Index
	Embedder memory.Embedder
	Service  *service.Service
	// Knowledge is the Structured RAG layer over the store's term index.
	Knowledge *knowledge.Service
}

// Open opens the backend in dataDir with embedder. When the index is
// missing, was built by another embedding model, or does not hold every
// stored memory (for example after a crash between the two writes), it is
// rebuilt from the store before Open returns.
func Open(ctx context.Context, dataDir string, embedder memory.Embedder, log *slog.Logger, opts ...service.Option) (*Backend, error) {
	if log == nil {
		log = slog.Default()
	}
	store, err := sqlite.Open(filepath.Join(dataDir, "memories.db"))
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	ix, rebuild, err := bolt.Open(filepath.Join(dataDir, "index"), embedder.Model(), embedder.Dimensions())
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("open index: %w", err)
	}
	b := &Backend{Store: store, Index: ix, Embedder: embedder}
	total, err := store.Total(ctx)
	if err != nil {
		b.Close()
		return nil, err
	}
	docs, err := ix.DocCount()
	if err != nil {
		b.Close()
		return nil, err
	}
	if rebuild || int(docs) != total {
		start := time.Now()
		log.Info("rebuilding the index from the store", "memories", total, "indexed", docs, "model", embedder.Model())
		if err := ix.Clear(); err != nil {
			b.Close()
			return nil, err
		}
		st, err := service.Rebuild(ctx, store, ix, embedder)
		if err != nil {
			b.Close()
			return nil, err
		}
		log.Info("index rebuilt", "indexed", st.Indexed, "reembedded", st.Reembedded, "ms", time.Since(start).Milliseconds())
	}
	// Structured RAG: knowledge extracted offline as memories are written,
	// kept in the SQLite term index, answered as the "knowledge" list.
	k := &knowledge.Service{Store: store, Terms: store, Extractor: offline.New(offline.Options{}), Log: log}
	b.Knowledge = k
	base := []service.Option{service.WithLogger(log), service.WithRetriever(k.Retriever()), service.WithForgetter(k), service.WithDeriver(k)}
	b.Service = service.NewService(store, ix, embedder, append(base, opts...)...)
	return b, nil
}

// Close closes the index and the store.
func (b *Backend) Close() error {
	var errs []error
	if b.Service != nil {
		errs = append(errs, b.Service.Close()) // first: its queued accesses need the store
	}
	return errors.Join(append(errs, b.Index.Close(), b.Store.Close())...)
}
