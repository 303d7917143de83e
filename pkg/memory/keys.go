package memory

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// Grants is the set of operations an API key may perform, a bit set. The
// HTTP API's route table names one operation per route and checks it in
// one place; a Caller carries the grants of its key.
type Grants uint8

// The operations a key may be granted.
const (
	// GrantRead reads: get, list, count, search, context, documents.
	GrantRead Grants = 1 << iota
	// GrantWrite writes: create, patch, messages, documents.
	GrantWrite
	// GrantDelete deletes single memories and documents in the key's own
	// scope (an org-level key's own scope is the whole org).
	GrantDelete
	// GrantDeleteOrg lets an agent-bound key delete org-scope memories and
	// run bulk deletes; org-level keys need only GrantDelete. It implies
	// GrantDelete.
	GrantDeleteOrg
	// GrantAdmin manages the org: API keys, usage, consolidation. Only
	// org-level keys hold it.
	GrantAdmin
	// GrantWriteOrg lets an agent-bound key change the org-scope memories
	// that exist (PATCH, PUT by key, the MCP update tools); without it an
	// agent key adds org memories but changes only its own agent's.
	// Org-level keys need only GrantWrite. It implies GrantWrite.
	GrantWriteOrg
)

// GrantNames lists the grants by their names, in order.
var GrantNames = []struct {
	Grant Grants
	Name  string
}{{GrantRead, "read"}, {GrantWrite, "write"}, {GrantDelete, "delete"}, {GrantDeleteOrg, "delete:org"}, {GrantAdmin, "admin"}, {GrantWriteOrg, "write:org"}}

// AllGrants is every grant; a static org-level key (API_KEYS) holds it.
const AllGrants = GrantRead | GrantWrite | GrantDelete | GrantDeleteOrg | GrantAdmin | GrantWriteOrg

// AgentGrants is what a static agent-bound key holds: read, write and
// delete in its own scope, as before grants existed.
const AgentGrants = GrantRead | GrantWrite | GrantDelete

// DefaultGrants is the full set a key of that binding may hold: AllGrants
// for an org-level key, AgentGrants for an agent-bound one.
func DefaultGrants(agentID string) Grants {
	if agentID != "" {
		return AgentGrants
	}
	return AllGrants
}

// Has reports whether g holds every grant of want.
func (g Grants) Has(want Grants) bool { return want != 0 && g&want == want }

// Names returns the names of g's grants, in GrantNames order.
func (g Grants) Names() []string {
	out := []string{}
	for _, n := range GrantNames {
		if g&n.Grant != 0 {
			out = append(out, n.Name)
		}
	}
	return out
}

// String returns the names of g's grants joined by commas.
func (g Grants) String() string { return strings.Join(g.Names(), ",") }

// ParseGrants parses grant names ("read", "write", "delete", "delete:org",
// "admin", "write:org"); delete:org adds delete and write:org adds write.
// An unknown name is EINVALID naming field.
func ParseGrants(field string, names []string) (Grants, error) {
	var g Grants
next:
	for _, s := range names {
		s = strings.TrimSpace(strings.ToLower(s))
		for _, n := range GrantNames {
			if s == n.Name {
				g |= n.Grant
				continue next
			}
		}
		return 0, Errorf(EINVALID, "%s: %q is not one of read, write, delete, delete:org, admin, write:org", field, s)
	}
	if g&GrantDeleteOrg != 0 {
		g |= GrantDelete
	}
	if g&GrantWriteOrg != 0 {
		g |= GrantWrite
	}
	return g, nil
}

// MarshalJSON renders g as a list of names.
func (g Grants) MarshalJSON() ([]byte, error) { return json.Marshal(g.Names()) }

// UnmarshalJSON reads a list of names (EINVALID for an unknown one).
func (g *Grants) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return Errorf(EINVALID, "grants: a list of read, write, delete, delete:org, admin")
	}
	v, err := ParseGrants("grants", names)
	*g = v
	return err
}

// APIKey is a stored API key: its owner, its grants and its state. The
// secret itself is never stored, only Hash, the hex SHA-256 of it.
type APIKey struct {
	// ID names the key in lists and revocations ("key_…"); it is not
	// secret.
	ID string `json:"id"`
	// Hash is the hex SHA-256 of the secret; it never leaves the store
	// adapters and the authenticator.
	Hash    string `json:"-"`
	OrgID   string `json:"orgId"`
	AgentID string `json:"agentId,omitempty"`
	Name    string `json:"name,omitempty"`
	Grants  Grants `json:"grants"`
	// Prefix is the start of the secret, for people to recognise a key.
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
}

// Caller returns the caller the key authenticates as.
func (k APIKey) Caller() Caller {
	return Caller{OrgID: k.OrgID, AgentID: k.AgentID, Grants: k.Grants, KeyID: k.ID}
}

// Validate checks a key before it is stored: an org, valid names, some
// grants, and admin only on an org-level key.
func (k APIKey) Validate() error {
	switch {
	case !ValidName(k.OrgID):
		return Errorf(EINVALID, "orgId: 1-%d of A-Z a-z 0-9 . _ -", MaxNameLen)
	case k.AgentID != "" && (!ValidName(k.AgentID) || k.AgentID == OrgScope):
		return Errorf(EINVALID, "agentId: 1-%d of A-Z a-z 0-9 . _ - (and not %s)", MaxNameLen, OrgScope)
	case len(k.Name) > 200:
		return Errorf(EINVALID, "name: at most 200 characters")
	case k.Grants == 0 || k.Grants&^AllGrants != 0:
		return Errorf(EINVALID, "grants: at least one of read, write, delete, delete:org, admin")
	case k.AgentID != "" && k.Grants.Has(GrantAdmin):
		return Errorf(EINVALID, "grants: admin is for org-level keys only; an agent-bound key cannot manage the org")
	case len(k.Hash) != 64 || k.ID == "":
		return Errorf(EINVALID, "key: id and a hex SHA-256 hash are required")
	}
	return nil
}

// KeyStore keeps API keys, hashed. Keys are looked up by hash across orgs
// (the authenticator does not know the org yet) and listed per org.
type KeyStore interface {
	// CreateKey stores k (Validate must pass). ECONFLICT if a key with
	// the same hash or, in the org, the same id exists.
	CreateKey(ctx context.Context, k APIKey) error
	// KeyByHash returns the key whose secret hashes to hash (hex SHA-256),
	// revoked or not; ENOTFOUND if there is none.
	KeyByHash(ctx context.Context, hash string) (APIKey, error)
	// ListKeys returns org's keys, revoked ones included, by id.
	ListKeys(ctx context.Context, org string) ([]APIKey, error)
	// RevokeKey marks org's key id revoked at at and returns it; revoking
	// a revoked key keeps its first time. ENOTFOUND if org has no key id.
	RevokeKey(ctx context.Context, org, id string, at time.Time) (APIKey, error)
}

// OrgUsage is what an org stores, for quotas.
type OrgUsage struct {
	// Memories counts every memory, archived ones included.
	Memories int64 `json:"memories"`
	// Bytes is the UTF-8 size of the memories' content text.
	Bytes int64 `json:"bytes"`
	// Documents counts ingested documents (memories of type document).
	Documents int64 `json:"documents"`
}

// UsageOf is what storing ms adds to an org's usage: each memory, the
// UTF-8 size of its content text, and each memory of type document.
func UsageOf(ms ...*Memory) OrgUsage {
	var u OrgUsage
	for _, m := range ms {
		u.Memories++
		u.Bytes += int64(len(m.Content.Text))
		if m.Type == TypeDocument {
			u.Documents++
		}
	}
	return u
}

// UsageCounter reports an org's usage.
type UsageCounter interface {
	// Usage returns org's usage; an org with nothing stored has zero
	// usage, not ENOTFOUND.
	Usage(ctx context.Context, org string) (OrgUsage, error)
}
