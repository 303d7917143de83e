package opensearch

import (
	"context"
	"fmt"
	"github.com/agentmem/agentmem/pkg/service"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// ReindexStats reports an online reindex.
type ReindexStats struct {
	NewIndex   string
	OldIndices []string
	service.RebuildStats
	CaughtUp int // memories written during the rebuild and copied after the swap
	Took     time.Duration
}

// Reindex rebuilds the index from the store, the source of truth, into a new
// index version with the current mapping and dimensions, then points the
// alias at it in one atomic step and deletes the old versions. Searches keep
// answering from the old version until the swap. Memories written during the
// rebuild are copied again after the swap (a catch-up pass over those updated
// since the rebuild began); a memory deleted during the rebuild may linger in
// the new index, which is harmless because search results are read back from
// the store, and is removed by the next reindex.
func (ix *Index) Reindex(ctx context.Context, store memory.Store, embedder memory.Embedder, sentences bool) (ReindexStats, error) {
	start := time.Now()
	st := ReindexStats{}
	if embedder.Dimensions() != ix.cfg.Dimensions {
		return st, fmt.Errorf("opensearch: reindex: embedder has %d dimensions, config %d", embedder.Dimensions(), ix.cfg.Dimensions)
	}
	old, err := ix.aliasIndices(ctx)
	if err != nil {
		return st, err
	}
	st.OldIndices = old
	st.NewIndex, err = ix.CreateVersion(ctx)
	if err != nil {
		return st, err
	}
	building := *ix
	building.target = st.NewIndex
	building.cfg.RefreshOnWrite = false
	since := start.Add(-time.Second).UnixMilli() // margin for clock skew between writers
	st.RebuildStats, err = service.Rebuild(ctx, store, &building, embedder, sentences)
	if err != nil {
		return st, fmt.Errorf("opensearch: reindex into %s (alias unchanged): %w", st.NewIndex, err)
	}
	if err := building.Refresh(ctx); err != nil {
		return st, err
	}
	if err := ix.swap(ctx, st.NewIndex, old); err != nil {
		return st, fmt.Errorf("opensearch: swap alias to %s: %w", st.NewIndex, err)
	}
	ix.exact.Store(true) // the new version has the current schema
	caught, err := service.RebuildSince(ctx, store, ix, embedder, sentences, since)
	if err != nil {
		return st, fmt.Errorf("opensearch: catch-up after the swap: %w", err)
	}
	st.CaughtUp = caught.Indexed
	for _, name := range old {
		if name == st.NewIndex {
			continue
		}
		if err := ix.do(ctx, "DELETE", "/"+name, nil, nil); err != nil {
			return st, fmt.Errorf("opensearch: delete old index %s: %w", name, err)
		}
	}
	st.Took = time.Since(start)
	return st, nil
}
