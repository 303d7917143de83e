package knowledge

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// countingStore answers Count with n (or err) and counts the calls.
type countingStore struct {
	memory.Store
	mu    sync.Mutex
	n     int
	err   error
	calls int
}

func (s *countingStore) Count(context.Context, memory.Filter) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.n, s.err
}

func (s *countingStore) set(n int, err error) {
	s.mu.Lock()
	s.n, s.err = n, err
	s.mu.Unlock()
}

// TestCountCache: a large count is reused within countTTL; past it the
// old answer is given at once while one background count replaces it; a
// failed refresh keeps the old answer; a small count is never kept.
func TestCountCache(t *testing.T) {
	f := memory.Filter{OrgID: "o"}
	type step struct {
		after   time.Duration // since the first call
		storeN  int           // what the store counts from this step on
		fail    bool          // the store fails from this step on
		want    int           // the answer
		calls   int           // store counts so far, background ones included
		refresh bool          // wait for a background count after the call
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"large: counted once, reused", []step{
			{after: 0, storeN: 9000, want: 9000, calls: 1},
			{after: time.Second, storeN: 9500, want: 9000, calls: 1},
			{after: countTTL - time.Second, want: 9000, calls: 1},
		}},
		{"large and stale: answered at once, counted again behind", []step{
			{after: 0, storeN: 9000, want: 9000, calls: 1},
			{after: countTTL, storeN: 9500, want: 9000, calls: 2, refresh: true},
			{after: countTTL + time.Second, want: 9500, calls: 2},
		}},
		{"a failed refresh keeps the old answer and is tried again", []step{
			{after: 0, storeN: 9000, want: 9000, calls: 1},
			{after: countTTL, fail: true, want: 9000, calls: 2, refresh: true},
			{after: countTTL + time.Second, storeN: 9600, want: 9000, calls: 3, refresh: true},
			{after: countTTL + 2*time.Second, want: 9600, calls: 3},
		}},
		{"a refresh that finds the filter small forgets it", []step{
			{after: 0, storeN: 9000, want: 9000, calls: 1},
			{after: countTTL, storeN: 12, want: 9000, calls: 2, refresh: true},
			{after: countTTL + time.Second, want: 12, calls: 3},
		}},
		{"small: counted every time", []step{
			{after: 0, storeN: 12, want: 12, calls: 1},
			{after: time.Second, storeN: 13, want: 13, calls: 2},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := &countingStore{}
			start := time.Unix(1_800_000_000, 0)
			var clock time.Duration
			done := make(chan struct{}, 4)
			c := &countCache{now: func() time.Time { return start.Add(clock) }, refreshed: func() { done <- struct{}{} }}
			for i, st := range tc.steps {
				clock = st.after
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
				if st.refresh {
					select {
					case <-done:
					case <-time.After(10 * time.Second):
						t.Fatalf("step %d: no background count", i)
					}
				}
				store.mu.Lock()
				calls := store.calls
				store.mu.Unlock()
				if got != st.want || calls != st.calls {
					t.Fatalf("step %d: answered %d after %d counts; want %d after %d", i, got, calls, st.want, st.calls)
				}
			}
		})
	}
}
