package knowledge

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// Prefetch, after the associative memory of Structured RAG: while a
// request is being typed, the completions of its last, partial word and the
// memories of the terms it already names, so that a client can show them,
// or warm a prompt, before the request is finished. It costs one
// TermIndex.Terms call, one LookupTerms (keys only) and one load of the
// memories.

// PrefetchRequest is a partial request.
type PrefetchRequest struct {
	// Text is the request as typed so far: its last word, unless followed
	// by a space, is partial and completed; the words before it that are
	// not function or question words are complete terms.
	Text string
	// Filter narrows the memories (room, session, agent, time...); the org
	// and viewer come from the caller.
	Filter memory.Filter
	// Limit is the most memories (default DefaultPrefetchMemories, at most
	// query.MaxLimit); TermLimit the most completions (default
	// memory.DefaultTermCompletion, at most memory.MaxTermPrefixResult).
	Limit, TermLimit int
}

// PrefetchResult is what a partial request already finds.
type PrefetchResult struct {
	// Completions are the completions of the partial word, most frequent
	// first.
	Completions []TermHint `json:"completions"`
	// Terms are the terms whose memories were fetched: the complete terms,
	// then the first completion.
	Terms []string `json:"terms"`
	// Memories are the memories of Terms the caller may see, those that
	// match more of the terms first, then newest first; Terms says which.
	Memories []MemoryResult `json:"memories"`
}

// Prefetch defaults and limits.
const (
	DefaultPrefetchMemories = 10
	maxPrefetchTerms        = 8 // complete terms of one request, the last ones kept
)

// prefetchWords splits text into its complete content terms and its
// partial last word ("" when the text ends with a space).
func prefetchWords(text string) (complete []string, partial string) {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) && r != '\'' && r != '-'
	})
	last, _ := utf8.DecodeLastRuneInString(text)
	if len(fields) > 0 && !unicode.IsSpace(last) && !unicode.IsPunct(last) {
		partial = memory.NormalizeTerm(fields[len(fields)-1])
		fields = fields[:len(fields)-1]
	}
	seen := map[string]bool{}
	for _, f := range fields {
		t := memory.NormalizeTerm(f)
		if t == "" || en.QuestionStopWord(t) || seen[t] || !memory.IndexableTerm(t) {
			continue
		}
		seen[t] = true
		complete = append(complete, t)
	}
	if len(complete) > maxPrefetchTerms {
		complete = complete[len(complete)-maxPrefetchTerms:]
	}
	return complete, partial
}

// Prefetch answers a partial request, within what c may see. Errors:
// EINVALID (text, limits, the filter's); EFORBIDDEN for another agent's
// scope; EUNAVAILABLE.
func (e *Explorer) Prefetch(ctx context.Context, c memory.Caller, r PrefetchRequest) (*PrefetchResult, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	f, err := c.Bind(r.Filter)
	if err != nil {
		return nil, err
	}
	switch {
	case !utf8.ValidString(r.Text):
		return nil, memory.Errorf(memory.EINVALID, "text: not valid UTF-8")
	case strings.TrimSpace(r.Text) == "":
		return nil, memory.Errorf(memory.EINVALID, "text: required")
	case len(r.Text) > memory.MaxQueryBytes:
		return nil, memory.Errorf(memory.EINVALID, "text: longer than %d bytes", memory.MaxQueryBytes)
	case r.Limit < 0 || r.Limit > query.MaxLimit:
		return nil, memory.Errorf(memory.EINVALID, "limit: %d is outside 1..%d", r.Limit, query.MaxLimit)
	}
	termLimit, err := memory.TermsLimit(r.TermLimit)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "termLimit: %d is outside 1..%d", r.TermLimit, memory.MaxTermPrefixResult)
	}
	limit := r.Limit
	if limit == 0 {
		limit = DefaultPrefetchMemories
	}
	complete, partial := prefetchWords(r.Text)
	out := &PrefetchResult{Completions: []TermHint{}, Terms: complete, Memories: []MemoryResult{}}
	if partial != "" && memory.IndexableTerm(partial) {
		ts, err := e.Index.Terms(ctx, f, partial, termLimit)
		if err != nil {
			return nil, fmt.Errorf("knowledge: prefetch: terms: %w", err)
		}
		for _, t := range ts {
			out.Completions = append(out.Completions, TermHint{Term: t.Term, Count: t.Count})
		}
		if len(ts) > 0 && !contains(complete, ts[0].Term) {
			out.Terms = append(out.Terms, ts[0].Term)
		}
	}
	if out.Terms == nil {
		out.Terms = []string{}
	}
	if len(out.Terms) == 0 {
		return out, nil
	}
	ps, err := e.Index.LookupTerms(ctx, memory.TermLookup{Filter: f, Terms: out.Terms, Limit: 4 * limit, KeysOnly: true})
	if err != nil {
		return nil, fmt.Errorf("knowledge: prefetch: lookup: %w", err)
	}
	matched := map[string][]string{}
	var ids []string
	for _, p := range ps {
		id := p.Ref.MemoryID
		if _, ok := matched[id]; !ok {
			ids = append(ids, id)
		}
		if !contains(matched[id], p.Term) {
			matched[id] = append(matched[id], p.Term)
		}
	}
	// Load only what is shown: the candidates that match more terms first,
	// then the newest (ids sort by time), a chunk at a time until limit
	// memories the caller may see are found.
	sort.SliceStable(ids, func(i, j int) bool {
		if a, b := len(matched[ids[i]]), len(matched[ids[j]]); a != b {
			return a > b
		}
		return ids[i] > ids[j]
	})
	for len(ids) > 0 && len(out.Memories) < limit {
		chunk := ids[:min(len(ids), 2*limit, memory.MaxRefKeys)]
		ids = ids[len(chunk):]
		mems, err := e.visible(ctx, c, f, chunk)
		if err != nil {
			return nil, fmt.Errorf("knowledge: prefetch: load memories: %w", err)
		}
		for _, id := range chunk {
			if m := mems[id]; m != nil {
				out.Memories = append(out.Memories, MemoryResult{Memory: m, Score: float64(len(matched[id])) / float64(len(out.Terms)), Terms: matched[id]})
			}
		}
	}
	sort.SliceStable(out.Memories, func(i, j int) bool {
		a, b := out.Memories[i], out.Memories[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Memory.CreatedAt != b.Memory.CreatedAt {
			return a.Memory.CreatedAt > b.Memory.CreatedAt
		}
		return a.Memory.ID > b.Memory.ID
	})
	if len(out.Memories) > limit {
		out.Memories = out.Memories[:limit]
	}
	return out, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
