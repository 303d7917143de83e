// Command bench-latency measures the embedded backend: batch-create
// throughput and search latency per mode at growing sizes, on synthetic
// memories of varied length and vocabulary in one org. It runs through the
// service layer (the same calls the HTTP handlers make), prints a Markdown
// table and can write the figures as JSON.
//
//	go run ./cmd/bench/latency -sizes 10000,100000 -queries 300
//
// Modes: keyword, semantic, hybrid (both fused), hybrid+knowledge (plus the
// Structured RAG knowledge list alone) and full (every list: what
// /v1/search does by default). With
// -rerank the full mode runs once more through a /rerank endpoint served
// in-process (the Cohere request shape, scoring by shared words), which
// measures the stage's own cost (candidate loading, the HTTP round trip,
// JSON) without a model's: add the model's latency to it. The terms row is
// the TermIndex prefix completion of /v1/knowledge/terms, the prefetch row
// POST /v1/knowledge/prefetch's use case.
//
// With -index both (make bench-latency-opensearch) one corpus, the
// largest of -sizes, is built in a SQLite store with the embedded index,
// searched in every mode, then searched again with the same queries
// through OpenSearch (-opensearch-url, a new alias filled from the same
// store), and one table puts both side by side.
//
// With -dir the data directory is kept, and a later run on it reuses the
// memories already there (the generator is deterministic), so a large
// corpus can be built once (-build-only) and measured later on a quiet
// machine.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/synth"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

func main() {
	sizes := flag.String("sizes", "10000", "comma-separated corpus sizes, each built on top of the previous")
	queries := flag.Int("queries", 300, "searches per mode and size")
	batch := flag.Int("batch", 100, "memories per create call")
	k := flag.Int("k", 10, "results per search")
	dir := flag.String("dir", "", "data directory (default: a temporary one, removed at the end)")
	jsonOut := flag.String("json", "", "write the results as JSON to this file")
	index := flag.String("index", "embedded", "index adapter: embedded, opensearch, or both (one corpus, the largest of -sizes, searched with each: a side-by-side table)")
	osURL := flag.String("opensearch-url", "http://127.0.0.1:19200", "OpenSearch node, with -index opensearch")
	seed := flag.Uint64("seed", 1, "random seed of the synthetic corpus and queries")
	flag.BoolVar(&buildOnly, "build-only", false, "build the corpus in -dir and stop")
	flag.BoolVar(&withRerank, "rerank", false, "also measure full search through an in-process /rerank endpoint")
	flag.BoolVar(&annOff, "exact", false, "embedded index: keep vector search exact at every size (no HNSW graph)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the timed searches to this file (FILE-MODE for each mode when several are measured)")
	flag.StringVar(&memProfileTo, "memprofile", "", "write heap profiles before the searches (to this file + \".before\") and after them, for pprof -sample_index=alloc_space -base")
	flag.StringVar(&ingestProfile, "ingest-profile", "", "write a CPU profile of the creates (every size) to this file")
	flag.BoolVar(&warmAll, "warm", false, "search every query twice before measuring each mode, not only the first 20 once, so that the background expansions (waited for in either case) cache the related terms of every query word: a steady state")
	only := flag.String("modes", "", "measure only these comma-separated modes (default: all), in the usual order")
	flag.DurationVar(&accessWindow, "access-window", -1, "how long the service gathers searches' accesses into one write (ACCESS_WINDOW; 0: a write per search while the writer keeps up; unset: from the environment)")
	flag.DurationVar(&wiring.KnowledgeSettle, "knowledge-settle", wiring.KnowledgeSettle, "how long the knowledge worker lets a bulk write's batches gather before it extracts them (wiring.KnowledgeSettle)")
	flag.IntVar(&deferFrom, "defer-knowledge", -1, "knowledge.Service.DeferFrom for the creates: a create of at least this many memories leaves their knowledge to the background worker (0: every create extracts at once; -1: the wiring's default)")
	flag.Parse()
	if *cpuProfile != "" {
		profileTo = *cpuProfile
	}
	if *only != "" {
		want := map[string]bool{}
		for _, m := range strings.Split(*only, ",") {
			want[strings.TrimSpace(m)] = true
		}
		var kept []service.Mode
		for _, m := range modes {
			if want[string(m)] {
				kept = append(kept, m)
			}
		}
		modes = kept
	}
	var err error
	if *index == "both" {
		err = beside(*sizes, *queries, *batch, *k, *dir, *seed, *osURL)
	} else {
		err = run(*sizes, *queries, *batch, *k, *dir, *jsonOut, *seed, *index, *osURL)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-latency:", err)
		os.Exit(1)
	}
}

var (
	buildOnly, withRerank bool
	ingestProfile         string // -ingest-profile
	warmAll               bool   // -warm
	annOff                bool   // -exact
	profileTo             string // -cpuprofile
	memProfileTo          string // -memprofile
	deferFrom             int    // -defer-knowledge
)

// writeHeap writes the heap profile (allocations since start included) to
// path, after a collection so that it is up to date.
func writeHeap(path string) error {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// timedEmbedder records the time spent embedding queries.
type timedEmbedder struct {
	memory.Embedder
	mu    sync.Mutex
	query time.Duration
}

func (e *timedEmbedder) Embed(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	start := time.Now()
	v, err := e.Embedder.Embed(ctx, texts, p)
	if p == memory.PurposeQuery {
		e.mu.Lock()
		e.query += time.Since(start)
		e.mu.Unlock()
	}
	return v, err
}

func (e *timedEmbedder) takeQuery() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.query
	e.query = 0
	return d
}

// annIndex is the embedded index's control of its approximate vector
// search.
type annIndex interface {
	ANN() bolt.ANNConfig
	SetANN(bolt.ANNConfig)
	WaitANN(context.Context) error
}

// Result is the JSON form of one size's figures.
type Result struct {
	Memories     int                           `json:"memories"`
	CreatePerSec float64                       `json:"createPerSec"`
	RSSMiB       float64                       `json:"rssMiB"`
	DiskBytesPer float64                       `json:"diskBytesPerMemory"`
	SearchMs     map[string]map[string]float64 `json:"searchMs"` // mode -> p50/p95/p99 (+ "_total" with embedding)
	StagesMs     map[string]map[string]float64 `json:"stagesMs"` // hybrid: pipeline stage -> p50/p95
}

func run(sizesFlag string, queries, batch, k int, dir, jsonOut string, seed uint64, index, osURL string) error {
	sizes, err := parseSizes(sizesFlag)
	if err != nil {
		return err
	}
	cfg, done, err := benchConfig(dir)
	if err != nil {
		return err
	}
	defer done()
	dir = cfg.DataDir
	ctx := context.Background()
	cfg.Index.Kind = index
	if index == "opensearch" {
		cfg.Index.OpenSearchURLs, cfg.Index.OpenSearchAlias = []string{osURL}, fmt.Sprintf("bench-%d", time.Now().UnixNano())
	}
	if withRerank {
		rs := httptest.NewServer(http.HandlerFunc(serveRerank))
		defer rs.Close()
		cfg.Rerank = config.Rerank{Kind: config.RerankHTTP, URL: rs.URL, Model: "bench-overlap", Flavor: "cohere", Timeout: 5 * time.Second}
	}
	base, err := server.NewEmbedder(ctx, cfg)
	if err != nil {
		return err
	}
	emb := &timedEmbedder{Embedder: base}
	opening := time.Now()
	b, err := server.OpenWith(ctx, cfg, emb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	opened := time.Since(opening)
	defer b.Close()
	if b.Extraction != nil && deferFrom >= 0 {
		b.Extraction.DeferFrom = deferFrom
	}
	if b.OpenSearch != nil {
		defer b.OpenSearch.DeleteAll(context.Background())
	}
	caller := memory.Caller{OrgID: "bench"}
	gen := synth.New(seed)

	ann, _ := b.Index.(annIndex)
	if ann != nil && annOff {
		ann.SetANN(bolt.ANNConfig{Threshold: -1})
	}
	what := describeIndex(b, ann, osURL)
	fmt.Printf("# bench-latency: SQLite store, %s, embedder %s\n", what, emb.Model())
	fmt.Printf("# %s, %d CPUs (GOMAXPROCS %d), %s; %d searches per mode, k=%d, batches of %d\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), queries, k, batch)
	fmt.Println("| memories | create/s | mode | p50 ms | p95 ms | p99 ms | p50 ms +embed | p95 ms +embed | p99 ms +embed | RSS MiB | disk B/memory |")
	fmt.Println("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	var results []Result
	have, err := b.Service.Count(ctx, caller, memory.Filter{})
	if err != nil {
		return err
	}
	for i := 0; i < have; i++ { // the generator's state as if it had made them
		gen.Memory(i)
	}
	if have > 0 {
		if err := reportStartup(ctx, b, caller, ann, have, opened, seed+1, k); err != nil {
			return err
		}
	}
	if err := startProfile(ingestProfile); err != nil {
		return err
	}
	for _, n := range sizes {
		start := time.Now()
		added, err := grow(ctx, b, caller, gen, have, n, batch)
		if err != nil {
			return err
		}
		have = max(have, n)
		createRate := float64(added) / time.Since(start).Seconds()
		if err := waitKnowledge(ctx, b, caller.OrgID, have, added, start); err != nil {
			return err
		}
		if ingestProfile != "" && n == sizes[len(sizes)-1] {
			pprof.StopCPUProfile()
		}
		if ann != nil && !buildOnly { // measure the graph, not the exact scan that answers while it builds
			t0 := time.Now()
			if err := ann.WaitANN(ctx); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "# %d memories: vector graph ready %s after the last create\n", have, time.Since(t0).Round(time.Millisecond))
		}
		if buildOnly {
			fmt.Printf("built %d memories in %s (%.0f/s)\n", have, dir, createRate)
			continue
		}
		if b.OpenSearch != nil {
			if err := b.OpenSearch.Refresh(ctx); err != nil {
				return err
			}
		}
		r := Result{Memories: have, CreatePerSec: createRate, SearchMs: map[string]map[string]float64{}}
		qs := make([]string, queries)
		for i := range qs {
			qs[i] = gen.Query()
		}
		if memProfileTo != "" {
			if err := writeHeap(memProfileTo + ".before"); err != nil {
				return err
			}
		}
		if err := measureModes(ctx, b, emb, caller, qs, k, &r); err != nil {
			return err
		}
		if memProfileTo != "" {
			if err := writeHeap(memProfileTo); err != nil {
				return err
			}
		}
		if err := measureTerms(ctx, b.Store, gen, queries, &r); err != nil {
			return err
		}
		if err := measurePrefetch(ctx, b, caller, gen, queries, &r); err != nil {
			return err
		}
		r.RSSMiB = rssMiB()
		disk, err := diskBytes(ctx, b, dir)
		if err != nil {
			return err
		}
		r.DiskBytesPer = float64(disk) / float64(have)
		printResult(r, createRate)
		results = append(results, r)
	}
	if jsonOut != "" {
		js, _ := json.MarshalIndent(results, "", "  ")
		return os.WriteFile(jsonOut, append(js, '\n'), 0o644)
	}
	return nil
}

// modeRerank is full search through the rerank stage.
const modeRerank service.Mode = "full+rerank"

// modeHybridKnowledge is keyword, semantic and the knowledge list: what
// the knowledge list adds to hybrid, without the other lists of full.
const modeHybridKnowledge service.Mode = "hybrid+knowledge"

// modes are measured in this order.
var modes = []service.Mode{service.ModeKeyword, service.ModeSemantic, service.ModeHybrid, modeHybridKnowledge, service.ModeFull, modeRerank}

// serveRerank answers the Cohere-shaped /rerank request, scoring each
// document by the share of the query's words it holds: the cost of the
// protocol without a model's.
func serveRerank(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	qw := strings.Fields(strings.ToLower(req.Query))
	type result struct {
		Index int     `json:"index"`
		Score float64 `json:"relevance_score"`
	}
	out := struct {
		Results []result `json:"results"`
	}{Results: make([]result, len(req.Documents))}
	for i, d := range req.Documents {
		d = strings.ToLower(d)
		hit := 0
		for _, w := range qw {
			if strings.Contains(d, w) {
				hit++
			}
		}
		out.Results[i] = result{i, float64(hit) / float64(max(1, len(qw)))}
	}
	sort.SliceStable(out.Results, func(a, b int) bool { return out.Results[a].Score > out.Results[b].Score })
	json.NewEncoder(w).Encode(out)
}

// measureTerms times the TermIndex prefix completion behind
// /v1/knowledge/terms: one to three first letters of the corpus's words,
// as a user types them, org-wide (the counters' path) and for one agent.
func measureTerms(ctx context.Context, store memory.Store, gen *synth.Generator, n int, r *Result) error {
	ti, ok := store.(memory.TermIndex)
	if !ok {
		return nil
	}
	var xs []float64
	for i := 0; i < n; i++ {
		w := gen.Word()
		p := w[:min(len(w), 1+i%3)]
		t0 := time.Now()
		if _, err := ti.Terms(ctx, memory.Filter{OrgID: "bench"}, p, 10); err != nil {
			return fmt.Errorf("terms %q: %w", p, err)
		}
		xs = append(xs, ms(time.Since(t0)))
	}
	r.SearchMs["terms"] = map[string]float64{"p50": pct(xs, 50), "p95": pct(xs, 95), "p99": pct(xs, 99),
		"p50_total": pct(xs, 50), "p95_total": pct(xs, 95), "p99_total": pct(xs, 99)}
	return nil
}

// measurePrefetch times POST /v1/knowledge/prefetch's use case: two
// complete words and the first letters of a third, as a user types them.
func measurePrefetch(ctx context.Context, b *server.Backend, caller memory.Caller, gen *synth.Generator, n int, r *Result) error {
	if b.Knowledge == nil {
		return nil
	}
	var xs []float64
	for i := 0; i < n; i++ {
		w := gen.Word()
		text := "what was " + gen.Word() + " " + gen.Word() + " " + w[:min(len(w), 1+i%3)]
		t0 := time.Now()
		if _, err := b.Knowledge.Prefetch(ctx, caller, knowledge.PrefetchRequest{Text: text}); err != nil {
			return fmt.Errorf("prefetch %q: %w", text, err)
		}
		xs = append(xs, ms(time.Since(t0)))
	}
	r.SearchMs["prefetch"] = map[string]float64{"p50": pct(xs, 50), "p95": pct(xs, 95), "p99": pct(xs, 99),
		"p50_total": pct(xs, 50), "p95_total": pct(xs, 95), "p99_total": pct(xs, 99)}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

func rssMiB() float64 { return statusMiB("VmRSS") }

// statusMiB reads a memory field of /proc/self/status (VmRSS; RssAnon, the
// process's own memory; RssFile, the pages of mapped files it has touched,
// which the kernel can drop) in MiB, 0 where there is none.
func statusMiB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// relatedOf returns the related-terms index of the knowledge list, whose
// Wait returns once the expansions queued in the background are done.
func relatedOf(b *server.Backend) (interface{ Wait() }, bool) {
	if b.Knowledge == nil {
		return nil, false
	}
	w, ok := b.Knowledge.Related.(interface{ Wait() })
	return w, ok
}

// newMemory is the service's form of the generator's i-th memory.
func newMemory(gen *synth.Generator, i int) service.NewMemory {
	m := gen.Memory(i)
	return service.NewMemory{
		Type:       m.Type,
		Content:    memory.Content{Text: m.Text},
		RoomID:     m.RoomID,
		EntityID:   m.EntityID,
		CreatedAt:  m.CreatedAt,
		DocumentID: m.DocumentID,
	}
}

// parseSizes parses -sizes: comma-separated corpus sizes, in increasing
// order.
func parseSizes(flag string) ([]int, error) {
	var sizes []int
	for _, s := range strings.Split(flag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-sizes: %q is not a positive number", s)
		}
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	return sizes, nil
}

// describeIndex names the index b searches, for the report's header.
func describeIndex(b *server.Backend, ann annIndex, osURL string) string {
	switch {
	case b.OpenSearch != nil:
		return "OpenSearch index at " + osURL + " (BM25 + Lucene HNSW k-NN, one _msearch per hybrid query)"
	case ann != nil && !annOff:
		c := ann.ANN()
		return fmt.Sprintf("embedded index (boltindex: BM25 + exact vectors, HNSW past %d vectors per org: M %d, efConstruction %d, efSearch %d)",
			c.Threshold, c.M, c.EfConstruction, c.EfSearch)
	}
	return "embedded index (boltindex: BM25 + exact vectors)"
}

// grow creates the generator's memories from have up to n, in batches,
// and returns how many were new.
func grow(ctx context.Context, b *server.Backend, caller memory.Caller, gen *synth.Generator, have, n, batch int) (int, error) {
	added := 0
	for have < n {
		m := min(batch, n-have)
		in := make([]service.NewMemory, m)
		for i := range in {
			in[i] = newMemory(gen, have+i)
		}
		res, err := b.Service.Create(ctx, caller, in)
		if err != nil {
			return added, err
		}
		for _, r := range res {
			if !r.Duplicate {
				added++
			}
		}
		have += m
	}
	return added, nil
}

// waitKnowledge waits until no memory of the org waits for its knowledge
// (knowledge.Service.DeferFrom leaves bulk creates to the worker), and
// reports when that was and the create rate counted to it.
func waitKnowledge(ctx context.Context, b *server.Backend, org string, have, added int, start time.Time) error {
	if b.Extraction == nil {
		return nil
	}
	last := time.Now()
	if err := wiring.AwaitKnowledge(ctx, b.Extraction, org); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "# %d memories: knowledge caught up %s after the last create; %.0f creates/s counted to it\n",
		have, time.Since(last).Round(time.Millisecond), float64(added)/time.Since(start).Seconds())
	return nil
}

// measureModes times the searches qs in every mode, after a warm-up, into
// r's search and stage percentiles.
func measureModes(ctx context.Context, b *server.Backend, emb *timedEmbedder, caller memory.Caller, qs []string, k int, r *Result) error {
	off := false
	for _, mode := range modes {
		req := func(q string) service.SearchRequest {
			r := service.SearchRequest{Query: q, Mode: mode, K: k, Rerank: &off}
			if mode == modeRerank {
				r.Mode, r.Rerank = service.ModeFull, nil
			}
			if mode == modeHybridKnowledge {
				r.Mode, r.Lists = "", []string{retrieval.ListKeyword, retrieval.ListSemantic, retrieval.ListKnowledge}
			}
			return r
		}
		if mode == modeRerank && !withRerank {
			continue
		}
		// Warm up caches, then measure.
		warm, rounds := qs[:min(20, len(qs))], 1
		if warmAll { // the second round finds what the first queued in the background
			warm, rounds = qs, 2
		}
		for range rounds {
			for _, q := range warm {
				b.Service.Search(ctx, caller, req(q))
			}
		}
		// Measured as a service is after its first seconds (its first
		// searches are reported apart, by reportStartup).
		waitBackground(b)
		emb.takeQuery()
		var total, excl []float64
		stages := map[string][]float64{}
		// A profile of the timed searches alone: not of the start-up's
		// work, nor of the warm-up's background expansions.
		if err := startProfile(profileOf(mode)); err != nil {
			return err
		}
		began, cpu0 := time.Now(), cpuTime()
		for _, q := range qs {
			t0 := time.Now()
			res, err := b.Service.SearchRanked(ctx, caller, req(q))
			if err != nil {
				return err
			}
			d := time.Since(t0)
			e := emb.takeQuery()
			total = append(total, ms(d))
			excl = append(excl, ms(d-e))
			var inStages time.Duration
			for _, st := range res.Stages {
				sd := st.Duration
				if st.Name == retrieval.StageRetrieve {
					sd -= e // the query's embedding runs inside the retrieve stage
				}
				if st.Within == "" { // a stage within another is counted in it
					inStages += st.Duration
				}
				stages[st.Name] = append(stages[st.Name], ms(sd))
			}
			stages["embed query"] = append(stages["embed query"], ms(e))
			stages["record accesses"] = append(stages["record accesses"], ms(d-inStages))
		}
		if mode == service.ModeHybrid || mode == modeRerank {
			if r.StagesMs == nil {
				r.StagesMs = map[string]map[string]float64{}
			}
			for name, xs := range stages {
				if mode == service.ModeHybrid || name == "rerank" {
					r.StagesMs[name] = map[string]float64{"p50": pct(xs, 50), "p95": pct(xs, 95)}
				}
			}
		}
		if profileTo != "" {
			pprof.StopCPUProfile()
		}
		reportTail(r.Memories, mode, excl, stages)
		// The process's CPU over the timed searches, background work
		// included (access recording, related terms): what a search
		// costs a loaded server, which latency alone does not show.
		fmt.Fprintf(os.Stderr, "# %d memories, %s: %.2f ms of CPU per search (%.2f cores busy)\n", r.Memories, mode,
			ms(cpuTime()-cpu0)/float64(len(qs)), (cpuTime()-cpu0).Seconds()/time.Since(began).Seconds())
		r.SearchMs[string(mode)] = map[string]float64{
			"p50": pct(excl, 50), "p95": pct(excl, 95), "p99": pct(excl, 99),
			"p50_total": pct(total, 50), "p95_total": pct(total, 95), "p99_total": pct(total, 99),
		}
	}
	return nil
}

// reportTail prints, for one mode, each stage's p50 and p95 and its mean
// over all searches and over the slowest 5% (by latency without the
// query's embedding): where the tail's time goes.
func reportTail(memories int, mode service.Mode, lat []float64, stages map[string][]float64) {
	cut := pct(lat, 95)
	names := slices.Sorted(maps.Keys(stages))
	fmt.Fprintf(os.Stderr, "# %d memories, %s: stage ms p50 / p95 / mean / mean of the searches above p95 (%.2f ms)\n", memories, mode, cut)
	for _, name := range names {
		xs := stages[name]
		if len(xs) != len(lat) {
			continue // a stage not every search ran
		}
		var all, tail float64
		var n int
		for i, x := range xs {
			all += x
			if lat[i] > cut {
				tail += x
				n++
			}
		}
		fmt.Fprintf(os.Stderr, "#   %-28s %7.3f %7.3f %7.3f %7.3f\n", name, pct(xs, 50), pct(xs, 95), all/float64(len(xs)), tail/float64(max(n, 1)))
	}
}

// printResult prints r's rows of the table and its hybrid stages.
func printResult(r Result, createRate float64) {
	for i, mode := range []string{"keyword", "semantic", "hybrid", string(modeHybridKnowledge), "full", string(modeRerank), "terms", "prefetch"} {
		s, ok := r.SearchMs[mode]
		if !ok {
			continue
		}
		size, rate := "", ""
		if i == 0 {
			size, rate = strconv.Itoa(r.Memories), fmt.Sprintf("%.0f", createRate)
		}
		fmt.Printf("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f |\n", size, rate, mode,
			s["p50"], s["p95"], s["p99"], s["p50_total"], s["p95_total"], s["p99_total"], r.RSSMiB, r.DiskBytesPer)
	}
	fmt.Printf("\nhybrid search stages at %d memories (ms; retrieve excludes embedding the query):\n\n", r.Memories)
	fmt.Println("| stage | p50 | p95 |")
	fmt.Println("|---|---:|---:|")
	for _, name := range []string{"embed query", "retrieve", "fuse", "load", "rerank", "expand", "record accesses"} {
		if name == "rerank" {
			if !withRerank {
				continue
			}
			fmt.Println("| *full+rerank:* |  |  |")
		}
		if st, ok := r.StagesMs[name]; ok {
			fmt.Printf("| %s | %.3f | %.3f |\n", name, st["p50"], st["p95"])
		}
	}
	fmt.Println()
}

// firstSearches is how many searches reportStartup times right after
// the start-up.
const firstSearches = 3

// reportStartup reports the start-up on an existing corpus of have
// memories: the store and the index (opened), then its vector graph
// (restored, or rebuilt without a snapshot), then the first searches in
// mode full, which a user makes right after a restart, before the
// process has counted or loaded anything for them (queries of another
// seed, so that the measured ones stay the same).
func reportStartup(ctx context.Context, b *server.Backend, caller memory.Caller, ann annIndex, have int, opened time.Duration, probeSeed uint64, k int) error {
	graph := time.Duration(0)
	if ann != nil {
		t0 := time.Now()
		if err := ann.WaitANN(ctx); err != nil {
			return err
		}
		graph = time.Since(t0)
	}
	fmt.Fprintf(os.Stderr, "# start-up on %d memories: open %s, vector graph ready %s later (RSS %.0f MiB: %.0f anonymous, %.0f of mapped files)\n",
		have, opened.Round(time.Millisecond), graph.Round(time.Millisecond), rssMiB(), statusMiB("RssAnon"), statusMiB("RssFile"))
	probe := synth.New(probeSeed)
	off := false
	var took []string
	for range firstSearches {
		t0 := time.Now()
		if _, err := b.Service.Search(ctx, caller, service.SearchRequest{Query: probe.Query(), Mode: service.ModeFull, K: k, Rerank: &off}); err != nil {
			return fmt.Errorf("first searches: %w", err)
		}
		took = append(took, fmt.Sprintf("%.1f", ms(time.Since(t0))))
	}
	fmt.Fprintf(os.Stderr, "# the first %d searches after the start-up (full): %s ms\n", firstSearches, strings.Join(took, ", "))
	// What the first searches set off in the background (a large org's
	// related-terms vocabulary and stored term vectors, its first BM25
	// counts), until it is done: the time and the process's CPU.
	t0, cpu0 := time.Now(), cpuTime()
	waitBackground(b)
	fmt.Fprintf(os.Stderr, "# their background work done %s later, %.1f s of CPU\n", time.Since(t0).Round(time.Millisecond), (cpuTime() - cpu0).Seconds())
	return nil
}

// waitBackground returns once the work searches set off in the
// background is done: the related-terms index loading a large org's
// vocabulary (and, with -warm, expanding what the warm-up queued), and a
// large org's first BM25 counts, which run beside the searches of a
// process that has just started.
func waitBackground(b *server.Backend) {
	if w, ok := relatedOf(b); ok {
		w.Wait()
	}
	if b.Extraction != nil {
		b.Extraction.Wait()
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// diskBytes is what the corpus takes on disk: the data directory, and the
// OpenSearch index's store when there is one.
func diskBytes(ctx context.Context, b *server.Backend, dir string) (int64, error) {
	disk := dirSize(dir)
	if b.OpenSearch != nil {
		n, err := b.OpenSearch.StoreBytes(ctx)
		if err != nil {
			return 0, err
		}
		disk += n
	}
	return disk, nil
}

// profileOf is the file of mode's CPU profile (-cpuprofile): the path as
// given when one mode is measured, else the path with "-" and the mode's
// name appended; "" without -cpuprofile.
func profileOf(mode service.Mode) string {
	if profileTo == "" || len(modes) == 1 {
		return profileTo
	}
	return profileTo + "-" + string(mode)
}

// startProfile starts the CPU profile into the file path names, if any.
func startProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return pprof.StartCPUProfile(f)
}

// accessWindow is -access-window: negative leaves ACCESS_WINDOW's.
var accessWindow time.Duration

// benchConfig is the configuration from the environment (EMBEDDER,
// MODEL_DIR, ...) with the embedded store in dir, or when dir is empty in
// a new temporary directory that done removes.
func benchConfig(dir string) (_ config.Config, done func(), _ error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return cfg, nil, err
	}
	done = func() {}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bench-latency-"); err != nil {
			return cfg, nil, err
		}
		tmp := dir
		done = func() { os.RemoveAll(tmp) }
	}
	cfg.DataDir, cfg.Store.Backend = dir, config.BackendEmbedded
	if accessWindow >= 0 {
		cfg.Service.AccessWindow = accessWindow
	}
	return cfg, done, nil
}
