package memorytest

import (
	"context"
	"sync"

	"github.com/agentmem/agentmem/pkg/memory"
)

// RecordingEmbedder wraps an embedder and records the purpose of every
// call. With AsksDifferently, a question is embedded as another text than
// the same words stored ("question: " before it), as embedders with a
// query instruction do (bge-small), so a test can tell the two apart.
type RecordingEmbedder struct {
	memory.Embedder
	AsksDifferently bool

	mu       sync.Mutex
	purposes []memory.Purpose
}

// Embed implements memory.Embedder.
func (e *RecordingEmbedder) Embed(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	e.mu.Lock()
	e.purposes = append(e.purposes, p)
	e.mu.Unlock()
	if e.AsksDifferently && p == memory.PurposeQuery {
		asked := make([]string, len(texts))
		for i, t := range texts {
			asked[i] = "question: " + t
		}
		texts, p = asked, memory.PurposeDocument
	}
	return e.Embedder.Embed(ctx, texts, p)
}

// Purposes returns the purposes recorded since the last call, and forgets
// them.
func (e *RecordingEmbedder) Purposes() []memory.Purpose {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.purposes
	e.purposes = nil
	return out
}
