// Package registry is the use case of an org's entities, worlds and rooms
// (ElizaOS's session model): who is who, which conversations exist and
// who takes part in each. It keeps them as records of a
// memory.RecordStore, one record per item, beside two indexes kept as
// records too, so that the reads the service makes per request are
// bounded: the rooms an entity takes part in (RoomsOf), and the rooms of
// a world.
//
// The scope rules are the memories': the org always comes from the
// caller; an agent-bound caller sees its own agent's items and the
// org-wide ones (AgentID ""), and changes only its own (EFORBIDDEN on an
// org-wide item); another agent's items are ENOTFOUND to it.
//
// A room record is the truth about its participants and its world; the
// indexes are derived from it. They are written before the room (a new
// participant, a new world) and removed after it, so a failure between
// the two writes leaves an index entry too many, never one too few, and
// every read through an index checks the room again.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentmem/agentmem/internal/retry"
	"github.com/agentmem/agentmem/pkg/memory"
)

// The record kinds. The two index kinds end with the id they index, so
// that each is a partition of its own (one query, however large the org).
const (
	KindEntity = "entity"
	KindWorld  = "world"
	KindRoom   = "room"
	// kindRoomsOf + an entity id: one record per room the entity takes part in.
	kindRoomsOf = "rooms-of:"
	// kindWorldRooms + a world id: one record per room of the world.
	kindWorldRooms = "world-rooms:"
)

// Limits of the registry's fields and pages.
const (
	MaxNames     = 32   // names of an entity
	MaxNameBytes = 256  // bytes of one name
	DefaultLimit = 100  // items of a page when the request names no limit
	MaxLimit     = 1000 // items of a page
)

// maxScanPages bounds the record pages one list call reads to fill a page
// of what an agent-bound caller sees; past it the page is returned short,
// with the cursor to go on from.
const maxScanPages = 10

// maxUpdateAttempts bounds the retries of an unconditional update that
// lost a race to another writer (with jittered backoff between them, as
// the service retries memory updates).
const maxUpdateAttempts = 12

// Registry keeps the entities, worlds and rooms of every org in a record
// store. It implements memory.RoomDirectory and memory.EntityDirectory.
type Registry struct {
	records  memory.RecordStore
	entities table[memory.EntityProfile]
	worlds   table[memory.World]
	rooms    table[memory.Room]
	now      func() time.Time
	names    nameCache // EntityNames, per org
}

var _ memory.RoomDirectory = (*Registry)(nil)

// New returns the registry kept in rs.
func New(rs memory.RecordStore) *Registry {
	return &Registry{
		records: rs,
		entities: table[memory.EntityProfile]{rs: rs, kind: KindEntity, noun: "entity", hdr: func(e *memory.EntityProfile) header {
			return header{&e.ID, &e.AgentID, &e.CreatedAt, &e.UpdatedAt, &e.Version}
		}},
		worlds: table[memory.World]{rs: rs, kind: KindWorld, noun: "world", hdr: func(w *memory.World) header {
			return header{&w.ID, &w.AgentID, &w.CreatedAt, &w.UpdatedAt, &w.Version}
		}},
		rooms: table[memory.Room]{rs: rs, kind: KindRoom, noun: "room", hdr: func(r *memory.Room) header {
			return header{&r.ID, &r.AgentID, &r.CreatedAt, &r.UpdatedAt, &r.Version}
		}},
		now: time.Now,
	}
}

// Page is one page of a list: up to Limit items (DefaultLimit when 0,
// at most MaxLimit) after Cursor, the NextCursor of the page before.
type Page struct {
	Cursor string
	Limit  int
}

// limit checks p and returns its limit.
func (p Page) limit() (int, error) {
	if p.Limit < 0 || p.Limit > MaxLimit {
		return 0, memory.Errorf(memory.EINVALID, "limit: must be between 1 and %d", MaxLimit)
	}
	if err := memory.ValidID("cursor", p.Cursor); err != nil {
		return 0, err
	}
	if p.Limit == 0 {
		return DefaultLimit, nil
	}
	return p.Limit, nil
}

// Owner is who a new item belongs to, as for a memory (Caller.WriteScope):
// Scope "" or "agent" and AgentID, or Scope "org".
type Owner struct {
	Scope   string `json:"scope,omitempty"`
	AgentID string `json:"agentId,omitempty"`
}

// resolve returns the AgentID of a new item c creates: c's agent for an
// agent-bound caller, the one named or none (org-wide) for an org-level
// caller. An agent-bound caller cannot create org-wide items, since it
// could not change them afterwards.
func (o Owner) resolve(c memory.Caller, noun, id string) (string, error) {
	agent, err := c.WriteScope(o.Scope, o.AgentID)
	if err != nil {
		return "", err
	}
	return agent, mayChange(c, agent, noun, id)
}

// sees is the registry's read rule: an agent-bound caller sees its own
// agent's items and the org-wide ones.
func sees(c memory.Caller, agentID string) bool {
	return c.AgentID == "" || agentID == "" || agentID == c.AgentID
}

// mayChange is the registry's write rule, for an item c sees: an
// agent-bound caller changes its own agent's items only.
func mayChange(c memory.Caller, agentID, noun, id string) error {
	if c.AgentID != "" && agentID != c.AgentID {
		return memory.Errorf(memory.EFORBIDDEN, "%s %q is org-wide: only an org-level key may change it (this key is bound to agent %q)", noun, id, c.AgentID)
	}
	return nil
}

// checkID checks the id of an item named by a request: required, and a
// valid id.
func checkID(field, id string) error {
	if id == "" {
		return memory.Errorf(memory.EINVALID, "%s: required", field)
	}
	return memory.ValidID(field, id)
}

// checkName checks a name: not blank, at most MaxNameBytes of valid UTF-8
// without control characters.
func checkName(field, s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return memory.Errorf(memory.EINVALID, "%s: must not be blank", field)
	case len(s) > MaxNameBytes:
		return memory.Errorf(memory.EINVALID, "%s: longer than %d bytes", field, MaxNameBytes)
	case !utf8.ValidString(s):
		return memory.Errorf(memory.EINVALID, "%s: not valid UTF-8", field)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return memory.Errorf(memory.EINVALID, "%s: contains a control character", field)
	}
	return nil
}

// checkOptionalName is checkName for a name that may be absent ("").
func checkOptionalName(field, s string) error {
	if s == "" {
		return nil
	}
	return checkName(field, s)
}

// normMetadata checks metadata and returns it with null as absent.
func normMetadata(raw json.RawMessage) (json.RawMessage, error) {
	if err := memory.ValidMetadata(raw); err != nil {
		return nil, err
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return raw, nil
}

// header is what every item has beside its own fields.
type header struct {
	id, agent                 *string
	created, updated, version *int64
}

// table is the record mechanics shared by the three kinds: one record of
// kind per item, keyed by its id, versioned by the record store.
type table[T any] struct {
	rs   memory.RecordStore
	kind string // record kind
	noun string // for messages: "entity", "world", "room"
	hdr  func(*T) header
}

func (t table[T]) notFound(id string) error {
	return memory.Errorf(memory.ENOTFOUND, "%s %q not found", t.noun, id)
}

// read returns the item id of org, whoever it belongs to.
func (t table[T]) read(ctx context.Context, org, id string) (*T, error) {
	var x T
	v, err := t.rs.GetRecord(ctx, org, t.kind, id, &x)
	if memory.IsNotFound(err) {
		return nil, t.notFound(id)
	} else if err != nil {
		return nil, err
	}
	*t.hdr(&x).version = v
	return &x, nil
}

// get returns the item id as c sees it: ENOTFOUND when absent or another
// agent's.
func (t table[T]) get(ctx context.Context, c memory.Caller, id string) (*T, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	x, err := t.read(ctx, c.OrgID, id)
	if err != nil {
		return nil, err
	}
	if !sees(c, *t.hdr(x).agent) {
		return nil, t.notFound(id)
	}
	return x, nil
}

// create stores x, a new item of org; ECONFLICT when its id is taken.
func (t table[T]) create(ctx context.Context, org string, x *T, now int64) error {
	h := t.hdr(x)
	*h.created, *h.updated, *h.version = now, now, 1
	v, err := t.rs.PutRecord(ctx, org, t.kind, *h.id, x, memory.RecordCreateOnly)
	if memory.IsConflict(err) {
		return memory.Errorf(memory.ECONFLICT, "id: %s %q exists already", t.noun, *h.id)
	} else if err != nil {
		return err
	}
	*h.version = v
	return nil
}

// update applies change to a copy of the item id as c sees it and stores
// it over the version read. With ifVersion the stored version must be
// that one (ECONFLICT); without, a concurrent change is read again and
// change applied again, so change must not mutate what old shares with
// it (slices) and may be called more than once; it returns errUnchanged
// to write nothing. It returns the item before and after.
func (t table[T]) update(ctx context.Context, c memory.Caller, id string, ifVersion int64, now func() int64,
	change func(old, x *T) error) (old, x *T, err error) {
	for attempt := 1; ; attempt++ {
		if old, err = t.get(ctx, c, id); err != nil {
			return nil, nil, err
		}
		h := t.hdr(old)
		if err := mayChange(c, *h.agent, t.noun, id); err != nil {
			return nil, nil, err
		}
		if ifVersion > 0 && *h.version != ifVersion {
			return nil, nil, t.stale(id, *h.version, ifVersion)
		}
		cp := *old
		x = &cp
		if err := change(old, x); err == errUnchanged {
			return old, old, nil
		} else if err != nil {
			return nil, nil, err
		}
		nh := t.hdr(x)
		*nh.updated, *nh.version = now(), *h.version+1
		v, err := t.rs.PutRecord(ctx, c.OrgID, t.kind, id, x, *h.version)
		if memory.IsConflict(err) && ifVersion == 0 && attempt < maxUpdateAttempts {
			if err := retry.Wait(ctx, attempt, time.Millisecond, 64*time.Millisecond); err != nil {
				return nil, nil, err
			}
			continue
		}
		if memory.IsConflict(err) {
			return nil, nil, t.stale(id, -1, ifVersion)
		}
		if err != nil {
			return nil, nil, err
		}
		*nh.version = v
		return old, x, nil
	}
}

// errUnchanged is what an update's change returns when the item is as
// asked already: nothing is written.
var errUnchanged = errors.New("registry: unchanged")

// stale is the ECONFLICT of a change made over a version that is no
// longer the stored one (at, or -1 when unknown).
func (t table[T]) stale(id string, at, want int64) error {
	if at < 0 {
		return memory.Errorf(memory.ECONFLICT, "%s %q changed concurrently", t.noun, id)
	}
	return memory.Errorf(memory.ECONFLICT, "%s %q is at version %d, not %d", t.noun, id, at, want)
}

// remove deletes the item id as c sees it (with ifVersion, only at that
// version) and returns it.
func (t table[T]) remove(ctx context.Context, c memory.Caller, id string, ifVersion int64) (*T, error) {
	x, err := t.get(ctx, c, id)
	if err != nil {
		return nil, err
	}
	h := t.hdr(x)
	if err := mayChange(c, *h.agent, t.noun, id); err != nil {
		return nil, err
	}
	if ifVersion > 0 && *h.version != ifVersion {
		return nil, t.stale(id, *h.version, ifVersion)
	}
	return x, t.rs.DeleteRecord(ctx, c.OrgID, t.kind, id)
}

// list returns a page of the items c sees, in id order, and the cursor of
// the next page ("" at the end).
func (t table[T]) list(ctx context.Context, c memory.Caller, p Page) ([]*T, string, error) {
	if err := c.Valid(); err != nil {
		return nil, "", err
	}
	limit, err := p.limit()
	if err != nil {
		return nil, "", err
	}
	out := []*T{}
	after := p.Cursor
	for range maxScanPages {
		recs, next, err := t.rs.ListRecords(ctx, c.OrgID, t.kind, after, limit-len(out))
		if err != nil {
			return nil, "", err
		}
		for _, r := range recs {
			var x T
			if err := json.Unmarshal(r.Value, &x); err != nil {
				return nil, "", err
			}
			h := t.hdr(&x)
			*h.version = r.Version
			if sees(c, *h.agent) {
				out = append(out, &x)
			}
		}
		after = next
		if next == "" || len(out) == limit {
			break
		}
	}
	return out, after, nil
}
