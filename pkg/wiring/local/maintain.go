package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentmem/agentmem/internal/retry"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
)

// CheckStats reports what CheckIndex found and repaired.
type CheckStats struct {
	Checked int // memories of the store compared
	// Read is how many of them were read whole: those whose version the
	// index did not record as its entry's (all of them when the store
	// cannot list versions); the others matched by version alone.
	Read    int
	Missing int // stored memories the index did not hold: indexed
	Stale   int // indexed from other content or attributes: re-indexed
	Orphans int // index entries the store does not hold (or holds staged): removed
	// OtherModel counts memories whose stored vector is not of the
	// embedder's model: the Reembedder's work.
	OtherModel int
	Took       time.Duration
}

// checkBatch is how many memories CheckIndex reads, repairs or restamps
// at once.
const checkBatch = 256

// CheckIndex compares the index with the store memory by memory: a memory
// missing from the index, or indexed from older content, is (re)indexed
// with the vector the store holds, and an entry the store does not hold,
// or holds staged, is removed. When the store holds vectors of another
// model than emb's, the index is marked as re-embedding (semantic search
// off, see Reembedder) before they are written. It neither embeds nor
// blocks on the embedder.
//
// An entry is current when it was made from the memory's present version
// (the index records the version beside the stamp of what it indexed).
// When the store lists versions (memory.VersionScanner) only the memories
// whose versions differ are read whole and compared by stamp (bolt.Stamp:
// attributes, keyword text, model); the others cost a row of the version
// scan, not a decoded memory and vector. An entry found current by stamp
// gets its version recorded, so the next check reads it no more.
func CheckIndex(ctx context.Context, store memory.Store, ix *bolt.Index, emb memory.Embedder, log *slog.Logger) (CheckStats, error) {
	start := time.Now()
	var st CheckStats
	type key struct{ org, id string }
	type entry struct {
		stamp   uint64
		version int64
	}
	entries := map[key]entry{}
	if err := ix.Stamps(func(org, id string, s uint64, v int64) error {
		entries[key{org, id}] = entry{s, v}
		return nil
	}); err != nil {
		return st, fmt.Errorf("check index: read stamps: %w", err)
	}
	var repair, restamp []*memory.Memory
	flush := func() error {
		if len(repair) > 0 {
			if err := ix.Upsert(ctx, repair); err != nil {
				return fmt.Errorf("check index: repair: %w", err)
			}
			repair = repair[:0]
		}
		if len(restamp) > 0 {
			if err := ix.Restamp(restamp); err != nil {
				return fmt.Errorf("check index: record versions: %w", err)
			}
			restamp = restamp[:0]
		}
		return nil
	}
	// model counts a memory of another model than emb's.
	model := func(name string, dims int) error {
		if name == emb.Model() && dims == emb.Dimensions() {
			return nil
		}
		st.OtherModel++
		if !ix.Reembedding() {
			return ix.StartReembedding(name)
		}
		return nil
	}
	// compare checks a memory read whole against its entry's stamp.
	compare := func(m *memory.Memory) error {
		st.Read++
		k := key{m.OrgID, m.ID}
		e, ok := entries[k]
		delete(entries, k)
		switch {
		case !ok:
			st.Missing++
			repair = append(repair, m)
		case e.stamp != bolt.Stamp(m):
			st.Stale++
			repair = append(repair, m)
		case e.version != m.Version:
			restamp = append(restamp, m)
		default:
			return nil
		}
		if len(repair) >= checkBatch || len(restamp) >= checkBatch {
			return flush()
		}
		return nil
	}
	var err error
	if vs, ok := store.(memory.VersionScanner); ok {
		var org string
		var ids []string
		read := func() error {
			if len(ids) == 0 {
				return nil
			}
			got, err := store.GetMany(ctx, org, ids)
			if err != nil {
				return err
			}
			for _, id := range ids {
				// Gone meanwhile: its entry stays, and goes as an orphan.
				if m := got[id]; m != nil && !m.Pending {
					if err := compare(m); err != nil {
						return err
					}
				}
			}
			ids = ids[:0]
			return nil
		}
		err = vs.ScanVersions(ctx, func(v memory.MemoryVersion) error {
			if v.Pending {
				return nil // staged: indexed when its document commits
			}
			st.Checked++
			if err := model(v.EmbeddingModel, v.Dimensions); err != nil {
				return err
			}
			k := key{v.OrgID, v.ID}
			if e, ok := entries[k]; ok && e.version == v.Version && e.stamp != 0 {
				delete(entries, k)
				return nil
			}
			if v.OrgID != org || len(ids) == checkBatch {
				if err := read(); err != nil {
					return err
				}
				org = v.OrgID
			}
			ids = append(ids, v.ID)
			return nil
		})
		if err == nil {
			err = read()
		}
	} else {
		err = store.Scan(ctx, func(m *memory.Memory) error {
			if m.Pending {
				return nil // staged: indexed when its document commits
			}
			st.Checked++
			if err := model(m.EmbeddingModel, len(m.Embedding)); err != nil {
				return err
			}
			return compare(m)
		})
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		return st, fmt.Errorf("check index: %w", err)
	}
	byOrg := map[string][]string{}
	for k := range entries {
		byOrg[k.org] = append(byOrg[k.org], k.id)
		st.Orphans++
	}
	for org, ids := range byOrg {
		if err := ix.Delete(ctx, org, ids); err != nil {
			return st, fmt.Errorf("check index: remove orphans: %w", err)
		}
	}
	st.Took = time.Since(start)
	level := slog.LevelInfo
	if st.Missing+st.Stale+st.Orphans > 0 {
		level = slog.LevelWarn
	}
	log.Log(ctx, level, "index checked against the store", "checked", st.Checked, "read", st.Read, "missing", st.Missing, "stale", st.Stale,
		"orphans", st.Orphans, "other_model", st.OtherModel, "ms", st.Took.Milliseconds())
	return st, nil
}

// ReembedStatus is the progress of a Reembedder.
type ReembedStatus struct {
	// State is "idle" (nothing to do), "running", "done" or "failed".
	State string `json:"state"`
	Model string `json:"model"`
	// Done of Total memories re-embedded so far; Total is the count at
	// start and grows when a pass finds more (memories patched meanwhile).
	Done  int64  `json:"done"`
	Total int64  `json:"total"`
	Error string `json:"error,omitempty"`
}

// Reembedder re-embeds, in the background, the memories the store holds
// with vectors of another model than Embedder's, after a model change:
// each batch is embedded, saved to the store (conditionally on its
// version: a memory changed meanwhile is taken up again by the next pass)
// and upserted into the index. The store's embedding model of each memory
// is the progress mark, so a restart resumes where it stopped. When a pass
// finds nothing left, the index turns semantic search back on.
type Reembedder struct {
	Store    memory.Store
	Index    *bolt.Index
	Embedder memory.Embedder
	Log      *slog.Logger
	// Sentences gives messages the sentence view (memory.EmbedMemories),
	// as the service does.
	Sentences bool
	// Batch is how many memories are embedded at once (default 64).
	Batch int
	// Every is how often progress is logged (default 5 s).
	Every time.Duration

	state       atomic.Value // string
	done, total atomic.Int64
	errMsg      atomic.Value // string
	cancel      context.CancelFunc
	wg          sync.WaitGroup
}

// Start runs the re-embedding in the background; total is how many
// memories are known to need it (CheckStats.OtherModel).
func (r *Reembedder) Start(total int) {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.total.Store(int64(total))
	r.state.Store("running")
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.run(ctx)
	}()
}

// Stop stops the background work and waits for it; it may be resumed by a
// later Start, in this process or the next.
func (r *Reembedder) Stop() error {
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
	return nil
}

// Wait waits until the background work ends.
func (r *Reembedder) Wait() { r.wg.Wait() }

// Status returns the progress.
func (r *Reembedder) Status() ReembedStatus {
	st := ReembedStatus{State: "idle", Model: r.Embedder.Model(), Done: r.done.Load(), Total: r.total.Load()}
	if s, ok := r.state.Load().(string); ok {
		st.State = s
	}
	if e, ok := r.errMsg.Load().(string); ok {
		st.Error = e
	}
	return st
}

func (r *Reembedder) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

func (r *Reembedder) run(ctx context.Context) {
	start := time.Now()
	r.log().Info("re-embedding started in the background: keyword search works, semantic search is off until it ends",
		"model", r.Embedder.Model(), "memories", r.total.Load())
	for attempt := 1; ; {
		left, err := r.pass(ctx)
		switch {
		case ctx.Err() != nil:
			r.state.Store("stopped")
			r.log().Info("re-embedding stopped; it resumes at the next start", "done", r.done.Load(), "total", r.total.Load())
			return
		case err != nil:
			r.errMsg.Store(err.Error())
			r.log().Error("re-embedding pass failed; retrying", "err", err, "attempt", attempt)
			if attempt == 8 {
				r.state.Store("failed")
				return
			}
			_ = retry.Wait(ctx, attempt, time.Second, 30*time.Second) // a stop ends it: see above
			attempt++
			continue
		case left > 0:
			continue // some changed meanwhile: another pass
		}
		if err := r.Index.FinishReembedding(); err != nil {
			r.errMsg.Store(err.Error())
			r.state.Store("failed")
			r.log().Error("re-embedding: turning semantic search back on", "err", err)
			return
		}
		r.errMsg.Store("")
		r.state.Store("done")
		r.log().Info("re-embedding done: semantic search is back", "model", r.Embedder.Model(),
			"reembedded", r.done.Load(), "ms", time.Since(start).Milliseconds())
		return
	}
}

// pass re-embeds every memory of another model once; it returns how many
// it found (0: nothing was left).
func (r *Reembedder) pass(ctx context.Context) (int, error) {
	size := r.Batch
	if size <= 0 {
		size = 64
	}
	every := r.Every
	if every <= 0 {
		every = 5 * time.Second
	}
	model, dims := r.Embedder.Model(), r.Embedder.Dimensions()
	found := 0
	last := time.Now()
	var batch []*memory.Memory
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := memory.EmbedMemories(ctx, r.Embedder, batch, r.Sentences); err != nil {
			return err
		}
		var saved []*memory.Memory
		for _, m := range batch {
			err := r.Store.Update(ctx, m)
			if memory.IsNotFound(err) || memory.IsConflict(err) {
				continue // deleted, or changed meanwhile: the next pass sees it
			}
			if err != nil {
				return fmt.Errorf("save the vector of %s: %w", m.ID, err)
			}
			if !m.Pending {
				saved = append(saved, m)
			}
			r.done.Add(1)
		}
		if err := r.Index.Upsert(ctx, saved); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		batch = batch[:0]
		if time.Since(last) >= every {
			last = time.Now()
			r.log().Info("re-embedding", "done", r.done.Load(), "total", r.total.Load(), "model", model)
		}
		return nil
	}
	err := r.Store.Scan(ctx, func(m *memory.Memory) error {
		if m.EmbeddingModel == model && len(m.Embedding) == dims {
			return nil
		}
		found++
		if d := r.done.Load() + int64(len(batch)) + 1; d > r.total.Load() {
			r.total.Store(d)
		}
		batch = append(batch, m)
		if len(batch) == size {
			return flush()
		}
		return ctx.Err()
	})
	if err == nil {
		err = flush()
	}
	if errors.Is(err, context.Canceled) {
		return found, nil
	}
	return found, err
}
