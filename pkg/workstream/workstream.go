// Package workstream is the use case of memory blocks (Lota's
// per-workstream blocks, Letta's editable core memory): a workstream is a
// small, role-labelled list of short notes ("chief: ship on Friday") that
// an agent keeps beside its long-term memories and that the prompt context
// carries whole when a request names it.
//
// A block has a limit (DefaultLimit entries unless the workstream sets
// its own). When an append takes it past the limit, the block is
// compacted: duplicates are merged, and the oldest, least important
// entries are folded into one summary entry, written offline or, with a
// memory.LLM, by the model. Nothing disappears without a trace: every
// compaction is a version of the block kept as a record of its own, with
// the entries it replaced, word for word; an entry that says "remember"
// is never folded away.
//
// Workstreams are records of a memory.RecordStore (SQLite and DynamoDB
// alike): one record per workstream, and one per compaction under a kind
// of the workstream's own. A workstream has a visibility as a memory has
// (shared, agent, room, world or user) and is read and changed under the
// memories' rules: Caller.CanSee to read, Caller.CanChange to append or
// delete.
package workstream

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentmem/agentmem/internal/retry"
	"github.com/agentmem/agentmem/pkg/memory"
)

// The record kinds: one workstream per record of KindWorkstream; the
// compactions of workstream <id> under kindCompactions+<id>, one record
// each, keyed by the block version the compaction made.
const (
	KindWorkstream  = "workstream"
	kindCompactions = "workstream-compactions:"
)

// Limits.
const (
	DefaultLimit   = 15   // entries of a block when the workstream names no limit
	MinLimit       = 3    // the smallest limit: a kept entry, a newest entry, a summary
	MaxLimit       = 100  // the largest limit: a block of 100 entries of MaxTextBytes stays well within a DynamoDB item (400 KB)
	MaxRoleBytes   = 64   // bytes of an entry's role
	MaxTextBytes   = 2000 // bytes of an entry's text
	MaxNameBytes   = 256  // bytes of a workstream's name
	MaxHistory     = 100  // compactions a read returns, newest last
	DefaultPage    = 100  // workstreams of a list page when the request names no limit
	MaxPage        = 1000 // workstreams of a list page
	maxScanPages   = 10   // record pages one list reads to fill a page of what the caller sees
	maxAttempts    = 12   // retries of an append that lost a race to another writer
	summaryExcerpt = 80   // bytes of each folded entry quoted in an offline summary
)

// Workstream is a memory block and who may see it.
type Workstream struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// AgentID is the agent the block belongs to ("" org-wide).
	AgentID string `json:"agentId,omitempty"`
	// Visibility, RoomID, WorldID and UserID place the block as they
	// place a memory (memory.Visibility).
	Visibility memory.Visibility `json:"visibility"`
	RoomID     string            `json:"roomId,omitempty"`
	WorldID    string            `json:"worldId,omitempty"`
	UserID     string            `json:"userId,omitempty"`
	// Limit is the number of entries past which the block is compacted.
	Limit int `json:"limit"`
	// Entries is the block, oldest first.
	Entries []Entry `json:"entries"`
	// NextSeq numbers the next entry.
	NextSeq int64 `json:"nextSeq"`
	// CompactedAt lists the block versions that compactions made; the
	// compaction records of other versions (a write that lost a race)
	// are ignored.
	CompactedAt []int64 `json:"compactedAt,omitempty"`
	CreatedAt   int64   `json:"createdAt"`
	UpdatedAt   int64   `json:"updatedAt"`
	Version     int64   `json:"version"`
}

// Entry is one note of a block.
type Entry struct {
	// Seq numbers the entry within its block, from 1, in the order of
	// appends (a summary takes the next number when it is written).
	Seq  int64  `json:"seq"`
	Role string `json:"role"`
	Text string `json:"text"`
	// Importance (0..1, 0.5 when not given) decides, with age, which
	// entries a compaction folds first.
	Importance float64 `json:"importance"`
	At         int64   `json:"at"`
	// Repeats counts the duplicates merged into this entry.
	Repeats int `json:"repeats,omitempty"`
	// Summary marks the entry a compaction wrote; Folded names the
	// entries it stands for.
	Summary bool    `json:"summary,omitempty"`
	Folded  []int64 `json:"folded,omitempty"`
	// Pinned marks an entry that says "remember": never folded away.
	Pinned bool `json:"pinned,omitempty"`
}

// Compaction is one compaction of a block: the version it made, how, the
// entries it replaced (word for word) and the summary entry it wrote.
type Compaction struct {
	Version int64 `json:"version"`
	At      int64 `json:"at"`
	// Method is "offline" or "llm".
	Method string `json:"method"`
	// Before and After count the block's entries.
	Before int `json:"before"`
	After  int `json:"after"`
	// Merged are the duplicates merged into a kept entry (MergedInto).
	Merged []Merge `json:"merged,omitempty"`
	// Replaced are the entries folded into Summary.
	Replaced []Entry `json:"replaced"`
	Summary  *Entry  `json:"summary,omitempty"`
}

// Merge is a duplicate entry merged into another.
type Merge struct {
	Entry Entry `json:"entry"`
	Into  int64 `json:"into"`
}

// Block is a workstream as a read returns it: the workstream, its
// entries, and its compaction history (the last MaxHistory, oldest first).
type Block struct {
	*Workstream
	History []Compaction `json:"history"`
}

// Service keeps workstreams in a record store.
type Service struct {
	rs  memory.RecordStore
	llm memory.LLM
	log *slog.Logger
	now func() time.Time
	// wrote is told the org of every write (WithOnWrite); nil: no one.
	wrote func(org string)
}

// Option configures a Service.
type Option func(*Service)

// WithLLM has compactions summarise with llm (offline when the call
// fails).
func WithLLM(llm memory.LLM) Option { return func(s *Service) { s.llm = llm } }

// WithLogger logs through l.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// WithClock reads the time from now (tests).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithOnWrite has every create, append and delete call f with its org,
// once written: the context service's cache (service.Service.Invalidate)
// drops what it composed from the org's blocks.
func WithOnWrite(f func(org string)) Option { return func(s *Service) { s.wrote = f } }

// written tells WithOnWrite's function of a write in org.
func (s *Service) written(org string) {
	if s.wrote != nil {
		s.wrote(org)
	}
}

// New returns the workstreams kept in rs.
func New(rs memory.RecordStore, opts ...Option) *Service {
	s := &Service{rs: rs, log: slog.Default(), now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// NewWorkstream is the body of a create: the id (made when empty), a
// name, the limit (DefaultLimit when 0), and where it lives: scope
// ("org", "agent" or a visibility) and visibility as for a memory, with
// the ids a visibility needs.
type NewWorkstream struct {
	ID         string `json:"id,omitempty"`
	Name       string `json:"name,omitempty"`
	Limit      int    `json:"limit,omitempty"`
	Scope      string `json:"scope,omitempty"`
	Visibility string `json:"visibility,omitempty"`
	AgentID    string `json:"agentId,omitempty"`
	RoomID     string `json:"roomId,omitempty"`
	WorldID    string `json:"worldId,omitempty"`
	UserID     string `json:"userId,omitempty"`
}

// NewEntry is the body of an append.
type NewEntry struct {
	Role string `json:"role"`
	Text string `json:"text"`
	// Importance is 0..1; nil is 0.5.
	Importance *float64 `json:"importance,omitempty"`
}

// Create stores a new workstream for c, placed as a memory c writes would
// be (memory.Caller.WriteScope and Place). Errors: EINVALID (naming the
// field), EFORBIDDEN, ECONFLICT (the id is taken).
func (s *Service) Create(ctx context.Context, c memory.Caller, in NewWorkstream) (*Workstream, error) {
	defer s.written(c.OrgID)
	if err := c.Valid(); err != nil {
		return nil, err
	}
	now := s.now()
	w := &Workstream{ID: in.ID, Name: in.Name, Limit: in.Limit, Entries: []Entry{}, NextSeq: 1}
	if w.ID == "" {
		w.ID = memory.NewID(now)
	}
	if err := checkID("id", w.ID); err != nil {
		return nil, err
	}
	if err := checkText("name", w.Name, MaxNameBytes, true); err != nil {
		return nil, err
	}
	if w.Limit == 0 {
		w.Limit = DefaultLimit
	}
	if w.Limit < MinLimit || w.Limit > MaxLimit {
		return nil, memory.Errorf(memory.EINVALID, "limit: must be between %d and %d", MinLimit, MaxLimit)
	}
	for _, f := range []struct{ name, v string }{{"roomId", in.RoomID}, {"worldId", in.WorldID}, {"userId", in.UserID}} {
		if err := memory.ValidID(f.name, f.v); err != nil {
			return nil, err
		}
	}
	scope, vis, err := memory.WriteScopeOf(in.Scope, in.Visibility)
	if err != nil {
		return nil, err
	}
	agent, err := c.WriteScope(scope, in.AgentID)
	if err != nil {
		return nil, err
	}
	// The block is placed as a memory with these owners would be.
	m := &memory.Memory{OrgID: c.OrgID, AgentID: agent, Type: memory.TypeFact, RoomID: in.RoomID, WorldID: in.WorldID, UserID: in.UserID}
	if err := c.Place(m, vis); err != nil {
		return nil, err
	}
	if err := c.CanChange(m); err != nil {
		return nil, err
	}
	w.AgentID, w.Visibility, w.RoomID, w.WorldID, w.UserID = m.AgentID, m.EffectiveVisibility(), m.RoomID, m.WorldID, m.UserID
	w.CreatedAt, w.UpdatedAt = now.UnixMilli(), now.UnixMilli()
	v, err := s.rs.PutRecord(ctx, c.OrgID, KindWorkstream, w.ID, w, memory.RecordCreateOnly)
	if memory.IsConflict(err) {
		return nil, memory.Errorf(memory.ECONFLICT, "id: workstream %q exists already", w.ID)
	} else if err != nil {
		return nil, err
	}
	w.Version = v
	return w, nil
}

// owner is the memory whose owners are w's, for the memories' read and
// write rules.
func (w *Workstream) owner(org string) *memory.Memory {
	return &memory.Memory{ID: w.ID, OrgID: org, AgentID: w.AgentID, Visibility: w.Visibility, RoomID: w.RoomID, WorldID: w.WorldID, UserID: w.UserID}
}

// read returns workstream id of c's org as c sees it: ENOTFOUND when
// absent or not visible to c.
func (s *Service) read(ctx context.Context, c memory.Caller, id string) (*Workstream, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	var w Workstream
	v, err := s.rs.GetRecord(ctx, c.OrgID, KindWorkstream, id, &w)
	if memory.IsNotFound(err) {
		return nil, notFound(id)
	} else if err != nil {
		return nil, err
	}
	if !c.CanSeeMemory(w.owner(c.OrgID)) {
		return nil, notFound(id)
	}
	w.Version = v
	if w.Entries == nil {
		w.Entries = []Entry{}
	}
	return &w, nil
}

// Get returns workstream id with its block and its compaction history.
// Errors: ENOTFOUND, EINVALID.
func (s *Service) Get(ctx context.Context, c memory.Caller, id string) (*Block, error) {
	w, err := s.read(ctx, c, id)
	if err != nil {
		return nil, err
	}
	h, err := s.history(ctx, c.OrgID, w)
	if err != nil {
		return nil, err
	}
	return &Block{Workstream: w, History: h}, nil
}

// history reads the compactions of w, the last MaxHistory, oldest first.
func (s *Service) history(ctx context.Context, org string, w *Workstream) ([]Compaction, error) {
	out := []Compaction{}
	if len(w.CompactedAt) == 0 {
		return out, nil
	}
	valid := map[string]bool{}
	versions := w.CompactedAt[max(0, len(w.CompactedAt)-MaxHistory):]
	for _, v := range versions {
		valid[compactionID(v)] = true
	}
	after := compactionID(versions[0] - 1)
	for after != "" {
		recs, next, err := s.rs.ListRecords(ctx, org, kindCompactions+w.ID, after, MaxHistory)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if !valid[r.ID] {
				continue
			}
			var cp Compaction
			if err := json.Unmarshal(r.Value, &cp); err != nil {
				return nil, fmt.Errorf("workstream %s: decode compaction %s: %w", w.ID, r.ID, err)
			}
			out = append(out, cp)
		}
		if len(out) == len(versions) {
			break
		}
		after = next
	}
	return out, nil
}

// compactionID is the record id of the compaction that made version v:
// zero-padded, so that record order is version order.
func compactionID(v int64) string { return fmt.Sprintf("%016d", max(v, 0)) }

// Page is one page of a list: up to Limit workstreams (DefaultPage when 0)
// after Cursor, the NextCursor of the page before.
type Page struct {
	Cursor string
	Limit  int
}

// List returns a page of the workstreams c sees, in id order, without
// their entries, and the cursor of the next page ("" at the end).
// Errors: EINVALID.
func (s *Service) List(ctx context.Context, c memory.Caller, p Page) ([]*Workstream, string, error) {
	if err := c.Valid(); err != nil {
		return nil, "", err
	}
	if p.Limit < 0 || p.Limit > MaxPage {
		return nil, "", memory.Errorf(memory.EINVALID, "limit: must be between 1 and %d", MaxPage)
	}
	if err := memory.ValidID("cursor", p.Cursor); err != nil {
		return nil, "", err
	}
	limit := p.Limit
	if limit == 0 {
		limit = DefaultPage
	}
	out := []*Workstream{}
	after := p.Cursor
	for range maxScanPages {
		recs, next, err := s.rs.ListRecords(ctx, c.OrgID, KindWorkstream, after, limit-len(out))
		if err != nil {
			return nil, "", err
		}
		for _, r := range recs {
			var w Workstream
			if err := json.Unmarshal(r.Value, &w); err != nil {
				return nil, "", fmt.Errorf("workstream %s: decode: %w", r.ID, err)
			}
			if c.CanSeeMemory(w.owner(c.OrgID)) {
				w.Version, w.Entries = r.Version, nil
				out = append(out, &w)
			}
		}
		after = next
		if next == "" || len(out) == limit {
			break
		}
	}
	return out, after, nil
}

// Delete removes workstream id, then its compaction history. Errors:
// ENOTFOUND, EFORBIDDEN.
func (s *Service) Delete(ctx context.Context, c memory.Caller, id string) error {
	defer s.written(c.OrgID)
	w, err := s.read(ctx, c, id)
	if err != nil {
		return err
	}
	if err := c.CanChange(w.owner(c.OrgID)); err != nil {
		return err
	}
	if err := s.rs.DeleteRecord(ctx, c.OrgID, KindWorkstream, id); err != nil {
		return err
	}
	for after := ""; ; {
		recs, next, err := s.rs.ListRecords(ctx, c.OrgID, kindCompactions+id, after, MaxPage)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := s.rs.DeleteRecord(ctx, c.OrgID, kindCompactions+id, r.ID); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

// Append adds an entry to workstream id and, when the block passes its
// limit, compacts it. It returns the block as written. Errors: ENOTFOUND,
// EINVALID, EFORBIDDEN, ECONFLICT (too many concurrent writers).
func (s *Service) Append(ctx context.Context, c memory.Caller, id string, in NewEntry) (*Block, error) {
	defer s.written(c.OrgID)
	if err := checkRole(in.Role); err != nil {
		return nil, err
	}
	if err := checkText("text", in.Text, MaxTextBytes, false); err != nil {
		return nil, err
	}
	imp := 0.5
	if in.Importance != nil {
		imp = *in.Importance
		if err := memory.ValidUnit("importance", imp); err != nil {
			return nil, err
		}
	}
	for attempt := 1; ; attempt++ {
		w, err := s.read(ctx, c, id)
		if err != nil {
			return nil, err
		}
		if err := c.CanChange(w.owner(c.OrgID)); err != nil {
			return nil, err
		}
		now := s.now().UnixMilli()
		w.Entries = append(w.Entries, Entry{Seq: w.NextSeq, Role: strings.TrimSpace(in.Role), Text: strings.TrimSpace(in.Text),
			Importance: imp, At: now, Pinned: remembers(in.Text)})
		w.NextSeq++
		w.UpdatedAt = now
		if err := s.compactIfFull(ctx, c.OrgID, w, now); err != nil {
			return nil, err
		}
		v, err := s.rs.PutRecord(ctx, c.OrgID, KindWorkstream, w.ID, w, w.Version)
		if memory.IsConflict(err) && attempt < maxAttempts {
			if err := retry.Wait(ctx, attempt, time.Millisecond, 64*time.Millisecond); err != nil {
				return nil, err
			}
			continue
		}
		if memory.IsNotFound(err) {
			return nil, notFound(id) // deleted meanwhile
		}
		if memory.IsConflict(err) {
			return nil, memory.Errorf(memory.ECONFLICT, "workstream %q changed concurrently", id)
		}
		if err != nil {
			return nil, err
		}
		w.Version = v
		h, err := s.history(ctx, c.OrgID, w)
		if err != nil {
			return nil, err
		}
		return &Block{Workstream: w, History: h}, nil
	}
}

// compactIfFull compacts w when it is past its limit, and stores the
// record of the compaction before w is written: a record whose block
// write then loses a race is ignored, since the block that won does not
// list its version in CompactedAt.
func (s *Service) compactIfFull(ctx context.Context, org string, w *Workstream, now int64) error {
	if len(w.Entries) <= w.Limit {
		return nil
	}
	cp := s.compact(ctx, w, now)
	if cp == nil {
		return nil
	}
	cp.Version = w.Version + 1
	w.CompactedAt = append(w.CompactedAt, cp.Version)
	_, err := s.rs.PutRecord(ctx, org, kindCompactions+w.ID, compactionID(cp.Version), cp, 0)
	return err
}

func notFound(id string) error {
	return memory.Errorf(memory.ENOTFOUND, "workstream %q not found", id)
}

// checkID checks a workstream id: required, a valid id.
func checkID(field, id string) error {
	if id == "" {
		return memory.Errorf(memory.EINVALID, "%s: required", field)
	}
	return memory.ValidID(field, id)
}

// checkRole checks an entry's role: a short label without spaces or
// control characters ("chief", "cto").
func checkRole(role string) error {
	role = strings.TrimSpace(role)
	switch {
	case role == "":
		return memory.Errorf(memory.EINVALID, "role: required")
	case len(role) > MaxRoleBytes:
		return memory.Errorf(memory.EINVALID, "role: longer than %d bytes", MaxRoleBytes)
	case !utf8.ValidString(role):
		return memory.Errorf(memory.EINVALID, "role: not valid UTF-8")
	case strings.IndexFunc(role, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return memory.Errorf(memory.EINVALID, "role: must be one word without spaces or control characters")
	}
	return nil
}

// checkText checks a text field: at most limit bytes of valid UTF-8
// without control characters other than line breaks and tabs; blank only
// when optional.
func checkText(field, s string, limit int, optional bool) error {
	switch {
	case s == "" && optional:
		return nil
	case strings.TrimSpace(s) == "":
		return memory.Errorf(memory.EINVALID, "%s: must not be blank", field)
	case len(s) > limit:
		return memory.Errorf(memory.EINVALID, "%s: longer than %d bytes", field, limit)
	case !utf8.ValidString(s):
		return memory.Errorf(memory.EINVALID, "%s: not valid UTF-8", field)
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) >= 0:
		return memory.Errorf(memory.EINVALID, "%s: contains a control character", field)
	}
	return nil
}
