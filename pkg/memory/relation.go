package memory

import "context"

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
)

// RelationTypes lists every valid RelationType.
var RelationTypes = []RelationType{RelSupports, RelContradicts, RelSupersedes, RelPartOf, RelCausedBy, RelDependsOn}

// Relation is a directed edge between two memories of one org, with the
// memories it was derived from (for example the source messages of an
// extracted fact).
type Relation struct {
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

// RelationStore keeps relations; a store that keeps memories keeps their
// relations too, and deleting a memory deletes the relations it is part of.
type RelationStore interface {
	// PutRelations stores relations; putting the same (from, type, to)
	// again replaces it, so redelivered work changes nothing.
	PutRelations(ctx context.Context, rs []Relation) error
	// Relations returns the relations of one memory of the org, in both
	// directions, ordered by type, then the other memory's id.
	Relations(ctx context.Context, orgID, memoryID string) ([]Relation, error)
}
