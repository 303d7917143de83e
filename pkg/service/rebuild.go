package service

import (
	"context"
	"fmt"

	"github.com/agentmem/agentmem/pkg/memory"
)

// RebuildStats reports what Rebuild did.
type RebuildStats struct {
	Indexed    int // memories written to the index
	Reembedded int // memories whose embedding was recomputed
}

// Rebuild writes every memory of the store into index, in batches. Memories
// embedded by another model than embedder's (or not at all) are re-embedded
// first and their new vectors saved back to the store, so the next rebuild
// is a plain copy. It is how a mapping or model change is applied: the store
// is the source of truth and the index is derived from it.
//
// sentences gives the re-embedded messages the sentence view
// (memory.EmbedMemories), as the service's WithSentenceView does.
func Rebuild(ctx context.Context, store memory.Store, index memory.Index, embedder memory.Embedder, sentences bool) (RebuildStats, error) {
	return RebuildSince(ctx, store, index, embedder, sentences, 0)
}

// Rebuilder is Rebuild bound to a store and an embedder, for an index
// adapter's online reindex (opensearch.Filler).
type Rebuilder struct {
	Store     memory.Store
	Embedder  memory.Embedder
	Sentences bool // the sentence view, as Rebuild's sentences
}

// Dimensions is the embedder's.
func (r Rebuilder) Dimensions() int { return r.Embedder.Dimensions() }

// Fill runs RebuildSince into index.
func (r Rebuilder) Fill(ctx context.Context, index memory.Index, since int64) (indexed, reembedded int, err error) {
	st, err := RebuildSince(ctx, r.Store, index, r.Embedder, r.Sentences, since)
	return st.Indexed, st.Reembedded, err
}

// RebuildSince is Rebuild restricted to memories updated at or after since
// (ms): the catch-up pass of an online reindex.
func RebuildSince(ctx context.Context, store memory.Store, index memory.Index, embedder memory.Embedder, sentences bool, since int64) (RebuildStats, error) {
	const batch = 256
	var st RebuildStats
	var pending []*memory.Memory
	flush := func() error {
		var stale []*memory.Memory
		for _, m := range pending {
			if m.EmbeddingModel != embedder.Model() || len(m.Embedding) != embedder.Dimensions() {
				stale = append(stale, m)
			}
		}
		if len(stale) > 0 {
			if err := memory.EmbedMemories(ctx, embedder, stale, sentences); err != nil {
				return fmt.Errorf("rebuild: %w", err)
			}
			for _, m := range stale {
				if err := store.Update(ctx, m); err != nil && !memory.IsNotFound(err) && !memory.IsConflict(err) {
					return fmt.Errorf("rebuild: save embedding of %s: %w", m.ID, err)
				}
			}
			st.Reembedded += len(stale)
		}
		if err := index.Upsert(ctx, pending); err != nil {
			return fmt.Errorf("rebuild: index: %w", err)
		}
		st.Indexed += len(pending)
		pending = pending[:0]
		return nil
	}
	err := store.Scan(ctx, func(m *memory.Memory) error {
		if m.UpdatedAt < since || m.Pending {
			return nil // staged memories are indexed when their document commits
		}
		pending = append(pending, m)
		if len(pending) == batch {
			return flush()
		}
		return nil
	})
	if err == nil && len(pending) > 0 {
		err = flush()
	}
	return st, err
}
