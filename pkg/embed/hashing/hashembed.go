// Package hashing is an Embedder that needs no model: feature hashing of
// word unigrams, word bigrams and character trigrams into a fixed number of
// dimensions, with sublinear term weights and signed buckets, L2-normalized.
//
// It captures lexical overlap including partial-word overlap (plural forms,
// typos, compounds), not meaning: "car" and "automobile" are unrelated to it.
// It is the default of the embedded backend until a semantic model is
// installed, and a deterministic embedder for tests.
package hashing

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// Embedder is the hashing embedder. The zero value is not usable; use New.
type Embedder struct {
	dims int
}

var _ memory.Embedder = (*Embedder)(nil)

// DefaultDimensions matches the common small sentence-embedding models.
const DefaultDimensions = 384

// New returns an embedder of dims dimensions.
func New(dims int) *Embedder {
	if dims <= 0 {
		dims = DefaultDimensions
	}
	return &Embedder{dims: dims}
}

// Dimensions implements memory.Embedder.
func (e *Embedder) Dimensions() int { return e.dims }

// Model implements memory.Embedder.
func (e *Embedder) Model() string { return fmt.Sprintf("hashembed-v1-%d", e.dims) }

// Embed implements memory.Embedder. The purpose does not change the vector.
func (e *Embedder) Embed(ctx context.Context, texts []string, _ memory.Purpose) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = e.vector(t)
	}
	return out, nil
}

// Feature weights: whole words carry the meaning, bigrams the phrasing,
// trigrams tolerate inflection and typos.
const (
	wordWeight    = 1.0
	bigramWeight  = 0.6
	trigramWeight = 0.35
)

func (e *Embedder) vector(text string) []float32 {
	words := tokens(text)
	counts := map[string]float64{}
	for i, w := range words {
		counts["w:"+w] += wordWeight
		if i > 0 {
			counts["b:"+words[i-1]+" "+w] += bigramWeight
		}
		padded := "^" + w + "$"
		rs := []rune(padded)
		for j := 0; j+3 <= len(rs); j++ {
			counts["t:"+string(rs[j:j+3])] += trigramWeight
		}
	}
	v := make([]float32, e.dims)
	for f, c := range counts {
		h := fnv.New64a()
		h.Write([]byte(f))
		x := h.Sum64()
		w := float32(1 + math.Log(c)) // sublinear term weight; c ≥ the smallest feature weight
		if c < 1 {
			w = float32(c)
		}
		if x>>63 == 1 {
			w = -w
		}
		v[x%uint64(e.dims)] += w
	}
	memory.Normalize(v)
	return v
}

func tokens(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if !en.EmbedStopWord(f) {
			out = append(out, f)
		}
	}
	return out
}
