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
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/knowledge/related"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// Service extracts, indexes, forgets and retrieves knowledge. Store, Terms
// and Extractor are required.
type Service struct {
	Store     memory.Store
	Terms     memory.TermIndex
	Extractor memory.KnowledgeExtractor
	// Records, when set, keeps each org's backfill position.
	Records memory.RecordStore
	// Related, when set, expands query terms with their related terms in
	// both knowledge lists, and learns the terms Index writes.
	Related *related.Index
	// Entities, when set, resolves speakers and mentions to the org's
	// registered entities (see resolveSpeakers and resolveMentions).
	Entities memory.EntityDirectory
	// ProvidedKeys are the metadata keys (lower case) whose values become
	// knowledge (Provided); nil means DefaultProvidedKeys, empty none.
	ProvidedKeys map[string]ProvidedRole
	// Settings, when set, reads each org's extraction settings, whose
	// ProvidedKeys apply over ProvidedKeys to that org's memories.
	Settings OrgSettings
	// Fallback, when set, extracts when Extractor fails (a language
	// model down or answering nonsense): the memories get its knowledge,
	// recorded under its name, instead of waiting as pending. Each
	// fallback is logged and counted (Fallbacks).
	Fallback memory.KnowledgeExtractor
	// Deferred, when set with a Fallback, takes the Extractor (a language
	// model) off the write path: Index extracts with the Fallback at once,
	// so that a memory is searchable by its knowledge as soon as it is
	// written, then marks the memories pending; RetryPending (the
	// background worker, the scheduled maintenance) extracts them again
	// with the Extractor, whose knowledge replaces the Fallback's. The
	// pending status is the queue: it survives a restart.
	Deferred bool
	// OnPending, when set, is called with the org after Index left
	// memories pending for the Extractor (Deferred, DeferFrom), to wake
	// the worker that extracts them. It must not block.
	OnPending func(orgID string)
	// DeferFrom, when above zero and a worker listens (OnPending), takes
	// bulk writes off the write path: a call of Index with at least
	// DeferFrom memories to extract only marks them pending, in the
	// store, and wakes the worker, whose ExtractPending extracts them in
	// pages of PendingPage, one transaction of term-index writes per
	// page. Until then the memories are stored, searchable by the other
	// lists, and their extraction status says pending; the status is the
	// queue, so it survives a restart (the worker's start extracts what
	// is left). Smaller writes (a single create, a turn) are extracted at
	// once. It does not apply with Deferred, whose writes get the
	// Fallback's knowledge at once.
	DeferFrom int
	Log       *slog.Logger

	fallbacks atomic.Int64 // memories extracted by Fallback

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
		RoomID: m.RoomID, SessionID: m.SessionID, CreatedAt: m.CreatedAt, Readers: memory.ReadersOf(m)}
}

func speaker(m *memory.Memory) string {
	if m.Type == memory.TypeMessage {
		return m.EntityID
	}
	return ""
}

// Index is the write path (service.Deriver): it extracts the knowledge
// of ms (memories of one org) and replaces what the term index holds for
// each, one memory at a time, all or nothing per memory. When the
// extractor fails, the memories are marked pending, to be retried by
// RetryPending, and the error is returned: the memories stay stored and
// searchable by the other lists. A memory deleted meanwhile is skipped
// (its knowledge is never brought back). With Deferred, the Fallback
// extracts here and the memories are left pending for the Extractor; a
// bulk write (DeferFrom) is only marked pending, for the worker.
func (k *Service) Index(ctx context.Context, orgID string, ms []*memory.Memory) error {
	var ids []string
	for _, m := range ms {
		if Extractable(m.Type) && m.OrgID == orgID {
			ids = append(ids, m.ID)
		}
	}
	deferred := k.Deferred && k.Fallback != nil
	if !deferred && !k.bulk(len(ids)) {
		return k.index(ctx, orgID, ms, k.Extractor, k.Fallback, nil)
	}
	if len(ids) == 0 {
		return nil
	}
	var err error
	if deferred {
		err = k.index(ctx, orgID, ms, k.Fallback, nil, nil)
	} // else a bulk write: the worker extracts the whole batch
	// Pending whatever happened: the Extractor's knowledge is still to
	// come. A memory deleted meanwhile is ignored by the term index.
	if perr := k.Terms.MarkKnowledgePending(context.WithoutCancel(ctx), orgID, ids); perr != nil {
		return errors.Join(err, fmt.Errorf("knowledge: mark pending for %s: %w", k.Extractor.Name(), perr))
	}
	if k.OnPending != nil {
		k.OnPending(orgID)
	}
	return err
}

// bulk reports whether a write of n memories to extract is left to the
// worker (DeferFrom). With Deferred, every write is extracted at once by
// the Fallback already, and left pending for the Extractor.
func (k *Service) bulk(n int) bool {
	return k.DeferFrom > 0 && n >= k.DeferFrom && k.OnPending != nil && !k.Deferred
}

// PendingPage is how many pending memories one ExtractPending call takes
// when its limit is 0: memory.MaxKnowledgePage for an extractor that runs
// here (offline), whose cost per memory falls with the size of the
// transaction that writes its knowledge, and memory.DefaultKnowledgePage
// for a language model (Deferred), which answers a page at a time.
func (k *Service) PendingPage() int {
	if k.Deferred {
		return memory.DefaultKnowledgePage
	}
	return memory.MaxKnowledgePage
}

// index extracts the knowledge of ms with ex, with fallback (if not nil)
// when ex fails, and writes it (see Index). read, when not nil, holds ms
// as the store returned them just before (the worker's page): they are
// not read again before the write, only after it.
func (k *Service) index(ctx context.Context, orgID string, ms []*memory.Memory, ex, fallback memory.KnowledgeExtractor,
	read map[string]*memory.Memory) error {
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
	var got []memory.Knowledge
	keys, err := k.providedKeysOf(ctx, orgID)
	var names *memory.EntityNames
	if err == nil {
		names, err = k.entityNames(ctx, orgID)
	}
	if err == nil {
		in := resolveSpeakers(names, todo, srcs)
		got, err = extract(ctx, ex, in)
		if err != nil && fallback != nil && ctx.Err() == nil {
			n := k.fallbacks.Add(int64(len(in)))
			k.log().WarnContext(ctx, "knowledge: extractor failed, its fallback extracts", "org", orgID, "extractor", ex.Name(),
				"fallback", fallback.Name(), "memories", len(in), "total", n, "err", err)
			ex = fallback
			got, err = extract(ctx, ex, in)
		}
	}
	if err != nil {
		if perr := k.Terms.MarkKnowledgePending(context.WithoutCancel(ctx), orgID, ids); perr != nil {
			err = errors.Join(err, perr)
		}
		return fmt.Errorf("knowledge: extract: %w", err)
	}
	// The stale-extraction guard: knowledge computed from a version of a
	// memory that was patched meanwhile is not written over the newer one.
	// (With read, a patch during the extraction is caught by the check
	// after the write, below.)
	fresh := read
	if fresh == nil {
		if fresh, err = k.Store.GetMany(ctx, orgID, ids); err != nil {
			return fmt.Errorf("knowledge: read back: %w", err)
		}
	}
	var stale []string
	var puts []memory.KnowledgePut
	for i, m := range todo {
		cur := fresh[m.ID]
		if cur == nil {
			continue // forgotten since
		}
		attrs := m.Attrs()
		if cur.Version != m.Version {
			if !sameSource(source(cur), srcs[i]) {
				stale = append(stale, m.ID)
				continue
			}
			attrs = cur.Attrs() // same text, newer attributes (archived, moved)
		}
		kn := withProvided(withTopicSentence(m, got[i]), Provided(cur, keys))
		refs := resolveMentions(names, m.AgentID, kn).Refs(m.ID)
		if len(refs) > memory.MaxRefsPerMemory {
			refs = refs[:memory.MaxRefsPerMemory]
		}
		puts = append(puts, memory.KnowledgePut{MemoryID: m.ID, Attrs: attrs, Refs: refs})
	}
	written, err := k.put(ctx, orgID, ex.Name(), puts)
	if err != nil {
		return err
	}
	if k.Related != nil {
		byID := make(map[string][]memory.SemanticRef, len(puts))
		for _, p := range puts {
			byID[p.MemoryID] = p.Refs
		}
		for _, id := range written {
			k.Related.Observe(orgID, byID[id])
		}
	}
	// A patch between the read above and the write: the memory goes back
	// to pending, and RetryPending extracts its newest version.
	if len(written) > 0 {
		after, err := k.Store.GetMany(ctx, orgID, written)
		if err != nil {
			return fmt.Errorf("knowledge: read back: %w", err)
		}
		for _, id := range written {
			if cur := after[id]; cur != nil && cur.Version != fresh[id].Version && !sameSource(source(cur), source(fresh[id])) {
				stale = append(stale, id)
			}
		}
	}
	if len(stale) > 0 {
		k.log().DebugContext(ctx, "knowledge: extraction of an older version not written", "org", orgID, "count", len(stale))
		if err := k.Terms.MarkKnowledgePending(ctx, orgID, stale); err != nil {
			return fmt.Errorf("knowledge: mark stale extractions pending: %w", err)
		}
	}
	return nil
}

// extract runs ex on srcs and checks it returned one result per source.
func extract(ctx context.Context, ex memory.KnowledgeExtractor, srcs []memory.KnowledgeSource) ([]memory.Knowledge, error) {
	got, err := ex.Extract(ctx, srcs)
	if err == nil && len(got) != len(srcs) {
		err = fmt.Errorf("knowledge: the extractor %s returned %d results for %d memories", ex.Name(), len(got), len(srcs))
	}
	return got, err
}

// Wait returns once the BM25 counts running in the background (see
// countCache) are done: for tests, and benchmarks that measure a
// settled process.
func (k *Service) Wait() { k.counts.bg.Wait() }

// Fallbacks returns how many memories the Fallback extractor extracted
// because the Extractor failed, since the service started.
func (k *Service) Fallbacks() int64 { return k.fallbacks.Load() }

// put writes the puts' knowledge, in one call when the term index takes
// batches (memory.KnowledgeBatcher), and returns the ids written; memories
// forgotten since are skipped.
func (k *Service) put(ctx context.Context, orgID, extractor string, puts []memory.KnowledgePut) ([]string, error) {
	if len(puts) == 0 {
		return nil, nil
	}
	if b, ok := k.Terms.(memory.KnowledgeBatcher); ok {
		written, err := b.PutKnowledgeMany(ctx, orgID, extractor, puts)
		if err != nil {
			return nil, fmt.Errorf("knowledge: index %d memories: %w", len(puts), err)
		}
		return written, nil
	}
	var written []string
	for _, p := range puts {
		err := k.Terms.PutKnowledge(ctx, orgID, p.MemoryID, p.Attrs, extractor, p.Refs)
		if memory.IsNotFound(err) {
			continue // forgotten since
		}
		if err != nil {
			return nil, fmt.Errorf("knowledge: index %s: %w", p.MemoryID, err)
		}
		written = append(written, p.MemoryID)
	}
	return written, nil
}

// sameSource reports whether an extractor reads the same from a and b.
func sameSource(a, b memory.KnowledgeSource) bool {
	return a.MemoryID == b.MemoryID && a.Type == b.Type && a.Text == b.Text && a.Speaker == b.Speaker &&
		a.RoomID == b.RoomID && a.SessionID == b.SessionID && a.CreatedAt == b.CreatedAt &&
		slices.Equal(a.Listeners, b.Listeners)
}

// Forget implements service.Forgetter: the refs of deleted memories go
// with them.
func (k *Service) Forget(ctx context.Context, orgID string, ids []string) error {
	if k.Related == nil {
		return k.Terms.DeleteKnowledge(ctx, orgID, ids)
	}
	terms, err := k.termsOf(ctx, orgID, ids)
	if err != nil {
		return err
	}
	if err := k.Terms.DeleteKnowledge(ctx, orgID, ids); err != nil {
		return err
	}
	if err := k.Related.DropTerms(ctx, orgID, terms); err != nil {
		// The term index is the truth: the next lookup lists it again.
		k.Related.Forgot(orgID)
		return err
	}
	return nil
}

// termsOf returns the distinct terms of the memories' refs.
func (k *Service) termsOf(ctx context.Context, orgID string, ids []string) ([]string, error) {
	st, err := k.Terms.KnowledgeStatus(ctx, orgID, ids)
	if err != nil {
		return nil, fmt.Errorf("knowledge: forget: status: %w", err)
	}
	var keys []memory.RefKey
	for _, s := range st {
		for i := 0; i < s.Refs; i++ {
			keys = append(keys, memory.RefKey{MemoryID: s.MemoryID, Ordinal: i})
		}
	}
	seen := map[string]bool{}
	var out []string
	for len(keys) > 0 {
		n := min(len(keys), memory.MaxRefKeys)
		refs, err := k.Terms.Refs(ctx, orgID, keys[:n])
		if err != nil {
			return nil, fmt.Errorf("knowledge: forget: refs: %w", err)
		}
		for _, r := range refs {
			for _, t := range memory.DistinctTerms(r) {
				if !seen[t] {
					seen[t] = true
					out = append(out, t)
				}
			}
		}
		keys = keys[n:]
	}
	return out, nil
}

// RetryPending extracts again up to limit memories of the org whose
// knowledge is pending, then, with what is left of limit, runs a Backfill
// pass over the memories that have no status yet, and returns how many it
// indexed.
func (k *Service) RetryPending(ctx context.Context, orgID string, limit int) (int, error) {
	if limit <= 0 {
		limit = memory.DefaultKnowledgePage
	}
	n, err := k.retryPending(ctx, orgID, limit)
	if err != nil || n >= limit {
		return n, err
	}
	b, err := k.Backfill(ctx, orgID, limit-n)
	return n + b.Indexed, err
}

// ExtractPending extracts again up to limit memories of the org whose
// knowledge is pending (0: PendingPage), with the
// Extractor and its Fallback, and returns how many it extracted; the
// knowledge of those deleted since is removed. Unlike RetryPending, it
// runs no Backfill.
func (k *Service) ExtractPending(ctx context.Context, orgID string, limit int) (int, error) {
	if limit <= 0 {
		limit = k.PendingPage()
	}
	return k.retryPending(ctx, orgID, limit)
}

func (k *Service) retryPending(ctx context.Context, orgID string, limit int) (int, error) {
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
	if err := k.index(ctx, orgID, ms, k.Extractor, k.Fallback, got); err != nil {
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
// topic much. With related terms, a word also matches through each of its
// related terms (related.Index), at the related term's idf times its
// similarity times query.RelatedWeight: always below an exact match of the
// same rarity. A related term counts for one query word only, the one it
// is most similar to, and not at all when it is itself a query term (as
// KnowPro dedupes them); a question keeps its query.MaxRelatedPerQuery
// most similar related terms. A memory's score is the sum over the distinct
// query words it matches, each by its best form; memories that score
// nothing are not listed, so the list only ranks what the knowledge really
// singles out. Words indexed under more than MaxTermDF memories take no
// part (termPostings). A question that names one person who speaks in the
// memories (retrieval.Query.Speakers) keeps the messages that person said.
func (t termList) Retrieve(ctx context.Context, q *retrieval.Query, _ []string) (map[string][]memory.Hit, error) {
	terms := QueryTerms(q.Text)
	if len(terms) == 0 {
		return map[string][]memory.Hit{retrieval.ListKnowledge: nil}, nil
	}
	// weights: term -> query word -> weight before idf (1 for exact).
	weights := map[string]map[string]float64{}
	for term, ws := range terms {
		weights[term] = map[string]float64{}
		for _, w := range ws {
			weights[term][w] = 1
		}
	}
	rel, err := t.related(ctx, q.Filter.OrgID, terms)
	if err != nil {
		return nil, err
	}
	for term, r := range rel {
		weights[term] = map[string]float64{r.word: r.weight * query.RelatedWeight}
	}
	hits, scored, err := t.rank(ctx, q.Filter, weights)
	if err != nil {
		return nil, err
	}
	// A question about one person who speaks in the memories ("What
	// activities does Melanie partake in?") is answered by what that person
	// said, as KnowPro scopes a query by the entities it names. The name
	// itself cannot weigh in the sum: a speaker's name is in half of a
	// conversation's memories, so its idf is nil. The idf stays that of
	// the memories the caller searches; the speaker only selects which of
	// them rank.
	speakers, err := q.Speakers(ctx, t.k.Store)
	if err != nil {
		return nil, err
	}
	if len(speakers) == 1 && len(hits) > 0 {
		f, _ := retrieval.SaidBy(q.Filter, speakers[0])
		if hits, err = t.within(ctx, f, scored, hits); err != nil {
			return nil, err
		}
	}
	if len(hits) > q.K {
		hits = hits[:q.K]
	}
	return map[string][]memory.Hit{retrieval.ListKnowledge: hits}, nil
}

// rank scores the memories f selects by the query words they match
// (weights: term -> query word -> weight before idf), best first, newer
// first among equals; see termList.Retrieve. It also returns the terms
// that scored, in order.
func (t termList) rank(ctx context.Context, f memory.Filter, weights map[string]map[string]float64) ([]memory.Hit, []string, error) {
	words := make([]string, 0, len(weights))
	for w := range weights {
		words = append(words, w)
	}
	sort.Strings(words)
	var posts []memory.TermPosting
	n := 0
	for len(words) > 0 {
		batch := words[:min(len(words), memory.MaxQueryTerms)]
		words = words[len(batch):]
		ps, c, err := t.k.termPostings(ctx, f, batch)
		if err != nil {
			return nil, nil, err
		}
		posts, n = append(posts, ps...), c
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
	var scored []string
	for term, mems := range byTerm {
		df := float64(len(mems))
		idf := math.Log((float64(n) - df + 0.5) / (df + 0.5))
		if idf <= 0 {
			continue
		}
		scored = append(scored, term)
		for word, w := range weights[term] {
			for id := range mems {
				if score[id] == nil {
					score[id] = map[string]float64{}
				}
				score[id][word] = max(score[id][word], w*idf)
			}
		}
	}
	hits := make([]memory.Hit, 0, len(score))
	var parts []float64
	for id, ws := range score {
		// Summed in one order, so that equal matches score equal to the
		// last bit and the tie-break below decides, not the map's order.
		parts = parts[:0]
		for _, w := range ws {
			parts = append(parts, w)
		}
		slices.Sort(parts)
		s := 0.0
		for _, w := range parts {
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
	slices.Sort(scored)
	return hits, scored, nil
}

// within keeps the hits that are memories f selects, in order: those
// indexed within f under one of the terms that scored them. Such a term
// is indexed under at most MaxTermDF memories (termPostings), so reading
// that many of its postings within f finds every hit f selects.
func (t termList) within(ctx context.Context, f memory.Filter, terms []string, hits []memory.Hit) ([]memory.Hit, error) {
	in := map[string]bool{}
	for len(terms) > 0 {
		batch := terms[:min(len(terms), memory.MaxQueryTerms)]
		terms = terms[len(batch):]
		posts, err := t.k.Terms.LookupTerms(ctx, memory.TermLookup{Filter: f, Terms: batch, Limit: MaxTermDF, KeysOnly: true})
		if err != nil {
			return nil, fmt.Errorf("knowledge: lookup within %s's messages: %w", f.EntityID, err)
		}
		for _, p := range posts {
			in[p.Ref.MemoryID] = true
		}
	}
	kept := hits[:0]
	for _, h := range hits {
		if in[h.ID] {
			kept = append(kept, h)
		}
	}
	return kept, nil
}

// relatedTo is the query word a related term stands for, and its
// similarity.
type relatedTo struct {
	word   string
	weight float64
}

// related expands the single-word terms of a question (terms as
// QueryTerms returns them) with their related terms: each related term
// that is not itself a query term, assigned to the word it is most similar
// to, the query.MaxRelatedPerQuery most similar of them. Without a
// related.Index, or when it fails (logged), there are none.
func (t termList) related(ctx context.Context, orgID string, terms map[string][]string) (map[string]relatedTo, error) {
	if t.k.Related == nil {
		return nil, nil
	}
	var keys []string
	for term := range terms {
		if !strings.Contains(term, " ") {
			keys = append(keys, term)
		}
	}
	sort.Strings(keys)
	if len(keys) > memory.MaxQueryTerms {
		keys = keys[:memory.MaxQueryTerms]
	}
	exp, err := t.k.Related.Expand(ctx, orgID, keys)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t.k.log().WarnContext(ctx, "knowledge: related terms unavailable", "org", orgID, "err", err)
		return nil, nil
	}
	out := map[string]relatedTo{}
	for _, key := range keys {
		for _, r := range exp[key] {
			if _, exact := terms[r.Term]; exact || r.Weight <= 0 {
				continue
			}
			if cur, ok := out[r.Term]; !ok || r.Weight > cur.weight || r.Weight == cur.weight && terms[key][0] < cur.word {
				out[r.Term] = relatedTo{word: terms[key][0], weight: min(r.Weight, 1)}
			}
		}
	}
	keepMostSimilar(out, query.MaxRelatedPerQuery)
	return out, nil
}

// keepMostSimilar leaves the n related terms of rel with the greatest
// weight, the alphabetically first among equals (query.MostSimilar).
func keepMostSimilar(rel map[string]relatedTo, n int) {
	if len(rel) <= n {
		return
	}
	weights := make(map[string]float64, len(rel))
	for t, r := range rel {
		weights[t] = r.weight
	}
	keep := query.MostSimilar(weights, n)
	maps.DeleteFunc(rel, func(t string, _ relatedTo) bool { return !keep[t] })
}

func (k *Service) log() *slog.Logger {
	if k.Log != nil {
		return k.Log
	}
	return slog.New(slog.DiscardHandler)
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
		if w == "" || en.TermStopWord(w) || questionWords[w] || len(w) < 2 {
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
	if e.k.Related != nil {
		ev.Related = e.k.Related
	}
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
