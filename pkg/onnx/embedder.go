//go:build cgo

package onnx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wordpiece"
	ort "github.com/yalue/onnxruntime_go"
)

// Embedder runs the model. It is safe for concurrent use; calls run one at
// a time, each using every core.
type Embedder struct {
	tok  *wordpiece.Tokenizer
	sess *ort.DynamicAdvancedSession
	mu   sync.Mutex
	// MaxBatchTokens bounds a padded batch's size (sequences × length). At
	// 0, the default, every text runs alone. The int8 export quantizes
	// activations per tensor, over the whole batch, so a text run in a
	// padded batch gets a vector that depends on its batch-mates (cosine
	// about 0.995 with itself run alone). Alone, vectors are reproducible:
	// a rebuild, a retry or a re-ingestion gives the same vector, and the
	// model still embeds about 400 short texts or 65 fragments of 1,000
	// characters per second on two cores (840 and 80 in padded batches of
	// 8,192 tokens; cmd/bench-embed).
	MaxBatchTokens int
}

var _ memory.Embedder = (*Embedder)(nil)

var (
	envOnce sync.Once
	envErr  error
	envLib  string
)

// Open loads the model in dir (model.onnx, vocab.txt, libonnxruntime.so).
func Open(dir string) (*Embedder, error) {
	if m := Missing(dir); len(m) > 0 {
		return nil, fmt.Errorf("%w: %v missing in %s (run scripts/models.sh fetch)", ErrUnavailable, m, dir)
	}
	lib := filepath.Join(dir, RuntimeFile)
	envOnce.Do(func() {
		envLib = lib
		ort.SetSharedLibraryPath(lib)
		envErr = ort.InitializeEnvironment()
	})
	if envErr != nil {
		return nil, fmt.Errorf("%w: loading ONNX Runtime from %s: %v", ErrUnavailable, envLib, envErr)
	}
	f, err := os.Open(filepath.Join(dir, VocabFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tok, err := wordpiece.Load(f)
	if err != nil {
		return nil, err
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(runtime.GOMAXPROCS(0)); err != nil {
		return nil, err
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, err
	}
	sess, err := ort.NewDynamicAdvancedSession(filepath.Join(dir, ModelFile),
		[]string{"input_ids", "attention_mask", "token_type_ids"}, []string{"last_hidden_state"}, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return &Embedder{tok: tok, sess: sess}, nil
}

// Close releases the session.
func (e *Embedder) Close() error { return e.sess.Destroy() }

// Dimensions implements memory.Embedder.
func (e *Embedder) Dimensions() int { return Dimensions }

// Model implements memory.Embedder.
func (e *Embedder) Model() string { return Model }

// Tokenize returns the model's input ids for text as p embeds it (a query
// carries QueryInstruction).
func (e *Embedder) Tokenize(text string, p memory.Purpose) []int32 {
	if p == memory.PurposeQuery {
		text = QueryInstruction + text
	}
	return e.tok.Encode(text, MaxTokens)
}

// Embed implements memory.Embedder. Texts are tokenized (queries after
// QueryInstruction) and run alone or, with MaxBatchTokens, sorted by
// length in batches padded to their longest sequence; each vector is the
// final state of the [CLS] token, scaled to unit length.
func (e *Embedder) Embed(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	seqs := make([][]int32, len(texts))
	order := make([]int, len(texts))
	for i, t := range texts {
		seqs[i] = e.Tokenize(t, p)
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(seqs[order[a]]) < len(seqs[order[b]]) })
	out := make([][]float32, len(texts))
	for start := 0; start < len(order); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Grow the batch while its padded size stays within the budget.
		end := start + 1
		for end < len(order) && (end-start+1)*len(seqs[order[end]]) <= e.MaxBatchTokens {
			end++
		}
		batch := order[start:end]
		vecs, err := e.run(seqs, batch)
		if err != nil {
			return nil, err
		}
		for j, i := range batch {
			out[i] = vecs[j]
		}
		start = end
	}
	return out, nil
}

func (e *Embedder) run(seqs [][]int32, batch []int) ([][]float32, error) {
	n := 0
	for _, i := range batch {
		n = max(n, len(seqs[i]))
	}
	b := len(batch)
	ids := make([]int64, b*n)
	mask := make([]int64, b*n)
	types := make([]int64, b*n)
	pad := int64(e.tok.Pad())
	for j, i := range batch {
		for k := 0; k < n; k++ {
			if k < len(seqs[i]) {
				ids[j*n+k], mask[j*n+k] = int64(seqs[i][k]), 1
			} else {
				ids[j*n+k] = pad
			}
		}
	}
	shape := ort.NewShape(int64(b), int64(n))
	tIDs, err := ort.NewTensor(shape, ids)
	if err != nil {
		return nil, err
	}
	defer tIDs.Destroy()
	tMask, err := ort.NewTensor(shape, mask)
	if err != nil {
		return nil, err
	}
	defer tMask.Destroy()
	tTypes, err := ort.NewTensor(shape, types)
	if err != nil {
		return nil, err
	}
	defer tTypes.Destroy()
	outT, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(b), int64(n), Dimensions))
	if err != nil {
		return nil, err
	}
	defer outT.Destroy()
	e.mu.Lock()
	err = e.sess.Run([]ort.Value{tIDs, tMask, tTypes}, []ort.Value{outT})
	e.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("onnx: run: %w", err)
	}
	h := outT.GetData()
	vecs := make([][]float32, b)
	for j := range batch {
		// [CLS] is each sequence's first token.
		v := make([]float32, Dimensions)
		copy(v, h[j*n*Dimensions:])
		memory.Normalize(v)
		vecs[j] = v
	}
	return vecs, nil
}
