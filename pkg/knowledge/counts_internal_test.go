package knowledge

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// countingStore answers Count with n (or err), after gate when it is
// set, and counts the calls.
type countingStore struct {
	memory.Store
	mu    sync.Mutex
	n     int
	err   error
	gate  chan struct{}
	calls int
	// counting, when set, is called during each count (a test's clock
	// moving on).
	counting func()
}

func (s *countingStore) Count(context.Context, memory.Filter) (int, error) {
	s.mu.Lock()
	s.calls++
	gate, counting := s.gate, s.counting
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if counting != nil {
		counting()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, s.err
}

func (s *countingStore) set(n int, err error) {
	s.mu.Lock()
	s.n, s.err = n, err
	s.mu.Unlock()
}

func (s *countingStore) counted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// usageStore adds the org's usage counters (memory.UsageCounter), and
// counts the reads of them.
type usageStore struct {
	*countingStore
	total int64
	reads *atomic.Int64
}

func (s usageStore) Usage(context.Context, string) (memory.OrgUsage, error) {
	s.reads.Add(1)
	return memory.OrgUsage{Memories: s.total}, nil
}

// TestCountCache: a large count is reused within its lifetime (countTTL,
// longer for a costly count); past it the old answer is given at once
// while one background count replaces it; a failed refresh keeps the old
// answer; a small count is kept only when it was slow.
func TestCountCache(t *testing.T) {
	f := memory.Filter{OrgID: "o"}
	type step struct {
		after      time.Duration // since the first call
		storeN     int           // what the store counts from this step on
		fail       bool          // the store fails from this step on
		want       int           // the answer
		calls      int           // store counts so far, background ones included
		background bool          // wait for a count in the background after the call
		takes      time.Duration // what each count takes from this step on
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"large: counted once, reused", []step{
			{after: 0, storeN: 9000, want: 9000, calls: 1, background: true},
			{after: time.Second, storeN: 9500, want: 9000, calls: 1},
			{after: countTTL - time.Second, want: 9000, calls: 1},
		}},
		{"large and stale: answered at once, counted again behind", []step{
			{after: 0, storeN: 9000, want: 9000, calls: 1, background: true},
			{after: countTTL, storeN: 9500, want: 9000, calls: 2, background: true},
			{after: countTTL + time.Second, want: 9500, calls: 2},
		}},
		{"a failed refresh keeps the old answer and is tried again", []step{
			{after: 0, storeN: 9000, want: 9000, calls: 1, background: true},
			{after: countTTL, fail: true, want: 9000, calls: 2, background: true},
			{after: countTTL + time.Second, storeN: 9600, want: 9000, calls: 3, background: true},
			{after: countTTL + 2*time.Second, want: 9600, calls: 3},
		}},
		{"a refresh that finds the filter small forgets it", []step{
			{after: 0, storeN: 9000, want: 9000, calls: 1, background: true},
			{after: countTTL, storeN: 12, want: 9000, calls: 2, background: true},
			{after: countTTL + time.Second, want: 12, calls: 3, background: true},
		}},
		{"a costly count is reused countCostShare times as long as it took", []step{
			{after: 0, storeN: 9000, takes: 2 * time.Second, want: 9000, calls: 1, background: true},
			{after: 5 * countTTL, storeN: 9500, want: 9000, calls: 1}, // past countTTL, within 100 × 2 s
			{after: 2*time.Second + countCostShare*2*time.Second, want: 9000, calls: 2, background: true},
			{after: 2*time.Second + countCostShare*2*time.Second + 3*time.Second, want: 9500, calls: 2},
		}},
		{"small but slow to count: kept", []step{
			{after: 0, storeN: 12, takes: firstCountWait, want: 12, calls: 1, background: true},
			{after: firstCountWait + time.Second, storeN: 13, want: 12, calls: 1},
		}},
		{"small: counted every time", []step{
			{after: 0, storeN: 12, want: 12, calls: 1, background: true},
			{after: time.Second, storeN: 13, want: 13, calls: 2, background: true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := &countingStore{}
			start := time.Unix(1_800_000_000, 0)
			var clock, takes time.Duration
			store.counting = func() { clock += takes }
			done := make(chan struct{}, 4)
			c := &countCache{now: func() time.Time { return start.Add(clock) }, refreshed: func() { done <- struct{}{} }}
			for i, st := range tc.steps {
				clock = st.after
				if st.takes != 0 {
					takes = st.takes
				}
				if st.storeN != 0 || st.fail {
					var err error
					if st.fail {
						err = errors.New("store down")
					}
					store.set(st.storeN, err)
				}
				got, err := c.count(context.Background(), store, f)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if st.background {
					select {
					case <-done:
					case <-time.After(10 * time.Second):
						t.Fatalf("step %d: no background count", i)
					}
				}
				if calls := store.counted(); got != st.want || calls != st.calls {
					t.Fatalf("step %d: answered %d after %d counts; want %d after %d", i, got, calls, st.want, st.calls)
				}
			}
		})
	}
}

// TestFirstCountDoesNotStall: a filter's first count that outlasts
// firstCountWait is answered with a large org's total when the store
// keeps usage counters, and waited for otherwise; searches that ask while
// it runs share it, and those after an estimate get it at once.
func TestFirstCountDoesNotStall(t *testing.T) {
	f := memory.Filter{OrgID: "o"}
	tests := []struct {
		name      string
		withUsage bool
		total     int64 // the org's memories, with usage counters
		estimated bool  // answered while the count is held
		want      int
	}{
		{"a large org with usage counters: its total", true, 1_000_000, true, 1_000_000},
		{"a small org with usage counters: the count", true, estimateMin - 1, false, 833_000},
		{"no usage counters: the count", false, 0, false, 833_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gate := make(chan struct{})
			cs := &countingStore{n: 833_000, gate: gate}
			var store memory.Store = cs
			reads := &atomic.Int64{}
			if tc.withUsage {
				store = usageStore{cs, tc.total, reads}
			}
			done := make(chan struct{}, 4)
			c := &countCache{refreshed: func() { done <- struct{}{} }}
			answers := make(chan int, 3)
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					n, err := c.count(context.Background(), store, f)
					if err != nil {
						t.Error(err)
					}
					answers <- n
				})
			}
			if tc.estimated {
				wg.Wait() // answered while the count is held
				before := reads.Load()
				if n, err := c.count(context.Background(), store, f); err != nil || n != tc.want {
					t.Fatalf("a search after the estimate: %d, %v; want %d", n, err, tc.want)
				}
				if reads.Load() != before {
					t.Fatal("a search after the estimate waited and read the usage again; want the estimate at once")
				}
			} else {
				time.Sleep(2 * firstCountWait) // still held: they wait
			}
			close(gate)
			wg.Wait()
			close(answers)
			for n := range answers {
				if n != tc.want {
					t.Fatalf("answered %d; want %d", n, tc.want)
				}
			}
			<-done
			if n := cs.counted(); n != 1 {
				t.Fatalf("%d counts for three searches; want one shared", n)
			}
			if n, _ := c.count(context.Background(), store, f); n != 833_000 {
				t.Fatalf("after the count: %d; want 833000", n)
			}
		})
	}
}
