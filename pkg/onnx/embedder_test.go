//go:build cgo

package onnx_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/onnx"
)

// modelDir is where scripts/models.sh put the model (MODEL_DIR). Without it
// the tests skip, unless REQUIRE_MODEL=1 (make test fetches the model and
// sets it).
func modelDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MODEL_DIR")
	if dir == "" || len(onnx.Missing(dir)) > 0 {
		if os.Getenv("REQUIRE_MODEL") == "1" {
			t.Fatalf("REQUIRE_MODEL=1 but the model is not in MODEL_DIR=%q", dir)
		}
		t.Skip("MODEL_DIR not set or incomplete; make test fetches the model (scripts/models.sh)")
	}
	return dir
}

type fixture struct {
	MaxLen int `json:"maxLen"`
	Cases  []struct {
		Text   string    `json:"text"`
		IDs    []int32   `json:"ids"`
		Vector []float32 `json:"vector"`
	} `json:"cases"`
}

func loadFixture(t *testing.T) fixture {
	raw, err := os.ReadFile("testdata/parity.json")
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func open(t *testing.T) *onnx.Embedder {
	t.Helper()
	e, err := onnx.Open(modelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestTokenizerMatchesReference compares the Go WordPiece ids with the
// model's own tokenizer (HF tokenizers, recorded in the fixture): lower
// case, accents, punctuation, CJK, emoji, unknown words, truncation at 256.
func TestTokenizerMatchesReference(t *testing.T) {
	e := open(t)
	f := loadFixture(t)
	for _, c := range f.Cases {
		if got := e.Tokenize(c.Text); !reflect.DeepEqual(got, c.IDs) {
			t.Errorf("%.40q:\n got %v\nwant %v", c.Text, got, c.IDs)
		}
	}
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestParityWithReference embeds the fixture's texts in one batch and checks
// each vector against the reference implementation's (fp32 weights, numpy
// forward pass, mean pooling) at cosine ≥ 0.99.
func TestParityWithReference(t *testing.T) {
	e := open(t)
	f := loadFixture(t)
	var texts []string
	for _, c := range f.Cases {
		texts = append(texts, c.Text)
	}
	vs, err := e.Embed(context.Background(), texts, memory.PurposeDocument)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range f.Cases {
		got := cos(vs[i], c.Vector)
		t.Logf("cosine %.4f  %.40q", got, c.Text)
		if got < 0.99 || len(vs[i]) != onnx.Dimensions {
			t.Errorf("%.40q: cosine %.4f with the reference, want >= 0.99", c.Text, got)
		}
	}
	// One at a time gives the same vectors as the padded batch.
	one, err := e.Embed(context.Background(), texts[3:4], memory.PurposeQuery)
	if err != nil || cos(one[0], vs[3]) < 0.9999 {
		t.Fatalf("alone vs in a batch: %v %v", cos(one[0], vs[3]), err)
	}
	// And it is semantic: paraphrases are closer than unrelated texts.
	s, _ := e.Embed(context.Background(), []string{"A man is playing a guitar.", "Someone strums an acoustic guitar.", "The quarterly revenue fell by ten percent."}, memory.PurposeDocument)
	if near, far := cos(s[0], s[1]), cos(s[0], s[2]); near < 0.5 || far > 0.2 {
		t.Fatalf("paraphrase %.3f, unrelated %.3f", near, far)
	}
}

func TestOpenReportsMissingFiles(t *testing.T) {
	_, err := onnx.Open(t.TempDir())
	if err == nil || !errorsIs(err, onnx.ErrUnavailable) {
		t.Fatalf("empty directory: %v", err)
	}
}
