package memory_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"Hi", []string{"Hi"}},
		{"I moved to Lisbon. It's sunny!  Are you coming?", []string{"I moved to Lisbon.", "It's sunny!", "Are you coming?"}},
		{"Wait...what?! Really", []string{"Wait...", "what?!", "Really"}},
		{"first line\nsecond line", []string{"first line", "second line"}},
		{"... !!", nil},
	} {
		if got := memory.Sentences(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Sentences(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestSentenceTexts(t *testing.T) {
	msg := func(speaker, context, text string) *memory.Memory {
		return &memory.Memory{Type: memory.TypeMessage, EntityID: speaker, Context: context, Content: memory.Content{Text: text}}
	}
	for _, tc := range []struct {
		name string
		m    *memory.Memory
		want []string
	}{
		{"a message's sentences, led by the speaker", msg("Ana", "", "I moved to Lisbon. It's sunny!"),
			[]string{"Ana: I moved to Lisbon.", "Ana: It's sunny!"}},
		{"one sentence in an exchange: its own view", msg("Ana", "Bo: Where do you live?", "Lisbon now."),
			[]string{"Ana: Lisbon now."}},
		{"one sentence alone: the whole view is the vector", msg("Ana", "", "Lisbon now."), nil},
		{"no speaker", msg("", "", "One. Two."), []string{"One.", "Two."}},
		{"a fact is not led by its entity", &memory.Memory{Type: memory.TypeFact, EntityID: "Ana",
			Content: memory.Content{Text: "Ana lives in Lisbon. She is a nurse."}}, []string{"Ana lives in Lisbon.", "She is a nurse."}},
		{"no text", msg("Ana", "Bo: hi", ""), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.SentenceTexts(); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCombineViews(t *testing.T) {
	r := math.Sqrt(0.5)
	for _, tc := range []struct {
		name      string
		whole     []float32
		sentences [][]float32
		want      []float64
	}{
		{"no sentences: the whole vector", []float32{0.6, 0.8}, nil, []float64{0.6, 0.8}},
		{"orthogonal views: the bisector", []float32{1, 0}, [][]float32{{0, 1}, {0, 1}}, []float64{r, r}},
		{"the sentences' mean, at unit length, weighs as the whole",
			[]float32{2, 0}, [][]float32{{0, 1}, {0, 3}}, []float64{r, r}},
		{"sentences that cancel: the whole vector", []float32{1, 0}, [][]float32{{0, 1}, {0, -1}}, []float64{1, 0}},
		{"the same view twice", []float32{0, 1}, [][]float32{{0, 1}}, []float64{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := memory.CombineViews(tc.whole, tc.sentences)
			for i := range tc.want {
				if math.Abs(float64(got[i])-tc.want[i]) > 1e-6 {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// countingEmbedder embeds a text as a one-hot vector of its first letter,
// and records each call's texts.
type countingEmbedder struct {
	calls [][]string
	err   error
	short bool // return one vector too few
}

func (e *countingEmbedder) Embed(_ context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	if p != memory.PurposeDocument {
		return nil, errors.New("not a stored text")
	}
	e.calls = append(e.calls, texts)
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, 0, len(texts))
	for _, t := range texts {
		v := make([]float32, 26)
		i := strings.IndexByte("abcdefghijklmnopqrstuvwxyz", strings.ToLower(strings.TrimLeft(t, "AB: "))[0])
		v[max(i, 0)] = 1
		out = append(out, v)
	}
	if e.short {
		out = out[1:]
	}
	return out, nil
}
func (e *countingEmbedder) Dimensions() int { return 26 }
func (e *countingEmbedder) Model() string   { return "letters" }

func TestEmbedMemories(t *testing.T) {
	ctx := context.Background()
	message := &memory.Memory{Type: memory.TypeMessage, EntityID: "A", Context: "B: hello", Content: memory.Content{Text: "cats purr. dogs bark."}}
	fact := &memory.Memory{Type: memory.TypeFact, Content: memory.Content{Text: "eels swim. fish too."}}
	long := &memory.Memory{Type: memory.TypeMessage, Content: memory.Content{Text: strings.Repeat("zebra. ", 40)}}

	e := &countingEmbedder{}
	if err := memory.EmbedMemories(ctx, e, []*memory.Memory{message, fact, long}, true); err != nil {
		t.Fatal(err)
	}
	if len(e.calls) != 1 {
		t.Fatalf("%d embedder calls, want one", len(e.calls))
	}
	want := append([]string{message.SearchText(), fact.SearchText(), long.SearchText(), "A: cats purr.", "A: dogs bark."},
		slices.Repeat([]string{"zebra."}, memory.MaxSentenceViews)...)
	if !slices.Equal(e.calls[0], want) {
		t.Fatalf("embedded %q, want %q", e.calls[0], want)
	}
	// The message: its whole text ("A: B: hello\nA: cats purr. dogs
	// bark." → h) with the mean of its sentences (c and d).
	s := 1 / math.Sqrt(2)
	wantMsg := memory.CombineViews(onehot(7), [][]float32{onehot(2), onehot(3)})
	if !slices.Equal(message.Embedding, wantMsg) || message.EmbeddingModel != "letters" {
		t.Fatalf("message vector %v (%s), want %v", message.Embedding, message.EmbeddingModel, wantMsg)
	}
	if math.Abs(float64(wantMsg[7])-s) > 1e-6 || math.Abs(float64(wantMsg[2])-0.5) > 1e-6 || math.Abs(float64(wantMsg[3])-0.5) > 1e-6 {
		t.Fatalf("message vector %v: want 1/√2 on h, 1/2 on c and d", wantMsg)
	}
	if !slices.Equal(fact.Embedding, onehot(4)) {
		t.Fatalf("a fact keeps its single view: %v", fact.Embedding)
	}

	e = &countingEmbedder{}
	message.Embedding = nil
	if err := memory.EmbedMemories(ctx, e, []*memory.Memory{message}, false); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.calls[0], []string{message.SearchText()}) || !slices.Equal(message.Embedding, onehot(7)) {
		t.Fatalf("without the sentence view: embedded %q, vector %v", e.calls[0], message.Embedding)
	}

	for _, bad := range []*countingEmbedder{{err: errors.New("throttled")}, {short: true}} {
		if err := memory.EmbedMemories(ctx, bad, []*memory.Memory{message}, true); err == nil || !strings.Contains(err.Error(), "embed 1 memories") {
			t.Fatalf("want a wrapped error, got %v", err)
		}
	}
	if err := memory.EmbedMemories(ctx, &countingEmbedder{err: errors.New("never called")}, nil, true); err != nil {
		t.Fatalf("no memories: %v", err)
	}
}

func onehot(i int) []float32 {
	v := make([]float32, 26)
	v[i] = 1
	return v
}
