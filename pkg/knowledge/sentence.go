package knowledge

import (
	"context"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Topic sentences, after KnowPro's "short topic sentences" per turn: an
// LLM extractor writes one (memory.Knowledge.TopicSentence); otherwise the
// offline rule below composes one from what the offline extractor found in
// the turn, so that every conversation turn has one.

// maxSentenceTopics is the most noun-phrase topics the offline rule joins.
const maxSentenceTopics = 3

// weakVerbs are verbs that say little of what a turn is about: the
// metadata "speaker say listener" action and the copula, auxiliaries and
// light verbs.
var weakVerbs = map[string]bool{"say": true, "be": true, "have": true, "do": true, "get": true,
	"think": true, "know": true, "mean": true, "guess": true, "tell": true, "ask": true}

// OfflineTopicSentence is the offline extractive rule for the topic
// sentence of a conversation turn, from its knowledge k: the turn's main
// clause compressed to subject, verb, objects and the parameters other
// than time, the speaker resolved (the extractor resolves "I" and "we"),
// i.e. its first affirmative action with a verb other than weakVerbs and
// an object, followed by the
// noun-phrase topics it does not already name ("Melanie paint sunset: lake
// trip"); without such an action, the speaker (when known) and at most
// maxSentenceTopics topics ("Caroline: adoption agencies, support group").
// It returns "" when k has neither, and is cut by
// memory.CutTopicSentence.
func OfflineTopicSentence(speaker string, k memory.Knowledge) string {
	var clause string
	for _, a := range k.Actions {
		if a.Negated || len(a.Verbs) == 0 || a.Subject == "" || (a.Object == "" && a.IndirectObject == "") {
			continue
		}
		if weakVerbs[memory.NormalizeTerm(strings.Join(a.Verbs, " "))] {
			continue
		}
		parts := nonEmpty(a.Subject, strings.Join(a.Verbs, " "), a.Object, a.IndirectObject)
		for _, p := range a.Params { // "about AI models", "over lake"; not the time
			if p.Name != "time" && p.Name != "when" && p.Value != "" && len(parts) < 6 {
				parts = append(parts, p.Name, p.Value)
			}
		}
		clause = strings.Join(parts, " ")
		break
	}
	said := memory.NormalizeTerm(clause)
	var topics []string
	for _, t := range k.Topics {
		n := memory.NormalizeTerm(t)
		if n == "" || len(topics) == maxSentenceTopics || strings.Contains(said, n) {
			continue
		}
		topics = append(topics, t)
		said += " " + n
	}
	var s string
	switch {
	case clause != "" && len(topics) > 0:
		s = clause + ": " + strings.Join(topics, ", ")
	case clause != "":
		s = clause
	case len(topics) > 0 && speaker != "":
		s = speaker + ": " + strings.Join(topics, ", ")
	case len(topics) > 0:
		s = strings.Join(topics, ", ")
	}
	return memory.CutTopicSentence(s)
}

func nonEmpty(ss ...string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// withTopicSentence gives a conversation turn's knowledge its topic
// sentence by the offline rule when the extractor made none.
func withTopicSentence(m *memory.Memory, k memory.Knowledge) memory.Knowledge {
	if m.Type != memory.TypeMessage || k.TopicSentence != "" {
		return k
	}
	k.TopicSentence = OfflineTopicSentence(m.EntityID, k)
	return k
}

// listTopics answers a page of topics (no type or name filter) with the
// topic sentences beside the noun-phrase topics: both lists read from the
// same cursor, merged in name order, told apart by their Kind. The page
// ends after limit items, or one more when the next item has the same
// name as the last (a cursor is a name, so the two must share a page).
func (e *Explorer) listTopics(ctx context.Context, q memory.KnowledgeListQuery) (memory.KnowledgePage, error) {
	limit := q.Limit
	topics, err := e.Index.ListKnowledge(ctx, q)
	if err != nil {
		return topics, listErr(err)
	}
	q.Kind = memory.KnowledgeSentence
	sentences, err := e.Index.ListKnowledge(ctx, q)
	if err != nil {
		return sentences, listErr(err)
	}
	all := append(slices.Clip(topics.Items), sentences.Items...)
	slices.SortStableFunc(all, func(a, b memory.KnowledgeItem) int { return strings.Compare(a.Name, b.Name) })
	out := memory.KnowledgePage{Items: []memory.KnowledgeItem{}}
	for i, it := range all {
		if len(out.Items) >= limit && it.Name != out.Items[len(out.Items)-1].Name {
			out.Next = memory.EncodeKnowledgeCursor(all[i-1].Name)
			return out, nil
		}
		out.Items = append(out.Items, it)
	}
	// Each list's unread names sort after its page's last one.
	if (topics.Next != "" || sentences.Next != "") && len(out.Items) > 0 {
		out.Next = memory.EncodeKnowledgeCursor(out.Items[len(out.Items)-1].Name)
	}
	return out, nil
}
