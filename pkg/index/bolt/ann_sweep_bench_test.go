package bolt

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/agentmem/agentmem/internal/hugepage"
	"github.com/agentmem/agentmem/pkg/memory"
	"go.etcd.io/bbolt"
)

// BenchmarkANNSweep measures the graph's recall-against-latency curve on a
// bench-peers corpus (the hashing embedder's vectors, which are hard for a
// graph: no clusters, high intrinsic dimensionality): it loads the
// corpus's vectors.npy into one org, builds the graph once (ANN_M and
// ANN_EFC override DefaultANN), then for each efSearch of ANN_SWEEP
// (default 32,64,128,256,512) runs the corpus's queries (query_vectors.npy)
// and reports p50/p95 and recall@10 against the corpus's exact top 10
// (truth_ids.npy), and the same for the exact scan (ANN_WARM=1 maps every
// stored memory first, see warmDocs; ANN_HUGE_AB=1 sweeps on small pages,
// then again with the graph's arrays on huge pages). It skips without
// ANN_CORPUS, the directory of one size (cmd/bench/peers -dir D writes
// D/<size>):
//
//	ANN_CORPUS=D/n100000 go test -run '^$' -bench ANNSweep -benchtime 1x -timeout 30m ./pkg/index/bolt
func BenchmarkANNSweep(b *testing.B) {
	dir := os.Getenv("ANN_CORPUS")
	if dir == "" {
		b.Skip("ANN_CORPUS unset: the directory of a bench-peers corpus")
	}
	docs, dims, err := readNPYFloat32(filepath.Join(dir, "vectors.npy"))
	if err != nil {
		b.Fatal(err)
	}
	queries, _, err := readNPYFloat32(filepath.Join(dir, "query_vectors.npy"))
	if err != nil {
		b.Fatal(err)
	}
	truth, k, err := readNPYInt64(filepath.Join(dir, "truth_ids.npy"))
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultANN
	for env, p := range map[string]*int{"ANN_M": &cfg.M, "ANN_EFC": &cfg.EfConstruction} {
		if s := os.Getenv(env); s != "" {
			if *p, err = strconv.Atoi(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	// ANN_KEEP_PRUNED=0|1 and ANN_L0=m|m0 set the neighbour selection's
	// knobs (hnsw.go).
	if os.Getenv("ANN_KEEP_PRUNED") != "" {
		defer func(k bool) { keepPruned = k }(keepPruned)
		keepPruned = os.Getenv("ANN_KEEP_PRUNED") == "1"
	}
	if s := os.Getenv("ANN_L0"); s != "" {
		defer func(f func(*hnsw) int) { layer0Links = f }(layer0Links)
		switch s {
		case "m":
			layer0Links = func(g *hnsw) int { return g.m }
		case "m0":
			layer0Links = func(g *hnsw) int { return g.m0 }
		default:
			b.Fatalf("ANN_L0=%q: m or m0", s)
		}
	}
	// ANN_HUGE_AB=1 measures the sweep on small pages, then on huge ones
	// (adviseHuge), on the same built graph.
	hugeAB := os.Getenv("ANN_HUGE_AB") == "1"
	defer func(m int) { hugeMin = m }(hugeMin)
	if hugeAB {
		hugeMin = math.MaxInt
	}
	b.Logf("neighbour selection: keepPruned %v, layer-0 links of a new node %d of %d", keepPruned, layer0Links(newHNSW(cfg)), 2*cfg.M)
	efs := []int{32, 64, 128, 256, 512}
	if s := os.Getenv("ANN_SWEEP"); s != "" {
		efs = efs[:0]
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			efs = append(efs, n)
		}
	}
	ctx := context.Background()
	ix, _, err := Open(b.TempDir(), "sweep", dims)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ix.SetANN(ANNConfig{Threshold: -1})
	n := len(docs) / dims
	var texts []string // with ANN_TEXT=1, the memories' texts too (docs.txt), for the keyword index's share of memory
	if os.Getenv("ANN_TEXT") == "1" {
		f, err := os.Open(filepath.Join(dir, "docs.txt"))
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			texts = append(texts, sc.Text())
		}
		f.Close()
	}
	rss0 := rss()
	batch := make([]*memory.Memory, 0, 1000)
	for i := range n {
		m := &memory.Memory{ID: strconv.Itoa(i), OrgID: "org", Type: memory.TypeFact, Embedding: docs[i*dims : (i+1)*dims]}
		if i < len(texts) {
			m.Content = memory.Content{Text: texts[i]}
		}
		batch = append(batch, m)
		if len(batch) == cap(batch) || i == n-1 {
			if err := ix.Upsert(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	docs, texts = nil, nil // the index holds them now; let the collector have the corpus's copy
	start, cpu0 := time.Now(), cpuTime()
	ix.SetANN(cfg)
	if err := ix.WaitANN(ctx); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.Logf("%d vectors of %d dimensions, %d queries: graph (M %d, efConstruction %d) built in %s, %s of CPU; heap %d MiB; load average %s",
		n, dims, len(queries)/dims, cfg.M, cfg.EfConstruction, time.Since(start).Round(time.Millisecond),
		(cpuTime() - cpu0).Round(time.Millisecond), ms.HeapAlloc>>20, loadAverage())
	b.Logf("resident set +%d MiB over the loaded corpus (%d B per memory); Go heap in use %d MiB (%d B per memory), of which the index's structures:",
		(rss()-rss0)>>20, (rss()-rss0)/n, ms.HeapInuse>>20, int(ms.HeapInuse)/n)
	for _, part := range footprint(ix.orgs["org"]) {
		b.Logf("| %s | %d | %.1f |", part.name, part.bytes/n, float64(part.bytes)/float64(ms.HeapInuse)*100)
	}
	if g := ix.orgs["org"].graph; g != nil {
		edges, nodes := 0, 0
		for ord, l := range g.level {
			if l >= 0 {
				nodes++
				edges += int(g.n0[ord])
			}
		}
		b.Logf("layer 0: %d nodes, %.1f neighbours each on average (at most %d)", nodes, float64(edges)/float64(max(nodes, 1)), g.m0)
	}
	measure := func(name string) {
		var ds []time.Duration
		hit := 0
		nq := len(queries) / dims
		for i := -20; i < nq; i++ { // 20 untimed first
			qi := (i + nq) % nq
			q := memory.IndexQuery{Filter: memory.Filter{OrgID: "org"}, Vector: queries[qi*dims : (qi+1)*dims], K: k}
			t0 := time.Now()
			res, err := ix.Search(ctx, q)
			d := time.Since(t0)
			if err != nil {
				b.Fatal(err)
			}
			if i < 0 {
				continue
			}
			ds = append(ds, d)
			want := truth[qi*k : (qi+1)*k]
			for _, h := range res.Semantic {
				id, _ := strconv.ParseInt(h.ID, 10, 64)
				for _, w := range want {
					if w == id {
						hit++
						break
					}
				}
			}
		}
		recall := float64(hit) / float64(nq*k)
		b.Logf("| %s | %.3f | %.2f | %.2f |", name, recall, ms2(pct(ds, 50)), ms2(pct(ds, 95)))
		b.ReportMetric(recall, strings.ReplaceAll(name, " ", "-")+"-recall")
	}
	if os.Getenv("ANN_WARM") == "1" {
		warmDocs(b, ix)
	}
	sweep := func(pages string) {
		b.Logf("| walk (%s) | recall@10 vs exact | p50 ms | p95 ms |", pages)
		for _, ef := range efs {
			ix.mu.Lock()
			ix.ann.EfSearch = ef
			ix.mu.Unlock()
			measure(fmt.Sprintf("efSearch %d", ef))
		}
	}
	if !hugeAB {
		sweep("as built")
	} else {
		// The same graph, built on small pages, then put on huge ones (a
		// huge page cannot be split back on demand: one order only, after
		// ANN_WARM=1 so that the first sweep pays for no cold page).
		sweep("small pages")
		hugeMin = hugepage.Min
		ix.mu.RLock()
		o := ix.orgs["org"]
		ix.mu.RUnlock()
		ix.adviseHuge("org", o)
		sweep("huge pages")
	}
	if os.Getenv("ANN_AB") == "1" {
		releaseAB(b, ix, measure)
	}
	ix.mu.Lock()
	ix.ann.Threshold = -1
	ix.mu.Unlock()
	measure("exact scan")
	b.Logf("load average %s", loadAverage())
}

// warmDocs (ANN_WARM=1 in BenchmarkANNSweep) reads every stored memory
// once before the searches, so that the re-score's reads find the index
// file's pages mapped, as in a server that has run a while, instead of
// paying a fault on each page the first time a query's candidates land on
// it. Without it the first width measured pays for the pages its queries
// touch first, and a width measured again pays for nothing, its queries'
// pages being mapped by then: neither is a server's steady state.
func warmDocs(b *testing.B, ix *Index) {
	start := time.Now()
	var n, sum int
	err := ix.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketDocs).ForEach(func(_, v []byte) error {
			n++
			for i := 0; i < len(v); i += 512 {
				sum += int(v[i])
			}
			return nil
		})
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("warmed: read %d stored memories in %s (checksum %d)", n, time.Since(start).Round(time.Millisecond), sum&0xff)
}

// releaseAB (ANN_AB=1 in BenchmarkANNSweep) measures what the resident
// set's two knobs cost the graph's searches, in one process on one built
// graph, so that the machine's load weighs on every arm alike: the soft
// memory limit (debug.SetMemoryLimit at 1.15 times the live heap, as
// docs/operations.md advises for GOMEMLIMIT) and the re-score's release of
// its pages (ReleasePages), each on and off, in three rounds of the
// four arms, at the index's default width, with the resident set (anon
// and file) after each block.
func releaseAB(b *testing.B, ix *Index, measure func(string)) {
	ix.mu.Lock()
	ix.ann.EfSearch = DefaultANN.EfSearch
	ix.mu.Unlock()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := int64(float64(ms.HeapAlloc) * 1.15)
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer ix.ReleasePages(false)
	b.Logf("A/B: live heap %d MiB, soft limit %d MiB when on; load average %s", ms.HeapAlloc>>20, limit>>20, loadAverage())
	b.Logf("| arm | recall@10 vs exact | p50 ms | p95 ms |")
	for round := 1; round <= 3; round++ {
		for _, arm := range []struct{ limit, release bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			if arm.limit {
				debug.SetMemoryLimit(limit)
			} else {
				debug.SetMemoryLimit(math.MaxInt64)
			}
			ix.ReleasePages(arm.release)
			measure(fmt.Sprintf("round %d: limit %v, release %v", round, arm.limit, arm.release))
			b.Logf("  resident after it: anon %d MiB, file %d MiB", statusKB("RssAnon")>>10, statusKB("RssFile")>>10)
		}
	}
	b.Logf("A/B done; load average %s", loadAverage())
}

// statusKB is a kB field of /proc/self/status (Linux), 0 when unknown.
func statusKB(field string) int {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field+":" {
			kb, _ := strconv.Atoi(f[1])
			return kb
		}
	}
	return 0
}

func ms2(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

var npyShape = regexp.MustCompile(`'shape': \((\d+), (\d+)\)`)

// readNPY reads the header of a 2-D .npy file of descr and returns a
// reader at its data, its rows and its columns.
func readNPY(path, descr string) (*bufio.Reader, *os.File, int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	head := make([]byte, 10)
	if _, err := io.ReadFull(r, head); err != nil {
		f.Close()
		return nil, nil, 0, 0, err
	}
	dict := make([]byte, binary.LittleEndian.Uint16(head[8:]))
	if _, err := io.ReadFull(r, dict); err != nil {
		f.Close()
		return nil, nil, 0, 0, err
	}
	m := npyShape.FindSubmatch(dict)
	if string(head[:6]) != "\x93NUMPY" || m == nil || !strings.Contains(string(dict), descr) {
		f.Close()
		return nil, nil, 0, 0, fmt.Errorf("%s: not a 2-D %s .npy file", path, descr)
	}
	rows, _ := strconv.Atoi(string(m[1]))
	cols, _ := strconv.Atoi(string(m[2]))
	return r, f, rows, cols, nil
}

func readNPYFloat32(path string) ([]float32, int, error) {
	r, f, rows, cols, err := readNPY(path, "<f4")
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	out := make([]float32, rows*cols)
	buf := make([]byte, 4)
	for i := range out {
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, 0, err
		}
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf))
	}
	return out, cols, nil
}

func readNPYInt64(path string) ([]int64, int, error) {
	r, f, rows, cols, err := readNPY(path, "<i8")
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	out := make([]int64, rows*cols)
	buf := make([]byte, 8)
	for i := range out {
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, 0, err
		}
		out[i] = int64(binary.LittleEndian.Uint64(buf))
	}
	return out, cols, nil
}

// footprint is the bytes of one org's in-memory index by part, from the
// lengths and capacities of its structures (slice backing arrays at their
// capacity, strings at their length rounded up to 8, maps at an estimated
// 1.5× their entries' size for buckets, overflow and load factor).
func footprint(o *orgIndex) []struct {
	name  string
	bytes int
} {
	str := func(s string) int { return (len(s) + 7) / 8 * 8 }
	var ids, pos, terms, post, dict, meta int
	for _, id := range o.ids {
		ids += 16 + str(id)
	}
	pos = len(o.pos) * (16 + 4 + 4) * 3 / 2
	terms = 4*cap(o.termIDs) + 4*cap(o.termEnd)
	for _, p := range o.postings {
		post += int(unsafe.Sizeof(p)) + 4*cap(p.docs) + 2*cap(p.tfs)
	}
	for w := range o.dict {
		dict += str(w) + (16+4+4)*3/2
	}
	dict += 4 * cap(o.df)
	meta = 4*cap(o.metaOf) + 24*cap(o.metas)
	for _, m := range o.metas {
		for _, s := range m {
			meta += 16 + str(s)
		}
	}
	attrs := 4*cap(o.class) + 8*cap(o.created) + int(unsafe.Sizeof([nrefs]uint32{}))*cap(o.refs) + 4*cap(o.length) + cap(o.hasVec)
	vecs := cap(o.q8) + int(unsafe.Sizeof(quant{}))*cap(o.quants)
	var graph int
	if g := o.graph; g != nil {
		graph = cap(g.level) + 4*cap(g.nb0) + cap(g.n0) + 4*cap(g.in0)
		for _, ls := range g.upper {
			graph += (4 + 8 + 24) * 3 / 2 // the map entry
			graph += 24 * cap(ls)
			for _, l := range ls {
				graph += 4 * cap(l)
			}
		}
	}
	return []struct {
		name  string
		bytes int
	}{
		{"keyword postings (docs and term frequencies)", post},
		{"terms of each memory (for document frequencies)", terms},
		{"term dictionary and document frequencies", dict},
		{"int8 vectors and their scales", vecs},
		{"graph (levels, layer-0 lists and in-degrees, upper layers)", graph},
		{"ids and the id → ordinal map", ids + pos},
		{"attributes (class, created, refs, length, hasVec)", attrs},
		{"metadata pairs", meta},
	}
}

// rss is the process's resident set in bytes (Linux), 0 when unknown.
func rss() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return kb << 10
		}
	}
	return 0
}
