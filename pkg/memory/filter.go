package memory

import (
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"
)

// Filter selects memories within one org. Stores and indexes must apply every
// field; OrgID is always set by the service from the Caller.
type Filter struct {
	OrgID string
	// Viewer is the agent an agent-bound caller is bound to: only org-scope
	// memories and that agent's are visible. Empty for org-level callers.
	Viewer string
	// Audiences, when not nil, is the reader's audience set (see Acting):
	// memories with an audience (room, world, user visibility) outside it
	// are invisible. Nil is the admin view. Set by Caller.Bind only.
	Audiences []string
	// AgentID narrows to one agent's scope, or to the org scope with OrgScope.
	AgentID    string
	Types      []Type
	Kinds      []Kind
	Durability Durability
	RoomID     string
	WorldID    string
	EntityID   string
	SessionID  string
	DocumentID string
	// Start and End bound CreatedAt (ms) as [Start, End); zero is open.
	Start, End int64
	// Metadata selects by metadata values: every key must hold one of its
	// values (see MetadataFilter).
	Metadata MetadataFilter
	// IncludeArchived also selects archived memories.
	IncludeArchived bool
	// Pending selects the staged memories of uncommitted documents
	// instead of the visible ones (see Memory.Pending). Only pipelines and
	// their recovery set it; callers' filters never do.
	Pending bool
}

// Validate checks enum values, ids and the time range.
func (f Filter) Validate() error {
	if f.OrgID == "" {
		return Errorf(EINTERNAL, "filter without org")
	}
	for _, t := range f.Types {
		if err := ValidType(t); err != nil {
			return err
		}
	}
	for _, k := range f.Kinds {
		if err := ValidKind(k); err != nil {
			return err
		}
	}
	if f.Durability != "" {
		if err := ValidDurability(f.Durability); err != nil {
			return err
		}
	}
	for _, p := range []struct{ name, v string }{
		{"agentId", f.AgentID}, {"roomId", f.RoomID}, {"worldId", f.WorldID}, {"entityId", f.EntityID},
		{"sessionId", f.SessionID}, {"documentId", f.DocumentID},
	} {
		if err := ValidID(p.name, p.v); err != nil {
			return err
		}
	}
	if f.Start < 0 || f.End < 0 {
		return Errorf(EINVALID, "start/end: must not be negative")
	}
	if f.End != 0 && f.End <= f.Start {
		return Errorf(EINVALID, "end: must be after start")
	}
	return f.Metadata.Validate()
}

// Narrowed reports whether any field beyond the org and the caller's view
// narrows the selection; bulk deletes require it.
func (f Filter) Narrowed() bool {
	return f.AgentID != "" || len(f.Types) > 0 || len(f.Kinds) > 0 || f.Durability != "" ||
		f.RoomID != "" || f.WorldID != "" || f.EntityID != "" || f.SessionID != "" || f.DocumentID != "" ||
		f.Start != 0 || f.End != 0 || len(f.Metadata) > 0
}

// SeesAudience reports whether f's audience clause passes a memory whose
// audience key (Memory.Audience) is audience: one without an audience
// always does; one with an audience does in the admin view (Audiences nil)
// or when its audience is in Audiences. Adapters that cannot push the
// clause down whole check their rows with it.
func (f Filter) SeesAudience(audience string) bool {
	return audienceVisible(f.Audiences, f.Audiences != nil, audience)
}

// Match reports whether a memory with attributes a is selected by f. It is
// the reference semantics that every Store and Index implements.
func (f Filter) Match(a Attrs) bool {
	if a.OrgID != f.OrgID || f.OrgID == "" || a.Pending != f.Pending {
		return false
	}
	if f.Viewer != "" && a.AgentID != "" && a.AgentID != f.Viewer {
		return false
	}
	if !f.SeesAudience(a.Audience) {
		return false
	}
	switch f.AgentID {
	case "":
	case OrgScope:
		if a.AgentID != "" {
			return false
		}
	default:
		if a.AgentID != f.AgentID {
			return false
		}
	}
	if len(f.Types) > 0 && !contains(f.Types, a.Type) {
		return false
	}
	if len(f.Kinds) > 0 && !contains(f.Kinds, a.Kind) {
		return false
	}
	if f.Durability != "" && a.Durability != f.Durability {
		return false
	}
	if (f.RoomID != "" && a.RoomID != f.RoomID) || (f.WorldID != "" && a.WorldID != f.WorldID) || (f.EntityID != "" && a.EntityID != f.EntityID) ||
		(f.SessionID != "" && a.SessionID != f.SessionID) || (f.DocumentID != "" && a.DocumentID != f.DocumentID) {
		return false
	}
	if (f.Start != 0 && a.CreatedAt < f.Start) || (f.End != 0 && a.CreatedAt >= f.End) {
		return false
	}
	if len(f.Metadata) > 0 && !f.Metadata.Match(a.Meta) {
		return false
	}
	return f.IncludeArchived || !a.Archived
}

func contains[T comparable](vs []T, v T) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// ListQuery is a page request: memories matching Filter, newest first
// (CreatedAt then ID descending), after Cursor; with Ascending, oldest
// first (CreatedAt then ID ascending), and the page starts after Cursor in
// that order.
type ListQuery struct {
	Filter    Filter
	Limit     int
	Cursor    *Cursor
	Ascending bool
}

// Page is one page of a list.
type Page struct {
	Memories []*Memory
	Next     *Cursor // nil on the last page
}

// Cursor is the position after the last memory of a page.
type Cursor struct {
	CreatedAt int64  `json:"t"`
	ID        string `json:"i"`
}

// Encode returns the opaque form of c given to callers.
func (c *Cursor) Encode() string {
	if c == nil {
		return ""
	}
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// maxCursorLen bounds an encoded cursor: the JSON of a cursor with the
// longest id, every byte escaped, in base64.
const maxCursorLen = (len(`{"t":-9223372036854775808,"i":""}`) + 6*MaxIDLen + 2) * 4 / 3

// DecodeCursor parses an opaque cursor; "" is no cursor. Anything this API
// cannot have returned is EINVALID naming the cursor: bad base64 or JSON,
// an id that is empty, longer than MaxIDLen or holds control characters or
// invalid UTF-8, a negative time.
func DecodeCursor(s string) (*Cursor, error) {
	if s == "" {
		return nil, nil
	}
	bad := Errorf(EINVALID, "cursor: not a cursor returned by this API")
	if len(s) > maxCursorLen {
		return nil, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c Cursor
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.ID == "" || c.CreatedAt < 0 || ValidID("cursor", c.ID) != nil || !utf8.Valid(b) {
		return nil, bad
	}
	return &c, nil
}
