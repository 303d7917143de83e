//go:build cgo

package onnx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/agentmem/agentmem/internal/wordpiece"
	"github.com/agentmem/agentmem/pkg/memory"
	ort "github.com/yalue/onnxruntime_go"
	"golang.org/x/sync/errgroup"
)

// Embedder runs the model. It is safe for concurrent use.
//
// Each text runs through the model alone, on one thread, and as many runs
// go at once as there are cores (GOMAXPROCS), shared by every caller. Alone,
// because the int8 export quantizes activations per tensor, over the whole
// batch: a text in a padded batch got a vector that depended on its
// batch-mates (cosine about 0.995 with itself alone), whereas alone a
// retry, a rebuild or a re-ingestion reproduces it exactly. One thread per
// run, because on inputs this small one-thread runs side by side keep the
// cores busier than one run split across them. On two cores: 788 short
// texts and 107 fragments of 1,000 characters per second, against 395 and
// 65 for one two-thread run at a time and 844 and 82 for padded batches of
// 8,192 tokens; a single query is as fast (cmd/bench-embed). The session
// allows concurrent runs: ONNX Runtime's Run is thread-safe, and
// onnxruntime_go's DynamicAdvancedSession is meant for it.
type Embedder struct {
	tok   *wordpiece.Tokenizer
	sess  *ort.DynamicAdvancedSession
	slots chan struct{} // one per concurrent run
}

var _ memory.Embedder = (*Embedder)(nil)

var (
	envOnce sync.Once
	envErr  error
	envLib  string
)

// Open loads the model in dir (model.onnx, vocab.txt, libonnxruntime.so).
// When a file or ONNX Runtime is missing the error wraps ErrUnavailable.
func Open(dir string) (_ *Embedder, err error) {
	defer func() {
		if err != nil && !errors.Is(err, ErrUnavailable) {
			err = fmt.Errorf("onnx: open %s: %w", dir, err)
		}
	}()
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
	if err := opts.SetIntraOpNumThreads(1); err != nil {
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
	return &Embedder{tok: tok, sess: sess, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}, nil
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

// Embed implements memory.Embedder. Each text is tokenized (a query after
// QueryInstruction) and run alone, several at once; its vector is the final
// state of the [CLS] token, scaled to unit length.
func (e *Embedder) Embed(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	out := make([][]float32, len(texts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cap(e.slots))
	for i, t := range texts {
		g.Go(func() error {
			select { // a slot of the process-wide limit
			case e.slots <- struct{}{}:
			case <-gctx.Done():
				return gctx.Err()
			}
			defer func() { <-e.slots }()
			if err := gctx.Err(); err != nil {
				return err
			}
			v, err := e.run(e.Tokenize(t, p))
			out[i] = v
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("onnx: embed %d texts: %w", len(texts), err)
	}
	return out, nil
}

// run embeds one token sequence.
func (e *Embedder) run(seq []int32) ([]float32, error) {
	n := len(seq)
	ids := make([]int64, n)
	mask := make([]int64, n)
	types := make([]int64, n)
	for k, id := range seq {
		ids[k], mask[k] = int64(id), 1
	}
	shape := ort.NewShape(1, int64(n))
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
	outT, err := ort.NewEmptyTensor[float32](ort.NewShape(1, int64(n), Dimensions))
	if err != nil {
		return nil, err
	}
	defer outT.Destroy()
	if err := e.sess.Run([]ort.Value{tIDs, tMask, tTypes}, []ort.Value{outT}); err != nil {
		return nil, fmt.Errorf("onnx: run: %w", err)
	}
	// [CLS] is the sequence's first token.
	v := make([]float32, Dimensions)
	copy(v, outT.GetData())
	memory.Normalize(v)
	return v, nil
}
