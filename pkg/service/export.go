package service

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The kinds of export lines.
const (
	LineMemory   = "memory"
	LineRelation = "relation"
	LineRecord   = "record"
)

// DocumentRecordKind is the kind of the document status records that an
// export carries (the ingestion pipeline's ingest.RecordKind).
const DocumentRecordKind = "DOC"

// Import limits.
const (
	// MaxImportLines bounds the lines of one import.
	MaxImportLines = 100_000
	// MaxImportErrors bounds the per-line errors an import reports; the
	// counts go on past it.
	MaxImportErrors = 1000
)

// ExportLine is one line of an export (NDJSON): Kind says which of
// Memory, Relation or Record it holds. A memory's embedding is carried
// beside it, when asked for, with the model that made it.
type ExportLine struct {
	Kind           string           `json:"kind"`
	Memory         *memory.Memory   `json:"memory,omitempty"`
	Embedding      []float32        `json:"embedding,omitempty"`
	EmbeddingModel string           `json:"embeddingModel,omitempty"`
	Relation       *memory.Relation `json:"relation,omitempty"`
	Record         *memory.Record   `json:"record,omitempty"`
}

// ExportOptions choose what an export holds.
type ExportOptions struct {
	// AgentID narrows the export to one scope: an agent's, or the org
	// scope with memory.OrgScope. An agent-bound caller always exports its
	// own agent's scope.
	AgentID string
	// Embeddings adds each memory's embedding.
	Embeddings bool
}

// exportPage is how many memories an export reads at a time.
const exportPage = 500

// Export calls emit for every line of c's export, in order: the memories
// (archived included, oldest pages last), the relations between exported
// memories, then the document records of the scope. An org-level caller
// exports the whole org, or one scope with opts.AgentID; an agent-bound
// caller exports its own agent's scope only. Errors: EFORBIDDEN when an
// agent-bound caller names another scope, and emit's.
func (s *Service) Export(ctx context.Context, c memory.Caller, opts ExportOptions, emit func(ExportLine) error) error {
	if err := c.Valid(); err != nil {
		return err
	}
	agent := opts.AgentID
	if c.AgentID != "" {
		if agent != "" && agent != c.AgentID {
			return memory.Errorf(memory.EFORBIDDEN, "agentId: this key is bound to agent %q and exports only its scope", c.AgentID)
		}
		agent = c.AgentID
	}
	f, err := c.Bind(memory.Filter{AgentID: agent, IncludeArchived: true})
	if err != nil {
		return err
	}
	rels, _ := s.store.(memory.RelationStore)
	q := memory.ListQuery{Filter: f, Limit: exportPage}
	for {
		page, err := s.store.List(ctx, q)
		if err != nil {
			return err
		}
		for _, m := range page.Memories {
			line := ExportLine{Kind: LineMemory, Memory: m}
			if opts.Embeddings && len(m.Embedding) > 0 {
				line.Embedding, line.EmbeddingModel = m.Embedding, m.EmbeddingModel
			}
			if err := emit(line); err != nil {
				return err
			}
		}
		if rels != nil {
			if err := s.exportRelations(ctx, rels, f, page.Memories, emit); err != nil {
				return err
			}
		}
		if page.Next == nil {
			break
		}
		q.Cursor = page.Next
	}
	return s.exportRecords(ctx, c, agent, emit)
}

// exportRelations emits the relations from ms to memories that f also
// selects (each relation once, from its source).
func (s *Service) exportRelations(ctx context.Context, rels memory.RelationStore, f memory.Filter, ms []*memory.Memory, emit func(ExportLine) error) error {
	var out []memory.Relation
	targets := map[string]bool{}
	for _, m := range ms {
		rs, err := rels.Relations(ctx, f.OrgID, m.ID)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.FromID == m.ID && r.OrgID == f.OrgID {
				out = append(out, r)
				targets[r.ToID] = true
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	ids := make([]string, 0, len(targets))
	for id := range targets {
		ids = append(ids, id)
	}
	got, err := s.store.GetMany(ctx, f.OrgID, ids)
	if err != nil {
		return err
	}
	for i := range out {
		if t := got[out[i].ToID]; t != nil && f.Match(t.Attrs()) {
			if err := emit(ExportLine{Kind: LineRelation, Relation: &out[i]}); err != nil {
				return err
			}
		}
	}
	return nil
}

// exportRecords emits the org's document records in agent's scope (all
// of them for an org-level export).
func (s *Service) exportRecords(ctx context.Context, c memory.Caller, agent string, emit func(ExportLine) error) error {
	rs, ok := s.store.(memory.RecordStore)
	if !ok {
		return nil
	}
	after := ""
	for {
		recs, next, err := rs.ListRecords(ctx, c.OrgID, DocumentRecordKind, after, exportPage)
		if err != nil {
			return err
		}
		for i := range recs {
			if recordInScope(recs[i].Value, agent) {
				if err := emit(ExportLine{Kind: LineRecord, Record: &recs[i]}); err != nil {
					return err
				}
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

// recordInScope reports whether a document record belongs to the scope
// agent ("" is every scope, memory.OrgScope the org's own).
func recordInScope(value json.RawMessage, agent string) bool {
	if agent == "" {
		return true
	}
	var v struct {
		AgentID string `json:"agentId"`
	}
	if json.Unmarshal(value, &v) != nil {
		return false
	}
	if agent == memory.OrgScope {
		return v.AgentID == ""
	}
	return v.AgentID == agent
}

// ImportReport is the outcome of an import: counts per kind and outcome,
// and the lines that failed.
type ImportReport struct {
	Lines     int           `json:"lines"`
	Memories  ImportCounts  `json:"memories"`
	Relations ImportCounts  `json:"relations"`
	Records   ImportCounts  `json:"records"`
	Errors    []ImportError `json:"errors"`
	Truncated bool          `json:"errorsTruncated,omitempty"`
}

// ImportCounts counts one kind's lines by outcome. Existing is what was
// there already (re-running an import only counts these); Duplicate a
// memory whose content another memory of its scope already holds.
type ImportCounts struct {
	Created   int `json:"created"`
	Existing  int `json:"existing"`
	Duplicate int `json:"duplicate,omitempty"`
	Failed    int `json:"failed"`
}

// ImportError is one failed line.
type ImportError struct {
	Line    int    `json:"line"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (r *ImportReport) fail(line int, err error) {
	if len(r.Errors) >= MaxImportErrors {
		r.Truncated = true
		return
	}
	r.Errors = append(r.Errors, ImportError{Line: line, Code: memory.ErrorCode(err), Message: memory.ErrorMessage(err)})
}

// Importer reads an export back into c's org, idempotently: a memory,
// relation or record that exists already (same id) is left as it is, so
// running an import twice changes nothing. The org always comes from c,
// never from the lines; an agent-bound caller imports only into its own
// agent's scope. Memories keep their ids, versions and times; their
// embeddings are used when they were made by the service's model, else
// the memories are embedded again. Add lines in order, then Finish.
type Importer struct {
	s       *Service
	c       memory.Caller
	report  ImportReport
	reserve Reserver
	batch   []*memory.Memory
	batchAt []int
	rels    []memory.Relation
	relAt   []int
	recs    []memory.Record
	recAt   []int
}

// Reserver reserves what a write adds against c's org's quotas until
// release is called (the transports' quota enforcement); EQUOTA when it
// does not fit.
type Reserver func(ctx context.Context, add memory.OrgUsage) (release func(), err error)

// WithQuota makes the import reserve what it stores through r, as every
// other write does: each batch of new memories before it is stored, and
// each new document record (which lists a document) as a document. A line
// that does not fit stops the import with EQUOTA naming the line: the
// memories of the lines before it are stored, nothing from it on (a
// batch is stored only up to that line).
func (im *Importer) WithQuota(r Reserver) { im.reserve = r }

// NewImporter starts an import for c.
func (s *Service) NewImporter(c memory.Caller) (*Importer, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	if c.Binding != nil {
		// An import writes memories of any visibility, records and
		// relations: an org's or an agent's act, never an end user's.
		return nil, memory.Errorf(memory.EFORBIDDEN, "import: an end-user token cannot import; use an API key")
	}
	return &Importer{s: s, c: c, report: ImportReport{Errors: []ImportError{}}}, nil
}

// Add reads one line (numbered from 1). A bad line is reported and
// skipped; only a failing dependency (store, index, embedder) or too many
// lines stops the import with an error.
func (im *Importer) Add(ctx context.Context, n int, line []byte) error {
	im.report.Lines++
	if im.report.Lines > MaxImportLines {
		return memory.Errorf(memory.ETOOLARGE, "body: more than %d lines", MaxImportLines)
	}
	var l ExportLine
	if err := json.Unmarshal(line, &l); err != nil {
		im.report.fail(n, memory.Errorf(memory.EINVALID, "line %d: not a JSON export line", n))
		return nil
	}
	switch l.Kind {
	case LineMemory:
		m, err := im.memory(l)
		if err != nil {
			im.report.Memories.Failed++
			im.report.fail(n, err)
			return nil
		}
		im.batch, im.batchAt = append(im.batch, m), append(im.batchAt, n)
		if len(im.batch) == memory.MaxBatch {
			return im.flush(ctx)
		}
	case LineRelation:
		if l.Relation == nil {
			im.report.Relations.Failed++
			im.report.fail(n, memory.Errorf(memory.EINVALID, "relation: required for kind %q", l.Kind))
			return nil
		}
		r := *l.Relation
		r.OrgID = im.c.OrgID
		if err := r.Validate(); err != nil {
			im.report.Relations.Failed++
			im.report.fail(n, err)
			return nil
		}
		im.rels, im.relAt = append(im.rels, r), append(im.relAt, n)
	case LineRecord:
		if l.Record == nil || l.Record.Kind != DocumentRecordKind || memory.ValidID("record.id", l.Record.ID) != nil || l.Record.ID == "" {
			im.report.Records.Failed++
			im.report.fail(n, memory.Errorf(memory.EINVALID, "record: a document record (kind %q) with an id is required", DocumentRecordKind))
			return nil
		}
		im.recs, im.recAt = append(im.recs, *l.Record), append(im.recAt, n)
	default:
		im.report.fail(n, memory.Errorf(memory.EINVALID, "kind: %q is not one of memory, relation, record", l.Kind))
	}
	return nil
}

// memory checks an imported memory and makes it c's.
func (im *Importer) memory(l ExportLine) (*memory.Memory, error) {
	if l.Memory == nil {
		return nil, memory.Errorf(memory.EINVALID, "memory: required for kind %q", l.Kind)
	}
	m := *l.Memory
	if m.ID == "" {
		return nil, memory.Errorf(memory.EINVALID, "memory.id: required")
	}
	if err := memory.ValidID("memory.id", m.ID); err != nil {
		return nil, err
	}
	if m.AgentID == memory.OrgScope {
		return nil, memory.Errorf(memory.EINVALID, "memory.agentId: %q is reserved", memory.OrgScope)
	}
	if im.c.AgentID != "" && m.AgentID != im.c.AgentID {
		return nil, memory.Errorf(memory.EFORBIDDEN, "memory.agentId: this key is bound to agent %q and imports only into its scope", im.c.AgentID)
	}
	if err := m.Validate(); err != nil {
		return nil, prefixed("memory.", err)
	}
	if m.Version < 1 {
		m.Version = 1
	}
	m.OrgID, m.Pending, m.ContentHash = im.c.OrgID, false, memory.ContentHash(m.Content.Text)
	m.Change = memory.ChangeBy(im.c, memory.OpImport)
	if l.EmbeddingModel == im.s.embedder.Model() && len(l.Embedding) == im.s.embedder.Dimensions() {
		m.Embedding, m.EmbeddingModel = l.Embedding, l.EmbeddingModel
	} else {
		m.Embedding, m.EmbeddingModel = nil, ""
	}
	return &m, nil
}

// flush stores the batch of memories: those whose id exists are counted
// as existing, the rest created (or found duplicates), indexed and
// derived.
func (im *Importer) flush(ctx context.Context) error {
	batch, at := im.batch, im.batchAt
	im.batch, im.batchAt = nil, nil
	if len(batch) == 0 {
		return nil
	}
	ids := make([]string, len(batch))
	for i, m := range batch {
		ids[i] = m.ID
	}
	have, err := im.s.store.GetMany(ctx, im.c.OrgID, ids)
	if err != nil {
		return err
	}
	var todo []*memory.Memory
	var todoAt []int
	seen := map[string]bool{}
	for i, m := range batch {
		if have[m.ID] != nil || seen[m.ID] {
			im.report.Memories.Existing++
			continue
		}
		seen[m.ID] = true
		todo, todoAt = append(todo, m), append(todoAt, at[i])
	}
	todo, release, over := im.reserveMemories(ctx, todo, todoAt)
	defer release()
	if err := im.store(ctx, todo); err != nil {
		return err
	}
	return over
}

// reserveMemories reserves what todo adds (at are their lines): all of
// it, or when that is over a quota the longest prefix that fits, with the
// quota error naming the first line left out.
func (im *Importer) reserveMemories(ctx context.Context, todo []*memory.Memory, at []int) (_ []*memory.Memory, release func(), over error) {
	if im.reserve == nil || len(todo) == 0 {
		return todo, func() {}, nil
	}
	rel, err := im.reserve(ctx, memory.UsageOf(todo...))
	if err == nil {
		return todo, rel, nil
	}
	if memory.ErrorCode(err) != memory.EQUOTA {
		return nil, func() {}, err
	}
	var rels []func()
	release = func() {
		for _, r := range rels {
			r()
		}
	}
	for i, m := range todo {
		rel, err := im.reserve(ctx, memory.UsageOf(m))
		if err != nil {
			im.report.Memories.Failed++
			im.report.fail(at[i], err)
			if memory.ErrorCode(err) == memory.EQUOTA {
				err = memory.Errorf(memory.EQUOTA, "line %d: %s; the import stopped there: the memories of the lines before it are stored, nothing from it on (an import is idempotent: run it again once the org has room)",
					at[i], memory.ErrorMessage(err))
			}
			return todo[:i], release, err
		}
		rels = append(rels, rel)
	}
	return todo, release, nil
}

// store embeds, stores, indexes and derives the new memories todo.
func (im *Importer) store(ctx context.Context, todo []*memory.Memory) error {
	defer im.s.Invalidate(im.c.OrgID) // composed contexts are stale
	var embed []*memory.Memory
	for _, m := range todo {
		if m.Embedding == nil {
			embed = append(embed, m)
		}
	}
	if err := im.s.embed(ctx, embed); err != nil {
		return err
	}
	if len(todo) == 0 {
		return nil
	}
	res, err := im.s.store.Create(ctx, todo)
	if err != nil {
		return err
	}
	var created []*memory.Memory
	for i, r := range res {
		if r.Duplicate {
			im.report.Memories.Duplicate++
			continue
		}
		im.report.Memories.Created++
		created = append(created, todo[i])
	}
	if err := im.s.index.Upsert(ctx, created); err != nil {
		return unavailable("index", err)
	}
	im.s.deriveKnowledge(ctx, im.c.OrgID, created)
	return nil
}

// Finish stores what is left: the last memories, then the relations
// between memories the caller can see, then the records. It returns the
// report.
func (im *Importer) Finish(ctx context.Context) (ImportReport, error) {
	if err := im.flush(ctx); err != nil {
		return im.report, err
	}
	if err := im.finishRelations(ctx); err != nil {
		return im.report, err
	}
	if err := im.finishRecords(ctx); err != nil {
		return im.report, err
	}
	return im.report, nil
}

func (im *Importer) finishRelations(ctx context.Context) error {
	defer im.s.Invalidate(im.c.OrgID) // composed contexts are stale
	if len(im.rels) == 0 {
		return nil
	}
	rs, ok := im.s.store.(memory.RelationStore)
	if !ok {
		for _, n := range im.relAt {
			im.report.Relations.Failed++
			im.report.fail(n, memory.Errorf(memory.EINVALID, "relation: this deployment's store keeps no relations"))
		}
		return nil
	}
	for start := 0; start < len(im.rels); start += exportPage {
		chunk, at := im.rels[start:min(len(im.rels), start+exportPage)], im.relAt[start:min(len(im.rels), start+exportPage)]
		var ids []string
		for _, r := range chunk {
			ids = append(ids, r.FromID, r.ToID)
		}
		got, err := im.s.store.GetMany(ctx, im.c.OrgID, ids)
		if err != nil {
			return err
		}
		var put []memory.Relation
		for i, r := range chunk {
			from, to := got[r.FromID], got[r.ToID]
			if from == nil || to == nil || !im.c.CanSeeMemory(from) || !im.c.CanSeeMemory(to) {
				im.report.Relations.Failed++
				im.report.fail(at[i], memory.Errorf(memory.EINVALID, "relation: %s → %s: both memories must exist in the caller's scope", r.FromID, r.ToID))
				continue
			}
			if im.c.AgentID != "" && from.AgentID != im.c.AgentID {
				// An agent key adds relations from its own memories only.
				im.report.Relations.Failed++
				im.report.fail(at[i], memory.Errorf(memory.EFORBIDDEN, "relation: this key is bound to agent %q and imports only its scope's relations", im.c.AgentID))
				continue
			}
			existing, err := rs.Relations(ctx, im.c.OrgID, r.FromID)
			if err != nil {
				return err
			}
			if hasRelation(existing, r) {
				im.report.Relations.Existing++
				continue
			}
			put = append(put, r)
		}
		if len(put) > 0 {
			if err := rs.PutRelations(ctx, put); err != nil {
				return err
			}
			im.report.Relations.Created += len(put)
		}
	}
	return nil
}

func hasRelation(rs []memory.Relation, r memory.Relation) bool {
	for _, x := range rs {
		if x.FromID == r.FromID && x.ToID == r.ToID && x.Type == r.Type {
			return true
		}
	}
	return false
}

func (im *Importer) finishRecords(ctx context.Context) error {
	defer im.s.Invalidate(im.c.OrgID) // composed contexts are stale
	if len(im.recs) == 0 {
		return nil
	}
	rs, ok := im.s.store.(memory.RecordStore)
	if !ok {
		for _, n := range im.recAt {
			im.report.Records.Failed++
			im.report.fail(n, memory.Errorf(memory.EINVALID, "record: this deployment's store keeps no records"))
		}
		return nil
	}
	var releases []func()
	defer func() {
		for _, r := range releases {
			r()
		}
	}()
	orphans := int64(-1) // counted on the first new record
	for i, r := range im.recs {
		v, err := im.recordValue(r)
		if err != nil {
			im.report.Records.Failed++
			im.report.fail(im.recAt[i], err)
			continue
		}
		var cur json.RawMessage
		_, err = rs.GetRecord(ctx, im.c.OrgID, r.Kind, r.ID, &cur)
		switch {
		case err == nil:
			im.report.Records.Existing++
			continue
		case !memory.IsNotFound(err):
			return fmt.Errorf("import record %s: %w", r.ID, err)
		}
		if orphans < 0 && im.reserve != nil {
			if orphans, err = im.orphanRecords(ctx, rs); err != nil {
				return err
			}
		}
		release, err := im.reserveRecord(ctx, r.ID, orphans)
		if err != nil {
			im.report.Records.Failed++
			im.report.fail(im.recAt[i], err)
			if memory.ErrorCode(err) == memory.EQUOTA {
				return memory.Errorf(memory.EQUOTA, "line %d: %s (the org's %d document records without a document memory count as documents too); the import stopped there: the memories and the records of the lines before it are stored, nothing from it on (an import is idempotent: run it again once the org has room)",
					im.recAt[i], memory.ErrorMessage(err), orphans)
			}
			return err
		}
		releases = append(releases, release)
		_, err = rs.PutRecord(ctx, im.c.OrgID, r.Kind, r.ID, v, 0)
		if err != nil {
			return fmt.Errorf("import record %s: %w", r.ID, err)
		}
		im.report.Records.Created++
	}
	return nil
}

// documentStates are the states of a document record (ingest's).
var documentStates = map[string]bool{"pending": true, "indexed": true, "failed": true}

// recordValue checks an imported document record's value and makes it
// c's: a JSON object whose id is the record's, whose agentId is c's agent
// for an agent-bound caller, whose key is {org}/{agentId or _org}/{name}
// with a valid document name, and whose state is pending, indexed or
// failed. The org, in orgId and in the key's first segment, becomes c's
// whatever the file says, so no record keeps another org's key.
func (im *Importer) recordValue(r memory.Record) (map[string]any, error) {
	var v map[string]any
	if err := json.Unmarshal(r.Value, &v); err != nil || v == nil {
		return nil, memory.Errorf(memory.EINVALID, "record.value: must be a JSON object")
	}
	str := func(name string) (string, error) {
		switch x := v[name].(type) {
		case nil:
			return "", nil
		case string:
			return x, nil
		default:
			return "", memory.Errorf(memory.EINVALID, "record.value.%s: must be a string", name)
		}
	}
	id, err := str("id")
	if err != nil {
		return nil, err
	}
	if id != "" && id != r.ID {
		return nil, memory.Errorf(memory.EINVALID, "record.value.id: %q is not the record's id %q", id, r.ID)
	}
	agent, err := str("agentId")
	if err != nil {
		return nil, err
	}
	if agent != "" && !memory.ValidName(agent) {
		return nil, memory.Errorf(memory.EINVALID, "record.value.agentId: %q is not a valid agent id", agent)
	}
	if im.c.AgentID != "" && agent != im.c.AgentID {
		return nil, memory.Errorf(memory.EFORBIDDEN, "record.value.agentId: this key is bound to agent %q and imports only into its scope", im.c.AgentID)
	}
	key, err := str("key")
	if err != nil {
		return nil, err
	}
	parts := strings.SplitN(key, "/", 3)
	seg := memory.OrgScope
	if agent != "" {
		seg = agent
	}
	if len(parts) != 3 || parts[1] != seg {
		return nil, memory.Errorf(memory.EINVALID, "record.value.key: %q is not {orgId}/%s/{name}", key, seg)
	}
	if err := memory.ValidDocumentName("record.value.key", parts[2]); err != nil {
		return nil, err
	}
	state, err := str("state")
	if err != nil {
		return nil, err
	}
	if !documentStates[state] {
		return nil, memory.Errorf(memory.EINVALID, "record.value.state: %q is not one of pending, indexed, failed", state)
	}
	v["id"] = r.ID
	v["orgId"] = im.c.OrgID // never the file's org
	v["key"] = im.c.OrgID + "/" + seg + "/" + parts[2]
	v["name"] = path.Base(parts[2])
	return v, nil
}

// reserveRecord reserves the document a new record lists, unless its
// document memory is in the org already (then that memory counts it).
// The usage the quota reads counts document memories only, so the org's
// orphans (records without one, which list documents all the same) are
// reserved with it; the reservations are held to the end of the import.
func (im *Importer) reserveRecord(ctx context.Context, docID string, orphans int64) (func(), error) {
	if im.reserve == nil {
		return func() {}, nil
	}
	n, err := im.s.store.Count(ctx, memory.Filter{OrgID: im.c.OrgID, DocumentID: docID, Types: []memory.Type{memory.TypeDocument}, IncludeArchived: true})
	if err != nil {
		return nil, err
	}
	if n > 0 {
		return func() {}, nil
	}
	release, err := im.reserve(ctx, memory.OrgUsage{Documents: 1 + orphans})
	if err != nil {
		return nil, err
	}
	// Hold the record itself; the orphans were only checked with it.
	release()
	return im.reserve(ctx, memory.OrgUsage{Documents: 1})
}

// orphanRecords counts c's org's document records that have no document
// memory: one pass over the document memories (bounded by the documents
// quota) and one over the records.
func (im *Importer) orphanRecords(ctx context.Context, rs memory.RecordStore) (int64, error) {
	docs := map[string]bool{}
	q := memory.ListQuery{Filter: memory.Filter{OrgID: im.c.OrgID, Types: []memory.Type{memory.TypeDocument}, IncludeArchived: true}, Limit: exportPage}
	for {
		p, err := im.s.store.List(ctx, q)
		if err != nil {
			return 0, err
		}
		for _, m := range p.Memories {
			docs[m.DocumentID] = true
		}
		if p.Next == nil {
			break
		}
		q.Cursor = p.Next
	}
	var n int64
	after := ""
	for {
		recs, next, err := rs.ListRecords(ctx, im.c.OrgID, DocumentRecordKind, after, exportPage)
		if err != nil {
			return 0, err
		}
		for _, r := range recs {
			if !docs[r.ID] {
				n++
			}
		}
		if next == "" {
			return n, nil
		}
		after = next
	}
}
