package memory

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// sentenceRe matches a sentence with its final punctuation, or a run of
// punctuation alone; a line break ends a sentence too.
var sentenceRe = regexp.MustCompile(`[^.!?\n]+[.!?]*|[.!?]+`)

// Sentences splits text into sentences, each trimmed and with its final
// punctuation; pieces of punctuation alone are dropped. It is the one
// sentence splitter of the domain: the sentence view of a memory's vector
// (EmbedMemories) and the fact extractor's small-talk filter use it.
func Sentences(text string) []string {
	var out []string
	for _, s := range sentenceRe.FindAllString(text, -1) {
		if s = strings.TrimSpace(s); strings.Trim(s, ".!? ") != "" {
			out = append(out, s)
		}
	}
	return out
}

// SentenceTexts returns the texts of the sentence view of m's vector: its
// own text (Content.SearchText, without Context) split into Sentences, each
// led by the speaker as SearchText leads a message ("Ana: I moved to
// Lisbon."). It is nil when the view would hold only the memory's whole
// text (one sentence, no Context): the whole view is then the vector.
func (m *Memory) SentenceTexts() []string {
	ss := Sentences(m.Content.SearchText())
	if len(ss) == 0 || len(ss) == 1 && m.Context == "" {
		return nil
	}
	if m.Type == TypeMessage && m.EntityID != "" {
		for i, s := range ss {
			ss[i] = m.EntityID + ": " + s
		}
	}
	return ss
}

// MaxSentenceViews bounds the sentences of one memory that its sentence
// view embeds: the first ones, so that one long text does not cost a
// hundred embeddings.
const MaxSentenceViews = 16

// CombineViews returns the vector of a memory from its two views: the unit
// vector along whole (the vector of SearchText: the memory in its exchange)
// plus the unit mean of its sentence vectors (what it says, sentence by
// sentence). The sum of the two views, normalized, scores against a query
// vector as about the mean of the two cosines, so a question about one
// sentence of a long turn, or a turn whose exchange is about something
// else, still finds it. With no sentences, whole is returned as it is.
func CombineViews(whole []float32, sentences [][]float32) []float32 {
	if len(sentences) == 0 {
		return whole
	}
	mean := make([]float64, len(whole))
	for _, v := range sentences {
		for i := range min(len(v), len(mean)) {
			mean[i] += float64(v[i])
		}
	}
	mn, wn := length(mean), length(whole)
	if mn == 0 || wn == 0 {
		return whole
	}
	sum := make([]float64, len(whole))
	for i := range sum {
		sum[i] = float64(whole[i])/wn + mean[i]/mn
	}
	sn := length(sum)
	if sn == 0 {
		return whole
	}
	out := make([]float32, len(whole))
	for i := range out {
		out[i] = float32(sum[i] / sn)
	}
	return out
}

// EmbedMemories sets the Embedding and EmbeddingModel of ms with e, in
// one Embed call (PurposeDocument). Each memory's vector is the vector of
// its SearchText, and with sentences set, for a message, CombineViews of
// that and of its SentenceTexts (at most MaxSentenceViews of them). Facts,
// fragments and other memories keep the single view: the sentence view is
// measured on conversations (docs/benchmarks.md), where a turn's exchange
// and its own sentences say different things. Every path that embeds a
// memory goes through here, so one memory gets the same vector whoever
// embeds it. Errors are the embedder's, wrapped.
func EmbedMemories(ctx context.Context, e Embedder, ms []*Memory, sentences bool) error {
	if len(ms) == 0 {
		return nil
	}
	texts := make([]string, 0, len(ms))
	for _, m := range ms {
		texts = append(texts, m.SearchText())
	}
	from := make([]int, len(ms)+1) // the sentence texts of ms[i] are texts[from[i]:from[i+1]]
	from[0] = len(texts)
	for i, m := range ms {
		if sentences && m.Type == TypeMessage {
			st := m.SentenceTexts()
			texts = append(texts, st[:min(len(st), MaxSentenceViews)]...)
		}
		from[i+1] = len(texts)
	}
	vecs, err := e.Embed(ctx, texts, PurposeDocument)
	if err != nil {
		return fmt.Errorf("embed %d memories: %w", len(ms), err)
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("embed %d memories: the embedder returned %d vectors for %d texts", len(ms), len(vecs), len(texts))
	}
	for i, m := range ms {
		m.Embedding, m.EmbeddingModel = CombineViews(vecs[i], vecs[from[i]:from[i+1]]), e.Model()
	}
	return nil
}
