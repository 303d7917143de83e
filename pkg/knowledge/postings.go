package knowledge

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Bounds of what one knowledge-list query reads.
const (
	// MaxTermDF is the most refs a query term may be indexed under (about
	// as many memories) and still rank the knowledge list. A term carried
	// by more than this
	// cannot single out the handful of memories a search returns, at any
	// corpus size; the keyword and semantic lists rank by it already. The
	// bound keeps the list's cost independent of the org's size: at most
	// MaxTermDF postings per query term are read (a few milliseconds at
	// 100,000 memories, where a common word has tens of thousands).
	MaxTermDF = 256
	// countTTL is how long N, the number of memories a filter selects,
	// is reused for the BM25 idf when it is at least countCacheMin: a
	// statistic that a few writes barely move in a large org, where
	// counting costs a scan of it. Smaller counts are cheap and exact.
	countTTL      = 30 * time.Second
	countCacheMin = 5000
	// maxCounts bounds the cached counts (one per distinct filter).
	maxCounts = 4096
)

// termPostings returns the postings of the query terms indexed at most
// MaxTermDF times, and N, the number of memories f selects. The
// term index's counters (memory.TermCounter, which count refs, at least the
// memories) drop a common term before its postings are read; without them
// a term is dropped when its postings fill a read of MaxTermDF+1.
func (k *Service) termPostings(ctx context.Context, f memory.Filter, terms []string) ([]memory.TermPosting, int, error) {
	n, err := k.counts.count(ctx, k.Store, f)
	if err != nil {
		return nil, 0, fmt.Errorf("knowledge: count: %w", err)
	}
	limit := MaxTermDF + 1
	if tc, ok := k.Terms.(memory.TermCounter); ok {
		df, answered, err := tc.TermCounts(ctx, f, terms)
		if err != nil {
			return nil, 0, fmt.Errorf("knowledge: term counts: %w", err)
		}
		if answered {
			kept := terms[:0:0]
			for _, t := range terms {
				if d := df[t]; d > 0 && d <= MaxTermDF {
					kept = append(kept, t)
				}
			}
			terms, limit = kept, MaxTermDF
		}
	}
	if len(terms) == 0 {
		return nil, n, nil
	}
	posts, err := k.Terms.LookupTerms(ctx, memory.TermLookup{Filter: f, Terms: terms, Limit: limit, KeysOnly: true})
	if err != nil {
		return nil, 0, fmt.Errorf("knowledge: lookup: %w", err)
	}
	// Drop the terms that filled the read: indexed more than MaxTermDF
	// times.
	per := map[string]int{}
	for _, p := range posts {
		per[p.Term]++
	}
	out := posts[:0]
	for _, p := range posts {
		if per[p.Term] <= MaxTermDF {
			out = append(out, p)
		}
	}
	return out, n, nil
}

// countCache keeps recent Store.Count answers per filter for countTTL.
type countCache struct {
	mu sync.Mutex
	m  map[string]countEntry
}

type countEntry struct {
	n  int
	at time.Time
}

func (c *countCache) count(ctx context.Context, store memory.Store, f memory.Filter) (int, error) {
	key := fmt.Sprintf("%#v", f)
	now := time.Now()
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && now.Sub(e.at) < countTTL {
		return e.n, nil
	}
	n, err := store.Count(ctx, f)
	if err != nil {
		return 0, err
	}
	if n < countCacheMin {
		return n, nil
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCounts {
		c.m = map[string]countEntry{}
	}
	c.m[key] = countEntry{n, now}
	c.mu.Unlock()
	return n, nil
}
