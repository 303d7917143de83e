package query

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Range and topic scopes, after KnowPro's scope expressions: besides a
// room, a session or an agent, a scope can name
//
//   - a document range: scope.documentId, optionally with fromPosition and
//     toPosition (inclusive), the positions of the document's fragments;
//   - a message range: scope.sessionId with fromMessageId or fromTime, and
//     toMessageId or toTime: the session's turns from the first (included)
//     to the second (an id included, a time excluded), either side open;
//   - a topic description: scope.topic, the stretches of conversation whose
//     turns' topic sentences match the description (see ScopeResolver).
//
// A scope only narrows: it is resolved within the filter the caller may
// see, so naming another agent's session or document finds nothing.

// ScopeSet is what a range or topic scope resolves to: the memories it
// keeps, and the CreatedAt bounds that hold them, [Start, End) in ms (zero
// is open), which are pushed down into the lookups.
type ScopeSet struct {
	IDs        map[string]bool
	Start, End int64
}

// ScopeResolver resolves the range and topic parts of a scope within f (the
// caller's filter, narrowed by the scope's room, session and document).
// Without one, an evaluator rejects them.
type ScopeResolver interface {
	ResolveScope(ctx context.Context, f memory.Filter, sc Scope) (ScopeSet, error)
}

// Ranged reports whether sc has a part a ScopeResolver resolves: a
// position range, a message range or a topic description.
func (sc *Scope) Ranged() bool {
	return sc != nil && (sc.FromPosition != nil || sc.ToPosition != nil || sc.FromMessageID != "" || sc.ToMessageID != "" ||
		sc.FromTime != "" || sc.ToTime != "" || sc.Topic != "")
}

// FromTimeMs and ToTimeMs are the message range's times in ms (0 when
// absent); the scope is valid (Normalized).
func (sc *Scope) FromTimeMs() int64 { return msOf(sc.FromTime) }

// ToTimeMs: see FromTimeMs.
func (sc *Scope) ToTimeMs() int64 { return msOf(sc.ToTime) }

func msOf(s string) int64 {
	if s == "" {
		return 0
	}
	t, _ := time.Parse(time.RFC3339, s)
	return t.UnixMilli()
}

// validRanges checks the range and topic parts of a scope whose ids are
// valid, and returns them normalized into out.
func validRanges(s, out *Scope) error {
	if err := memory.ValidID("scope.documentId", s.DocumentID); err != nil {
		return err
	}
	for _, p := range []struct {
		name string
		v    *int
	}{{"scope.fromPosition", s.FromPosition}, {"scope.toPosition", s.ToPosition}} {
		if p.v == nil {
			continue
		}
		if s.DocumentID == "" {
			return memory.Errorf(memory.EINVALID, "%s: a position range is a document's: requires scope.documentId", p.name)
		}
		if *p.v < 0 {
			return memory.Errorf(memory.EINVALID, "%s: must not be negative", p.name)
		}
	}
	if s.FromPosition != nil && s.ToPosition != nil && *s.ToPosition < *s.FromPosition {
		return memory.Errorf(memory.EINVALID, "scope.toPosition: before scope.fromPosition")
	}
	for _, p := range []struct{ name, v string }{
		{"scope.fromMessageId", s.FromMessageID}, {"scope.toMessageId", s.ToMessageID}, {"scope.fromTime", s.FromTime}, {"scope.toTime", s.ToTime}} {
		if p.v != "" && s.SessionID == "" {
			return memory.Errorf(memory.EINVALID, "%s: a message range is a session's: requires scope.sessionId", p.name)
		}
	}
	for _, p := range []struct{ name, v string }{{"scope.fromMessageId", s.FromMessageID}, {"scope.toMessageId", s.ToMessageID}} {
		if err := memory.ValidID(p.name, p.v); err != nil {
			return err
		}
	}
	if s.FromMessageID != "" && s.FromTime != "" {
		return memory.Errorf(memory.EINVALID, "scope.fromTime: excludes scope.fromMessageId")
	}
	if s.ToMessageID != "" && s.ToTime != "" {
		return memory.Errorf(memory.EINVALID, "scope.toTime: excludes scope.toMessageId")
	}
	var from, to time.Time
	var err error
	if s.FromTime != "" {
		if from, err = rfc3339(s.FromTime, "scope.fromTime"); err != nil {
			return err
		}
	}
	if s.ToTime != "" {
		if to, err = rfc3339(s.ToTime, "scope.toTime"); err != nil {
			return err
		}
	}
	if s.FromTime != "" && s.ToTime != "" && !to.After(from) {
		return memory.Errorf(memory.EINVALID, "scope.toTime: must be after scope.fromTime")
	}
	if s.Topic != "" {
		if len(s.Topic) > MaxStringBytes {
			return memory.Errorf(memory.EINVALID, "scope.topic: longer than %d bytes", MaxStringBytes)
		}
		if out.Topic = memory.NormalizeTerm(s.Topic); out.Topic == "" {
			return memory.Errorf(memory.EINVALID, "scope.topic: empty after normalization (only punctuation, space or invalid UTF-8)")
		}
	}
	return nil
}

// decodeScopeRanges decodes the range and topic members of a scope object.
func decodeScopeRanges(m map[string]any, sc *Scope) error {
	for _, f := range []field{{"documentId", &sc.DocumentID}, {"fromMessageId", &sc.FromMessageID}, {"toMessageId", &sc.ToMessageID},
		{"fromTime", &sc.FromTime}, {"toTime", &sc.ToTime}, {"topic", &sc.Topic}} {
		var err error
		if *f.p, err = str(m, f.k, "scope"); err != nil {
			return err
		}
	}
	for _, p := range []struct {
		k string
		p **int
	}{{"fromPosition", &sc.FromPosition}, {"toPosition", &sc.ToPosition}} {
		v, ok := m[p.k]
		if !ok {
			continue
		}
		n, ok := v.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil || i < 0 || i > 1<<31-1 {
			return memory.Errorf(memory.EINVALID, "scope.%s: must be an integer from 0", p.k)
		}
		pos := int(i)
		*p.p = &pos
	}
	return nil
}

// scopeKeys are the members a scope object may have.
var scopeKeys = []string{"roomId", "sessionId", "agentId", "documentId", "fromPosition", "toPosition",
	"fromMessageId", "toMessageId", "fromTime", "toTime", "topic"}

// withinScope is the evaluator for x's scope: the base filter narrowed by
// the scope's document, and, for a range or topic scope, by the CreatedAt
// bounds of what it resolves to, with an index that keeps only the
// postings of those memories. ok is false when nothing can match.
func (e *Evaluator) withinScope(ctx context.Context, f memory.Filter, sc *Scope) (*Evaluator, memory.Filter, bool, error) {
	if sc == nil || (sc.DocumentID == "" && !sc.Ranged()) {
		return e, f, true, nil
	}
	for _, p := range []struct {
		dst *string
		v   string
	}{{&f.DocumentID, sc.DocumentID}, {&f.SessionID, sc.SessionID}, {&f.RoomID, sc.RoomID}} {
		switch {
		case p.v == "":
		case *p.dst == "":
			*p.dst = p.v
		case *p.dst != p.v:
			return e, f, false, nil
		}
	}
	if !sc.Ranged() {
		return e, f, true, nil
	}
	if e.Scopes == nil {
		return e, f, false, memory.Errorf(memory.EINVALID, "scope: position, message ranges and topics are not available here")
	}
	set, err := e.Scopes.ResolveScope(ctx, f, *sc)
	if err != nil {
		return e, f, false, err
	}
	if len(set.IDs) == 0 {
		return e, f, false, nil
	}
	f.Start = max(f.Start, set.Start)
	f.End = minBound(f.End, set.End)
	if f.End != 0 && f.End <= f.Start {
		return e, f, false, nil
	}
	scoped := *e
	in := scopedIndex{Index: e.Index, ids: set.IDs}
	scoped.Index = in
	if l, ok := e.Index.(RefLoader); ok {
		scoped.Index = scopedLoader{scopedIndex: in, loader: l}
	}
	return &scoped, f, true, nil
}

// scopedIndex keeps the postings of the memories of a resolved scope.
type scopedIndex struct {
	Index
	ids map[string]bool
}

// LookupTerms implements Index.
func (s scopedIndex) LookupTerms(ctx context.Context, q memory.TermLookup) ([]memory.TermPosting, error) {
	ps, err := s.Index.LookupTerms(ctx, q)
	out := ps[:0]
	for _, p := range ps {
		if s.ids[p.Ref.MemoryID] {
			out = append(out, p)
		}
	}
	return out, err
}

// LookupProperty implements Index.
func (s scopedIndex) LookupProperty(ctx context.Context, q memory.PropertyLookup) ([]memory.PropertyPosting, error) {
	ps, err := s.Index.LookupProperty(ctx, q)
	out := ps[:0]
	for _, p := range ps {
		if s.ids[p.Ref.MemoryID] {
			out = append(out, p)
		}
	}
	return out, err
}

// scopedLoader is a scopedIndex over an index that loads refs.
type scopedLoader struct {
	scopedIndex
	loader RefLoader
}

// Refs implements RefLoader.
func (s scopedLoader) Refs(ctx context.Context, orgID string, keys []memory.RefKey) (map[memory.RefKey]memory.SemanticRef, error) {
	return s.loader.Refs(ctx, orgID, keys)
}
