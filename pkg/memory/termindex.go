package memory

import (
	"context"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// TermIndex is the per-org knowledge index of the Structured RAG layer,
// after KnowPro's ITermToSemanticRefIndex and IPropertyToSemanticRefIndex:
// the semantic refs extracted from each memory, a posting per (term, role)
// of each ref (IndexedTerms) and per property (IndexedProperties), the
// org's vocabulary with counts, and each memory's extraction status.
//
// It is kept in the store, beside the memories: derived data, rebuildable
// from them. Store.Delete does not remove it: whoever deletes memories calls
// DeleteKnowledge next, and PutKnowledge refuses a memory the store no
// longer holds, so a late extraction cannot revive a forgotten memory.
// Every method is scoped to one org, given as orgID or as Filter.OrgID;
// adapters put the org in every key and check it again on every item they
// return.
//
// A posting carries the attributes of its memory (Attrs), so that a query
// applies a Filter (scope, visibility, type, room, session, time, archived)
// without loading memories. Filter.Match is the reference semantics.
//
// Extraction status: MarkKnowledgePending makes a memory pending;
// PutKnowledge, all or nothing, makes it done. An extraction that fails
// leaves the memory pending, so PendingKnowledge lists it again and nothing
// is ever half-indexed. A memory that was never marked has no status:
// KnowledgeStatus tells a rebuild which memories to extract.
//
// Error codes, as the methods state: EINVALID for bad arguments (the
// message names the field), ENOTFOUND when the memory a write is about is
// not in the store, ECONFLICT when concurrent writers of one memory keep
// colliding, EUNAVAILABLE when the backing store is down or throttling, and
// EINTERNAL for anything else, a query without an org included.
//
// Metadata is not kept: postings carry Attrs without Meta, and lookups do
// not apply Filter.Metadata. Callers check the memories they load against
// the whole filter (Filter.Match), as the retrieval pipeline does.
//
// It is three faces, each its own interface so that a consumer takes the
// narrowest it needs: TermWriter (the knowledge of memories, written and
// removed), TermStatus (their extraction status) and TermReader (lookups,
// refs, completion, listings, the vocabulary).
type TermIndex interface {
	TermWriter
	TermStatus
	TermReader
}

// TermWriter writes and removes the knowledge of memories in a TermIndex
// (see TermIndex for the org scoping and the error codes).
type TermWriter interface {
	// PutKnowledge atomically replaces the knowledge of one memory: its
	// refs, their term and property postings and its vocabulary counts, all
	// or nothing; readers see the old refs or the new ones, never a mix.
	// attrs (OrgID empty or orgID) is copied onto every posting. Empty refs
	// record "extracted, nothing found". The status becomes KnowledgeDone
	// with extractor (the KnowledgeExtractor's Name).
	//
	// refs must be numbered in order (refs[i].Ordinal == i, as
	// Knowledge.Refs does), with MemoryID empty or memoryID. Refs beyond
	// MaxRefsPerMemory are dropped. Terms and properties that are not
	// IndexableTerm (too long, control characters) are not indexed; their
	// refs are kept.
	//
	// Errors: EINVALID (memoryId, attrs.orgId, extractor, refs[i]...);
	// ENOTFOUND when the memory is not in the store; ECONFLICT when
	// concurrent writers of the same memory keep colliding; EUNAVAILABLE.
	PutKnowledge(ctx context.Context, orgID, memoryID string, attrs Attrs, extractor string, refs []SemanticRef) error
	// DeleteKnowledge removes every ref, posting, count and status of the
	// memories; absent ids are ignored. After an error, calling it again
	// finishes the job. Errors: EINVALID; EUNAVAILABLE.
	DeleteKnowledge(ctx context.Context, orgID string, memoryIDs []string) error
	// SetKnowledgeAttrs replaces the attributes copied onto the postings of
	// one memory (archived, moved to another scope, re-dated) and moves its
	// vocabulary counts accordingly. A memory without knowledge, or gone
	// from the store, is not an error: there is nothing to update. Errors:
	// EINVALID; ECONFLICT; EUNAVAILABLE.
	SetKnowledgeAttrs(ctx context.Context, orgID, memoryID string, attrs Attrs) error
}

// TermStatus keeps the extraction status of memories in a TermIndex:
// pending until PutKnowledge, done with the extractor's name and the
// number of refs indexed after (see TermIndex for the org scoping and the
// error codes).
type TermStatus interface {
	// MarkKnowledgePending records that the memories' knowledge must be
	// (re)extracted. Knowledge already indexed is served until PutKnowledge
	// replaces it. Ids of memories not in the store are ignored. Errors:
	// EINVALID; EUNAVAILABLE.
	MarkKnowledgePending(ctx context.Context, orgID string, memoryIDs []string) error
	// PendingKnowledge returns up to limit pending memories in id order,
	// after the id after ("" from the start), so that a worker can page past
	// memories that keep failing. limit 0 means DefaultKnowledgePage.
	// DynamoDB reads it from an index, eventually consistent. Errors:
	// EINVALID (limit); EUNAVAILABLE.
	PendingKnowledge(ctx context.Context, orgID, after string, limit int) ([]KnowledgeStatus, error)
	// KnowledgeStatus returns the status of the memories that have one;
	// a memory absent from the map was never marked nor extracted. Errors:
	// EINVALID; EUNAVAILABLE.
	KnowledgeStatus(ctx context.Context, orgID string, memoryIDs []string) (map[string]KnowledgeStatus, error)
}

// TermReader reads a TermIndex: postings by term and by property, refs by
// key, completion and listings over what a filter can see, and the org's
// vocabulary (see TermIndex for the org scoping and the error codes).
type TermReader interface {
	// LookupTerms returns, for each of q.Terms, the postings of the refs
	// indexed under it whose memory q.Filter selects, at most q.Limit per
	// term: term by term in the order of q.Terms, then newest first
	// (Attrs.CreatedAt, Ref.MemoryID, Ref.Ordinal, Role, all descending).
	// Errors: EINVALID (terms, roles, limit, filter); EUNAVAILABLE.
	LookupTerms(ctx context.Context, q TermLookup) ([]TermPosting, error)
	// LookupProperty returns the postings of the refs with the property
	// (q.Name, q.Value), or with a property of q.Name that compares with q.Op
	// to the operand (as ValueTypeOf types and orders values; the adapters read
	// typed postings, see package termkit), whose memory q.Filter selects, at
	// most q.Limit, newest first (Attrs.CreatedAt, Ref.MemoryID, Ref.Ordinal
	// descending), with their properties untyped (the property of the facet,
	// not its typed posting). Errors: EINVALID (name, op, value, values, limit,
	// filter); EUNAVAILABLE.
	LookupProperty(ctx context.Context, q PropertyLookup) ([]PropertyPosting, error)
	// Refs loads refs by key; keys absent from the org are absent from the
	// map. It does not check visibility: callers load the keys of postings
	// that a filtered lookup returned. Errors: EINVALID (more than
	// MaxRefKeys keys); EUNAVAILABLE.
	Refs(ctx context.Context, orgID string, keys []RefKey) (map[RefKey]SemanticRef, error)
	// Terms completes prefix over the vocabulary f can see: up to limit terms
	// that start with prefix (bytewise; the caller normalizes it), each with
	// the number of refs indexed under it among the memories f selects, most
	// first (SortTermCounts). It runs on every keystroke, so a filter of org,
	// viewer, agent and IncludeArchived only (see termkit.VocabularyScopes) is
	// answered from counters kept per scope; a filter that narrows further
	// counts postings, which costs more. In DynamoDB the ranking is exact over
	// the first 20,000 terms of the prefix in byte order, and a narrower filter
	// counts the 200 terms of the prefix most frequent in the caller's scope.
	// limit 0 means DefaultTermCompletion. Errors: EINVALID (prefix, limit,
	// filter); EUNAVAILABLE.
	Terms(ctx context.Context, f Filter, prefix string, limit int) ([]TermCount, error)
	// ListKnowledge pages through the knowledge q.Filter can see, one item per
	// normalized name of one kind (entity names, action verbs, topics, tags),
	// in bytewise name order, with counts and, for entities, merged types and
	// facets (as termkit.KnowledgeBuilder merges them). Errors: EINVALID (kind,
	// prefix, cursor, limit, filter); EUNAVAILABLE.
	ListKnowledge(ctx context.Context, q KnowledgeListQuery) (KnowledgePage, error)
	// Vocabulary pages through every distinct term of the org, whatever
	// its scope or archived state, in byte order after the term after (""
	// from the start), and returns the term to continue from ("" at the
	// end). It is for org-wide jobs, such as computing related terms once
	// per term, not for callers bound to an agent. limit 0 means
	// DefaultVocabularyPage. Errors: EINVALID (limit); EUNAVAILABLE.
	Vocabulary(ctx context.Context, orgID, after string, limit int) ([]string, string, error)
}

// TermCounter is what a TermReader may add to answer how many refs each of
// a few exact terms has, from the vocabulary counters it keeps for
// completion, without reading postings: the knowledge list's document
// frequencies. ok is false when counters cannot answer f (see
// termkit.VocabularyScopes); the caller then counts postings. A term
// absent from the vocabulary counts 0. Errors: EINVALID (filter, more than
// MaxQueryTerms terms); EUNAVAILABLE.
type TermCounter interface {
	TermCounts(ctx context.Context, f Filter, terms []string) (counts map[string]int, ok bool, err error)
}

// RefNamer is what a TermReader may add to load the names of refs
// (KnowledgeName) without their bodies: the related terms of a type word
// are the names of the entities it types, and decoding up to a few hundred
// refs for them cost most of a new query word's expansion. Keys absent
// from the org, and refs without an indexable name, are absent from the
// map. Errors: EINVALID (more than MaxRefKeys keys); EUNAVAILABLE.
type RefNamer interface {
	RefNames(ctx context.Context, orgID string, keys []RefKey) (map[RefKey]string, error)
}

// KnowledgePut is one memory's knowledge for KnowledgeBatcher.
type KnowledgePut struct {
	MemoryID string
	Attrs    Attrs
	Refs     []SemanticRef
}

// KnowledgeBatcher is what a TermWriter may add to write the knowledge of
// many memories at once, as a batch of messages is ingested: each put is
// PutKnowledge's (all or nothing per memory, with its validation and
// errors), except that a memory the store no longer holds is skipped, not
// an error. It returns the ids written, in the order of puts; when a
// memory appears twice the last put wins. After an error some memories
// may be written (written says which) and the others untouched.
type KnowledgeBatcher interface {
	PutKnowledgeMany(ctx context.Context, orgID, extractor string, puts []KnowledgePut) (written []string, err error)
}

// Limits and defaults of the TermIndex.
const (
	DefaultTermPostings   = 1000   // postings per term when TermLookup.Limit is 0
	MaxTermPostings       = 10_000 // postings per term of one lookup
	MaxRefKeys            = 1000   // keys per Refs call
	DefaultKnowledgePage  = 100    // items per PendingKnowledge or ListKnowledge page when the limit is 0
	MaxKnowledgePage      = 1000   // items per PendingKnowledge or ListKnowledge page
	DefaultTermCompletion = 10     // terms per Terms call when the limit is 0
	DefaultVocabularyPage = 1000   // terms per Vocabulary page when the limit is 0
	MaxVocabularyPage     = 10_000 // terms per Vocabulary page
	MaxListFacets         = 50     // merged types, and merged facets, per ListKnowledge item
	MaxListMerge          = 100    // newest refs per ListKnowledge item whose types and facets are merged
	MaxExtractorBytes     = 256    // bytes of an extractor's name
)

// KnowledgeState is where a memory's knowledge extraction stands.
type KnowledgeState string

// The knowledge states.
const (
	// KnowledgePending: to be (re)extracted; any earlier knowledge is still
	// served until PutKnowledge replaces it.
	KnowledgePending KnowledgeState = "pending"
	// KnowledgeDone: PutKnowledge stored the extractor's refs, perhaps none.
	KnowledgeDone KnowledgeState = "done"
)

// KnowledgeStatus is the extraction status of one memory.
type KnowledgeStatus struct {
	MemoryID  string         `json:"memoryId"`
	State     KnowledgeState `json:"state"`
	Extractor string         `json:"extractor,omitempty"` // of the refs indexed, if any
	Refs      int            `json:"refs"`                // refs indexed
	UpdatedAt int64          `json:"updatedAt"`           // ms, the store's clock
}

// TermLookup asks for the postings of terms.
type TermLookup struct {
	// Filter selects the memories (OrgID required).
	Filter Filter
	// Terms are normalized terms (NormalizeTerm), matched exactly; at most
	// MaxQueryTerms, duplicates ignored.
	Terms []string
	// Roles, when set, keeps the postings of those roles only (RoleName...).
	Roles []string
	// Limit is the most postings per term; 0 means DefaultTermPostings.
	Limit int
	// KeysOnly asks for each posting's Term, Role and Ref only: an adapter
	// may leave Kind and Attrs empty (the filter still applies). The
	// knowledge list ranks memories by the terms they match and needs no
	// more; in SQLite, reading a posting's 11 attribute columns cost three
	// times the lookup itself.
	KeysOnly bool
}

// TermPosting is one (term, role) under which a ref is indexed, with the
// attributes of its memory.
type TermPosting struct {
	Term  string        `json:"term"`
	Role  string        `json:"role"`
	Ref   RefKey        `json:"ref"`
	Kind  KnowledgeKind `json:"kind"`
	Attrs Attrs         `json:"-"`
}

// PropertyLookup asks for the refs with one property, or whose property
// of a name compares with an operand (Op; see compare.go).
type PropertyLookup struct {
	Filter Filter
	Name   string // normalized facet name, required
	// Op is the comparison; OpExact (the zero value) asks for the value
	// Value exactly, as a normalized string.
	Op CompareOp
	// Value is the normalized operand, required unless Op is OpIn.
	Value string
	// Values are the normalized operands of OpIn (1 to MaxInValues), and
	// only of it.
	Values []string
	Limit  int // 0 means DefaultTermPostings
}

// PropertyPosting is one property of a ref, with the attributes of its
// memory.
type PropertyPosting struct {
	Property Property      `json:"property"`
	Ref      RefKey        `json:"ref"`
	Kind     KnowledgeKind `json:"kind"`
	Attrs    Attrs         `json:"-"`
}

// KnowledgeListQuery is a page request of ListKnowledge.
type KnowledgeListQuery struct {
	Filter Filter
	Kind   KnowledgeKind
	// Prefix keeps the names that start with it (bytewise, normalized).
	Prefix string
	// Cursor is the Next of the previous page ("" for the first).
	Cursor string
	// Limit is the most items per page; 0 means DefaultKnowledgePage.
	Limit int
}

// KnowledgePage is one page of ListKnowledge.
type KnowledgePage struct {
	Items []KnowledgeItem `json:"items"`
	Next  string          `json:"next,omitempty"` // "" on the last page
}

// KnowledgeItem is everything the filter can see under one name of one
// kind: how many refs and memories mention it, when, and for entities the
// union of their types and facets.
type KnowledgeItem struct {
	Kind KnowledgeKind `json:"kind"`
	// Name is the normalized name (KnowledgeName).
	Name string `json:"name"`
	// Types are an entity's types, normalized, sorted, at most
	// MaxListFacets, merged from its newest MaxListMerge refs.
	Types []string `json:"types,omitempty"`
	// Facets are an entity's distinct facets (IndexedProperties), sorted,
	// at most MaxListFacets, merged from its newest MaxListMerge refs.
	Facets   []Property `json:"facets,omitempty"`
	Refs     int        `json:"refs"`
	Memories int        `json:"memories"`
	// FirstAt and LastAt are the oldest and newest CreatedAt (ms) of those
	// memories.
	FirstAt int64 `json:"firstAt"`
	LastAt  int64 `json:"lastAt"`
}

// IndexableTerm reports whether a normalized term, property name or value
// is kept in a TermIndex: not empty, at most MaxTermBytes, valid UTF-8, and
// free of control characters (which no reasonable term holds, and which
// adapters use as key separators). Terms already excludes the long ones.
func IndexableTerm(s string) bool {
	if s == "" || len(s) > MaxTermBytes || !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// IndexedTerms returns the terms a TermIndex indexes r under: r.Terms()
// that are IndexableTerm.
func IndexedTerms(r SemanticRef) []RefTerm {
	ts := r.Terms()
	out := ts[:0:0]
	for _, t := range ts {
		if IndexableTerm(t.Term) {
			out = append(out, t)
		}
	}
	return out
}

// IndexedProperties returns the properties a TermIndex indexes r under:
// r.Properties() whose name and value are IndexableTerm.
func IndexedProperties(r SemanticRef) []Property {
	var out []Property
	for _, p := range r.Properties() {
		if IndexableTerm(p.Name) && IndexableTerm(p.Value) {
			out = append(out, p)
		}
	}
	return out
}

// DistinctTerms returns the distinct terms of IndexedTerms(r), whatever
// their role, but a topic sentence's (SentenceTermPrefix): the terms r
// counts once for in the vocabulary.
func DistinctTerms(r SemanticRef) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range IndexedTerms(r) {
		if strings.HasPrefix(t.Term, SentenceTermPrefix) {
			continue // a topic sentence's words are not vocabulary
		}
		if !seen[t.Term] {
			seen[t.Term] = true
			out = append(out, t.Term)
		}
	}
	return out
}

// KnowledgeName is the normalized name r is listed under by ListKnowledge: an
// entity's name, an action's verbs, a topic or a tag; "" (not listed) when
// it is not IndexableTerm. A topic sentence is listed under itself.
func KnowledgeName(r SemanticRef) string {
	var s string
	switch r.Kind {
	case KnowledgeEntity:
		if r.Entity != nil {
			s = r.Entity.Name
		}
	case KnowledgeAction:
		if r.Action != nil {
			s = strings.Join(r.Action.Verbs, " ")
		}
	case KnowledgeTopic, KnowledgeTag, KnowledgeSentence:
		s = r.Topic
	}
	s = NormalizeTerm(s)
	if !IndexableTerm(s) {
		return ""
	}
	return s
}

// validRoles lists the term roles.
var validRoles = map[string]bool{
	RoleName: true, RoleType: true, RoleFacetName: true, RoleValue: true, RoleVerb: true,
	RoleSubject: true, RoleObject: true, RoleTopic: true, RoleTag: true, RoleParam: true,
}

// Normalize validates q and returns it with defaults applied and the terms
// made distinct.
func (q TermLookup) Normalize() (TermLookup, error) {
	if err := q.Filter.Validate(); err != nil {
		return q, err
	}
	if len(q.Terms) == 0 {
		return q, Errorf(EINVALID, "terms: at least one term is required")
	}
	if len(q.Terms) > MaxQueryTerms {
		return q, Errorf(EINVALID, "terms: %d exceeds the limit of %d", len(q.Terms), MaxQueryTerms)
	}
	seen := map[string]bool{}
	var terms []string
	for i, t := range q.Terms {
		if err := validNormalized(t); err != nil {
			return q, Errorf(EINVALID, "terms[%d]: %s", i, err.Message)
		}
		if !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	q.Terms = terms
	for i, r := range q.Roles {
		if !validRoles[r] {
			return q, Errorf(EINVALID, "roles[%d]: %q is not a term role", i, r)
		}
	}
	var err error
	q.Limit, err = limit("limit", q.Limit, DefaultTermPostings, MaxTermPostings)
	return q, err
}

// Normalize validates q and applies its defaults.
func (q PropertyLookup) Normalize() (PropertyLookup, error) {
	if err := q.Filter.Validate(); err != nil {
		return q, err
	}
	if err := validNormalized(q.Name); err != nil {
		return q, Errorf(EINVALID, "name: %s", err.Message)
	}
	if err := ValidCompareOp(q.Op); err != nil {
		return q, err
	}
	if q.Op == OpIn {
		if q.Value != "" {
			return q, Errorf(EINVALID, "value: not with op in (values holds the operands)")
		}
		if len(q.Values) == 0 || len(q.Values) > MaxInValues {
			return q, Errorf(EINVALID, "values: op in takes 1 to %d values", MaxInValues)
		}
		for i, v := range q.Values {
			if err := validNormalized(v); err != nil {
				return q, Errorf(EINVALID, "values[%d]: %s", i, err.Message)
			}
		}
	} else {
		if len(q.Values) > 0 {
			return q, Errorf(EINVALID, "values: only with op in")
		}
		if err := validNormalized(q.Value); err != nil {
			return q, Errorf(EINVALID, "value: %s", err.Message)
		}
	}
	var err error
	q.Limit, err = limit("limit", q.Limit, DefaultTermPostings, MaxTermPostings)
	return q, err
}

// Normalize validates q and applies its defaults.
func (q KnowledgeListQuery) Normalize() (KnowledgeListQuery, error) {
	if err := q.Filter.Validate(); err != nil {
		return q, err
	}
	if err := ValidKnowledgeKind(q.Kind); err != nil {
		return q, err
	}
	if err := ValidPrefix(q.Prefix); err != nil {
		return q, err
	}
	if _, err := DecodeKnowledgeCursor(q.Cursor); err != nil {
		return q, err
	}
	var err error
	q.Limit, err = limit("limit", q.Limit, DefaultKnowledgePage, MaxKnowledgePage)
	return q, err
}

// ValidPrefix checks a prefix of Terms or ListKnowledge: valid UTF-8, at most
// MaxTermBytes, no control characters; empty is valid.
func ValidPrefix(prefix string) error {
	if prefix != "" && !IndexableTerm(prefix) {
		return Errorf(EINVALID, "prefix: must be valid UTF-8 of at most %d bytes without control characters", MaxTermBytes)
	}
	return nil
}

// TermsLimit validates the limit of TermIndex.Terms and applies its default.
func TermsLimit(n int) (int, error) {
	return limit("limit", n, DefaultTermCompletion, MaxTermPrefixResult)
}

// PageLimit validates the limit of PendingKnowledge and applies its default.
func PageLimit(n int) (int, error) { return limit("limit", n, DefaultKnowledgePage, MaxKnowledgePage) }

// VocabularyLimit validates the limit of Vocabulary and applies its default.
func VocabularyLimit(n int) (int, error) {
	return limit("limit", n, DefaultVocabularyPage, MaxVocabularyPage)
}

func limit(field string, n, def, max int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > max:
		return 0, Errorf(EINVALID, "%s: %d is outside 1..%d", field, n, max)
	}
	return n, nil
}

func validNormalized(t string) *Error {
	if !IndexableTerm(t) {
		return Errorf(EINVALID, "must be a term of 1 to %d bytes of valid UTF-8 without control characters", MaxTermBytes)
	}
	if NormalizeTerm(t) != t {
		return Errorf(EINVALID, "%q is not normalized (NormalizeTerm)", t)
	}
	return nil
}

// EncodeKnowledgeCursor returns the opaque cursor that continues a
// ListKnowledge after the name last.
func EncodeKnowledgeCursor(last string) string {
	if last == "" {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(last))
}

// DecodeKnowledgeCursor returns the name a ListKnowledge cursor continues
// after; "" for no cursor.
func DecodeKnowledgeCursor(c string) (string, error) {
	if c == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !IndexableTerm(string(b)) {
		return "", Errorf(EINVALID, "cursor: not a cursor returned by this API")
	}
	return string(b), nil
}
