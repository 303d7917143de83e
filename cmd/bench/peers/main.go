// Command bench-peers runs one synthetic corpus and one set of queries
// through the embedded index (index/bolt, opened directly) and through its
// peers — LanceDB (FTS, vector, hybrid), Chroma (vector), tantivy (keyword)
// and a numpy exact scan — each system alone in its own process, back to
// back, and prints one table per size: p50/p95/p99 per mode, recall@10
// against exact search, ingest rate, resident memory and disk per memory.
//
//	go run ./cmd/bench/peers -sizes 100000 -python VENV/bin/python
//
// The corpus is bench-latency's (internal/synth) with the hashing
// embedder's vectors; it is written to -dir (docs.txt, vectors.npy,
// queries.txt, query_vectors.npy, truth_ids.npy, truth_scores.npy) for the
// peers, which scripts/bench_peers.py runs. make bench-peers creates the
// peers' virtual environment. See docs/benchmarks.md, "Peers side by side".
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
)

func main() {
	var o options
	sizes := flag.String("sizes", "100000", "comma-separated corpus sizes")
	flag.IntVar(&o.Queries, "queries", 300, "queries per mode")
	flag.IntVar(&o.K, "k", 10, "results per query (and the depth of each hybrid list)")
	flag.IntVar(&o.Dims, "dims", 384, "dimensions of the hashing embedder's vectors")
	flag.IntVar(&o.Batch, "batch", 1000, "memories per Upsert of the embedded index")
	flag.IntVar(&o.Warmup, "warmup", 20, "untimed queries before each mode")
	flag.Uint64Var(&o.Seed, "seed", 1, "seed of the synthetic corpus")
	flag.StringVar(&o.Dir, "dir", "", "work directory: one corpus per size, reused by later runs (default: a temporary one, removed)")
	flag.StringVar(&o.Python, "python", "", "Python with the peers installed (make bench-peers sets it); empty: ours only")
	flag.StringVar(&o.Script, "script", "scripts/bench_peers.py", "the peers' script")
	flag.StringVar(&o.Peers, "peers", "", "comma-separated peers to run (default: all the script knows)")
	flag.DurationVar(&o.Timeout, "timeout", 0, "stop a system that runs longer than this (0: no limit)")
	flag.StringVar(&o.JSON, "json", "", "also write the results as JSON to this file")
	flag.BoolVar(&o.Model, "model", false, "embed the corpus with the offline model (MODEL_DIR: bge-small, 384 dimensions) instead of the hashing embedder; a corpus directory is reused only with the embedder it was built with")
	flag.BoolVar(&o.ReleaseSearch, "release-search", false, "ours: searches and writes take the bbolt pages they read out of the resident set (ReleasePages)")
	child := flag.String("child", "", "internal: run one system in this process (ours)")
	var co oursOptions
	flag.StringVar(&co.Corpus, "corpus", "", "internal, with -child: the corpus directory")
	flag.StringVar(&co.Out, "out", "", "internal, with -child: where to write the result")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ctx := context.Background()
	var err error
	switch *child {
	case "":
		if o.Sizes, err = parseSizes(*sizes); err == nil {
			err = run(ctx, o, os.Stdout)
		}
	case "ours":
		co.K, co.Batch, co.Warmup, co.ReleaseSearch = o.K, o.Batch, o.Warmup, o.ReleaseSearch
		err = runOurs(ctx, co)
	default:
		err = fmt.Errorf("-child %q: unknown", *child)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		os.Exit(1)
	}
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-sizes: %q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}
