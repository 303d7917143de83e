package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
)

// benchOrg is the one org the corpus goes into.
const benchOrg = "bench"

// oursOptions are the child's settings (-child ours).
type oursOptions struct {
	Corpus string // the corpus directory; the index goes in its "ours" subdirectory
	Out    string // the SystemResult JSON
	K      int
	Batch  int // memories per Upsert
	Warmup int // untimed queries before each mode
	// ReleaseSearch: searches release the bbolt pages they read
	// (bolt.Index.ReleasePages).
	ReleaseSearch bool
}

// runOurs measures the embedded index (index/bolt) on the corpus, opened
// directly: no store, no embedding at query time. It runs in its own
// process so that its resident memory is its own.
func runOurs(ctx context.Context, o oursOptions) error {
	res := SystemResult{System: "agentmem index/bolt"}
	var meta corpusMeta
	if b, err := os.ReadFile(filepath.Join(o.Corpus, fileCorpusMeta)); err != nil {
		return err
	} else if err := json.Unmarshal(b, &meta); err != nil {
		return err
	}
	dir := filepath.Join(o.Corpus, "ours")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	model := hashing.New(meta.Dims).Model()
	queries, err := readLines(filepath.Join(o.Corpus, fileQueries))
	if err != nil {
		return err
	}
	qvecs, err := readMatrix(filepath.Join(o.Corpus, fileQueryVectors))
	if err != nil {
		return err
	}
	if len(qvecs) != len(queries) {
		return fmt.Errorf("%d queries, %d query vectors", len(queries), len(qvecs))
	}
	res.LoadBefore = loadAverage()
	ix, _, err := bolt.Open(dir, model, meta.Dims)
	if err != nil {
		return err
	}
	defer func() {
		if ix != nil {
			ix.Close()
		}
	}()
	ix.ReleasePages(o.ReleaseSearch)
	ann := ix.ANN()
	res.Config = fmt.Sprintf("bbolt + in-memory BM25 (English analyzer: stop words, Porter stemmer) and int8 vectors with float32 re-rank; "+
		"HNSW past %d vectors: M %d, efConstruction %d, efSearch %d (%d at this size); Upsert batches of %d; hybrid: both lists at depth %d, fused by memory.Fuse (RRF k = %d)",
		ann.Threshold, ann.M, ann.EfConstruction, ann.EfSearch, bolt.SearchWidth(ann.EfSearch, meta.Size), o.Batch, o.K, memory.RRFK)
	res.Config += fmt.Sprintf("; searches release the pages they read: %v; %s", o.ReleaseSearch, goGC())
	base := resident("baseline")

	t0 := time.Now()
	n, err := ingestOurs(ctx, ix, o.Corpus, meta, model, o.Batch)
	if err != nil {
		return err
	}
	upsert := time.Since(t0)
	if err := ix.WaitANN(ctx); err != nil {
		return err
	}
	res.Memories, res.IngestSeconds = n, time.Since(t0).Seconds()
	res.IngestSteps = []Step{{"upsert", upsert.Seconds()}, {"graph after the last upsert", res.IngestSeconds - upsert.Seconds()}}
	res.Resident = append(res.Resident, resident("after the ingest").less(base))
	slog.Info("ours: ingested", "memories", n, "seconds", res.IngestSeconds, "graph_wait_seconds", res.IngestSeconds-upsert.Seconds())

	vectorName, hybridName := "vector (HNSW)", "hybrid (BM25 + HNSW, RRF)"
	if n < ann.Threshold {
		vectorName, hybridName = "vector (exact: below the HNSW threshold)", "hybrid (BM25 + exact, RRF; below the threshold)"
	}
	type mode struct {
		name, kind string
		exact      bool
		query      func(i int) ([]memory.Hit, error)
	}
	search := func(text string, vec []float32) (memory.IndexResult, error) {
		return ix.Search(ctx, memory.IndexQuery{Filter: memory.Filter{OrgID: benchOrg}, Text: text, Vector: vec, K: o.K})
	}
	keyword := func(i int) ([]memory.Hit, error) {
		r, err := search(queries[i], nil)
		return r.Keyword, err
	}
	vector := func(i int) ([]memory.Hit, error) {
		r, err := search("", qvecs[i])
		return r.Semantic, err
	}
	hybrid := func(i int) ([]memory.Hit, error) {
		r, err := search(queries[i], qvecs[i])
		if err != nil {
			return nil, err
		}
		fused := memory.Fuse(memory.RankedList{Name: "keyword", Hits: r.Keyword, Weight: 1},
			memory.RankedList{Name: "semantic", Hits: r.Semantic, Weight: 1})
		out := make([]memory.Hit, min(o.K, len(fused)))
		for j := range out {
			out[j] = memory.Hit{ID: fused[j].ID, Score: fused[j].Score}
		}
		return out, nil
	}
	modes := []mode{
		{"keyword (BM25)", KindKeyword, false, keyword},
		{vectorName, KindVector, false, vector},
		{hybridName, KindHybrid, false, hybrid},
		{"vector (exact scan)", KindVector, true, vector},
		{"hybrid (BM25 + exact, RRF)", KindHybrid, true, hybrid},
	}
	for _, m := range modes {
		if m.exact && n < ann.Threshold {
			continue // the rows above were exact already
		}
		if m.exact {
			ix.SetANN(bolt.ANNConfig{Threshold: -1})
		}
		r := Mode{Name: m.name, Kind: m.kind}
		if m.kind == KindHybrid {
			r.KeywordMode = modes[0].name
		}
		for i := range min(o.Warmup, len(queries)) {
			if _, err := m.query(i); err != nil {
				return err
			}
		}
		for i := range queries {
			t := time.Now()
			hs, err := m.query(i)
			d := time.Since(t)
			if err != nil {
				return fmt.Errorf("%s, query %d: %w", m.name, i, err)
			}
			ids := make([]int64, len(hs))
			for j, h := range hs {
				if ids[j], err = strconv.ParseInt(h.ID, 10, 64); err != nil {
					return fmt.Errorf("%s: id %q: %w", m.name, h.ID, err)
				}
			}
			r.LatenciesMs = append(r.LatenciesMs, float64(d.Nanoseconds())/1e6)
			r.IDs = append(r.IDs, ids)
		}
		res.Modes = append(res.Modes, r)
		slog.Info("ours: measured", "mode", m.name, "p95_ms", percentile(r.LatenciesMs, 95))
	}
	measureResident(&res, base)
	err = ix.Close() // writes the graph snapshot: part of what it keeps on disk
	ix = nil
	if err != nil {
		return err
	}
	res.DiskBytes = dirSize(dir)
	res.LoadAfter = loadAverage()
	b, _ := json.Marshal(res)
	return os.WriteFile(o.Out, b, 0o644)
}

// ingestOurs upserts the corpus's texts and vectors in batches, reading
// both files as it goes so that the input is never resident as a whole.
func ingestOurs(ctx context.Context, ix *bolt.Index, corpus string, meta corpusMeta, model string, batch int) (int, error) {
	vecs, err := openNPY(filepath.Join(corpus, fileVectors))
	if err != nil {
		return 0, err
	}
	defer vecs.Close()
	if vecs.cols != meta.Dims {
		return 0, fmt.Errorf("%s: %d columns, want %d", fileVectors, vecs.cols, meta.Dims)
	}
	f, err := os.Open(filepath.Join(corpus, fileDocs))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	floats := make([]float32, batch*meta.Dims)
	ms := make([]*memory.Memory, 0, batch)
	flush := func() error {
		err := ix.Upsert(ctx, ms)
		ms = ms[:0]
		return err
	}
	n := 0
	err = eachLine(f, func(text string) error {
		v := floats[len(ms)*meta.Dims : (len(ms)+1)*meta.Dims]
		if err := vecs.Float32s(v); err != nil {
			return fmt.Errorf("%s row %d: %w", fileVectors, n, err)
		}
		m := &memory.Memory{ID: strconv.Itoa(n), OrgID: benchOrg, Type: memory.TypeFact,
			Content: memory.Content{Text: text}, Embedding: v, EmbeddingModel: model}
		if m.KeywordText() != text {
			return fmt.Errorf("memory %d: the index would search %q, not the corpus's text", n, m.KeywordText())
		}
		ms = append(ms, m)
		n++
		if n%100_000 == 0 {
			slog.Info("ours: upserting", "memories", n)
		}
		if len(ms) == batch {
			return flush()
		}
		return nil
	})
	if err == nil && len(ms) > 0 {
		err = flush()
	}
	if err == nil && n != vecs.rows {
		err = fmt.Errorf("%d texts, %d vectors", n, vecs.rows)
	}
	return n, err
}

// procStatus reads one field of /proc/self/status in bytes (0 and false
// where there is none).
func procStatus(field string) (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// goGC states the Go collector's settings in effect (GOGC and GOMEMLIMIT,
// from the environment or their defaults).
func goGC() string {
	ss := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(ss)
	limit := "none"
	if l := ss[1].Value.Uint64(); l < math.MaxInt64 {
		limit = fmt.Sprintf("%d MiB", l>>20)
	}
	return fmt.Sprintf("Go GC: GOGC %d, GOMEMLIMIT %s", ss[0].Value.Uint64(), limit)
}

// measureResident sets res's resident set after the searches, its peak,
// and the resident set after a collection that returns the garbage's
// pages to the system, with the live heap: all less base.
func measureResident(res *SystemResult, base Resident) {
	after := resident("after the searches")
	hwm, _ := procStatus("VmHWM")
	res.RSSBytes, res.RSSPeakBytes = after.RSSBytes-base.RSSBytes, hwm-base.RSSBytes
	res.Resident = append(res.Resident, after.less(base))
	debug.FreeOSMemory() // a collection, and what the garbage held goes back to the system
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	collected := resident("after a collection").less(base)
	collected.LiveBytes = int64(ms.HeapAlloc)
	res.Resident = append(res.Resident, collected)
}

// resident reads the resident set's fields of /proc/self/status.
func resident(at string) Resident {
	rss, _ := procStatus("VmRSS")
	anon, _ := procStatus("RssAnon")
	file, _ := procStatus("RssFile")
	return Resident{At: at, RSSBytes: rss, AnonBytes: anon, FileBytes: file}
}

// less is r less the baseline's resident set.
func (r Resident) less(base Resident) Resident {
	r.RSSBytes -= base.RSSBytes
	r.AnonBytes -= base.AnonBytes
	r.FileBytes -= base.FileBytes
	return r
}

// loadAverage is the 1-minute load average (0 where unknown).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	x, _ := strconv.ParseFloat(f[0], 64)
	return x
}

// dirSize is the total size of the files under dir.
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
