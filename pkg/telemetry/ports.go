package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Ports returns the ports wrapped in traced decorators when tracing is on
// (see Tracing), else unchanged, so that tracing costs nothing while off.
func Ports(s memory.Store, ix memory.Index, e memory.Embedder) (memory.Store, memory.Index, memory.Embedder) {
	if !Tracing() {
		return s, ix, e
	}
	return Store(s), Index(ix), Embedder(e)
}

// FullStore is a store with every optional capability the backends keep:
// relations, records, the org list, the Structured RAG term index, API
// keys, usage counts, the lookup by dedup key and the memories' history.
// Both SQLite and DynamoDB are one.
type FullStore interface {
	memory.Store
	memory.RelationStore
	memory.RecordStore
	memory.OrgLister
	memory.TermIndex
	memory.KeyStore
	memory.UsageCounter
	memory.DedupLookup
	memory.HistoryStore
}

// Store returns s with a span around each memory.Store call, named
// "store.<Method>". A FullStore stays one, so that the consumers that look
// for a capability (relations, records, terms) still find it; its other
// methods pass through, untraced except relations and records.
func Store(s memory.Store) memory.Store {
	t := &tracedStore{s: s}
	if f, ok := s.(FullStore); ok {
		full := &tracedFullStore{FullStore: f, t: t}
		if x, ok := s.(embeddedExtras); ok { // SQLite: vocabulary counters, ref names, one-transaction document commits, version scans, key listings, the extraction log
			return &tracedEmbeddedStore{tracedFullStore: full, embeddedExtras: x}
		}
		if x, ok := s.(memory.DocumentCommitter); ok { // DynamoDB: document commits keyed off a marker
			return &tracedCommitStore{tracedFullStore: full, DocumentCommitter: x}
		}
		return full
	}
	return t
}

// embeddedExtras are the optional capabilities the embedded store (SQLite)
// adds to a FullStore, the durable local extraction log among them.
type embeddedExtras interface {
	memory.TermCounter
	memory.RefNamer
	memory.DocumentCommitter
	memory.KnowledgeBatcher
	memory.RecordBatcher
	memory.VersionScanner
	memory.MemoryKeyLister
	memory.ExtractionLog
}

// tracedEmbeddedStore is a traced FullStore with the embedded store's
// extras, which pass through.
type tracedEmbeddedStore struct {
	*tracedFullStore
	embeddedExtras
}

func (e *tracedEmbeddedStore) PutKnowledgeMany(ctx context.Context, orgID, extractor string, puts []memory.KnowledgePut) (_ []string, err error) {
	ctx, span := Start(ctx, "store.PutKnowledgeMany", orgAttr(orgID), AttrCount.Int(len(puts)))
	defer func() { End(span, err) }()
	return e.embeddedExtras.PutKnowledgeMany(ctx, orgID, extractor, puts)
}

// tracedCommitStore is a traced FullStore that commits documents
// atomically; the commits pass through.
type tracedCommitStore struct {
	*tracedFullStore
	memory.DocumentCommitter
}

type tracedStore struct{ s memory.Store }

func orgAttr(org string) attribute.KeyValue { return AttrOrg.String(org) }

func (t *tracedStore) Create(ctx context.Context, ms []*memory.Memory) (_ []memory.CreateResult, err error) {
	org := ""
	if len(ms) > 0 {
		org = ms[0].OrgID
	}
	ctx, span := Start(ctx, "store.Create", orgAttr(org), AttrCount.Int(len(ms)))
	defer func() { End(span, err) }()
	return t.s.Create(ctx, ms)
}

func (t *tracedStore) Get(ctx context.Context, orgID, id string) (_ *memory.Memory, err error) {
	ctx, span := Start(ctx, "store.Get", orgAttr(orgID))
	defer func() { End(span, notFoundIsNoError(err)) }()
	return t.s.Get(ctx, orgID, id)
}

func (t *tracedStore) GetMany(ctx context.Context, orgID string, ids []string) (_ map[string]*memory.Memory, err error) {
	ctx, span := Start(ctx, "store.GetMany", orgAttr(orgID), AttrCount.Int(len(ids)))
	defer func() { End(span, err) }()
	return t.s.GetMany(ctx, orgID, ids)
}

func (t *tracedStore) Update(ctx context.Context, m *memory.Memory) (err error) {
	ctx, span := Start(ctx, "store.Update", orgAttr(m.OrgID))
	defer func() { End(span, err) }()
	return t.s.Update(ctx, m)
}

func (t *tracedStore) Delete(ctx context.Context, orgID, id string) (err error) {
	ctx, span := Start(ctx, "store.Delete", orgAttr(orgID))
	defer func() { End(span, notFoundIsNoError(err)) }()
	return t.s.Delete(ctx, orgID, id)
}

func (t *tracedStore) List(ctx context.Context, q memory.ListQuery) (_ memory.Page, err error) {
	ctx, span := Start(ctx, "store.List", orgAttr(q.Filter.OrgID))
	defer func() { End(span, err) }()
	return t.s.List(ctx, q)
}

func (t *tracedStore) Count(ctx context.Context, f memory.Filter) (_ int, err error) {
	ctx, span := Start(ctx, "store.Count", orgAttr(f.OrgID))
	defer func() { End(span, err) }()
	return t.s.Count(ctx, f)
}

func (t *tracedStore) DeleteWhere(ctx context.Context, f memory.Filter) (_ []string, err error) {
	ctx, span := Start(ctx, "store.DeleteWhere", orgAttr(f.OrgID))
	defer func() { End(span, err) }()
	return t.s.DeleteWhere(ctx, f)
}

func (t *tracedStore) Touch(ctx context.Context, orgID string, ids []string, at int64) (err error) {
	ctx, span := Start(ctx, "store.Touch", orgAttr(orgID), AttrCount.Int(len(ids)))
	defer func() { End(span, err) }()
	return t.s.Touch(ctx, orgID, ids, at)
}

func (t *tracedStore) Scan(ctx context.Context, fn func(*memory.Memory) error) (err error) {
	ctx, span := Start(ctx, "store.Scan")
	defer func() { End(span, err) }()
	return t.s.Scan(ctx, fn)
}

// notFoundIsNoError keeps an absent memory, an answer rather than a
// failure, from marking its span as an error.
func notFoundIsNoError(err error) error {
	if memory.IsNotFound(err) {
		return nil
	}
	return err
}

// tracedFullStore is a traced FullStore: the memory.Store methods, the
// relations and the records are traced, the rest passes through.
type tracedFullStore struct {
	FullStore
	t *tracedStore
}

func (f *tracedFullStore) Create(ctx context.Context, ms []*memory.Memory) ([]memory.CreateResult, error) {
	return f.t.Create(ctx, ms)
}
func (f *tracedFullStore) Get(ctx context.Context, orgID, id string) (*memory.Memory, error) {
	return f.t.Get(ctx, orgID, id)
}
func (f *tracedFullStore) GetMany(ctx context.Context, orgID string, ids []string) (map[string]*memory.Memory, error) {
	return f.t.GetMany(ctx, orgID, ids)
}
func (f *tracedFullStore) Update(ctx context.Context, m *memory.Memory) error {
	return f.t.Update(ctx, m)
}
func (f *tracedFullStore) Delete(ctx context.Context, orgID, id string) error {
	return f.t.Delete(ctx, orgID, id)
}
func (f *tracedFullStore) List(ctx context.Context, q memory.ListQuery) (memory.Page, error) {
	return f.t.List(ctx, q)
}
func (f *tracedFullStore) Count(ctx context.Context, fl memory.Filter) (int, error) {
	return f.t.Count(ctx, fl)
}
func (f *tracedFullStore) DeleteWhere(ctx context.Context, fl memory.Filter) ([]string, error) {
	return f.t.DeleteWhere(ctx, fl)
}
func (f *tracedFullStore) Touch(ctx context.Context, orgID string, ids []string, at int64) error {
	return f.t.Touch(ctx, orgID, ids, at)
}
func (f *tracedFullStore) Scan(ctx context.Context, fn func(*memory.Memory) error) error {
	return f.t.Scan(ctx, fn)
}

func (f *tracedFullStore) PutRelations(ctx context.Context, rs []memory.Relation) (err error) {
	ctx, span := Start(ctx, "store.PutRelations", AttrCount.Int(len(rs)))
	defer func() { End(span, err) }()
	return f.FullStore.PutRelations(ctx, rs)
}

func (f *tracedFullStore) Relations(ctx context.Context, orgID, memoryID string) (_ []memory.Relation, err error) {
	ctx, span := Start(ctx, "store.Relations", orgAttr(orgID))
	defer func() { End(span, err) }()
	return f.FullStore.Relations(ctx, orgID, memoryID)
}

func (f *tracedFullStore) DeleteRelation(ctx context.Context, orgID, fromID string, t memory.RelationType, toID string) (err error) {
	ctx, span := Start(ctx, "store.DeleteRelation", orgAttr(orgID))
	defer func() { End(span, err) }()
	return f.FullStore.DeleteRelation(ctx, orgID, fromID, t, toID)
}

func (f *tracedFullStore) PutRecord(ctx context.Context, org, kind, id string, value any, ifVersion int64) (_ int64, err error) {
	ctx, span := Start(ctx, "store.PutRecord", orgAttr(org), attribute.String("agentmem.record.kind", kind))
	defer func() { End(span, err) }()
	return f.FullStore.PutRecord(ctx, org, kind, id, value, ifVersion)
}

func (f *tracedFullStore) GetRecord(ctx context.Context, org, kind, id string, out any) (_ int64, err error) {
	ctx, span := Start(ctx, "store.GetRecord", orgAttr(org), attribute.String("agentmem.record.kind", kind))
	defer func() { End(span, notFoundIsNoError(err)) }()
	return f.FullStore.GetRecord(ctx, org, kind, id, out)
}

func (f *tracedFullStore) LookupTerms(ctx context.Context, q memory.TermLookup) (_ []memory.TermPosting, err error) {
	ctx, span := Start(ctx, "store.LookupTerms")
	defer func() { End(span, err) }()
	return f.FullStore.LookupTerms(ctx, q)
}

func (f *tracedFullStore) PutKnowledge(ctx context.Context, orgID, memoryID string, attrs memory.Attrs, extractor string, refs []memory.SemanticRef) (err error) {
	ctx, span := Start(ctx, "store.PutKnowledge", orgAttr(orgID), AttrCount.Int(len(refs)))
	defer func() { End(span, err) }()
	return f.FullStore.PutKnowledge(ctx, orgID, memoryID, attrs, extractor, refs)
}

// Index returns ix with a span around each call, named "index.<Method>".
func Index(ix memory.Index) memory.Index { return tracedIndex{ix} }

type tracedIndex struct{ ix memory.Index }

func (t tracedIndex) Upsert(ctx context.Context, ms []*memory.Memory) (err error) {
	org := ""
	if len(ms) > 0 {
		org = ms[0].OrgID
	}
	ctx, span := Start(ctx, "index.Upsert", orgAttr(org), AttrCount.Int(len(ms)))
	defer func() { End(span, err) }()
	return t.ix.Upsert(ctx, ms)
}

func (t tracedIndex) Delete(ctx context.Context, orgID string, ids []string) (err error) {
	ctx, span := Start(ctx, "index.Delete", orgAttr(orgID), AttrCount.Int(len(ids)))
	defer func() { End(span, err) }()
	return t.ix.Delete(ctx, orgID, ids)
}

func (t tracedIndex) Search(ctx context.Context, q memory.IndexQuery) (_ memory.IndexResult, err error) {
	ctx, span := Start(ctx, "index.Search", orgAttr(q.Filter.OrgID), attribute.Int("agentmem.k", q.K),
		attribute.Bool("agentmem.keyword", q.Text != ""), attribute.Bool("agentmem.semantic", q.Vector != nil))
	defer func() { End(span, err) }()
	return t.ix.Search(ctx, q)
}

// Embedder returns e with a span around Embed, named "embedder.Embed".
func Embedder(e memory.Embedder) memory.Embedder { return tracedEmbedder{e} }

type tracedEmbedder struct{ memory.Embedder }

func (t tracedEmbedder) Embed(ctx context.Context, texts []string, p memory.Purpose) (_ [][]float32, err error) {
	purpose := "document"
	if p == memory.PurposeQuery {
		purpose = "query"
	}
	ctx, span := Start(ctx, "embedder.Embed", AttrCount.Int(len(texts)), attribute.String("agentmem.purpose", purpose),
		attribute.String("agentmem.model", t.Model()))
	defer func() { End(span, err) }()
	return t.Embedder.Embed(ctx, texts, p)
}
