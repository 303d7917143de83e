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
	// is reused as it is for the BM25 idf when it is at least
	// countCacheMin: a statistic that a few writes barely move in a large
	// org, where counting costs a scan of it. Past it, N is still
	// answered while it is counted again in the background (countCache).
	// Smaller counts are exact, counted each time unless that was slow.
	countTTL      = 30 * time.Second
	countCacheMin = 5000
	// countCostShare stretches countTTL for a count that costs much: an
	// answer is reused for countCostShare times what counting took, when
	// that is longer (a count of 2 s at a million: 200 s), so that
	// recounting a filter takes at most 1% of a core.
	countCostShare = 100
	// countRefreshTimeout bounds a background count (countCache).
	countRefreshTimeout = time.Minute
	// firstCountWait is how long a search waits for a filter's first
	// count before it answers with the org's total (countCache).
	firstCountWait = 50 * time.Millisecond
	// estimateMin is the smallest org whose total stands in for a first
	// count that outlasts firstCountWait: a smaller org's count is
	// cheap, and waited for, so that its rankings never depend on how
	// busy the machine is.
	estimateMin = 50_000
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

// countCache keeps recent Store.Count answers per filter. An answer
// younger than its lifetime (countTTL, or countCostShare times what
// the count took) is reused as it is. An older one is still
// answered at once, while one count per filter runs in the background to
// replace it: counting a large org reads every memory it selects (2 s at
// a million in SQLite), and a search must not wait for that every
// countTTL. A filter's first count runs in the background too: the search
// waits for it up to firstCountWait, then, when the store keeps usage
// counters (memory.UsageCounter) and the org holds estimateMin memories
// or more, answers with the org's total, an upper bound of N, until the
// count is in; the searches after it get that total at once. Small
// counts (below countCacheMin) are counted each time, unless counting
// them took firstCountWait or more.
type countCache struct {
	bg      sync.WaitGroup // counts running in the background
	mu      sync.Mutex
	m       map[string]countEntry
	flights map[string]*countFlight // first counts under way
	// now and refreshed are for the tests: the clock, and a hook called
	// after each count run in the background.
	now       func() time.Time
	refreshed func()
}

type countEntry struct {
	n          int
	at         time.Time
	cost       time.Duration // what the count took
	refreshing bool
}

// lifetime is how long e is reused before it is counted again.
func (e countEntry) lifetime() time.Duration {
	return max(countTTL, countCostShare*e.cost)
}

// countFlight is a first count under way; done closes when n and err
// are set. estimate, once a search has answered with the org's total
// (under countCache.mu), answers the searches after it at once.
type countFlight struct {
	done     chan struct{}
	n        int
	err      error
	estimate int
}

func (c *countCache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

func (c *countCache) count(ctx context.Context, store memory.Store, f memory.Filter) (int, error) {
	key := fmt.Sprintf("%#v", f)
	now := c.clock()
	c.mu.Lock()
	e, ok := c.m[key]
	if ok {
		if now.Sub(e.at) >= e.lifetime() && !e.refreshing {
			e.refreshing = true
			c.m[key] = e
			c.bg.Go(func() { c.refresh(context.WithoutCancel(ctx), store, f, key) })
		}
		c.mu.Unlock()
		return e.n, nil
	}
	fl := c.flights[key]
	if fl != nil && fl.estimate > 0 {
		c.mu.Unlock()
		return fl.estimate, nil
	}
	if fl == nil {
		fl = &countFlight{done: make(chan struct{})}
		if c.flights == nil {
			c.flights = map[string]*countFlight{}
		}
		c.flights[key] = fl
		c.bg.Go(func() { c.first(context.WithoutCancel(ctx), store, f, key, fl) })
	}
	c.mu.Unlock()
	var estimate <-chan time.Time
	if _, ok := store.(memory.UsageCounter); ok {
		t := time.NewTimer(firstCountWait)
		defer t.Stop()
		estimate = t.C
	}
	select {
	case <-fl.done:
		return fl.n, fl.err
	case <-estimate:
		u, err := store.(memory.UsageCounter).Usage(ctx, f.OrgID)
		if err == nil && u.Memories >= estimateMin {
			c.mu.Lock()
			fl.estimate = int(u.Memories)
			c.mu.Unlock()
			return int(u.Memories), nil
		}
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	select { // no estimate: wait for the count
	case <-fl.done:
		return fl.n, fl.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// first runs a filter's first count, keeps it and hands it to the
// searches waiting on fl.
func (c *countCache) first(ctx context.Context, store memory.Store, f memory.Filter, key string, fl *countFlight) {
	if c.refreshed != nil {
		defer c.refreshed()
	}
	fl.n, fl.err = c.recount(ctx, store, f, key)
	c.mu.Lock()
	delete(c.flights, key)
	c.mu.Unlock()
	close(fl.done)
}

// refresh counts f again in the background; on failure the old answer
// stays, and the next search past its lifetime tries again.
func (c *countCache) refresh(ctx context.Context, store memory.Store, f memory.Filter, key string) {
	if c.refreshed != nil {
		defer c.refreshed()
	}
	if _, err := c.recount(ctx, store, f, key); err != nil {
		c.mu.Lock()
		if e, ok := c.m[key]; ok {
			e.refreshing = false
			c.m[key] = e
		}
		c.mu.Unlock()
	}
}

// recount counts f, within countRefreshTimeout, and keeps the answer
// (put) with what it took.
func (c *countCache) recount(ctx context.Context, store memory.Store, f memory.Filter, key string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, countRefreshTimeout)
	defer cancel()
	began := c.clock()
	n, err := store.Count(ctx, f)
	if err == nil {
		c.put(key, n, began, c.clock())
	}
	return n, err
}

// put keeps n for key when it is at least countCacheMin or took
// firstCountWait or more, and forgets key otherwise: a small count is
// cheap, and stays exact, unless its filter makes it read many memories
// to find few (a metadata filter in a large org).
func (c *countCache) put(key string, n int, began, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n < countCacheMin && at.Sub(began) < firstCountWait {
		delete(c.m, key)
		return
	}
	if c.m == nil || len(c.m) >= maxCounts {
		c.m = map[string]countEntry{}
	}
	c.m[key] = countEntry{n: n, at: at, cost: at.Sub(began)}
}
