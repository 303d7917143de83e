package knowledge_test

import (
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
)

// TestOfflineTopicSentence holds the offline rule to its examples: the
// main clause compressed to subject, verb, objects and the non-time
// parameters, the speaker resolved; the topics otherwise; nothing for
// small talk.
func TestOfflineTopicSentence(t *testing.T) {
	x := offline.New(offline.Options{})
	for _, c := range []struct{ speaker, text, want string }{
		{"Melanie", "Wow, that's cool! I painted a sunset over the lake last week.", "Melanie paint sunset over lake"},
		{"Kevin", "I sent you an email about new AI models.", "Kevin send email about AI model"},
		{"Ana", "We should go hiking in the mountains next weekend.", "Ana go hiking mountain"},
		{"Ana", "My favourite recipe is a lemon pasta with garlic.", "Ana: recipe, garlic"},
		{"Bob", "Yeah, sounds good.", ""},
	} {
		k := x.ExtractOne(memory.KnowledgeSource{Type: memory.TypeMessage, Text: c.text, Speaker: c.speaker})
		if got := knowledge.OfflineTopicSentence(c.speaker, k); got != c.want {
			t.Errorf("%q: topic sentence %q, want %q", c.text, got, c.want)
		}
	}
}

// TestCutTopicSentence: white space folded, cut at a word within the
// bound, no trailing punctuation.
func TestCutTopicSentence(t *testing.T) {
	word := "walking " // 8 bytes: 20 words fill the bound
	long := strings.Repeat(word, 2*memory.MaxTopicSentenceBytes/len(word))
	for _, c := range []struct{ in, want string }{
		{"  Ana  plans a trip.  ", "Ana plans a trip"},
		{"", ""},
		{long, strings.TrimSpace(strings.Repeat(word, memory.MaxTopicSentenceBytes/len(word)))},
	} {
		got := memory.CutTopicSentence(c.in)
		if got != c.want || len(got) > memory.MaxTopicSentenceBytes {
			t.Errorf("CutTopicSentence(%.20q...) = %q, want %q", c.in, got, c.want)
		}
	}
}
