package opensearch

import (
	"context"
	"fmt"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// ReindexStats reports an online reindex.
type ReindexStats struct {
	NewIndex   string
	OldIndices []string
	Indexed    int // memories written to the new version
	Reembedded int // memories whose embedding was recomputed on the way
	CaughtUp   int // memories written during the rebuild and copied after the swap
	Took       time.Duration
}

// A Filler writes the memories of the store, the source of truth, into an
// index: all of them when since is 0, else those updated at or after since
// (Unix ms). It re-embeds the memories its embedder did not make and
// reports how many it indexed and re-embedded. service.Rebuilder is the
// one the binaries use; the rebuild is a use case, so this adapter takes
// it rather than calling it.
type Filler interface {
	// Dimensions is the length of the vectors it writes.
	Dimensions() int
	Fill(ctx context.Context, into memory.Index, since int64) (indexed, reembedded int, err error)
}

// Reindex rebuilds the index from the store, the source of truth, into a new
// index version with the current mapping and dimensions, then points the
// alias at it in one atomic step and deletes the old versions. Searches keep
// answering from the old version until the swap. Memories written during the
// rebuild are copied again after the swap (a catch-up pass over those updated
// since the rebuild began); a memory deleted during the rebuild may linger in
// the new index, which is harmless because search results are read back from
// the store, and is removed by the next reindex.
func (ix *Index) Reindex(ctx context.Context, fill Filler) (ReindexStats, error) {
	start := time.Now()
	st := ReindexStats{}
	if fill.Dimensions() != ix.cfg.Dimensions {
		return st, fmt.Errorf("opensearch: reindex: embedder has %d dimensions, config %d", fill.Dimensions(), ix.cfg.Dimensions)
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
	st.Indexed, st.Reembedded, err = fill.Fill(ctx, &building, 0)
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
	st.CaughtUp, _, err = fill.Fill(ctx, ix, since)
	if err != nil {
		return st, fmt.Errorf("opensearch: catch-up after the swap: %w", err)
	}
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
