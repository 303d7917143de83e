package knowledge

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
)

// The answer context, after KnowPro's: for a question, the entities and
// topics (noun phrases, and the topic sentences of turns) its terms (and
// their related terms) match, each with its types,
// facets and counts among the memories the caller can see, then the
// memories they point to. The service renders it as the structured section
// of the prompt context, within the budget.

// Bounds of an answer context.
const (
	// AnswerEntities and AnswerTopics are the most entities and topics.
	AnswerEntities = 8
	AnswerTopics   = 6
	// answerMemories is the most memories matched.
	answerMemories = 30
)

// ContextSection returns the KnowledgeContext of service.WithKnowledgeContext.
func (k *Service) ContextSection() service.KnowledgeContext { return answerContext{k} }

type answerContext struct{ k *Service }

// AnswerContext implements service.KnowledgeContext. The question's terms
// (QueryTerms) are evaluated as free terms with related terms on; the refs
// of the best memories are loaded and grouped by name, each name scored by
// its refs' scores; the counts, types and facets of the best names are
// read with ListKnowledge under f, so they say what the caller can see.
// A question that names one person who speaks in the memories
// (retrieval.Query.Speakers, resolved once for the context build) is
// evaluated over the messages that person said, as the knowledge list is.
func (a answerContext) AnswerContext(ctx context.Context, question *retrieval.Query) (*service.AnswerContext, error) {
	f, q := question.Filter, question.Text
	out := &service.AnswerContext{}
	terms := QueryTerms(q)
	if len(terms) == 0 {
		return out, nil
	}
	var ts []string
	for t := range terms {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	if len(ts) > memory.MaxQueryTerms {
		ts = ts[:memory.MaxQueryTerms]
	}
	ev := &query.Evaluator{Index: a.k.Terms, Logger: a.k.Log}
	if a.k.Related != nil {
		ev.Related = a.k.Related
	}
	// A question about one person who speaks in the memories is answered
	// by what that person said, as in the knowledge list (termList).
	within := f
	speakers, err := question.Speakers(ctx, a.k.Store)
	if err != nil {
		return nil, fmt.Errorf("knowledge: answer context: %w", err)
	}
	if len(speakers) == 1 {
		within, _ = retrieval.SaidBy(f, speakers[0])
	}
	res, err := ev.Evaluate(ctx, within, &query.Expr{Terms: ts, Limit: answerMemories})
	if err != nil {
		return nil, fmt.Errorf("knowledge: answer context: %w", err)
	}
	for _, m := range res.Memories {
		out.MemoryIDs = append(out.MemoryIDs, m.ID)
	}
	var keys []memory.RefKey
	score := map[memory.RefKey]float64{}
	for _, r := range res.Refs {
		if (r.Kind == memory.KnowledgeEntity || r.Kind == memory.KnowledgeTopic || r.Kind == memory.KnowledgeSentence) && len(keys) < memory.MaxRefKeys {
			keys = append(keys, r.Ref)
			score[r.Ref] = r.Score
		}
	}
	if len(keys) == 0 {
		return out, nil
	}
	refs, err := a.k.Terms.Refs(ctx, f.OrgID, keys)
	if err != nil {
		return nil, fmt.Errorf("knowledge: answer context: load refs: %w", err)
	}
	type named struct {
		kind  memory.KnowledgeKind
		name  string
		score float64
	}
	byName := map[[2]string]*named{}
	for key, r := range refs {
		n := memory.KnowledgeName(r)
		if n == "" {
			continue
		}
		id := [2]string{string(r.Kind), n}
		if byName[id] == nil {
			byName[id] = &named{kind: r.Kind, name: n}
		}
		byName[id].score += score[key]
	}
	ranked := make([]*named, 0, len(byName))
	for _, n := range byName {
		ranked = append(ranked, n)
	}
	sort.Slice(ranked, func(i, j int) bool {
		if ranked[i].score != ranked[j].score {
			return ranked[i].score > ranked[j].score
		}
		if ranked[i].kind != ranked[j].kind {
			return ranked[i].kind < ranked[j].kind
		}
		return ranked[i].name < ranked[j].name
	})
	for _, n := range ranked {
		list, max := &out.Entities, AnswerEntities
		if n.kind != memory.KnowledgeEntity { // a topic or a turn's topic sentence
			list, max = &out.Topics, AnswerTopics
		}
		if len(*list) >= max {
			continue
		}
		it, ok, err := a.item(ctx, f, n.kind, n.name)
		if err != nil {
			return nil, err
		}
		if ok {
			*list = append(*list, it)
		}
	}
	return out, nil
}

// item reads the ListKnowledge item of one name under f: the first item of
// the names that start with it is the name itself when f can see it.
func (a answerContext) item(ctx context.Context, f memory.Filter, kind memory.KnowledgeKind, name string) (memory.KnowledgeItem, bool, error) {
	page, err := a.k.Terms.ListKnowledge(ctx, memory.KnowledgeListQuery{Filter: f, Kind: kind, Prefix: name, Limit: 1})
	if err != nil {
		return memory.KnowledgeItem{}, false, fmt.Errorf("knowledge: answer context: list %s %q: %w", kind, name, err)
	}
	if len(page.Items) == 0 || !strings.EqualFold(page.Items[0].Name, name) {
		return memory.KnowledgeItem{}, false, nil
	}
	return page.Items[0], true, nil
}
