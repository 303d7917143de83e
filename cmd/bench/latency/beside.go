package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/synth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// runBeside is -index both: one corpus of n memories in a SQLite store,
// searched with the embedded index, then with OpenSearch at osURL (a new
// alias, filled from the same store as the AWS backend fills a new one),
// the same queries in every mode, and one table with both side by side.
func runBeside(n, queries, batch, k int, dir string, seed uint64, osURL string) error {
	cfg, done, err := benchConfig(dir)
	if err != nil {
		return err
	}
	defer done()
	ctx := context.Background()
	cfg.Index.Kind = config.IndexEmbedded
	base, err := server.NewEmbedder(ctx, cfg)
	if err != nil {
		return err
	}
	emb := &timedEmbedder{Embedder: base}
	caller, gen := memory.Caller{OrgID: "bench"}, synth.New(seed)
	embedded := Result{Memories: n, SearchMs: map[string]map[string]float64{}}
	qs, built, err := besideEmbedded(ctx, cfg, emb, caller, gen, n, queries, batch, k, &embedded)
	if err != nil {
		return err
	}
	cfg.Index.Kind, cfg.Index.OpenSearchURLs = config.IndexOpenSearch, []string{osURL}
	cfg.Index.OpenSearchAlias = fmt.Sprintf("bench-beside-%d", time.Now().UnixNano())
	opening := time.Now()
	b, err := server.OpenWith(ctx, cfg, emb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	filled := time.Since(opening)
	defer b.Close()
	defer b.OpenSearch.DeleteAll(context.Background())
	if err := b.OpenSearch.Refresh(ctx); err != nil {
		return err
	}
	ost := Result{Memories: n, SearchMs: map[string]map[string]float64{}}
	if err := measureModes(ctx, b, emb, caller, qs, k, &ost); err != nil {
		return err
	}
	fmt.Printf("# bench-latency -index both: %d memories in one SQLite store, embedder %s; the embedded index beside OpenSearch at %s\n",
		n, emb.Model(), osURL)
	fmt.Printf("# %s, %d CPUs (GOMAXPROCS %d), %s; %d searches per mode, k=%d; built through the service in %s, OpenSearch filled from the store in %s (%.0f/s)\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), queries, k,
		built.Round(time.Second), filled.Round(time.Second), float64(n)/filled.Seconds())
	fmt.Println("| mode | embedded p50 ms | embedded p95 ms | OpenSearch p50 ms | OpenSearch p95 ms | p95 ratio |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, mode := range modes {
		e, o := embedded.SearchMs[string(mode)], ost.SearchMs[string(mode)]
		if e == nil || o == nil {
			continue
		}
		fmt.Printf("| %s | %.2f | %.2f | %.2f | %.2f | %.1f× |\n", mode, e["p50"], e["p95"], o["p50"], o["p95"], o["p95"]/e["p95"])
	}
	return nil
}

// besideEmbedded builds the corpus with the embedded index, measures every
// mode into r and closes the backend; it returns the queries and the time
// the corpus took to build.
func besideEmbedded(ctx context.Context, cfg config.Config, emb *timedEmbedder, caller memory.Caller, gen *synth.Generator,
	n, queries, batch, k int, r *Result) ([]string, time.Duration, error) {
	b, err := server.OpenWith(ctx, cfg, emb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, 0, err
	}
	defer b.Close()
	have, err := b.Service.Count(ctx, caller, memory.Filter{})
	if err != nil {
		return nil, 0, err
	}
	for i := 0; i < have; i++ { // the generator's state as if it had made them
		gen.Memory(i)
	}
	start := time.Now()
	if _, err := grow(ctx, b, caller, gen, have, n, batch); err != nil {
		return nil, 0, err
	}
	built := time.Since(start)
	if ann, ok := b.Index.(annIndex); ok {
		if err := ann.WaitANN(ctx); err != nil {
			return nil, 0, err
		}
	}
	qs := make([]string, queries)
	for i := range qs {
		qs[i] = gen.Query()
	}
	return qs, built, measureModes(ctx, b, emb, caller, qs, k, r)
}

// beside runs runBeside at the largest of sizes.
func beside(sizes string, queries, batch, k int, dir string, seed uint64, osURL string) error {
	ns, err := parseSizes(sizes)
	if err != nil {
		return err
	}
	return runBeside(ns[len(ns)-1], queries, batch, k, dir, seed, osURL)
}
