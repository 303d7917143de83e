// Package onnx is an Embedder that runs a sentence-embedding model
// (all-MiniLM-L6-v2: 384 dimensions, mean pooling, unit length) inside the
// process with ONNX Runtime, offline. The model, its vocabulary and the
// runtime library come from PyPI packages (scripts/models.sh); ONNX Runtime
// is loaded through github.com/yalue/onnxruntime_go (cgo).
//
// ONNX Runtime was chosen over pure-Go inference for speed: its int8 and
// fp32 kernels use the CPU's vector units, which pure Go cannot, and the
// service needs hundreds of embeddings per second on two cores. Builds
// without cgo get an Open that reports the embedder unavailable.
package onnx

import (
	"errors"
	"os"
	"path/filepath"
)

// Files of a model directory.
const (
	ModelFile   = "model.onnx"
	VocabFile   = "vocab.txt"
	RuntimeFile = "libonnxruntime.so"
)

// Model names the embedder; vectors of different models are never compared.
const Model = "all-minilm-l6-v2-int8-onnx"

// Dimensions of the model's vectors.
const Dimensions = 384

// MaxTokens is the model's sequence limit (sentence-transformers'
// max_seq_length for all-MiniLM-L6-v2), [CLS] and [SEP] included.
const MaxTokens = 256

// ErrUnavailable is returned by Open when the model cannot be used.
var ErrUnavailable = errors.New("onnx: the embedding model is unavailable")

// Missing lists the files of dir that are absent.
func Missing(dir string) []string {
	var out []string
	for _, f := range []string{ModelFile, VocabFile, RuntimeFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			out = append(out, f)
		}
	}
	return out
}
