//go:build !cgo

package onnx

import (
	"context"
	"fmt"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Embedder is unavailable without cgo.
type Embedder struct{}

// Open reports that this build cannot run the model.
func Open(dir string) (*Embedder, error) {
	return nil, fmt.Errorf("%w: built without cgo", ErrUnavailable)
}

// Close implements io.Closer.
func (e *Embedder) Close() error { return nil }

// Dimensions implements memory.Embedder.
func (e *Embedder) Dimensions() int { return Dimensions }

// Model implements memory.Embedder.
func (e *Embedder) Model() string { return Model }

// Embed implements memory.Embedder.
func (e *Embedder) Embed(context.Context, []string, memory.Purpose) ([][]float32, error) {
	return nil, ErrUnavailable
}
