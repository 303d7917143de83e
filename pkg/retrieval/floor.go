package retrieval

import "strings"

// relevanceFloors are the relevance floors of the embedding models, by
// model name or name prefix: the cosine similarity under which a memory
// found only by its vector is not relevant to a question.
//
// Each was calibrated with cmd/bench/floor on a synthetic set held out
// from every benchmark (48 memories in eight everyday domains, 24
// questions about them and 32 off-topic questions, none from LoCoMo): the
// floor is the highest cosine any off-topic question reached on the
// corpus, rounded up to 0.01.
//
//	model                         off-topic best: median / max   answers: median / min   floor   answers kept
//	bge-small-en-v1.5-int8-onnx   0.454 / 0.563                  0.709 / 0.559           0.57    23 of 24
//	hashembed-v1 (words hashed)   0.144 / 0.319                  0.431 / 0.112           0.32    16 of 24
//
// The hashing embedder compares words, not meaning: an answer it places
// below its floor shares few words with the question, and the keyword list,
// whose results the floor never removes, finds the ones that share any.
// A model not listed has no floor.
var relevanceFloors = []struct {
	model string
	floor float64
}{
	{"bge-small-en-v1.5-int8-onnx", 0.57},
	{"hashembed-v1", 0.32},
}

// RelevanceFloor is the calibrated relevance floor of embedding model
// model, 0 for a model not calibrated.
func RelevanceFloor(model string) float64 {
	for _, f := range relevanceFloors {
		if model == f.model || strings.HasPrefix(model, f.model+"-") {
			return f.floor
		}
	}
	return 0
}
