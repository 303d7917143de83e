// Package local is the composition root of the embedded deployment: the
// service on the SQLite store, the bolt index and a local embedder (the
// offline model or the hashing one), all under one data directory, with no
// cloud. memoryd's root (wiring/server) opens its pieces; the tests of the
// service, the pipelines and the transports open it whole.
package local

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/embed/onnx"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/registry"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/workstream"
)

// Backend is an opened embedded backend.
type Backend struct {
	Store    *sqlite.Store
	Index    *bolt.Index
	Embedder memory.Embedder
	Service  *service.Service
	// Caps are what the store keeps beyond memories (see Capabilities).
	Caps wiring.Capabilities
	// Knowledge is the knowledge API's use case (offline translation).
	Knowledge *knowledge.Explorer
	// Registry keeps the orgs' entities, worlds and rooms; the service
	// resolves whom reads serve from it.
	Registry *registry.Registry
	// Workstreams keeps the orgs' memory blocks (offline compaction); the
	// service's contexts carry them.
	Workstreams *workstream.Service
}

// Open opens the backend in dataDir with embedder: the store, and the index
// refilled from it when needed (see OpenIndex). opts follow the logger.
func Open(ctx context.Context, dataDir string, embedder memory.Embedder, log *slog.Logger, opts ...service.Option) (*Backend, error) {
	if log == nil {
		log = slog.Default()
	}
	store, err := OpenStore(dataDir)
	if err != nil {
		return nil, err
	}
	ix, stale, err := OpenIndex(ctx, dataDir, store, embedder, log)
	if err != nil {
		store.Close()
		return nil, err
	}
	if stale > 0 {
		// Tests and tools open the backend whole: re-embed before answering.
		r := &Reembedder{Store: store, Index: ix, Embedder: embedder, Log: log}
		r.Start(stale)
		r.Wait()
		if st := r.Status(); st.State != "done" {
			ix.Close()
			store.Close()
			return nil, fmt.Errorf("re-embed: %s %s", st.State, st.Error)
		}
	}
	k := wiring.NewKnowledge(store, embedder, log)
	reg := registry.New(store)
	if k != nil {
		k.Entities = reg                             // speakers and mentions resolved by the entity registry
		k.Settings = service.NewSettingsStore(store) // each org's provided keys
	}
	var svc *service.Service // told of the workstreams' writes once built
	ws := workstream.New(store, workstream.WithLogger(log), workstream.WithOnWrite(func(org string) { svc.Invalidate(org) }))
	base := append([]service.Option{service.WithLogger(log), service.WithRoomDirectory(reg), service.WithBlockSource(ws)}, wiring.KnowledgeServiceOptions(k, nil)...)
	svc = service.NewService(store, ix, embedder, append(base, opts...)...)
	return &Backend{Store: store, Index: ix, Embedder: embedder, Service: svc, Caps: Capabilities(store), Registry: reg, Workstreams: ws,
		Knowledge: wiring.ShareRelated(wiring.KnowledgeExplorer(store, nil, log), k)}, nil
}

// Capabilities declares what the SQLite store keeps beyond memories:
// relations, records and the list of its orgs.
func Capabilities(s *sqlite.Store) wiring.Capabilities {
	return wiring.Capabilities{Store: "sqlite", Relations: s, Records: s, Orgs: s}
}

// Close closes the service, the index and the store.
func (b *Backend) Close() error {
	c := wiring.Closers{b.Store.Close, b.Index.Close}
	if b.Service != nil {
		c.Add(b.Service.Close) // first: its queued accesses need the store
	}
	return c.Close()
}

// StoreFile is the SQLite store's file in a data directory.
const StoreFile = "memories.db"

// OpenStore opens the SQLite store of dataDir (StoreFile).
func OpenStore(dataDir string) (*sqlite.Store, error) {
	s, err := sqlite.Open(filepath.Join(dataDir, StoreFile))
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return s, nil
}

// RepageStore rewrites the SQLite store of dataDir with the page size of
// a new database (sqlite.Repage). No process may have it open.
func RepageStore(ctx context.Context, dataDir string) (sqlite.RepageResult, error) {
	return sqlite.Repage(ctx, filepath.Join(dataDir, StoreFile))
}

// OpenIndex opens the bolt index of dataDir (index/) for emb's model and
// checks it against the store, memory by memory (CheckIndex): whatever is
// missing or stale (a new directory, a lost disk, a crash between the
// store and index writes) is indexed again, with the vectors the store
// holds. It never embeds: after a model change the index keeps serving
// keyword search, and the memories of the old model are left to a
// Reembedder (the returned count says how many; 0: none).
//
// ann, when given, replaces the index's default approximate vector search
// configuration (bolt.DefaultANN); its zero fields keep the defaults.
func OpenIndex(ctx context.Context, dataDir string, store memory.Store, emb memory.Embedder, log *slog.Logger, ann ...bolt.ANNConfig) (*bolt.Index, int, error) {
	ix, rebuild, err := bolt.Open(filepath.Join(dataDir, "index"), emb.Model(), emb.Dimensions())
	if err != nil {
		return nil, 0, fmt.Errorf("open index: %w", err)
	}
	if len(ann) > 0 && ann[0] != (bolt.ANNConfig{}) {
		ix.SetANN(ann[0])
	}
	if rebuild {
		log.Info("rebuilding the index from the store: it was written in another layout")
	}
	st, err := CheckIndex(ctx, store, ix, emb, log)
	if err != nil {
		ix.Close()
		return nil, 0, err
	}
	if st.OtherModel == 0 && ix.Reembedding() {
		// Every vector is the model's already (or there are none).
		if err := ix.FinishReembedding(); err != nil {
			ix.Close()
			return nil, 0, err
		}
	}
	return ix, st.OtherModel, nil
}

// NewEmbedder returns the local embedder cfg selects. With auto it is the
// offline model (bge-small-en-v1.5, embed/onnx) when its files are in
// cfg.ModelDir, else the hashing embedder, and the fallback is logged as a
// warning that says why and how to fix it; onnx fails instead of falling
// back. Other kinds are not local: EINVALID. The model is loaded in the
// background when its files are there (see lazyONNX): a failure to load
// them then shows on the first embedding, and in the log, rather than as a
// fallback.
func NewEmbedder(cfg config.Embedder, log *slog.Logger) (memory.Embedder, error) {
	switch cfg.Kind {
	case config.EmbedderAuto, config.EmbedderONNX, "":
		if cgoEnabled && len(onnx.Missing(cfg.ModelDir)) == 0 {
			return openLazy(cfg.ModelDir, log), nil
		}
		e, err := onnx.Open(cfg.ModelDir)
		if err == nil {
			return e, nil
		}
		if cfg.Kind == config.EmbedderONNX {
			return nil, err
		}
		log.Warn("the semantic embedding model is not available: falling back to the hashing embedder, "+
			"which matches words, not meaning; run scripts/models.sh fetch (make run does) or set MODEL_DIR",
			"model_dir", cfg.ModelDir, "reason", err.Error())
		return hashing.New(hashing.DefaultDimensions), nil
	case config.EmbedderHash:
		return hashing.New(hashing.DefaultDimensions), nil
	}
	return nil, memory.Errorf(memory.EINVALID, "EMBEDDER: %q is not a local embedder (auto, onnx or hash)", cfg.Kind)
}
