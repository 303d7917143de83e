package bolt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// BenchmarkANN compares the graph with the exact scan on one org of
// clustered 384-dimension vectors, query by query in alternation so both
// run under the same load: it reports the graph's build time, the p50/p95
// of each path, their ratio and the graph's recall@10 against the exact
// scan, unfiltered and under filters allowing 25% and 5% of the org.
// Sizes from ANN_BENCH_SIZES (default 100000); ANN_M, ANN_EFC and ANN_EF
// override DefaultANN, and ANN_WORKERS the goroutines that build the graph
// (default: every core):
//
//	ANN_BENCH_SIZES=100000 go test -run '^$' -bench ANN -benchtime 1x ./index/bolt
func BenchmarkANN(b *testing.B) {
	sizes := []int{100_000}
	if s := os.Getenv("ANN_BENCH_SIZES"); s != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	cfg := DefaultANN
	for env, p := range map[string]*int{"ANN_M": &cfg.M, "ANN_EFC": &cfg.EfConstruction, "ANN_EF": &cfg.EfSearch} {
		if s := os.Getenv(env); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				b.Fatal(err)
			}
			*p = n
		}
	}
	if s := os.Getenv("ANN_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		defer func(f func() int) { buildWorkers = f }(buildWorkers)
		buildWorkers = func() int { return n }
	}
	for _, size := range sizes {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) { benchANN(b, size, cfg) })
	}
}

func benchANN(b *testing.B, size int, cfg ANNConfig) {
	const dims, k, queries = 384, 10, 200
	ctx := context.Background()
	dir := b.TempDir()
	ix, _, err := Open(dir, "bench", dims)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { ix.Close() }()
	ix.SetANN(ANNConfig{Threshold: -1})
	rng := rand.New(rand.NewPCG(19, uint64(size)))
	unit := func(centre []float32, sigma float64) []float32 {
		v := make([]float32, dims)
		var n float64
		for i := range v {
			x := rng.NormFloat64() * sigma
			if centre != nil {
				x += float64(centre[i])
			}
			v[i] = float32(x)
			n += x * x
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	centres := make([][]float32, max(size/500, 20))
	for i := range centres {
		centres[i] = unit(nil, 1)
	}
	sigma := 0.3 / math.Sqrt(dims)
	start := time.Now()
	batch := make([]*memory.Memory, 0, 1000)
	for i := range size {
		m := &memory.Memory{ID: fmt.Sprintf("m%08d", i), OrgID: "org", AgentID: fmt.Sprintf("agent-%d", i%4),
			Type: memory.TypeMessage, Embedding: unit(centres[rng.IntN(len(centres))], sigma)}
		if i%20 == 7 {
			m.EntityID = "rare"
		}
		batch = append(batch, m)
		if len(batch) == cap(batch) || i == size-1 {
			if err := ix.Upsert(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.Logf("size %d: loaded in %s (load average %s)", size, time.Since(start).Round(time.Millisecond), loadAverage())
	start = time.Now()
	cpu0 := cpuTime()
	ix.SetANN(cfg)
	if err := ix.WaitANN(ctx); err != nil {
		b.Fatal(err)
	}
	build, buildCPU := time.Since(start), cpuTime()-cpu0
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.Logf("size %d: graph built in %s, %s of CPU (M %d, efConstruction %d), heap %d MiB", size,
		build.Round(time.Millisecond), buildCPU.Round(time.Millisecond), cfg.M, cfg.EfConstruction, ms.HeapAlloc>>20)
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(buildCPU.Seconds(), "build-cpu-s")
	filters := []struct {
		name string
		f    memory.Filter
	}{
		{"org", memory.Filter{OrgID: "org"}},
		{"agent 25%", memory.Filter{OrgID: "org", AgentID: "agent-1"}},
		{"entity 5%", memory.Filter{OrgID: "org", EntityID: "rare"}},
	}
	for _, tc := range filters {
		var exact, approx []time.Duration
		var hit, total int
		for range b.N {
			for range queries {
				q := memory.IndexQuery{Filter: tc.f, Vector: unit(centres[rng.IntN(len(centres))], 0.5/math.Sqrt(dims)), K: k}
				run := func(ann bool) []memory.Hit {
					ix.mu.Lock()
					if ann {
						ix.ann.Threshold = cfg.Threshold
					} else {
						ix.ann.Threshold = -1 // the graph stays; approximate declines
					}
					ix.mu.Unlock()
					t0 := time.Now()
					res, err := ix.Search(ctx, q)
					d := time.Since(t0)
					if err != nil {
						b.Fatal(err)
					}
					if ann {
						approx = append(approx, d)
					} else {
						exact = append(exact, d)
					}
					return res.Semantic
				}
				want, got := run(false), run(true)
				for _, h := range got {
					if slices.ContainsFunc(want, func(w memory.Hit) bool { return w.ID == h.ID }) {
						hit++
					}
				}
				total += len(want)
			}
		}
		recall := float64(hit) / float64(total)
		ep50, ep95 := pct(exact, 50), pct(exact, 95)
		ap50, ap95 := pct(approx, 50), pct(approx, 95)
		b.Logf("size %d, %s: efSearch %d (walk %d before the filter widens it): recall@%d %.4f; exact p50 %s p95 %s; graph p50 %s p95 %s; p95 ratio %.1f×",
			size, tc.name, cfg.EfSearch, SearchWidth(cfg.EfSearch, size), k, recall, ep50, ep95, ap50, ap95, float64(ep95)/float64(ap95))
		name := strings.ReplaceAll(strings.ReplaceAll(tc.name, " ", "-"), "%", "pc")
		b.ReportMetric(recall, name+"-recall")
		b.ReportMetric(float64(ep95)/float64(ap95), name+"-speedup-p95")
	}
	// A restart: the graph is saved at Close and restored at Open.
	t0 := time.Now()
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
	closed := time.Since(t0)
	t0 = time.Now()
	if ix, _, err = Open(dir, "bench", dims); err != nil {
		b.Fatal(err)
	}
	opened := time.Since(t0)
	if err := ix.WaitANN(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("size %d: restart: close (graph saved) %s, open (entries loaded, graph restored) %s, graph answering %s after open; %d graphs restored",
		size, closed.Round(time.Millisecond), opened.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond), ix.restored)
	b.Logf("load average %s", loadAverage())
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Microsecond)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}
