// Package memory is the domain of the long-term memory service: the Memory
// type and its validation, tenant scoping, deduplication, hybrid search with
// reciprocal rank fusion, and the context builder. It defines the ports it
// needs (Store, Index, Embedder) and imports no cloud SDK, HTTP or search
// client: adapters live in packages named after what they adapt.
package memory

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Type is what a memory is.
type Type string

// The memory types.
const (
	TypeMessage     Type = "message"     // a conversation turn
	TypeDocument    Type = "document"    // an ingested document (the parent of fragments)
	TypeFragment    Type = "fragment"    // a chunk of a document
	TypeFact        Type = "fact"        // a fact extracted from conversations
	TypeDescription Type = "description" // a description of an entity
	TypeCustom      Type = "custom"      // anything else the caller stores
)

// Types lists every valid Type.
var Types = []Type{TypeMessage, TypeDocument, TypeFragment, TypeFact, TypeDescription, TypeCustom}

// Kind refines facts.
type Kind string

// The fact kinds.
const (
	KindFact        Kind = "fact"
	KindPreference  Kind = "preference"
	KindInteraction Kind = "interaction"
	KindSummary     Kind = "summary"
	KindUserRequest Kind = "user_request"
	KindEntity      Kind = "entity"
	KindInterest    Kind = "interest"
)

// Kinds lists every valid Kind.
var Kinds = []Kind{KindFact, KindPreference, KindInteraction, KindSummary, KindUserRequest, KindEntity, KindInterest}

// Durability is how long a memory is expected to matter; consolidation decays
// importance per tier.
type Durability string

// The durability tiers.
const (
	DurabilityCore      Durability = "core"      // never decays
	DurabilityStandard  Durability = "standard"  // the default
	DurabilityEphemeral Durability = "ephemeral" // decays fast
)

// Durabilities lists every valid Durability.
var Durabilities = []Durability{DurabilityCore, DurabilityStandard, DurabilityEphemeral}

// Attachment is a file or link attached to a message.
type Attachment struct {
	ID          string `json:"id,omitempty"`
	URL         string `json:"url,omitempty"`
	Title       string `json:"title,omitempty"`
	Source      string `json:"source,omitempty"`
	Description string `json:"description,omitempty"`
	Text        string `json:"text,omitempty"`
	ContentType string `json:"contentType,omitempty"`
}

// Content is what a memory says.
type Content struct {
	Text        string       `json:"text"`
	Source      string       `json:"source,omitempty"`
	URL         string       `json:"url,omitempty"`
	Action      string       `json:"action,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
}

// SearchText is the text that is indexed and embedded: the main text followed
// by the attachments' titles, descriptions and text.
func (c Content) SearchText() string {
	if len(c.Attachments) == 0 {
		return c.Text
	}
	var b strings.Builder
	b.WriteString(c.Text)
	for _, a := range c.Attachments {
		for _, s := range []string{a.Title, a.Description, a.Text} {
			if s != "" {
				b.WriteString("\n")
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// SearchText is the text of m that is indexed and embedded: for a message,
// the speaker (EntityID) then the content, "speaker: text", because who said
// a turn is part of what it means ("When did Ana move?" is answered by Ana's
// own "I moved in May", which never names her); for the rest, the content.
// A message with Context reads as the exchange, led by its own speaker.
func (m *Memory) SearchText() string {
	s := m.Content.SearchText()
	if m.Type == TypeMessage && m.EntityID != "" {
		s = m.EntityID + ": " + s
	}
	if m.Context != "" {
		// The exchange as a transcript, led by the memory's own speaker:
		// "Bo: Ana: How long have you been married?\nBo: 5 years already!".
		lead := ""
		if m.EntityID != "" {
			lead = m.EntityID + ": "
		}
		s = lead + m.Context + "\n" + s
	}
	return s
}

// KeywordText is the text of m that the keyword (BM25) index holds: the
// SearchText, and for a message the day it was said ("8 May 2023", UTC),
// so that a question naming a month or a date finds the turns of that day.
// The day is left out of the embedded text, where it would only blur what
// the turn means.
func (m *Memory) KeywordText() string {
	if m.Type == TypeMessage && m.CreatedAt > 0 {
		return m.SearchText() + "\n(" + time.UnixMilli(m.CreatedAt).UTC().Format("2 January 2006") + ")"
	}
	return m.SearchText()
}

// Memory is one stored memory. OrgID is the tenant; AgentID empty means the
// memory belongs to the whole org, otherwise to that agent only.
type Memory struct {
	ID      string `json:"id"`
	OrgID   string `json:"orgId"`
	AgentID string `json:"agentId,omitempty"`
	Type    Type   `json:"type"`
	Kind    Kind   `json:"kind,omitempty"`
	// ExternalID is the client's own key for the memory, unique per scope
	// (see DedupKey): a message's id in the client's system, or a framework
	// store's key.
	ExternalID string  `json:"externalId,omitempty"`
	Content    Content `json:"content"`
	EntityID   string  `json:"entityId,omitempty"`
	RoomID     string  `json:"roomId,omitempty"`
	WorldID    string  `json:"worldId,omitempty"`
	// UserID is the end user the memory belongs to (an entity id), set on
	// what an end user says and on what is learnt from it.
	UserID string `json:"userId,omitempty"`
	// Visibility is who in the org may read the memory (see Visibility);
	// empty on memories stored before it existed, which read as shared
	// or agent by AgentID.
	Visibility Visibility      `json:"visibility,omitempty"`
	SessionID  string          `json:"sessionId,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	// Context is what the memory is read with but did not say itself: for
	// a message, the turn before it in its conversation ("speaker: text",
	// at most MaxContextRunes), so that "5 years already!" is found by a
	// question about how long someone has been married. The service sets
	// it at creation; it is searched and embedded with the memory, never
	// counted as its content.
	Context     string     `json:"context,omitempty"`
	Importance  float64    `json:"importance"`
	Durability  Durability `json:"durability"`
	Confidence  float64    `json:"confidence"`
	DocumentID  string     `json:"documentId,omitempty"`
	Position    *int       `json:"position,omitempty"`
	ContentHash string     `json:"contentHash"`
	// CreatedAt is the event time (ms): when the memory happened or was
	// said, which an import may set in the past. IngestedAt is when this
	// service learned it; decay starts from the later of the two.
	CreatedAt      int64 `json:"createdAt"`
	IngestedAt     int64 `json:"ingestedAt,omitempty"`
	UpdatedAt      int64 `json:"updatedAt"`
	LastAccessedAt int64 `json:"lastAccessedAt,omitempty"`
	AccessCount    int64 `json:"accessCount"`
	Archived       bool  `json:"archived"`
	// Pending marks a memory staged by a pipeline and not yet committed:
	// the fragments of a document being ingested. A pending memory is
	// invisible (Filter.Pending selects it instead of the visible ones)
	// until its document commits, so a document appears all at once or
	// not at all.
	Pending bool `json:"pending,omitempty"`
	// Version increases by one on every update; it is the optimistic
	// concurrency token (the ETag of the HTTP API).
	Version int64 `json:"version"`

	// Embedding is the vector of Content.SearchText by EmbeddingModel. It is
	// kept in the store (the source of truth) so the index can be rebuilt
	// without re-embedding, and never shown to callers.
	Embedding      []float32 `json:"-"`
	EmbeddingModel string    `json:"-"`

	// Change is the write that makes this version, for the store's
	// history (see HistoryStore); never stored in the memory itself.
	Change *Change `json:"-"`
}

// Attrs are the filterable attributes of a memory, the part an index needs
// to apply a Filter.
type Attrs struct {
	OrgID, AgentID                          string
	Type                                    Type
	Kind                                    Kind
	RoomID, EntityID, SessionID, DocumentID string
	WorldID                                 string `json:",omitempty"`
	// Audience is the memory's audience key (Memory.Audience); "" for
	// shared and agent memories.
	Audience   string `json:",omitempty"`
	Durability Durability
	CreatedAt  int64
	Archived   bool
	Pending    bool `json:",omitempty"`
	// Meta are the memory's filterable metadata pairs (MetadataPairs).
	Meta []string `json:",omitempty"`
}

// Attrs returns m's filterable attributes.
func (m *Memory) Attrs() Attrs {
	return Attrs{
		OrgID: m.OrgID, AgentID: m.AgentID, Type: m.Type, Kind: m.Kind,
		RoomID: m.RoomID, EntityID: m.EntityID, SessionID: m.SessionID, DocumentID: m.DocumentID,
		WorldID: m.WorldID, Audience: m.Audience(),
		Durability: m.Durability, CreatedAt: m.CreatedAt, Archived: m.Archived, Pending: m.Pending,
		Meta: MetadataPairs(m.Metadata),
	}
}

// Limits bound what one request may carry. They are explicit so callers can
// rely on them; the HTTP layer adds the body size limit.
const (
	MaxBatch         = 100       // memories per create request
	MaxTextBytes     = 32 * 1024 // bytes of content.text
	MaxMetadataBytes = 16 * 1024 // bytes of the metadata JSON object
	MaxIDLen         = 128       // characters of any id (room, entity, ...)
	MaxAttachments   = 20        // attachments per memory
	MaxQueryBytes    = 4 * 1024  // bytes of a search query
	MaxK             = 100       // results per search
	MaxListLimit     = 1000      // memories per list page
	MaxBudgetTokens  = 100_000   // tokens per context request
	maxFieldBytes    = 8 * 1024  // bytes of any other content string
)

// ValidID checks an id field: at most MaxIDLen characters, valid UTF-8, no
// control characters. Empty is valid (absent).
func ValidID(field, v string) error {
	if v == "" {
		return nil
	}
	if len(v) > MaxIDLen {
		return Errorf(EINVALID, "%s: longer than %d characters", field, MaxIDLen)
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return Errorf(EINVALID, "%s: contains a control character", field)
		}
	}
	if !utf8.ValidString(v) {
		return Errorf(EINVALID, "%s: not valid UTF-8", field)
	}
	return nil
}

// ValidType checks t against Types.
func ValidType(t Type) error {
	for _, v := range Types {
		if t == v {
			return nil
		}
	}
	return Errorf(EINVALID, "type: %q is not one of %s", t, joinEnum(Types))
}

// ValidKind checks k against Kinds.
func ValidKind(k Kind) error {
	for _, v := range Kinds {
		if k == v {
			return nil
		}
	}
	return Errorf(EINVALID, "kind: %q is not one of %s", k, joinEnum(Kinds))
}

// ValidDurability checks d against Durabilities.
func ValidDurability(d Durability) error {
	for _, v := range Durabilities {
		if d == v {
			return nil
		}
	}
	return Errorf(EINVALID, "durability: %q is not one of %s", d, joinEnum(Durabilities))
}

func joinEnum[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// ValidUnit checks that a score field lies in 0..1.
func ValidUnit(field string, v float64) error {
	if v < 0 || v > 1 || v != v {
		return Errorf(EINVALID, "%s: %v is outside 0..1", field, v)
	}
	return nil
}

func validContent(c Content) error {
	if Blank(c.Text) {
		return Errorf(EINVALID, "content.text: required and must not be blank (white space, NUL, zero-width and other control or format characters alone count as blank)")
	}
	if len(c.Text) > MaxTextBytes {
		return Errorf(EINVALID, "content.text: %d bytes exceeds the limit of %d", len(c.Text), MaxTextBytes)
	}
	if !utf8.ValidString(c.Text) {
		return Errorf(EINVALID, "content.text: not valid UTF-8")
	}
	for name, v := range map[string]string{"content.source": c.Source, "content.url": c.URL, "content.action": c.Action} {
		if len(v) > maxFieldBytes {
			return Errorf(EINVALID, "%s: longer than %d bytes", name, maxFieldBytes)
		}
	}
	if len(c.Attachments) > MaxAttachments {
		return Errorf(EINVALID, "content.attachments: %d exceeds the limit of %d", len(c.Attachments), MaxAttachments)
	}
	for i, a := range c.Attachments {
		if len(a.Text)+len(a.Description)+len(a.Title) > MaxTextBytes {
			return Errorf(EINVALID, "content.attachments[%d]: text exceeds %d bytes", i, MaxTextBytes)
		}
	}
	return nil
}

// ValidMetadata checks metadata: absent, null, or a JSON object of at most
// MaxMetadataBytes (EINVALID naming the field "metadata").
func ValidMetadata(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if len(raw) > MaxMetadataBytes {
		return Errorf(EINVALID, "metadata: %d bytes exceeds the limit of %d", len(raw), MaxMetadataBytes)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Errorf(EINVALID, "metadata: must be a JSON object")
	}
	return nil
}

// Validate checks every field of m that a caller can set. It does not check
// ids the service assigns.
func (m *Memory) Validate() error {
	if err := ValidType(m.Type); err != nil {
		return err
	}
	if m.Kind != "" {
		if err := ValidKind(m.Kind); err != nil {
			return err
		}
	}
	if err := ValidDurability(m.Durability); err != nil {
		return err
	}
	if err := validContent(m.Content); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{
		{"agentId", m.AgentID}, {"externalId", m.ExternalID}, {"entityId", m.EntityID}, {"roomId", m.RoomID},
		{"worldId", m.WorldID}, {"userId", m.UserID}, {"sessionId", m.SessionID}, {"documentId", m.DocumentID},
	} {
		if err := ValidID(f.name, f.v); err != nil {
			return err
		}
	}
	if err := ValidMetadata(m.Metadata); err != nil {
		return err
	}
	if err := m.validVisibility(); err != nil {
		return err
	}
	if err := ValidUnit("importance", m.Importance); err != nil {
		return err
	}
	if err := ValidUnit("confidence", m.Confidence); err != nil {
		return err
	}
	if m.Position != nil && *m.Position < 0 {
		return Errorf(EINVALID, "position: must not be negative")
	}
	if m.Position != nil && m.DocumentID == "" {
		return Errorf(EINVALID, "position: only valid with documentId")
	}
	if err := ValidTime("createdAt", m.CreatedAt); err != nil {
		return err
	}
	return nil
}

// MaxTime is the latest time a memory may carry, in Unix milliseconds:
// 9999-12-31T23:59:59.999Z. Times range from 0 (1970-01-01T00:00:00Z) to
// MaxTime; 0 in a request means "now" where a default applies.
const MaxTime int64 = 253402300799999

// ValidTime checks that ms (Unix milliseconds, field names it) is within
// 0 .. MaxTime, the years 1970 to 9999.
func ValidTime(field string, ms int64) error {
	if ms < 0 || ms > MaxTime {
		return Errorf(EINVALID, "%s: %d is outside 0..%d (Unix milliseconds, the years 1970 to 9999)", field, ms, MaxTime)
	}
	return nil
}

// Blank reports whether s holds nothing readable: only white space,
// control characters (NUL among them), format characters (zero-width
// spaces and joiners, the byte order mark, bidirectional marks) and the
// blank fillers (Hangul fillers, the blank Braille pattern).
func Blank(s string) bool {
	for _, r := range s {
		switch {
		case unicode.IsSpace(r), unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r):
		case r == '\u115F', r == '\u1160', r == '\u3164', r == '\uFFA0', r == '\u2800':
		default:
			return false
		}
	}
	return true
}

// String is for logs; it never includes content.
func (m *Memory) String() string {
	return fmt.Sprintf("memory{org=%s agent=%s id=%s type=%s}", m.OrgID, m.AgentID, m.ID, m.Type)
}

// LearnedAt is when the service learned m: the later of its event time and
// its ingestion time (memories stored before IngestedAt existed fall back to
// UpdatedAt). Decay is measured from it, or from the last access if later.
func (m *Memory) LearnedAt() int64 {
	t := m.IngestedAt
	if t == 0 {
		t = m.UpdatedAt
	}
	return max(t, m.CreatedAt)
}
