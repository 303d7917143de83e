package memory

import (
	"context"
	"encoding/base64"
	"strings"
)

// RelationType is how one memory relates to another.
type RelationType string

// The relation types.
const (
	RelSupports    RelationType = "supports"
	RelContradicts RelationType = "contradicts"
	RelSupersedes  RelationType = "supersedes"
	RelPartOf      RelationType = "part_of"
	RelCausedBy    RelationType = "caused_by"
	RelDependsOn   RelationType = "depends_on"
	RelEnriches    RelationType = "enriches"
	RelImplements  RelationType = "implements"
	RelRelatesTo   RelationType = "relates_to"
)

// RelationTypes lists every valid RelationType.
var RelationTypes = []RelationType{RelSupports, RelContradicts, RelSupersedes, RelPartOf, RelCausedBy, RelDependsOn,
	RelEnriches, RelImplements, RelRelatesTo}

// Relation is a directed edge between two memories of one org, with the
// memories it was derived from (for example the source messages of an
// extracted fact).
type Relation struct {
	// ID names the edge (RelationID), set on what the service returns;
	// stores key a relation by its ends and type, not by ID.
	ID         string       `json:"id,omitempty"`
	OrgID      string       `json:"orgId"`
	FromID     string       `json:"fromId"`
	Type       RelationType `json:"type"`
	ToID       string       `json:"toId"`
	Confidence float64      `json:"confidence"`
	Provenance []string     `json:"provenance,omitempty"`
	CreatedAt  int64        `json:"createdAt"`
}

// Validate checks the relation's fields.
func (r Relation) Validate() error {
	if r.OrgID == "" || r.FromID == "" || r.ToID == "" {
		return Errorf(EINVALID, "relation: org, from and to are required")
	}
	if r.FromID == r.ToID {
		return Errorf(EINVALID, "relation: a memory cannot relate to itself")
	}
	if !contains(RelationTypes, r.Type) {
		return Errorf(EINVALID, "relation type: %q is not one of %s", r.Type, joinEnum(RelationTypes))
	}
	return ValidUnit("confidence", r.Confidence)
}

// RelationID is the id of the edge (from, t, to): opaque, and the same
// for the same edge, so that an edge created twice is one.
func RelationID(from string, t RelationType, to string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(from + "\x00" + string(t) + "\x00" + to))
}

// ParseRelationID returns the ends and type a RelationID names; EINVALID
// naming field when id is not one.
func ParseRelationID(field, id string) (from string, t RelationType, to string, err error) {
	raw, derr := base64.RawURLEncoding.DecodeString(id)
	parts := strings.Split(string(raw), "\x00")
	if derr != nil || len(parts) != 3 || parts[0] == "" || parts[2] == "" {
		return "", "", "", Errorf(EINVALID, "%s: %q is not a relation id", field, id)
	}
	return parts[0], RelationType(parts[1]), parts[2], nil
}

// RelationStore keeps relations; a store that keeps memories keeps their
// relations too, and deleting a memory deletes the relations it is part of.
type RelationStore interface {
	// PutRelations stores relations; putting the same (from, type, to)
	// again replaces it, so redelivered work changes nothing.
	PutRelations(ctx context.Context, rs []Relation) error
	// Relations returns the relations of one memory of the org, in both
	// directions, ordered by type, then the other memory's id.
	Relations(ctx context.Context, orgID, memoryID string) ([]Relation, error)
	// DeleteRelation removes the relation (from, t, to) of the org;
	// an absent relation is not an error.
	DeleteRelation(ctx context.Context, orgID, fromID string, t RelationType, toID string) error
}
