package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Forgetting. Deleting a memory removes every copy of its content that the
// service derived from it:
//   - the memory itself, in the store and in the index;
//   - the Context of the turn that followed a deleted message (the deleted
//     text was copied there for retrieval): it is recomputed from the turn
//     before the deleted one, re-embedded and re-indexed;
//   - facts whose only source it was (their caused_by relations all point
//     to deleted memories), forgotten in turn; facts with other sources
//     lose the reference (metadata "sources", relation provenance);
//   - its relations (the store deletes them with the memory);
//   - its Structured RAG refs (the Forgetter hooks, for example the term
//     index).

// Forgotten counts what one deletion removed or rewrote (memory.Forgotten,
// named here for the service's callers).
type Forgotten = memory.Forgotten

// Forgetter removes what an adapter derived from memories that are being
// deleted, for example their semantic refs. It is called after the memories
// are gone from the store; it must be idempotent.
type Forgetter interface {
	Forget(ctx context.Context, orgID string, ids []string) error
}

// WithForgetter adds a Forgetter that Delete and DeleteWhere call.
func WithForgetter(f Forgetter) Option {
	return func(s *Service) { s.forgetters = append(s.forgetters, f) }
}

// maxForgetRounds bounds the cascade through facts derived from facts.
const maxForgetRounds = 8

// forget deletes ms (memories of c's org already checked visible) and
// every derived copy of their content.
func (s *Service) forget(ctx context.Context, c memory.Caller, ms []*memory.Memory) (Forgotten, error) {
	return s.forgetCounting(ctx, c, ms, nil)
}

// tally counts what an erasure removes beyond Forgotten, for its report.
type tally struct {
	byType        map[memory.Type]int
	relations     map[[3]string]bool // (from, type, to)
	knowledgeRefs int
}

// forgetCounting is forget, adding to t (when not nil) the memories by
// type, their relations and their knowledge refs.
func (s *Service) forgetCounting(ctx context.Context, c memory.Caller, ms []*memory.Memory, t *tally) (Forgotten, error) {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	var out Forgotten
	gone := map[string]bool{}
	for round := 0; len(ms) > 0; round++ {
		if round == maxForgetRounds {
			return out, memory.Errorf(memory.EINTERNAL, "forget: facts derived from facts deeper than %d levels", maxForgetRounds)
		}
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.ID
			gone[m.ID] = true
		}
		// Facts derived from these memories, read before the store drops
		// the relations with the memories.
		dependents, err := s.dependents(ctx, c.OrgID, ids, t)
		if err != nil {
			return out, err
		}
		if t != nil {
			s.countKnowledge(ctx, c.OrgID, ids, t)
		}
		for _, m := range ms {
			if err := s.store.Delete(ctx, c.OrgID, m.ID); err != nil && !memory.IsNotFound(err) {
				return out, fmt.Errorf("forget: delete %s: %w", m.ID, err)
			}
			out.Memories++
			if t != nil {
				if t.byType == nil {
					t.byType = map[memory.Type]int{}
				}
				t.byType[m.Type]++
			}
			if m.Type == memory.TypeFact && round > 0 {
				out.Facts++
			}
		}
		if err := s.index.Delete(ctx, c.OrgID, ids); err != nil {
			// The store is the truth and results are loaded from it, so a
			// stale entry is never shown; the start-up check repairs it.
			s.log.ErrorContext(ctx, "index delete failed", "op", "forget", "org", c.OrgID, "count", len(ids), "err", err)
		}
		for _, f := range s.forgetters {
			if err := f.Forget(ctx, c.OrgID, ids); err != nil {
				return out, fmt.Errorf("forget: derived data: %w", err)
			}
		}
		n, err := s.rethread(ctx, ms, gone)
		out.ContextsRewritten += n
		if err != nil {
			return out, err
		}
		// Dependent facts: forgotten when no source is left, otherwise
		// stripped of the deleted references.
		var next []*memory.Memory
		for _, id := range dependents {
			if gone[id] {
				continue
			}
			drop, err := s.unsource(ctx, c.OrgID, id, gone)
			if err != nil {
				return out, err
			}
			if drop != nil {
				next = append(next, drop)
			} else {
				out.ReferencesRemoved++
			}
		}
		ms = next
	}
	return out, nil
}

// dependents returns the ids of the memories derived from ids: those with a
// caused_by relation to one of them. With t, it counts their relations
// (each once, whichever end is deleted).
func (s *Service) dependents(ctx context.Context, orgID string, ids []string, t *tally) ([]string, error) {
	rs, ok := s.store.(memory.RelationStore)
	if !ok {
		return nil, nil
	}
	var out []string
	for _, id := range ids {
		rels, err := rs.Relations(ctx, orgID, id)
		if err != nil {
			return nil, fmt.Errorf("forget: relations of %s: %w", id, err)
		}
		for _, r := range rels {
			if t != nil {
				if t.relations == nil {
					t.relations = map[[3]string]bool{}
				}
				t.relations[[3]string{r.FromID, string(r.Type), r.ToID}] = true
			}
			if r.Type == memory.RelCausedBy && r.ToID == id && !slices.Contains(out, r.FromID) {
				out = append(out, r.FromID)
			}
		}
	}
	return out, nil
}

// unsource removes the deleted sources from fact id. It returns the fact
// when no source is left, for the caller to forget it; nil when the fact
// keeps another source (or is gone already).
func (s *Service) unsource(ctx context.Context, orgID, id string, gone map[string]bool) (*memory.Memory, error) {
	defer s.Invalidate(orgID)            // composed contexts are stale
	rs := s.store.(memory.RelationStore) // dependents found it one
	for attempt := 1; ; attempt++ {
		m, err := s.store.Get(ctx, orgID, id)
		if memory.IsNotFound(err) {
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("forget: get %s: %w", id, err)
		}
		rels, err := rs.Relations(ctx, orgID, id)
		if err != nil {
			return nil, fmt.Errorf("forget: relations of %s: %w", id, err)
		}
		left := 0
		var rewrite []memory.Relation
		for _, r := range rels {
			if r.FromID == id && r.Type == memory.RelCausedBy && !gone[r.ToID] {
				left++
			}
			if kept := slices.DeleteFunc(slices.Clone(r.Provenance), func(p string) bool { return gone[p] }); len(kept) != len(r.Provenance) && !gone[r.FromID] && !gone[r.ToID] {
				r.Provenance = kept
				rewrite = append(rewrite, r)
			}
		}
		if left == 0 {
			return m, nil
		}
		if len(rewrite) > 0 {
			if err := rs.PutRelations(ctx, rewrite); err != nil {
				return nil, fmt.Errorf("forget: relations of %s: %w", id, err)
			}
		}
		meta, changed := withoutSources(m.Metadata, gone)
		if !changed {
			return nil, nil
		}
		m.Metadata = meta
		m.UpdatedAt = s.now().UnixMilli()
		m.Change = &memory.Change{Op: memory.OpRedact}
		err = s.store.Update(ctx, m)
		if memory.IsConflict(err) && attempt < maxUpdateAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("forget: update %s: %w", id, err)
		}
		return nil, s.index.Upsert(ctx, []*memory.Memory{m})
	}
}

// withoutSources drops the gone ids from the "sources" array of a metadata
// object; it reports whether anything changed.
func withoutSources(meta json.RawMessage, gone map[string]bool) (json.RawMessage, bool) {
	if len(meta) == 0 {
		return meta, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(meta, &obj) != nil {
		return meta, false
	}
	var srcs []string
	if json.Unmarshal(obj["sources"], &srcs) != nil || len(srcs) == 0 {
		return meta, false
	}
	kept := slices.DeleteFunc(srcs, func(id string) bool { return gone[id] })
	if len(kept) == len(srcs) {
		return meta, false
	}
	obj["sources"], _ = json.Marshal(kept)
	out, err := json.Marshal(obj)
	if err != nil {
		return meta, false
	}
	return out, true
}

// rethread recomputes the Context of the turns that followed deleted
// messages: each such turn's Context was the deleted text, and becomes the
// turn before the deleted one (or nothing). It returns how many turns it
// rewrote.
func (s *Service) rethread(ctx context.Context, deleted []*memory.Memory, gone map[string]bool) (int, error) {
	n := 0
	for _, d := range deleted {
		if conversation(d) == "" {
			continue
		}
		next, err := s.nextTurns(ctx, d, gone)
		if err != nil {
			return n, err
		}
		for _, m := range next {
			ok, err := s.recontext(ctx, m.OrgID, m.ID, gone)
			if err != nil {
				return n, err
			}
			if ok {
				n++
			}
		}
	}
	return n, nil
}

// nextTurns returns the surviving messages of d's conversation and scope,
// created at or after it, whose Context is d's turn. A conversation is
// read newest first down to d's time: deleting an old turn of a long
// conversation reads the rest of it.
func (s *Service) nextTurns(ctx context.Context, d *memory.Memory, gone map[string]bool) ([]*memory.Memory, error) {
	f := conversationFilter(d)
	f.Start = d.CreatedAt
	line := turnLine(d)
	var out []*memory.Memory
	var cur *memory.Cursor
	for {
		p, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: memory.MaxListLimit, Cursor: cur})
		if err != nil {
			return nil, fmt.Errorf("forget: following turns of %s: %w", d.ID, err)
		}
		for _, m := range p.Memories {
			if !gone[m.ID] && m.Context == line {
				out = append(out, m)
			}
		}
		if p.Next == nil {
			return out, nil
		}
		cur = p.Next
	}
}

// recontext recomputes the Context of message id from the store as it is
// now, re-embeds and re-indexes it; it reports whether it changed.
func (s *Service) recontext(ctx context.Context, orgID, id string, gone map[string]bool) (bool, error) {
	defer s.Invalidate(orgID) // composed contexts are stale
	for attempt := 1; ; attempt++ {
		m, err := s.store.Get(ctx, orgID, id)
		if memory.IsNotFound(err) {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("forget: get %s: %w", id, err)
		}
		old := m.Context
		m.Context = ""
		if err := s.threadContext(ctx, []*memory.Memory{m}); err != nil {
			return false, err
		}
		if m.Context == old {
			return false, nil
		}
		if err := s.embed(ctx, []*memory.Memory{m}); err != nil {
			return false, err
		}
		m.Change = &memory.Change{Op: memory.OpRedact}
		err = s.store.Update(ctx, m)
		if memory.IsConflict(err) && attempt < maxUpdateAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return false, err
			}
			continue
		}
		if err != nil {
			return false, fmt.Errorf("forget: update %s: %w", id, err)
		}
		if err := s.index.Upsert(ctx, []*memory.Memory{m}); err != nil {
			return false, unavailable("index", err)
		}
		return true, nil
	}
}

// countKnowledge adds the knowledge refs indexed for ids to t. The count
// only informs the report: a failure is logged, and forgetting goes on.
func (s *Service) countKnowledge(ctx context.Context, orgID string, ids []string, t *tally) {
	ti, ok := s.store.(memory.TermIndex)
	if !ok {
		return
	}
	st, err := ti.KnowledgeStatus(ctx, orgID, ids)
	if err != nil {
		s.log.WarnContext(ctx, "counting the knowledge refs of forgotten memories", "op", "forget", "org", orgID, "err", err)
		return
	}
	for _, x := range st {
		t.knowledgeRefs += x.Refs
	}
}

// Erasure: POST /v1/forget. An erasure request ("forget everything about
// Ana", "forget this session") selects memories by an entity, a session, a
// room and a time range, forgets each one through the path of Delete (so
// contexts, dependent facts, relations, knowledge refs and index entries
// go with them), and leaves an audit record of who asked, when, the
// filter and the counts, never the content.

// ForgetFilter selects the memories an erasure forgets. The fields that are
// set must all match; at least one of Entity, SessionID, RoomID, Start and
// End is required.
type ForgetFilter struct {
	// Entity is an entity's name: memories whose EntityID is it (as given,
	// or normalized), and memories whose Structured RAG knowledge names it
	// (an entity of that normalized name, or the subject or object of an
	// action), when the store keeps a term index.
	Entity    string `json:"entity,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	RoomID    string `json:"roomId,omitempty"`
	// Start and End bound CreatedAt (ms) as [Start, End); zero is open.
	Start int64 `json:"start,omitempty"`
	End   int64 `json:"end,omitempty"`
	// AgentID narrows an org-level caller's erasure to one agent's scope,
	// or to the org scope with memory.OrgScope. An agent-bound caller
	// always erases within its own scope; naming the org scope is
	// EFORBIDDEN.
	AgentID string `json:"agentId,omitempty"`
}

// ForgetReport is what an erasure removed.
type ForgetReport struct {
	// Matched is how many memories the filter selected.
	Matched int `json:"matched"`
	Forgotten
	// ByType counts the memories forgotten (dependent facts included) by
	// type.
	ByType map[memory.Type]int `json:"byType"`
	// Relations counts the relations that went with them.
	Relations int `json:"relations"`
	// KnowledgeRefs counts the Structured RAG refs that went with them.
	KnowledgeRefs int `json:"knowledgeRefs"`
}

// Actor identifies who asks for an erasure, for its audit record: the key
// (an identifier, never the key itself) and the request.
type Actor struct {
	KeyID     string
	RequestID string
}

// AuditKind is the record kind of the audit log (memory.RecordStore).
const AuditKind = "audit"

// The states of an audit entry.
const (
	AuditRunning = "running" // recorded before anything is forgotten
	AuditDone    = "done"
	AuditFailed  = "failed" // Report holds what was forgotten before the failure
)

// AuditEntry is one record of the audit log: who erased what, when, and how
// much, never the content.
type AuditEntry struct {
	// ID sorts by time (memory.NewID).
	ID     string `json:"id"`
	Action string `json:"action"` // "forget"
	// At is when the erasure started, DoneAt when it ended (ms).
	At     int64  `json:"at"`
	DoneAt int64  `json:"doneAt,omitempty"`
	OrgID  string `json:"orgId"`
	// AgentID is the agent the caller's key is bound to; "" for an
	// org-level key.
	AgentID   string       `json:"agentId,omitempty"`
	KeyID     string       `json:"keyId,omitempty"`
	RequestID string       `json:"requestId,omitempty"`
	Filter    ForgetFilter `json:"filter"`
	Status    string       `json:"status"`
	Report    ForgetReport `json:"report"`
	// Error is the error code of a failed erasure.
	Error string `json:"error,omitempty"`
}

// maxErasureRounds bounds the term-index rounds of one erasure.
const maxErasureRounds = 10_000

// Forget erases the memories f selects among those c may delete, with every
// derived copy of their content, and records the erasure in the audit log
// before it starts and when it ends. It returns the audit entry, whose
// Report says what was removed. An erasure is idempotent: running it again
// finds nothing more.
//
// Errors: EINVALID (no criterion, a bad field, named); EFORBIDDEN (an
// agent-bound caller naming the org scope or another agent); EUNAVAILABLE
// when the store keeps no audit log (memory.RecordStore) or is down. After
// a failure the entry is recorded as failed with what was forgotten so
// far.
func (s *Service) Forget(ctx context.Context, c memory.Caller, a Actor, f ForgetFilter) (AuditEntry, error) {
	if err := c.Valid(); err != nil {
		return AuditEntry{}, err
	}
	flt, err := s.erasureFilter(c, f)
	if err != nil {
		return AuditEntry{}, err
	}
	records, ok := s.store.(memory.RecordStore)
	if !ok {
		return AuditEntry{}, memory.Errorf(memory.EUNAVAILABLE, "forget: the store keeps no records, so an erasure cannot be audited")
	}
	now := s.now()
	e := AuditEntry{ID: memory.NewID(now), Action: "forget", At: now.UnixMilli(), OrgID: c.OrgID, AgentID: c.AgentID,
		KeyID: a.KeyID, RequestID: a.RequestID, Filter: f, Status: AuditRunning, Report: ForgetReport{ByType: map[memory.Type]int{}}}
	if _, err := records.PutRecord(ctx, c.OrgID, AuditKind, e.ID, e, 0); err != nil {
		return AuditEntry{}, unavailable("audit log", err)
	}
	t := &tally{byType: map[memory.Type]int{}}
	ferr := s.erase(ctx, c, flt, f.Entity, &e.Report, t)
	e.Report.ByType, e.Report.Relations, e.Report.KnowledgeRefs = t.byType, len(t.relations), t.knowledgeRefs
	e.Status, e.DoneAt = AuditDone, s.now().UnixMilli()
	if ferr != nil {
		e.Status, e.Error = AuditFailed, memory.ErrorCode(ferr)
	}
	// The end is recorded even when the request was cancelled midway.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := records.PutRecord(wctx, c.OrgID, AuditKind, e.ID, e, 0); err != nil {
		s.log.ErrorContext(ctx, "recording the end of an erasure", "op", "forget", "org", c.OrgID, "audit_id", e.ID, "err", err)
		if ferr == nil {
			ferr = unavailable("audit log", err)
		}
	}
	s.log.InfoContext(ctx, "erasure", "op", "forget", "org", c.OrgID, "agent", c.AgentID, "audit_id", e.ID, "status", e.Status,
		"matched", e.Report.Matched, "memories", e.Report.Memories)
	return e, ferr
}

// erasureFilter checks f and returns the memory.Filter it selects for c:
// bound to c's org, and for an agent-bound caller to its own scope.
func (s *Service) erasureFilter(c memory.Caller, f ForgetFilter) (memory.Filter, error) {
	if f.Entity == "" && f.SessionID == "" && f.RoomID == "" && f.Start == 0 && f.End == 0 {
		return memory.Filter{}, memory.Errorf(memory.EINVALID, "filter: at least one of entity, sessionId, roomId, start or end is required")
	}
	if err := memory.ValidID("entity", f.Entity); err != nil {
		return memory.Filter{}, err
	}
	flt := memory.Filter{AgentID: f.AgentID, SessionID: f.SessionID, RoomID: f.RoomID, Start: f.Start, End: f.End, IncludeArchived: true}
	if c.AgentID != "" {
		if f.AgentID == memory.OrgScope {
			return memory.Filter{}, memory.Errorf(memory.EFORBIDDEN, "agentId: org-scope memories are shared by every agent: only an org-level key may forget them")
		}
		if f.AgentID != "" && f.AgentID != c.AgentID {
			return memory.Filter{}, memory.Errorf(memory.EFORBIDDEN, "agentId: this key is bound to agent %q and cannot forget another agent's memories", c.AgentID)
		}
		flt.AgentID = c.AgentID
	}
	flt, err := c.Bind(flt)
	if err != nil {
		return memory.Filter{}, err
	}
	flt.IncludeArchived = true
	return flt, nil
}

// erase forgets what flt and entity select, adding to rep and t.
func (s *Service) erase(ctx context.Context, c memory.Caller, flt memory.Filter, entity string, rep *ForgetReport, t *tally) error {
	add := func(n int, got Forgotten) {
		rep.Matched += n
		rep.Memories += got.Memories
		rep.Facts += got.Facts
		rep.ContextsRewritten += got.ContextsRewritten
		rep.ReferencesRemoved += got.ReferencesRemoved
	}
	// The memories' own fields: page by page from the newest, each page
	// forgotten before the next is read.
	byField := []memory.Filter{flt}
	if entity != "" {
		byField[0].EntityID = entity
		if n := memory.NormalizeTerm(entity); n != "" && n != entity && memory.ValidID("entity", n) == nil {
			alt := flt
			alt.EntityID = n
			byField = append(byField, alt)
		}
	}
	for _, f := range byField {
		for {
			p, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: memory.MaxListLimit})
			if err != nil {
				return fmt.Errorf("forget: list: %w", err)
			}
			if len(p.Memories) == 0 {
				break
			}
			got, err := s.forgetCounting(ctx, c, p.Memories, t)
			add(len(p.Memories), got)
			if err != nil {
				return err
			}
		}
	}
	if entity == "" {
		return nil
	}
	return s.eraseKnown(ctx, c, flt, entity, add, t)
}

// eraseKnown forgets the memories whose knowledge names entity: the refs
// of an entity of that normalized name, or of an action whose subject or
// object it is. The term index is read newest first, at most
// MaxTermPostings postings at a time; each round forgets what it found and
// moves the time bound below the postings it read.
func (s *Service) eraseKnown(ctx context.Context, c memory.Caller, flt memory.Filter, entity string, add func(int, Forgotten), t *tally) error {
	ti, ok := s.store.(memory.TermIndex)
	term := memory.NormalizeTerm(entity)
	if !ok || !memory.IndexableTerm(term) {
		return nil
	}
	q := memory.TermLookup{Filter: flt, Terms: []string{term}, Roles: []string{memory.RoleName, memory.RoleSubject, memory.RoleObject},
		Limit: memory.MaxTermPostings}
	done := map[string]bool{}
	for round := 0; round < maxErasureRounds; round++ {
		ps, err := ti.LookupTerms(ctx, q)
		if err != nil {
			return fmt.Errorf("forget: knowledge of %q: %w", term, err)
		}
		if len(ps) == 0 {
			return nil
		}
		ids, err := namedIn(ctx, ti, c.OrgID, ps, term)
		if err != nil {
			return err
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return done[id] })
		if len(ids) > 0 {
			got, err := s.store.GetMany(ctx, c.OrgID, ids)
			if err != nil {
				return fmt.Errorf("forget: load: %w", err)
			}
			var load []*memory.Memory
			var clear []string // forgotten, or gone from the store
			for _, id := range ids {
				done[id] = true
				m, ok := got[id]
				if ok && c.CanSeeMemory(m) && flt.Match(m.Attrs()) {
					load = append(load, m)
				}
				if !ok || len(load) > 0 && load[len(load)-1] == m {
					clear = append(clear, id)
				}
			}
			if len(load) > 0 {
				f, err := s.forgetCounting(ctx, c, load, t)
				add(len(load), f)
				if err != nil {
					return err
				}
			}
			// Whatever the forgetters are, no knowledge of these
			// memories is left (a memory gone from the store may have
			// left some).
			if err := ti.DeleteKnowledge(ctx, c.OrgID, clear); err != nil {
				return fmt.Errorf("forget: knowledge: %w", err)
			}
			if len(ps) == q.Limit {
				continue // the same window again: what was forgotten is gone from it
			}
		}
		if len(ps) < q.Limit {
			return nil
		}
		// A full page of postings of other names ("ana lopez" holds "ana"):
		// move below it.
		oldest := ps[len(ps)-1].Attrs.CreatedAt
		end := oldest + 1
		if q.Filter.End != 0 && end >= q.Filter.End {
			end = oldest
		}
		if end <= q.Filter.Start || end <= 0 {
			return nil
		}
		q.Filter.End = end
	}
	return memory.Errorf(memory.EINTERNAL, "forget: knowledge of %q: more than %d rounds", term, maxErasureRounds)
}

// namedIn returns the distinct memories of postings ps whose ref names term
// exactly: an entity of that name, or an action with it as subject or
// object (a posting of a word of a longer name does not count).
func namedIn(ctx context.Context, ti memory.TermIndex, orgID string, ps []memory.TermPosting, term string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for start := 0; start < len(ps); start += memory.MaxRefKeys {
		var keys []memory.RefKey
		for _, p := range ps[start:min(start+memory.MaxRefKeys, len(ps))] {
			if !seen[p.Ref.MemoryID] {
				keys = append(keys, p.Ref)
			}
		}
		refs, err := ti.Refs(ctx, orgID, keys)
		if err != nil {
			return nil, fmt.Errorf("forget: refs: %w", err)
		}
		for _, k := range keys {
			r, ok := refs[k]
			if !ok || seen[k.MemoryID] || !names(r, term) {
				continue
			}
			seen[k.MemoryID] = true
			out = append(out, k.MemoryID)
		}
	}
	return out, nil
}

// names reports whether r names term as an entity, or as an action's
// subject or object.
func names(r memory.SemanticRef, term string) bool {
	switch {
	case r.Entity != nil:
		return memory.NormalizeTerm(r.Entity.Name) == term
	case r.Action != nil:
		for _, s := range []string{r.Action.Subject, r.Action.Object, r.Action.IndirectObject} {
			if memory.NormalizeTerm(s) == term {
				return true
			}
		}
	}
	return false
}

// AuditLog returns up to limit entries of c's org's audit log, oldest first,
// after the entry id after ("" from the start), and the id to continue
// from ("" at the end). Only org-level callers read it (EFORBIDDEN).
// limit 0 means 100; at most 1000 (EINVALID).
func (s *Service) AuditLog(ctx context.Context, c memory.Caller, after string, limit int) ([]AuditEntry, string, error) {
	if err := c.Valid(); err != nil {
		return nil, "", err
	}
	if c.AgentID != "" {
		return nil, "", memory.Errorf(memory.EFORBIDDEN, "the audit log needs an org-level key; this key is bound to agent %q", c.AgentID)
	}
	if limit == 0 {
		limit = 100
	}
	if limit < 1 || limit > 1000 {
		return nil, "", memory.Errorf(memory.EINVALID, "limit: must be between 1 and 1000")
	}
	if err := memory.ValidID("cursor", after); err != nil {
		return nil, "", err
	}
	records, ok := s.store.(memory.RecordStore)
	if !ok {
		return nil, "", memory.Errorf(memory.EUNAVAILABLE, "audit log: the store keeps no records")
	}
	recs, next, err := records.ListRecords(ctx, c.OrgID, AuditKind, after, limit)
	if err != nil {
		return nil, "", unavailable("audit log", err)
	}
	out := make([]AuditEntry, 0, len(recs))
	for _, r := range recs {
		var e AuditEntry
		if err := json.Unmarshal(r.Value, &e); err != nil || e.OrgID != c.OrgID {
			return nil, "", memory.Errorf(memory.EINTERNAL, "audit log: record %q does not decode: %v", r.ID, err)
		}
		out = append(out, e)
	}
	return out, next, nil
}

// rederive recomputes what the service derived from old's text after a
// patch changed it, as deleting old would (see Forgotten), old itself
// staying with its new text:
//   - the turn that followed a message and copied its old text into its
//     Context gets the new text, re-embedded and re-indexed, and its
//     earlier versions (which held the old text) are dropped;
//   - the facts whose only source was old are forgotten, and the others
//     lose the reference; with redact, every fact derived from old is
//     forgotten, since what came from which source cannot be told apart.
//
// The knowledge of old itself is derived again by the caller, and the
// extraction of facts from the new text is the transport's (it owns the
// queue).
func (s *Service) rederive(ctx context.Context, c memory.Caller, old *memory.Memory, redact bool) error {
	if conversation(old) != "" {
		next, err := s.nextTurns(ctx, old, nil)
		if err != nil {
			return err
		}
		for _, m := range next {
			if m.ID == old.ID {
				continue
			}
			if _, err := s.recontext(ctx, m.OrgID, m.ID, nil); err != nil {
				return err
			}
		}
	}
	dependents, err := s.dependents(ctx, c.OrgID, []string{old.ID}, nil)
	if err != nil {
		return err
	}
	gone := map[string]bool{old.ID: true}
	var drop []*memory.Memory
	for _, id := range dependents {
		if id == old.ID {
			continue
		}
		var m *memory.Memory
		if redact {
			m, err = s.store.Get(ctx, c.OrgID, id)
			if memory.IsNotFound(err) {
				continue
			}
		} else {
			m, err = s.unsource(ctx, c.OrgID, id, gone)
		}
		if err != nil {
			return fmt.Errorf("rederive: fact %s: %w", id, err)
		}
		if m != nil {
			drop = append(drop, m)
		}
	}
	if len(drop) == 0 {
		return nil
	}
	_, err = s.forget(ctx, c, drop)
	return err
}
