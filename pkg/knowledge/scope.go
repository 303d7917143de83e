package knowledge

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/memory"
)

// Bounds of range and topic scopes.
const (
	// MaxScopeMemories is the most memories of one document or session a
	// range or topic scope reads; a longer one is scoped within its oldest
	// MaxScopeMemories.
	MaxScopeMemories = 10 * memory.MaxListLimit
	// MaxTopicSessions is the most sessions whose stretches a topic scope
	// keeps: those with the most matching turns.
	MaxTopicSessions = 20
)

// ResolveScope implements query.ScopeResolver over the store and the term
// index, within f (the caller's filter, narrowed by the scope's room,
// session and document), so that a scope never shows more than f does:
//
//   - a position range keeps the memories of the document whose position
//     is within [fromPosition, toPosition] (either open);
//   - a message range keeps the session's messages from fromMessageId (or
//     the first at or after fromTime) to toMessageId (or the last before
//     toTime), in time order; an id f does not select matches nothing;
//   - a topic description keeps the stretches of conversation about it
//     (topicStretches).
//
// Several parts keep what they all keep.
func (e *Explorer) ResolveScope(ctx context.Context, f memory.Filter, sc query.Scope) (query.ScopeSet, error) {
	var keep map[string]int64 // id -> CreatedAt; nil until a part restricts
	and := func(got map[string]int64) {
		if got == nil {
			got = map[string]int64{}
		}
		if keep == nil {
			keep = got
			return
		}
		for id := range keep {
			if _, ok := got[id]; !ok {
				delete(keep, id)
			}
		}
	}
	if sc.FromPosition != nil || sc.ToPosition != nil {
		ms, err := e.scopeList(ctx, f)
		if err != nil {
			return query.ScopeSet{}, err
		}
		got := map[string]int64{}
		for _, m := range ms {
			if p := m.Position; p != nil && (sc.FromPosition == nil || *p >= *sc.FromPosition) && (sc.ToPosition == nil || *p <= *sc.ToPosition) {
				got[m.ID] = m.CreatedAt
			}
		}
		and(got)
	}
	if sc.FromMessageID != "" || sc.ToMessageID != "" || sc.FromTime != "" || sc.ToTime != "" {
		got, err := e.messageRange(ctx, f, sc)
		if err != nil {
			return query.ScopeSet{}, err
		}
		and(got)
	}
	if sc.Topic != "" {
		got, err := e.topicStretches(ctx, f, sc.Topic)
		if err != nil {
			return query.ScopeSet{}, err
		}
		and(got)
	}
	out := query.ScopeSet{IDs: make(map[string]bool, len(keep))}
	for id, at := range keep {
		out.IDs[id] = true
		if out.Start == 0 || at < out.Start {
			out.Start = at
		}
		out.End = max(out.End, at+1)
	}
	return out, nil
}

// scopeList lists the memories f selects, oldest first, at most
// MaxScopeMemories.
func (e *Explorer) scopeList(ctx context.Context, f memory.Filter) ([]*memory.Memory, error) {
	var out []*memory.Memory
	q := memory.ListQuery{Filter: f, Limit: memory.MaxListLimit, Ascending: true}
	for len(out) < MaxScopeMemories {
		p, err := e.Store.List(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("knowledge: scope: list: %w", err)
		}
		out = append(out, p.Memories...)
		if p.Next == nil {
			break
		}
		q.Cursor = p.Next
	}
	if len(out) > MaxScopeMemories {
		out = out[:MaxScopeMemories]
	}
	return out, nil
}

// turns lists the messages of f's session (or of the session given), in
// time order.
func (e *Explorer) turns(ctx context.Context, f memory.Filter, session string) ([]*memory.Memory, error) {
	if session != "" {
		f.SessionID = session
	}
	if len(f.Types) == 0 {
		f.Types = []memory.Type{memory.TypeMessage}
	}
	return e.scopeList(ctx, f)
}

// messageRange resolves a message range of f's session (the scope's).
func (e *Explorer) messageRange(ctx context.Context, f memory.Filter, sc query.Scope) (map[string]int64, error) {
	ts, err := e.turns(ctx, f, "")
	if err != nil {
		return nil, err
	}
	from, to := 0, len(ts) // [from, to)
	if sc.FromMessageID != "" {
		if from = slices.IndexFunc(ts, func(m *memory.Memory) bool { return m.ID == sc.FromMessageID }); from < 0 {
			return nil, nil
		}
	} else if t := sc.FromTimeMs(); t != 0 {
		from = sort.Search(len(ts), func(i int) bool { return ts[i].CreatedAt >= t })
	}
	if sc.ToMessageID != "" {
		if to = slices.IndexFunc(ts, func(m *memory.Memory) bool { return m.ID == sc.ToMessageID }) + 1; to == 0 {
			return nil, nil
		}
	} else if t := sc.ToTimeMs(); t != 0 {
		to = sort.Search(len(ts), func(i int) bool { return ts[i].CreatedAt >= t })
	}
	out := map[string]int64{}
	for i := from; i < to; i++ {
		out[ts[i].ID] = ts[i].CreatedAt
	}
	return out, nil
}

// topicStretches resolves a topic description: the stretches of
// conversation about it. A turn matches when its topic sentence
// (memory.KnowledgeSentence) shares at least half of the description's
// content words (QueryTerms: a word, its lemma or its singular), rounded
// up; a stretch is a maximal run of consecutive matching turns of one
// session, which survives one turn that does not match between two that
// do (a reply with no topic of its own, "Yeah, sounds good."). Memories
// without a session are stretches of their own. At most MaxTopicSessions
// sessions are kept, those with the most matching turns.
func (e *Explorer) topicStretches(ctx context.Context, f memory.Filter, description string) (map[string]int64, error) {
	terms := QueryTerms(description)
	var lookup []string
	words := map[string]bool{}
	for t, ws := range terms {
		if strings.Contains(t, " ") {
			continue // sentences are indexed by their words
		}
		lookup = append(lookup, memory.SentenceTerm(t))
		for _, w := range ws {
			words[w] = true
		}
	}
	if len(lookup) == 0 {
		return nil, nil
	}
	sort.Strings(lookup)
	if len(lookup) > memory.MaxQueryTerms {
		lookup = lookup[:memory.MaxQueryTerms]
	}
	need := (len(words) + 1) / 2
	ps, err := e.Index.LookupTerms(ctx, memory.TermLookup{Filter: f, Terms: lookup, Roles: []string{memory.RoleTopic}, Limit: memory.MaxTermPostings})
	if err != nil {
		return nil, fmt.Errorf("knowledge: scope: topic: %w", err)
	}
	said := map[string]map[string]bool{} // memory -> description words its sentence has
	attrs := map[string]memory.Attrs{}
	for _, p := range ps {
		if p.Kind != memory.KnowledgeSentence {
			continue
		}
		if said[p.Ref.MemoryID] == nil {
			said[p.Ref.MemoryID] = map[string]bool{}
		}
		for _, w := range terms[strings.TrimPrefix(p.Term, memory.SentenceTermPrefix)] {
			said[p.Ref.MemoryID][w] = true
		}
		attrs[p.Ref.MemoryID] = p.Attrs
	}
	out := map[string]int64{}
	perSession := map[string]int{}
	for id, ws := range said {
		if len(ws) < need {
			delete(said, id)
			continue
		}
		if s := attrs[id].SessionID; s != "" {
			perSession[s]++
		} else {
			out[id] = attrs[id].CreatedAt
		}
	}
	sessions := make([]string, 0, len(perSession))
	for s := range perSession {
		sessions = append(sessions, s)
	}
	sort.Slice(sessions, func(i, j int) bool {
		if perSession[sessions[i]] != perSession[sessions[j]] {
			return perSession[sessions[i]] > perSession[sessions[j]]
		}
		return sessions[i] < sessions[j]
	})
	if len(sessions) > MaxTopicSessions {
		sessions = sessions[:MaxTopicSessions]
	}
	for _, s := range sessions {
		ts, err := e.turns(ctx, f, s)
		if err != nil {
			return nil, err
		}
		for i, m := range ts {
			_, match := said[m.ID]
			bridge := !match && i > 0 && i+1 < len(ts) && said[ts[i-1].ID] != nil && said[ts[i+1].ID] != nil
			if match || bridge {
				out[m.ID] = m.CreatedAt
			}
		}
	}
	return out, nil
}
