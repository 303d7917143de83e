//go:build cgo

package onnx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/onnx"
	"github.com/agentmem/agentmem/pkg/memory"
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
	MaxLen           int    `json:"maxLen"`
	QueryInstruction string `json:"queryInstruction"`
	Cases            []struct {
		Text    string    `json:"text"`
		Purpose string    `json:"purpose"` // document or query
		IDs     []int32   `json:"ids"`
		Vector  []float32 `json:"vector"`
	} `json:"cases"`
}

func purpose(p string) memory.Purpose {
	if p == "query" {
		return memory.PurposeQuery
	}
	return memory.PurposeDocument
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
// case, accents, punctuation, CJK, emoji, unknown words, truncation at 512,
// and the instruction before queries.
func TestTokenizerMatchesReference(t *testing.T) {
	e := open(t)
	f := loadFixture(t)
	if f.MaxLen != onnx.MaxTokens || f.QueryInstruction != onnx.QueryInstruction {
		t.Fatalf("fixture made for %d tokens and %q", f.MaxLen, f.QueryInstruction)
	}
	truncated := false
	for _, c := range f.Cases {
		got := e.Tokenize(c.Text, purpose(c.Purpose))
		if !reflect.DeepEqual(got, c.IDs) {
			t.Errorf("%s %.40q:\n got %v\nwant %v", c.Purpose, c.Text, got, c.IDs)
		}
		truncated = truncated || len(got) == onnx.MaxTokens
	}
	if !truncated {
		t.Error("no fixture case reaches the sequence limit")
	}
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestParityWithReference embeds the fixture's texts, documents in one
// batch and queries in another, and checks each vector against the
// reference implementation's (fp32 weights run by ONNX Runtime's Python
// package, HF tokenizer, [CLS] pooling) at cosine ≥ 0.99.
func TestParityWithReference(t *testing.T) {
	e := open(t)
	f := loadFixture(t)
	byPurpose := map[string][]int{}
	for i, c := range f.Cases {
		byPurpose[c.Purpose] = append(byPurpose[c.Purpose], i)
	}
	if len(byPurpose["document"]) == 0 || len(byPurpose["query"]) == 0 {
		t.Fatalf("fixture needs documents and queries: %v", byPurpose)
	}
	vs := make([][]float32, len(f.Cases))
	for p, idx := range byPurpose {
		var texts []string
		for _, i := range idx {
			texts = append(texts, f.Cases[i].Text)
		}
		got, err := e.Embed(context.Background(), texts, purpose(p))
		if err != nil {
			t.Fatal(err)
		}
		for j, i := range idx {
			vs[i] = got[j]
		}
	}
	for i, c := range f.Cases {
		got := cos(vs[i], c.Vector)
		t.Logf("cosine %.4f  %s %.40q", got, c.Purpose, c.Text)
		if got < 0.99 || len(vs[i]) != onnx.Dimensions {
			t.Errorf("%s %.40q: cosine %.4f with the reference, want >= 0.99", c.Purpose, c.Text, got)
		}
	}
	// By default a text's vector does not depend on the call it came in.
	one, err := e.Embed(context.Background(), []string{f.Cases[3].Text}, memory.PurposeDocument)
	if err != nil || !reflect.DeepEqual(one[0], vs[3]) {
		t.Fatalf("alone vs in a call of %d: cosine %v %v", len(byPurpose["document"]), cos(one[0], vs[3]), err)
	}
	// A query and the same text stored are different vectors.
	q, err := e.Embed(context.Background(), []string{f.Cases[3].Text}, memory.PurposeQuery)
	if err != nil || cos(q[0], vs[3]) > 0.99 {
		t.Fatalf("query and document vectors of one text: cosine %v %v", cos(q[0], vs[3]), err)
	}
	// And it is semantic: paraphrases are closer than unrelated texts.
	s, _ := e.Embed(context.Background(), []string{"A man is playing a guitar.", "Someone strums an acoustic guitar.", "The quarterly revenue fell by ten percent."}, memory.PurposeDocument)
	// (bge's cosines sit higher than MiniLM's; the gap is what matters.)
	if near, far := cos(s[0], s[1]), cos(s[0], s[2]); near < far+0.3 {
		t.Fatalf("paraphrase %.3f, unrelated %.3f", near, far)
	}
}

// TestConcurrentCallsAgree runs many Embed calls at once (more than there
// are run slots) and checks that each gets exactly the vectors a lone call
// gets, in its own order.
func TestConcurrentCallsAgree(t *testing.T) {
	e := open(t)
	f := loadFixture(t)
	var texts []string
	for _, c := range f.Cases {
		texts = append(texts, c.Text)
	}
	want, err := e.Embed(context.Background(), texts, memory.PurposeDocument)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			mine := append(append([]string{}, texts[g:]...), texts[:g]...) // each caller its own order
			got, err := e.Embed(context.Background(), mine, memory.PurposeDocument)
			if err != nil {
				errs <- err
				return
			}
			for j := range mine {
				if !reflect.DeepEqual(got[j], want[(j+g)%len(texts)]) {
					errs <- fmt.Errorf("caller %d, text %d: another vector than alone", g, j)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A cancelled context stops the call.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, texts, memory.PurposeDocument); err == nil {
		t.Error("a cancelled call succeeded")
	}
}

func TestOpenReportsMissingFiles(t *testing.T) {
	_, err := onnx.Open(t.TempDir())
	if err == nil || !errorsIs(err, onnx.ErrUnavailable) {
		t.Fatalf("empty directory: %v", err)
	}
}
