// Package knowledge is the Structured RAG use case, after TypeAgent's
// KnowPro: it extracts entities, actions, topics and tags from memories
// (messages, fragments, facts) with a memory.KnowledgeExtractor, keeps them
// as semantic refs in the org's memory.TermIndex (derived data: rebuilt
// from the memories, forgotten with them), and answers the "knowledge"
// ranked list of the retrieval pipeline: the memories whose extracted terms
// match the query's.
package knowledge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/agentmem/agentmem/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/knowledge/query"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/retrieval"
)

// Service extracts, indexes, forgets and retrieves knowledge. Store, Terms
// and Extractor are required.
type Service struct {
	Store     memory.Store
	Terms     memory.TermIndex
	Extractor memory.KnowledgeExtractor
	Log       *slog.Logger

	counts countCache // N of the BM25 idf, per filter
}

// Extractable reports whether a memory of type t gets knowledge: messages,
// fragments, facts and descriptions (documents are their fragments).
func Extractable(t memory.Type) bool {
	switch t {
	case memory.TypeMessage, memory.TypeFragment, memory.TypeFact, memory.TypeDescription:
		return true
	}
	return false
}

// source is what the extractor reads of m.
func source(m *memory.Memory) memory.KnowledgeSource {
	return memory.KnowledgeSource{MemoryID: m.ID, Type: m.Type, Text: m.Content.Text, Speaker: speaker(m),
		RoomID: m.RoomID, SessionID: m.SessionID, CreatedAt: m.CreatedAt}
}

func speaker(m *memory.Memory) string {
	if m.Type == memory.TypeMessage {
		return m.EntityID
	}
	return ""
}

// Index extracts the knowledge of ms (memories of one org) and replaces
// what the term index holds for each, one memory at a time, all or nothing
// per memory. When the extractor fails, the memories are marked pending, to
// be retried by RetryPending, and the error is returned: the memories stay
// stored and searchable by the other lists. A memory deleted meanwhile is
// skipped (its knowledge is never brought back).
func (k *Service) Index(ctx context.Context, orgID string, ms []*memory.Memory) error {
	var todo []*memory.Memory
	for _, m := range ms {
		if Extractable(m.Type) && m.OrgID == orgID {
			todo = append(todo, m)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	srcs := make([]memory.KnowledgeSource, len(todo))
	ids := make([]string, len(todo))
	for i, m := range todo {
		srcs[i], ids[i] = source(m), m.ID
	}
	got, err := k.Extractor.Extract(ctx, srcs)
	if err == nil && len(got) != len(srcs) {
		err = fmt.Errorf("knowledge: the extractor returned %d results for %d memories", len(got), len(srcs))
	}
	if err != nil {
		if perr := k.Terms.MarkKnowledgePending(context.WithoutCancel(ctx), orgID, ids); perr != nil {
			err = errors.Join(err, perr)
		}
		return fmt.Errorf("knowledge: extract: %w", err)
	}
	for i, m := range todo {
		refs := got[i].Refs(m.ID)
		if len(refs) > memory.MaxRefsPerMemory {
			refs = refs[:memory.MaxRefsPerMemory]
		}
		err := k.Terms.PutKnowledge(ctx, orgID, m.ID, m.Attrs(), k.Extractor.Name(), refs)
		if memory.IsNotFound(err) {
			continue // forgotten since
		}
		if err != nil {
			return fmt.Errorf("knowledge: index %s: %w", m.ID, err)
		}
	}
	return nil
}

// Forget implements service.Forgetter: the refs of deleted memories go
// with them.
func (k *Service) Forget(ctx context.Context, orgID string, ids []string) error {
	return k.Terms.DeleteKnowledge(ctx, orgID, ids)
}

// RetryPending extracts again up to limit memories of the org whose
// knowledge is pending, and returns how many it indexed.
func (k *Service) RetryPending(ctx context.Context, orgID string, limit int) (int, error) {
	st, err := k.Terms.PendingKnowledge(ctx, orgID, "", limit)
	if err != nil || len(st) == 0 {
		return 0, err
	}
	ids := make([]string, len(st))
	for i, s := range st {
		ids[i] = s.MemoryID
	}
	got, err := k.Store.GetMany(ctx, orgID, ids)
	if err != nil {
		return 0, err
	}
	var ms []*memory.Memory
	var gone []string
	for _, id := range ids {
		if m := got[id]; m != nil {
			ms = append(ms, m)
		} else {
			gone = append(gone, id)
		}
	}
	if len(gone) > 0 {
		if err := k.Terms.DeleteKnowledge(ctx, orgID, gone); err != nil {
			return 0, err
		}
	}
	if err := k.Index(ctx, orgID, ms); err != nil {
		return 0, err
	}
	return len(ms), nil
}

// Retriever is the "knowledge" ranked list: the memories whose semantic
// refs are indexed under the query's terms.
func (k *Service) Retriever() retrieval.Retriever { return termList{k} }

type termList struct{ k *Service }

// Lists implements retrieval.Retriever.
func (termList) Lists() []string { return []string{retrieval.ListKnowledge} }

// Retrieve implements retrieval.Retriever. Each query word that matches a
// memory's knowledge contributes its BM25 inverse document frequency,
// log((N-df+0.5)/(df+0.5)), with N the memories the filter selects and df
// those indexed under the word: a word at least half the memories carry
// (the speakers' names in a conversation) contributes nothing, a rare
// topic much. A memory's score is the sum over the distinct query words it
// matches; memories that score nothing are not listed, so the list only
// ranks what the knowledge really singles out. Words indexed under more
// than MaxTermDF memories take no part (termPostings).
func (t termList) Retrieve(ctx context.Context, q *retrieval.Query, _ []string) (map[string][]memory.Hit, error) {
	terms := QueryTerms(q.Text)
	if len(terms) == 0 {
		return map[string][]memory.Hit{retrieval.ListKnowledge: nil}, nil
	}
	words := make([]string, 0, len(terms))
	for w := range terms {
		words = append(words, w)
	}
	sort.Strings(words)
	posts, n, err := t.k.termPostings(ctx, q.Filter, words)
	if err != nil {
		return nil, err
	}
	// memories per term (df), then each memory's matched terms
	byTerm := map[string]map[string]bool{}
	for _, p := range posts {
		if byTerm[p.Term] == nil {
			byTerm[p.Term] = map[string]bool{}
		}
		byTerm[p.Term][p.Ref.MemoryID] = true
	}
	// A query word counts once per memory, by its best form.
	score := map[string]map[string]float64{} // memory -> query word -> weight
	for term, mems := range byTerm {
		df := float64(len(mems))
		w := math.Log((float64(n) - df + 0.5) / (df + 0.5))
		if w <= 0 {
			continue
		}
		for _, word := range terms[term] {
			for id := range mems {
				if score[id] == nil {
					score[id] = map[string]float64{}
				}
				score[id][word] = max(score[id][word], w)
			}
		}
	}
	hits := make([]memory.Hit, 0, len(score))
	for id, ws := range score {
		s := 0.0
		for _, w := range ws {
			s += w
		}
		hits = append(hits, memory.Hit{ID: id, Score: s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID > hits[j].ID // newer ids first
	})
	if len(hits) > q.K {
		hits = hits[:q.K]
	}
	return map[string][]memory.Hit{retrieval.ListKnowledge: hits}, nil
}

// questionWords are the words of a question that name no content.
var questionWords = map[string]bool{"what": true, "when": true, "where": true, "who": true, "whom": true,
	"which": true, "why": true, "how": true, "did": true, "does": true, "do": true, "is": true, "are": true,
	"was": true, "were": true, "has": true, "have": true, "had": true, "kind": true, "kinds": true, "sort": true,
	"type": true, "types": true, "much": true, "many": true, "long": true, "ever": true, "recently": true,
	"likely": true, "might": true, "would": true, "could": true, "some": true, "any": true}

// QueryTerms returns the terms a question is looked up by, each mapped to
// the query words it stands for: the content words, their lemma and
// singular forms (as the offline extractor indexes them), and adjacent
// pairs of content words (multi-word names and topics).
func QueryTerms(text string) map[string][]string {
	out := map[string][]string{}
	add := func(term, word string) {
		if !memory.IndexableTerm(term) {
			return
		}
		for _, w := range out[term] {
			if w == word {
				return
			}
		}
		out[term] = append(out[term], word)
	}
	var words []string
	for _, raw := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '\'' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127)
	}) {
		w := memory.NormalizeTerm(strings.TrimSuffix(strings.TrimSuffix(raw, "'s"), "’s"))
		if w == "" || memory.StopWord(w) || questionWords[w] || len(w) < 2 {
			words = append(words, "")
			continue
		}
		words = append(words, w)
		for _, f := range offline.Forms(w) {
			add(f, w)
		}
	}
	for i := 0; i+1 < len(words); i++ {
		if words[i] != "" && words[i+1] != "" {
			add(words[i]+" "+words[i+1], words[i]+" "+words[i+1])
		}
	}
	return out
}

// ExpressionRetriever is the "knowledge" list answered through query
// expressions: the question is translated offline (names, types, actions,
// time ranges, "when" questions) and evaluated against the term index, as
// POST /v1/knowledge/search does. now is the clock relative time
// expressions are resolved against.
func (k *Service) ExpressionRetriever(now func() time.Time) retrieval.Retriever {
	return exprList{k: k, now: now}
}

type exprList struct {
	k   *Service
	now func() time.Time
}

// Lists implements retrieval.Retriever.
func (exprList) Lists() []string { return []string{retrieval.ListKnowledge} }

// Retrieve implements retrieval.Retriever. A question the translator finds
// nothing to look up in yields an empty list.
func (e exprList) Retrieve(ctx context.Context, q *retrieval.Query, _ []string) (map[string][]memory.Hit, error) {
	x, err := query.Translate(q.Text, e.now())
	if err != nil {
		if memory.ErrorCode(err) == memory.EINVALID {
			return map[string][]memory.Hit{retrieval.ListKnowledge: nil}, nil
		}
		return nil, err
	}
	x.Limit = min(q.K, query.MaxLimit)
	ev := &query.Evaluator{Index: e.k.Terms, Now: e.now, Logger: e.k.Log}
	res, err := ev.Evaluate(ctx, q.Filter, x)
	if err != nil {
		return nil, fmt.Errorf("knowledge: evaluate: %w", err)
	}
	hits := make([]memory.Hit, len(res.Memories))
	for i, m := range res.Memories {
		hits[i] = memory.Hit{ID: m.ID, Score: m.Score}
	}
	return map[string][]memory.Hit{retrieval.ListKnowledge: hits}, nil
}
