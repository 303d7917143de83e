package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/internal/retry"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"log/slog"
	"maps"
	"time"
)

// Service implements the memory operations on top of the ports. Every method
// takes the authenticated Caller and derives the org from it.
type Service struct {
	store    memory.Store
	index    memory.Index
	embedder memory.Embedder
	now      func() time.Time
	log      *slog.Logger
	access   *accessQueue // nil: accesses are recorded before a search returns
	// forgetters remove what adapters derived from deleted memories.
	forgetters []Forgetter
	// retrieval is the search pipeline (lists, fusion, rerank).
	retrieval *retrieval.Pipeline
	// deriver derives data from new memories (Structured RAG knowledge).
	deriver Deriver
	// knowledgeContext, when set, adds the structured section to
	// BuildContext.
	knowledgeContext KnowledgeContext
	// rooms is the room registry, for resolving whom reads serve (Act)
	// and recording rooms' participants; nil without one.
	rooms memory.RoomDirectory
	// blocks, when set, supplies the memory block section of a context
	// that names a workstream (WithBlockSource).
	blocks BlockSource
	// contexts caches composed contexts (WithContextCache); nil: none.
	contexts *contextCache
	// sentences adds the sentence view to the vectors of messages
	// (memory.EmbedMemories); on unless WithSentenceView(false).
	sentences bool
}

// Deriver derives data from memories as they are written, the knowledge of
// Structured RAG for example. A failure leaves the memories stored and
// searchable by the other lists; the Deriver records what is pending and
// retries it itself.
type Deriver interface {
	Index(ctx context.Context, orgID string, ms []*memory.Memory) error
}

// WithDeriver makes Create and content updates call d.
func WithDeriver(d Deriver) Option { return func(s *Service) { s.deriver = d } }

// deriveKnowledge runs the deriver on ms, logging a failure.
func (s *Service) deriveKnowledge(ctx context.Context, orgID string, ms []*memory.Memory) {
	if s.deriver == nil || len(ms) == 0 {
		return
	}
	if err := s.deriver.Index(ctx, orgID, ms); err != nil {
		s.log.WarnContext(ctx, "deriving knowledge failed: marked pending", "op", "derive", "org", orgID, "count", len(ms), "err", err)
	}
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock (tests use a fixed one).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// WithSentenceView sets whether a message's vector averages the vector of
// its exchange with that of its own sentences (memory.EmbedMemories; on by
// default). Off, each message costs one embedding instead of one plus one
// per sentence; memories embedded before keep their vectors.
func WithSentenceView(on bool) Option { return func(s *Service) { s.sentences = on } }

// NewService returns a Service over the given adapters.
func NewService(store memory.Store, index memory.Index, embedder memory.Embedder, opts ...Option) *Service {
	s := &Service{store: store, index: index, embedder: embedder, now: time.Now, log: slog.Default(), sentences: true,
		retrieval: &retrieval.Pipeline{Retrievers: []retrieval.Retriever{retrieval.IndexLists{Index: index}}, Store: store}}
	if rs, ok := store.(memory.RelationStore); ok {
		s.retrieval.Relations = rs
	}
	for _, o := range opts {
		o(s)
	}
	s.retrieval.Log = s.log
	return s
}

// WithRetriever adds ranked lists to searches, after keyword and semantic:
// the Structured RAG knowledge list, for example.
func WithRetriever(r retrieval.Retriever) Option {
	return func(s *Service) { s.retrieval.Retrievers = append(s.retrieval.Retrievers, r) }
}

// WithForeground counts the service's searches in f, for background work
// that yields to them (related.Index.Foreground).
func WithForeground(f *retrieval.Foreground) Option {
	return func(s *Service) { s.retrieval.Foreground = f }
}

// WithTimeList adds the time list (retrieval.TimeList over the service's
// index and store): when a query names a time, the memories of that time
// that keyword and semantic find. resolve finds the query's time.
func WithTimeList(resolve retrieval.Resolver) Option {
	return func(s *Service) {
		s.retrieval.Retrievers = append(s.retrieval.Retrievers, retrieval.TimeList{Index: s.index, Store: s.store, Resolve: resolve})
	}
}

// WithEntityList adds the entity list (retrieval.EntityList over the
// service's index and store): when a query names an entity that memories
// are by or about, that entity's memories that keyword and semantic find.
func WithEntityList() Option {
	return func(s *Service) {
		s.retrieval.Retrievers = append(s.retrieval.Retrievers, retrieval.EntityList{Index: s.index, Store: s.store})
	}
}

// WithDecomposeList adds the decomposition list (retrieval.DecomposeList
// over the service's index, store and embedder): a question that joins
// two events, or asks for many answers over time, retrieved in parts.
// plan plans a question (nil: retrieval.Decompose, the offline rules).
func WithDecomposeList(plan retrieval.Decomposer) Option {
	return func(s *Service) {
		s.retrieval.Retrievers = append(s.retrieval.Retrievers,
			retrieval.DecomposeList{Index: s.index, Store: s.store, Embedder: s.embedder, Plan: plan})
	}
}

// WithWhenList adds the when list (retrieval.WhenList over the service's
// index and store): when a query asks when, the memories that keyword and
// semantic find and that state a time. asks tells such a query, states
// such a memory's text.
func WithWhenList(asks, states func(string) bool) Option {
	return func(s *Service) {
		s.retrieval.Retrievers = append(s.retrieval.Retrievers, retrieval.WhenList{Index: s.index, Store: s.store, Asks: asks, States: states})
	}
}

// WithNeighbours adds the neighbours stage (retrieval.Neighbours) to
// searches of two lists or more: the turns next to the best results.
func WithNeighbours(n retrieval.Neighbours) Option {
	return func(s *Service) { s.retrieval.Neighbours = &n }
}

// WithListWeights sets the weights of the lists w names in the fusion; a
// later option overrides an earlier one list by list, and a list never
// named weighs 1.
func WithListWeights(w map[string]float64) Option {
	return func(s *Service) {
		if len(w) == 0 {
			return
		}
		if s.retrieval.Weights == nil {
			s.retrieval.Weights = make(map[string]float64, len(w))
		}
		maps.Copy(s.retrieval.Weights, w)
	}
}

// WithReranker adds the rerank stage: candidates fused candidates (0: the
// default, max(12, 2×k)) go to r, which has timeout to answer before the
// search falls back to the fused order.
func WithReranker(r memory.Reranker, candidates int, timeout time.Duration) Option {
	return func(s *Service) {
		s.retrieval.Reranker, s.retrieval.RerankCandidates, s.retrieval.RerankTimeout = r, candidates, timeout
	}
}

// Retrieval returns the search pipeline (benchmarks read its stages, the
// metrics its rerank failures).
func (s *Service) Retrieval() *retrieval.Pipeline { return s.retrieval }

// Embedder returns the service's embedder.
func (s *Service) Embedder() memory.Embedder { return s.embedder }

// NewMemory is what a caller sends to create a memory (memory.NewMemory,
// named here for the service's callers).
type NewMemory = memory.NewMemory

// Defaults applied to new memories.
const (
	DefaultImportance = 0.5
	DefaultConfidence = 1.0
)

// build turns n into a validated Memory owned by c (without id and embedding).
func build(n *NewMemory, c memory.Caller, now int64) (*memory.Memory, error) {
	scope, vis, err := memory.WriteScopeOf(n.Scope, n.Visibility)
	if err != nil {
		return nil, err
	}
	agent, err := c.WriteScope(scope, n.AgentID)
	if err != nil {
		return nil, err
	}
	m := &memory.Memory{
		OrgID: c.OrgID, AgentID: agent, Type: n.Type, Kind: n.Kind, ExternalID: n.ExternalID, Content: n.Content,
		EntityID: n.EntityID, RoomID: n.RoomID, WorldID: n.WorldID, UserID: n.UserID, SessionID: n.SessionID,
		Metadata: n.Metadata, Importance: DefaultImportance, Durability: n.Durability,
		Confidence: DefaultConfidence, DocumentID: n.DocumentID, Position: n.Position,
		CreatedAt: n.CreatedAt, IngestedAt: now, UpdatedAt: now, Version: 1,
	}
	if m.Type == "" {
		m.Type = memory.TypeCustom
	}
	if m.Durability == "" {
		m.Durability = memory.DurabilityStandard
	}
	if n.Importance != nil {
		m.Importance = *n.Importance
	}
	if n.Confidence != nil {
		m.Confidence = *n.Confidence
	}
	if m.CreatedAt == 0 {
		m.CreatedAt = now
	}
	if m.Kind != "" && m.Type != memory.TypeFact {
		return nil, memory.Errorf(memory.EINVALID, "kind: only valid for type %q", memory.TypeFact)
	}
	if m.Type == memory.TypeFact && m.Kind == "" {
		m.Kind = memory.KindFact
	}
	if string(m.Metadata) == "null" {
		m.Metadata = nil
	}
	if err := c.Place(m, vis); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	m.ContentHash = memory.ContentHash(m.Content.Text)
	return m, nil
}

// Create validates and stores memories for c, all or none. A memory whose
// content duplicates an existing one in the same scope (see DedupKey) is not
// stored again; its result carries the existing id and Duplicate. Errors:
// EINVALID (naming the item and field), EFORBIDDEN, EUNAVAILABLE.
func (s *Service) Create(ctx context.Context, c memory.Caller, in []NewMemory) ([]memory.CreateResult, error) {
	return s.create(ctx, c, in, false)
}

// create is Create; staged memories are stored pending, and neither indexed
// nor derived until their document commits (see Stage).
func (s *Service) create(ctx context.Context, c memory.Caller, in []NewMemory, staged bool) ([]memory.CreateResult, error) {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	if err := c.Valid(); err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "memories: at least one memory is required")
	}
	if len(in) > memory.MaxBatch {
		return nil, memory.Errorf(memory.EINVALID, "memories: %d exceeds the batch limit of %d", len(in), memory.MaxBatch)
	}
	now := s.now()
	ms := make([]*memory.Memory, len(in))
	for i := range in {
		m, err := build(&in[i], c, now.UnixMilli())
		if err != nil {
			if len(in) > 1 {
				return nil, prefixed(fmt.Sprintf("memories[%d].", i), err)
			}
			return nil, err
		}
		m.Change = memory.ChangeBy(c, memory.OpCreate)
		ms[i] = m
	}
	// Deduplicate within the batch; the store deduplicates against the past.
	first := map[string]int{}
	var unique []*memory.Memory
	alias := make([]int, len(ms)) // index into unique
	for i, m := range ms {
		m.Pending = staged
		m.ID = memory.NewID(now) // before the key: a message without an external id is keyed by it
		key := memory.DedupKey(m)
		if j, ok := first[key]; ok {
			alias[i] = j
			continue
		}
		first[key] = len(unique)
		alias[i] = len(unique)
		unique = append(unique, m)
	}
	if err := s.threadContext(ctx, unique); err != nil {
		return nil, err
	}
	if err := s.embed(ctx, unique); err != nil {
		return nil, err
	}
	res, err := s.store.Create(ctx, unique)
	if err != nil {
		return nil, err
	}
	var created []*memory.Memory
	for i, r := range res {
		if !r.Duplicate && !staged {
			created = append(created, unique[i])
		}
	}
	if err := s.index.Upsert(ctx, created); err != nil {
		// Undo the store write so that nothing is left half-written.
		for _, m := range created {
			if derr := s.store.Delete(ctx, m.OrgID, m.ID); derr != nil && !memory.IsNotFound(derr) {
				s.log.ErrorContext(ctx, "rollback after index failure", "org", c.OrgID, "id", m.ID, "err", derr)
			}
		}
		return nil, unavailable("index", err)
	}
	s.deriveKnowledge(ctx, c.OrgID, created)
	s.join(ctx, created)
	out := make([]memory.CreateResult, len(ms))
	seen := map[int]bool{}
	for i := range ms {
		r := res[alias[i]]
		out[i] = memory.CreateResult{ID: r.ID, Duplicate: r.Duplicate || seen[alias[i]]}
		seen[alias[i]] = true
	}
	return out, nil
}

func prefixed(p string, err error) error {
	if e, ok := err.(*memory.Error); ok {
		return &memory.Error{Code: e.Code, Message: p + e.Message}
	}
	return err
}

func unavailable(what string, err error) error {
	if memory.ErrorCode(err) != memory.EINTERNAL {
		return err
	}
	return fmt.Errorf("%s: %w", what, &memory.Error{Code: memory.EUNAVAILABLE, Message: what + " is unavailable, nothing was written; retry later"})
}

// embed fills the Embedding of ms in one batch.
func (s *Service) embed(ctx context.Context, ms []*memory.Memory) error {
	if len(ms) == 0 {
		return nil
	}
	if err := memory.EmbedMemories(ctx, s.embedder, ms, s.sentences); err != nil {
		return unavailable("embedder", err)
	}
	return nil
}

// Get returns the memory id if c can see it; ENOTFOUND otherwise, the same
// for another org's id as for an absent one.
func (s *Service) Get(ctx context.Context, c memory.Caller, id string) (*memory.Memory, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	if id == "" || len(id) > memory.MaxIDLen {
		return nil, memory.ErrNotFound(id)
	}
	m, err := s.store.Get(ctx, c.OrgID, id)
	if err != nil {
		return nil, err
	}
	if !c.CanSeeMemory(m) || m.Pending {
		return nil, memory.ErrNotFound(id)
	}
	return m, nil
}

// Patch is a partial update. Nil fields are left as they are.
type Patch struct {
	Content    *memory.Content    `json:"content,omitempty"`
	Metadata   *json.RawMessage   `json:"metadata,omitempty"`
	Importance *float64           `json:"importance,omitempty"`
	Durability *memory.Durability `json:"durability,omitempty"`
	// Redact, with a change, also drops the memory's earlier versions from
	// its history (as an erasure does), and every fact derived from it,
	// even those with other sources: what the old text said is kept
	// nowhere.
	Redact bool `json:"redact,omitempty"`
	// IfVersion, when non-zero, makes the update conditional on the stored
	// version (EPRECONDITION otherwise, also when a concurrent change wins
	// the race). When zero, concurrent updates are retried so that none is
	// lost.
	IfVersion int64 `json:"-"`
}

// maxUpdateAttempts bounds the read-modify-write retries of an update that
// lost a race; between attempts the service backs off with jitter.
const maxUpdateAttempts = 12

func backoff(ctx context.Context, attempt int) error {
	return retry.Wait(ctx, attempt+1, time.Millisecond, 64*time.Millisecond)
}

// Update applies p to memory id. Changing the text re-embeds and re-indexes
// it, and recomputes what was derived from the old text (see rederive):
// the Context of the turn after a message, its facts and its knowledge.
// With p.Redact the earlier versions leave the history. Errors: ENOTFOUND, EINVALID, EFORBIDDEN (an agent-bound caller
// without write:org on an org-scope memory, memory.Caller.CanChange),
// EPRECONDITION (p.IfVersion is not the stored version), ECONFLICT (the
// new content duplicates another memory of the scope).
func (s *Service) Update(ctx context.Context, c memory.Caller, id string, p Patch) (*memory.Memory, error) {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	if p.Content == nil && p.Metadata == nil && p.Importance == nil && p.Durability == nil {
		if p.Redact {
			return nil, memory.Errorf(memory.EINVALID, "redact: applies to a change; send the new content (or metadata) with it")
		}
		return nil, memory.Errorf(memory.EINVALID, "patch: nothing to update (content, metadata, importance or durability)")
	}
	var vec []float32
	for attempt := 1; ; attempt++ {
		old, err := s.Get(ctx, c, id)
		if err != nil {
			return nil, err
		}
		if err := c.CanChange(old); err != nil {
			return nil, err
		}
		if p.IfVersion != 0 && p.IfVersion != old.Version {
			return nil, stale(id, old.Version, p.IfVersion)
		}
		m := *old
		textChanged := false
		if p.Content != nil {
			m.Content = *p.Content
			textChanged = m.SearchText() != old.SearchText()
			m.ContentHash = memory.ContentHash(m.Content.Text)
		}
		if p.Metadata != nil {
			m.Metadata = *p.Metadata
			if string(m.Metadata) == "null" {
				m.Metadata = nil
			}
		}
		// Metadata may provide knowledge (structure such as a sender or a
		// location): a change derives it again.
		metaChanged := !bytes.Equal(m.Metadata, old.Metadata)
		if p.Importance != nil {
			m.Importance = *p.Importance
		}
		if p.Durability != nil {
			m.Durability = *p.Durability
		}
		if err := m.Validate(); err != nil {
			return nil, err
		}
		m.UpdatedAt = s.now().UnixMilli()
		m.Change = memory.ChangeBy(c, memory.OpUpdate)
		if p.Redact {
			m.Change.Op = memory.OpRedact
		}
		if textChanged {
			if vec == nil {
				if err := s.embed(ctx, []*memory.Memory{&m}); err != nil {
					return nil, err
				}
				vec = m.Embedding
			}
			m.Embedding, m.EmbeddingModel = vec, s.embedder.Model()
		}
		err = s.store.Update(ctx, &m)
		var dup *memory.DuplicateError
		if memory.IsConflict(err) && !errors.As(err, &dup) && p.IfVersion == 0 && attempt < maxUpdateAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return nil, err
			}
			continue
		}
		if memory.IsConflict(err) && !errors.As(err, &dup) && p.IfVersion != 0 {
			// A concurrent change took the version the condition named.
			return nil, memory.Errorf(memory.EPRECONDITION, "memory %q changed concurrently: it is no longer at version %d", id, p.IfVersion)
		}
		if err != nil {
			return nil, err
		}
		if err := s.index.Upsert(ctx, []*memory.Memory{&m}); err != nil {
			// Put the previous version back so store and index agree.
			old.Version = m.Version
			if rerr := s.store.Update(ctx, old); rerr != nil {
				s.log.ErrorContext(ctx, "rollback after index failure", "org", c.OrgID, "id", id, "err", rerr)
			}
			return nil, unavailable("index", err)
		}
		if textChanged || metaChanged {
			s.deriveKnowledge(ctx, c.OrgID, []*memory.Memory{&m})
			if err := s.rederive(ctx, c, old, p.Redact); err != nil {
				return nil, err
			}
		}
		return &m, nil
	}
}

// stale is the EPRECONDITION of a conditional write naming version want of
// memory id, which is at version got.
func stale(id string, got, want int64) error {
	return memory.Errorf(memory.EPRECONDITION, "memory %q is at version %d, not %d", id, got, want)
}

// DeleteOptions qualify a Delete (memory.DeleteOptions, named here for the
// service's callers).
type DeleteOptions = memory.DeleteOptions

// Delete removes memory id and every derived copy of its content, and
// reports what was forgotten (see Forgotten). It is the one rule of a
// single delete, for every transport: an agent-bound caller deletes what
// is in its own scope, and org-scope memories, which every agent of the
// org shares, only with the delete:org grant; never another agent's. A
// delete by key finds the memory with GetByKey, then deletes it here.
// Errors: ENOTFOUND if c cannot see it; EFORBIDDEN when an agent-bound
// caller without delete:org targets an org-scope memory; EPRECONDITION
// (o.IfVersion).
func (s *Service) Delete(ctx context.Context, c memory.Caller, id string, o DeleteOptions) (Forgotten, error) {
	m, err := s.Get(ctx, c, id)
	if err != nil {
		return Forgotten{}, err
	}
	if o.IfVersion != 0 && m.Version != o.IfVersion {
		return Forgotten{}, stale(id, m.Version, o.IfVersion)
	}
	if c.AgentID != "" && m.AgentID == "" && !c.Grants.Has(memory.GrantDeleteOrg) {
		return Forgotten{}, memory.Errorf(memory.EFORBIDDEN, "memory %q is in the org scope: deleting it needs an org-level key or the delete:org grant", id)
	}
	return s.forget(ctx, c, []*memory.Memory{m})
}

// List returns a page of the memories c can see that match f, newest first.
func (s *Service) List(ctx context.Context, c memory.Caller, f memory.Filter, limit int, cursor string) (memory.Page, error) {
	q, err := listQuery(c, f, limit, cursor)
	if err != nil {
		return memory.Page{}, err
	}
	return s.store.List(ctx, q)
}

// listQuery checks a listing's arguments and returns its store query:
// f bound to c, limit 50 when 0.
func listQuery(c memory.Caller, f memory.Filter, limit int, cursor string) (memory.ListQuery, error) {
	if err := c.Valid(); err != nil {
		return memory.ListQuery{}, err
	}
	f, err := c.Bind(f)
	if err != nil {
		return memory.ListQuery{}, err
	}
	if limit == 0 {
		limit = 50
	}
	if limit < 1 || limit > memory.MaxListLimit {
		return memory.ListQuery{}, memory.Errorf(memory.EINVALID, "limit: must be between 1 and %d", memory.MaxListLimit)
	}
	cur, err := memory.DecodeCursor(cursor)
	if err != nil {
		return memory.ListQuery{}, err
	}
	return memory.ListQuery{Filter: f, Limit: limit, Cursor: cur}, nil
}

// Count counts the memories c can see that match f.
func (s *Service) Count(ctx context.Context, c memory.Caller, f memory.Filter) (int, error) {
	if err := c.Valid(); err != nil {
		return 0, err
	}
	f, err := c.Bind(f)
	if err != nil {
		return 0, err
	}
	return s.store.Count(ctx, f)
}

// DeleteWhere removes every memory c can see that matches f, which must
// narrow the selection by at least one field (EINVALID otherwise), with
// every derived copy of their content, and returns how many matched. An
// agent-bound caller deletes within its own agent's scope only: naming the
// org scope is EFORBIDDEN. The audited erasure of a person is Forget.
func (s *Service) DeleteWhere(ctx context.Context, c memory.Caller, f memory.Filter) (int, error) {
	matched := 0
	if err := c.Valid(); err != nil {
		return matched, err
	}
	if !f.Narrowed() {
		return matched, memory.Errorf(memory.EINVALID, "filter: bulk delete requires at least one filter (type, kind, roomId, entityId, sessionId, agentId, documentId, start or end)")
	}
	if c.AgentID != "" {
		if f.AgentID == memory.OrgScope {
			return matched, memory.Errorf(memory.EFORBIDDEN, "agentId: org-scope memories are shared by every agent: only an org-level key may delete them")
		}
		f.AgentID = c.AgentID
	}
	f, err := c.Bind(f)
	if err != nil {
		return matched, err
	}
	f.IncludeArchived = true
	// Page by page from the newest: each page is forgotten before the next
	// is read, so memory stays bounded whatever the selection's size.
	for {
		p, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: memory.MaxListLimit})
		if err != nil {
			return matched, err
		}
		if len(p.Memories) == 0 {
			return matched, nil
		}
		matched += len(p.Memories)
		if _, err := s.forget(ctx, c, p.Memories); err != nil {
			return matched, err
		}
	}
}
