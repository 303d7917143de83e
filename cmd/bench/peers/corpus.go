package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/synth"
	"github.com/agentmem/agentmem/internal/vecdot"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/embed/onnx"
	"github.com/agentmem/agentmem/pkg/memory"
)

// The files of one size's corpus, in its directory. corpus.json is written
// last: a directory without it is incomplete and is rebuilt.
const (
	fileDocs         = "docs.txt"          // one text a line; line i is memory i
	fileVectors      = "vectors.npy"       // n × dims float32, unit length
	fileQueries      = "queries.txt"       // one query a line
	fileQueryVectors = "query_vectors.npy" // queries × dims float32, unit length
	fileTruthIDs     = "truth_ids.npy"     // queries × k int64: the exact top k by cosine, best first
	fileTruthScores  = "truth_scores.npy"  // queries × k float32: their cosines
	fileCorpusMeta   = "corpus.json"
)

// corpusFormat changes when the files or their generation change.
const corpusFormat = 1

// corpusMeta describes a corpus directory.
type corpusMeta struct {
	Format   int    `json:"format"`
	Seed     uint64 `json:"seed"`
	Size     int    `json:"size"`
	Queries  int    `json:"queries"`
	K        int    `json:"k"`
	Dims     int    `json:"dims"`
	Embedder string `json:"embedder"`
	// BuildSeconds and TruthSeconds are the time to generate and embed the
	// texts and to compute the exact top k of every query.
	BuildSeconds float64 `json:"buildSeconds"`
	TruthSeconds float64 `json:"truthSeconds"`
}

// corpusEmbedder returns the embedder of a corpus: the hashing embedder of
// dims dimensions, or with model the offline model of MODEL_DIR, which
// fails rather than fall back: a deployment's graph holds a model's
// vectors, not sums of hashed words. (On these synthetic texts the graph
// finds as little on either: docs/benchmarks.md, "A wider graph".)
func corpusEmbedder(model bool, dims int) (memory.Embedder, error) {
	if !model {
		return hashing.New(dims), nil
	}
	cfg, err := config.LoadEmbedder(os.Getenv)
	if err != nil {
		return nil, err
	}
	return onnx.Open(cfg.ModelDir)
}

// buildCorpus writes the corpus of want into dir with emb, unless dir
// already holds it. The texts are the memories of internal/synth for
// want.Seed (the generator of bench-latency), the queries are drawn after
// them, and the vectors are emb's (the queries' as queries).
func buildCorpus(ctx context.Context, dir string, emb memory.Embedder, want corpusMeta) (corpusMeta, error) {
	if b, err := os.ReadFile(filepath.Join(dir, fileCorpusMeta)); err == nil {
		var have corpusMeta
		if json.Unmarshal(b, &have) == nil && have.Format == want.Format && have.Seed == want.Seed &&
			have.Size == want.Size && have.Queries == want.Queries && have.K == want.K && have.Dims == want.Dims &&
			have.Embedder == want.Embedder {
			slog.Info("corpus: reusing", "dir", dir, "memories", have.Size)
			return have, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return want, err
	}
	os.Remove(filepath.Join(dir, fileCorpusMeta))
	t0 := time.Now()
	gen := synth.New(want.Seed)
	texts := func(n int, next func(i int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = next(i)
		}
		return out
	}
	docs := texts(want.Size, func(i int) string { return gen.Memory(i).Text })
	queries := texts(want.Queries, func(int) string { return gen.Query() })
	for _, t := range append(slices.Clip(docs), queries...) {
		if strings.ContainsAny(t, "\r\n") {
			return want, fmt.Errorf("corpus: text %q spans lines", t)
		}
	}
	docVecs, err := embedAll(ctx, emb, docs, want.Dims, memory.PurposeDocument)
	if err != nil {
		return want, err
	}
	queryVecs, err := embedAll(ctx, emb, queries, want.Dims, memory.PurposeQuery)
	if err != nil {
		return want, err
	}
	if err := writeLines(filepath.Join(dir, fileDocs), docs); err != nil {
		return want, err
	}
	if err := writeLines(filepath.Join(dir, fileQueries), queries); err != nil {
		return want, err
	}
	if err := writeMatrix(filepath.Join(dir, fileVectors), docVecs, want.Dims); err != nil {
		return want, err
	}
	if err := writeMatrix(filepath.Join(dir, fileQueryVectors), queryVecs, want.Dims); err != nil {
		return want, err
	}
	want.BuildSeconds = time.Since(t0).Seconds()
	slog.Info("corpus: texts and vectors written", "dir", dir, "memories", want.Size, "seconds", want.BuildSeconds)

	t0 = time.Now()
	ids, scores := exactTopK(docVecs, queryVecs, want.Dims, want.K)
	want.TruthSeconds = time.Since(t0).Seconds()
	slog.Info("corpus: exact top k computed", "queries", want.Queries, "k", want.K, "seconds", want.TruthSeconds)
	if err := writeTruth(dir, ids, scores, want.K); err != nil {
		return want, err
	}
	b, _ := json.MarshalIndent(want, "", "  ")
	return want, os.WriteFile(filepath.Join(dir, fileCorpusMeta), append(b, '\n'), 0o644)
}

// embedAll embeds texts for purpose on every core into one row-major matrix.
func embedAll(ctx context.Context, emb memory.Embedder, texts []string, dims int, purpose memory.Purpose) ([]float32, error) {
	out := make([]float32, len(texts)*dims)
	const chunk = 1024
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for from := range next {
				to := min(from+chunk, len(texts))
				vs, err := emb.Embed(ctx, texts[from:to], purpose)
				if err == nil && len(vs) != to-from {
					err = errors.New("embedder: wrong number of vectors")
				}
				for i, v := range vs {
					if err == nil && len(v) != dims {
						err = fmt.Errorf("embedder: %d dimensions, want %d", len(v), dims)
					}
					if err == nil {
						copy(out[(from+i)*dims:], v)
					}
				}
				if err != nil {
					mu.Lock()
					first = errors.Join(first, err)
					mu.Unlock()
				}
			}
		}()
	}
	for from := 0; from < len(texts); from += chunk {
		next <- from
	}
	close(next)
	wg.Wait()
	return out, first
}

// exactTopK returns, for each query, the ids (row numbers) of the k rows
// of docs with the highest inner product, best first (ties by lower id),
// and those products: the cosines, the vectors being unit length. Each
// core takes blocks of rows and scores every query against a block while
// it is in cache; the cores' lists are merged at the end.
func exactTopK(docs, queries []float32, dims, k int) ([][]int64, [][]float32) {
	n, nq := len(docs)/dims, len(queries)/dims
	const block = 512
	workers := runtime.GOMAXPROCS(0)
	tops := make([][]topK, workers)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := range workers {
		tops[w] = make([]topK, nq)
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := tops[w]
			for from := range next {
				to := min(from+block, n)
				for q := range nq {
					qv := queries[q*dims : (q+1)*dims]
					for i := from; i < to; i++ {
						mine[q].offer(k, scoredID{int64(i), vecdot.Float32(qv, docs[i*dims:(i+1)*dims])})
					}
				}
			}
		}()
	}
	for from := 0; from < n; from += block {
		next <- from
	}
	close(next)
	wg.Wait()
	ids, scores := make([][]int64, nq), make([][]float32, nq)
	for q := range nq {
		var all topK
		for w := range workers {
			for _, s := range tops[w][q] {
				all.offer(k, s)
			}
		}
		ids[q], scores[q] = make([]int64, len(all)), make([]float32, len(all))
		for j, t := range all {
			ids[q][j], scores[q][j] = t.id, t.score
		}
	}
	return ids, scores
}

// topK is a best-first list of at most k scored ids.
type topK []scoredID

// offer inserts s if it is among the k best.
func (t *topK) offer(k int, s scoredID) {
	l := *t
	if len(l) == k && !better(s, l[k-1]) {
		return
	}
	at := len(l)
	for at > 0 && better(s, l[at-1]) {
		at--
	}
	l = slices.Insert(l, at, s)
	if len(l) > k {
		l = l[:k]
	}
	*t = l
}

type scoredID struct {
	id    int64
	score float32
}

// better orders by score, then by lower id.
func better(a, b scoredID) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

func writeLines(path string, lines []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readLines reads a file of one entry a line.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	err = eachLine(f, func(s string) error { out = append(out, s); return nil })
	return out, err
}

// eachLine calls fn with each line of r, without its newline.
func eachLine(r io.Reader, fn func(string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if err := fn(sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}

func writeMatrix(path string, m []float32, dims int) error {
	w, err := createNPY(path, "<f4", len(m)/dims, dims)
	if err != nil {
		return err
	}
	for i := 0; i < len(m); i += dims {
		if err := w.Float32s(m[i : i+dims]); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

func writeTruth(dir string, ids [][]int64, scores [][]float32, k int) error {
	wi, err := createNPY(filepath.Join(dir, fileTruthIDs), "<i8", len(ids), k)
	if err != nil {
		return err
	}
	ws, err := createNPY(filepath.Join(dir, fileTruthScores), "<f4", len(ids), k)
	if err != nil {
		wi.Close()
		return err
	}
	for q := range ids {
		if len(ids[q]) != k {
			err = fmt.Errorf("corpus: query %d has %d exact neighbours, fewer than k = %d", q, len(ids[q]), k)
		}
		if err == nil {
			err = wi.Int64s(ids[q])
		}
		if err == nil {
			err = ws.Float32s(scores[q])
		}
	}
	return errors.Join(err, wi.Close(), ws.Close())
}

// readTruth reads the exact top k of every query.
func readTruth(dir string) ([][]int64, error) {
	r, err := openNPY(filepath.Join(dir, fileTruthIDs))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := make([][]int64, r.rows)
	for q := range out {
		out[q] = make([]int64, r.cols)
		if err := r.Int64s(out[q]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readMatrix reads a whole float32 .npy matrix, one slice a row.
func readMatrix(path string) ([][]float32, error) {
	r, err := openNPY(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := make([][]float32, r.rows)
	for i := range out {
		out[i] = make([]float32, r.cols)
		if err := r.Float32s(out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
