package knowledge_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
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

// TestListTopicsWithSentences: the topics list holds the turns' topic
// sentences beside the noun-phrase topics, told apart by kind, in name
// order, and pages of any size read each item once.
func TestListTopicsWithSentences(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "o"}
	var in []service.NewMemory
	for i, s := range []string{"I painted a sunset over the lake.", "Bo sent me an email about the budget.",
		"We bought a canoe for the river trip.", "My sister adopted a puppy from the shelter."} {
		in = append(in, say("Ana", s, int64(1000*(i+1))))
	}
	if _, err := b.Service.Create(ctx, org, in); err != nil {
		t.Fatal(err)
	}
	all, err := b.Knowledge.List(ctx, org, knowledge.ListRequest{Kind: memory.KnowledgeTopic, Limit: memory.MaxKnowledgePage})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[memory.KnowledgeKind]int{}
	var want []string
	for _, it := range all.Items {
		kinds[it.Kind]++
		want = append(want, string(it.Kind)+" "+it.Name)
	}
	if kinds[memory.KnowledgeSentence] != 4 || kinds[memory.KnowledgeTopic] == 0 || len(kinds) != 2 || all.Next != "" {
		t.Fatalf("kinds listed %v: %v", kinds, all.Items)
	}
	if !slices.IsSortedFunc(all.Items, func(a, b memory.KnowledgeItem) int { return strings.Compare(a.Name, b.Name) }) {
		t.Errorf("not in name order: %v", want)
	}
	for _, limit := range []int{1, 2, 3} {
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > len(want) {
				t.Fatalf("limit %d: the pages do not end", limit)
			}
			p, err := b.Knowledge.List(ctx, org, knowledge.ListRequest{Kind: memory.KnowledgeTopic, Limit: limit, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range p.Items {
				got = append(got, string(it.Kind)+" "+it.Name)
			}
			if cursor = p.Next; cursor == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: %v, want %v", limit, got, want)
		}
	}
}
