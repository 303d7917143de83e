package memory

import "context"

// Store is the source of truth for memories. Every method is scoped to one
// org; implementations must put the org in every read and write so that no
// call can reach another org's data.
type Store interface {
	// Create stores the memories atomically: all of them or none. A memory
	// whose DedupKey already exists in its org is not stored; its result
	// carries the existing id and Duplicate. Memories must have ID, OrgID,
	// ContentHash and Version 1 set.
	Create(ctx context.Context, ms []*Memory) ([]CreateResult, error)
	// Get returns one memory; ENOTFOUND if absent from that org.
	Get(ctx context.Context, orgID, id string) (*Memory, error)
	// GetMany returns the memories of ids that exist in the org, by id.
	GetMany(ctx context.Context, orgID string, ids []string) (map[string]*Memory, error)
	// Update replaces m if its stored Version equals m.Version, and then
	// increments m.Version. ECONFLICT on a version mismatch or when the new
	// content clashes with another memory's DedupKey; ENOTFOUND if absent.
	Update(ctx context.Context, m *Memory) error
	// Delete removes one memory; ENOTFOUND if absent.
	Delete(ctx context.Context, orgID, id string) error
	// List returns a page of memories matching q, newest first.
	List(ctx context.Context, q ListQuery) (Page, error)
	// Count counts the memories matching f.
	Count(ctx context.Context, f Filter) (int, error)
	// DeleteWhere removes the memories matching f and returns their ids.
	DeleteWhere(ctx context.Context, f Filter) ([]string, error)
	// Touch records an access to each id at time at (ms): AccessCount+1,
	// and LastAccessedAt the later of its value and at (access batches
	// written out of order keep the latest). An id listed n times is n
	// accesses (CountAccesses; the access writer gathers many searches into
	// one call). Ids that name no memory of orgID are skipped. It does not
	// change Version.
	Touch(ctx context.Context, orgID string, ids []string, at int64) error
	// Scan calls fn for every memory of every org, archived included, in no
	// particular order; used to rebuild the index.
	Scan(ctx context.Context, fn func(*Memory) error) error
}

// MemoryKeyLister is a Store that pages through an org's memories by key
// without reading them: a walk over a whole org that needs few of its
// memories (the knowledge backfill) then reads an index rather than every
// row, its text, body and embedding.
type MemoryKeyLister interface {
	// ListMemoryKeys returns up to limit keys of the org's memories, archived and
	// pending ones included, in List's order (newest first: CreatedAt then
	// ID descending), after the key after (from the newest when nil), and
	// the last of them as next when more follow (nil at the end).
	ListMemoryKeys(ctx context.Context, orgID string, after *Cursor, limit int) (keys []Cursor, next *Cursor, err error)
}

// VersionScanner is a Store that lists every memory's version without
// reading the memory itself: what the local index's start-up check
// compares with the versions its entries were made from, so that only the
// memories whose versions differ are read whole.
type VersionScanner interface {
	// ScanVersions calls fn for every memory of every org, archived
	// included, in no particular order, as Scan would find them.
	ScanVersions(ctx context.Context, fn func(MemoryVersion) error) error
}

// MemoryVersion is a memory's identity and version, and what the index
// needs to know of its vector without reading it.
type MemoryVersion struct {
	OrgID, ID string
	Version   int64
	Pending   bool
	// EmbeddingModel and Dimensions are the stored vector's (0: none).
	EmbeddingModel string
	Dimensions     int
}

// CreateResult is the outcome of storing one memory.
type CreateResult struct {
	ID        string `json:"id"`
	Duplicate bool   `json:"duplicate"`
}

// Index is the derived search index: BM25 keywords and vectors over the
// memories' search text. The service fuses its ranked lists.
type Index interface {
	// Upsert adds or replaces the memories (with their Embedding).
	Upsert(ctx context.Context, ms []*Memory) error
	// Delete removes ids of one org; absent ids are ignored.
	Delete(ctx context.Context, orgID string, ids []string) error
	// Search returns up to q.K hits per requested mode, best first, among
	// memories matching q.Filter.
	Search(ctx context.Context, q IndexQuery) (IndexResult, error)
}

// IndexQuery is one search against the Index. Text empty skips the keyword
// list, Vector nil skips the semantic list.
type IndexQuery struct {
	Filter Filter
	Text   string
	Vector []float32
	K      int
}

// IndexResult holds the ranked lists of one IndexQuery.
type IndexResult struct {
	Keyword  []Hit
	Semantic []Hit
}

// Hit is one ranked id with the mode's native score (BM25, or cosine
// similarity for vectors).
type Hit struct {
	ID    string
	Score float64
}

// Purpose tells an embedder whether text is stored or asked with; some
// models embed the two differently.
type Purpose int

// The embedding purposes.
const (
	PurposeDocument Purpose = iota
	PurposeQuery
)

// Embedder turns texts into unit vectors of Dimensions() floats.
type Embedder interface {
	Embed(ctx context.Context, texts []string, p Purpose) ([][]float32, error)
	Dimensions() int
	// Model names the model and its configuration; vectors of different
	// models are never compared.
	Model() string
}

// OrgLister is a store that can list its orgs (for scheduled jobs).
type OrgLister interface {
	Orgs(ctx context.Context) ([]string, error)
}

// DocumentCommit publishes a staged document: its pending memories become
// visible and the memories of the version they replace are hidden, with the
// document's status record, all in one step.
type DocumentCommit struct {
	OrgID, DocumentID string
	// Retire are visible memories of the document that the new version
	// replaces; they become pending, to be deleted afterwards.
	Retire []string
	// RecordKind, RecordID and Record are the status record put with the
	// commit (nothing when RecordKind is empty).
	RecordKind, RecordID string
	Record               any
}

// DocumentCommitter is a store that commits a staged document atomically:
// readers see the old version or the new one, never a mix, whatever the
// process does next. Its List, Count and DeleteWhere honour
// Filter.Pending. Stores without it are committed memory by memory, and a
// crash in between is repaired by the pipeline's recovery.
type DocumentCommitter interface {
	// CommitDocument applies dc in one transaction and returns the ids it
	// made visible.
	CommitDocument(ctx context.Context, dc DocumentCommit) ([]string, error)
}
