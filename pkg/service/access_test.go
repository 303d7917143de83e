package service_test

import (
	"context"
	"fmt"
	"github.com/agentmem/agentmem/pkg/service"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
)

// TestAsyncAccessCountsEverySearch runs searches from many goroutines on a
// service that records accesses in the background, closes it, and checks
// that every memory's access count is the number of searches that
// returned it.
func TestAsyncAccessCountsEverySearch(t *testing.T) {
	for _, tc := range []struct {
		size   int
		window time.Duration
	}{
		{1, 0}, // a tiny queue exercises the synchronous fallback too
		{4096, 0},
		{4096, 5 * time.Millisecond}, // windows that end while searches run
		{1, time.Hour},               // a window that Close ends
	} {
		t.Run(fmt.Sprintf("queue of %d, window %s", tc.size, tc.window), func(t *testing.T) {
			b := open(t)
			svc := service.NewService(b.Store, b.Index, hashing.New(128), service.WithAsyncAccess(tc.size, tc.window))
			var ids []string
			for _, r := range create(t, svc, orgA,
				service.NewMemory{Content: text("the red bicycle in the garage")},
				service.NewMemory{Content: text("a red kite on the beach")},
				service.NewMemory{Content: text("blue paint for the garage door")}) {
				ids = append(ids, r.ID)
			}
			want := map[string]int64{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for i := 0; i < 25; i++ {
						q := []string{"red", "garage", "kite beach"}[(g+i)%3]
						res, err := svc.Search(ctx, orgA, service.SearchRequest{Query: q, Mode: service.ModeKeyword, K: 10})
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						for _, r := range res {
							want[r.Memory.ID]++
						}
						mu.Unlock()
					}
				}(g)
			}
			wg.Wait()
			if err := svc.Close(); err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				m, err := svc.Get(ctx, orgA, id)
				if err != nil {
					t.Fatal(err)
				}
				if m.AccessCount != want[id] || (want[id] > 0 && m.LastAccessedAt == 0) {
					t.Errorf("%s: access count %d, last %d; %d searches returned it", m.Content.Text, m.AccessCount, m.LastAccessedAt, want[id])
				}
			}
		})
	}
}

// gatedStore blocks its first Touch until the gate opens and counts calls.
type gatedStore struct {
	memory.Store
	gate    chan struct{}
	first   atomic.Bool
	touches atomic.Int32
}

func (s *gatedStore) Touch(ctx context.Context, org string, ids []string, at int64) error {
	if s.first.CompareAndSwap(false, true) {
		<-s.gate
	}
	s.touches.Add(1)
	return s.Store.Touch(ctx, org, ids, at)
}

// TestAsyncAccessBackPressure fills the queue while its writer is stuck:
// the next search records its access itself rather than dropping it, and
// after Close searches record synchronously.
func TestAsyncAccessBackPressure(t *testing.T) {
	b := open(t)
	st := &gatedStore{Store: b.Store, gate: make(chan struct{})}
	svc := service.NewService(st, b.Index, hashing.New(128), service.WithAsyncAccess(1, 0))
	create(t, svc, orgA, service.NewMemory{Content: text("an apple a day")})
	search := func() {
		t.Helper()
		if res, err := svc.Search(ctx, orgA, service.SearchRequest{Query: "apple", Mode: service.ModeKeyword, K: 5}); err != nil || len(res) != 1 {
			t.Fatalf("search: %v, %d results", err, len(res))
		}
	}
	search() // taken by the writer, which blocks on the gate
	for !st.first.Load() {
		runtime.Gosched()
	}
	search() // fills the queue of one
	search() // finds it full: written synchronously
	if n := st.touches.Load(); n != 1 {
		t.Fatalf("%d touches done while the writer is blocked, want the synchronous one", n)
	}
	close(st.gate)
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	search() // after Close: synchronous
	if n := st.touches.Load(); n != 4 {
		t.Fatalf("%d touches, want 4", n)
	}
	p, err := svc.List(ctx, orgA, memory.Filter{}, 10, "")
	if err != nil || len(p.Memories) != 1 || p.Memories[0].AccessCount != 4 {
		t.Fatalf("access count after 4 searches: %v %+v", err, p.Memories)
	}
}

// TestAsyncAccessGathersAWindow checks that the writer gathers the
// accesses of the searches within its window into one write, repeats
// included (a memory found three times is listed three times), and that
// Close writes them without waiting for the window's end (an hour here).
func TestAsyncAccessGathersAWindow(t *testing.T) {
	b := open(t)
	st := &gatedStore{Store: b.Store, gate: make(chan struct{})}
	close(st.gate)
	svc := service.NewService(st, b.Index, hashing.New(128), service.WithAsyncAccess(64, time.Hour))
	create(t, svc, orgA,
		service.NewMemory{Content: text("an apple a day")},
		service.NewMemory{Content: text("a pear in the bowl")},
		service.NewMemory{Content: text("plums on the tree")})
	searches := []struct {
		query string
		times int
	}{{"apple", 1}, {"pear", 1}, {"plums", 3}}
	for _, s := range searches {
		for range s.times {
			if res, err := svc.Search(ctx, orgA, service.SearchRequest{Query: s.query, Mode: service.ModeKeyword, K: 5}); err != nil || len(res) != 1 {
				t.Fatalf("search %q: %v, %d results", s.query, err, len(res))
			}
		}
	}
	if n := st.touches.Load(); n != 0 {
		t.Fatalf("%d touches before the window ended, want none", n)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	// One write for the org, however often a memory was found.
	if n := st.touches.Load(); n != 1 {
		t.Errorf("%d touches, want 1", n)
	}
	p, err := svc.List(ctx, orgA, memory.Filter{}, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range p.Memories {
		want := map[string]int64{"an apple a day": 1, "a pear in the bowl": 1, "plums on the tree": 3}[m.Content.Text]
		if m.AccessCount != want || m.LastAccessedAt == 0 {
			t.Errorf("%q: access count %d (last %d), want %d", m.Content.Text, m.AccessCount, m.LastAccessedAt, want)
		}
	}
}
