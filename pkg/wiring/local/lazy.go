package local

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/onnx"
	"github.com/agentmem/agentmem/pkg/memory"
)

// lazyONNX is the offline model opened in the background: creating its
// ONNX Runtime session takes about a second (more on a busy machine),
// which the server need not wait for to answer, least of all during a
// model change. Its name and dimensions are constants; the first
// embedding waits for the session.
type lazyONNX struct {
	ready chan struct{}
	e     *onnx.Embedder
	err   error
	once  sync.Once
}

// openLazy starts opening the model of dir; the files must be there
// (onnx.Missing is empty).
func openLazy(dir string, log *slog.Logger) *lazyONNX {
	l := &lazyONNX{ready: make(chan struct{})}
	go func() {
		defer close(l.ready)
		start := time.Now()
		l.e, l.err = onnx.Open(dir)
		if l.err != nil {
			log.Error("the embedding model failed to load: writes and semantic searches fail until it is fixed",
				"model_dir", dir, "err", l.err)
			return
		}
		log.Info("embedding model loaded", "model", onnx.Model, "ms", time.Since(start).Milliseconds())
	}()
	return l
}

// Embed implements memory.Embedder, once the model is loaded.
func (l *lazyONNX) Embed(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	select {
	case <-l.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if l.err != nil {
		return nil, fmt.Errorf("%w: %v", onnx.ErrUnavailable, l.err)
	}
	return l.e.Embed(ctx, texts, p)
}

// Dimensions implements memory.Embedder.
func (l *lazyONNX) Dimensions() int { return onnx.Dimensions }

// Model implements memory.Embedder.
func (l *lazyONNX) Model() string { return onnx.Model }

// Close waits for the model to load, then releases it.
func (l *lazyONNX) Close() error {
	<-l.ready
	var err error
	l.once.Do(func() {
		if l.e != nil {
			err = l.e.Close()
		}
	})
	return err
}
