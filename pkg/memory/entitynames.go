package memory

import "context"

// DisplayName is the name an entity is shown by: its first name, or its
// id when it has none.
func (e *EntityProfile) DisplayName() string {
	if len(e.Names) > 0 {
		return e.Names[0]
	}
	return e.ID
}

// EntityDirectory is what extraction reads of the entity registry: the
// names and aliases an org's entities are known by, so that a speaker or a
// mention ("Bob", "bob", the alias "Robert", or Bob's id as a message's
// entityId) resolves to one entity.
type EntityDirectory interface {
	// EntityNames returns the names of the org's entities, a snapshot that
	// may be a few seconds old. Errors: EUNAVAILABLE when the store fails.
	EntityNames(ctx context.Context, orgID string) (*EntityNames, error)
}

// EntityNames is an org's entities by what they are known by: each under
// its id and each of its names (compared by NormalizeSubject). A nil
// *EntityNames resolves nothing.
type EntityNames struct {
	byID   map[string]*EntityProfile
	byName map[string][]*EntityProfile
}

// NewEntityNames indexes es, entities of one org.
func NewEntityNames(es []*EntityProfile) *EntityNames {
	n := &EntityNames{byID: make(map[string]*EntityProfile, len(es)), byName: map[string][]*EntityProfile{}}
	for _, e := range es {
		n.byID[e.ID] = e
		seen := map[string]bool{}
		for _, name := range e.Names {
			if k := NormalizeSubject(name); k != "" && !seen[k] {
				seen[k] = true
				n.byName[k] = append(n.byName[k], e)
			}
		}
	}
	return n
}

// Len is the number of entities.
func (n *EntityNames) Len() int {
	if n == nil {
		return 0
	}
	return len(n.byID)
}

// Resolve returns the entity that name denotes in a memory of agent
// agentID ("" for the org scope), or nil. name is an entity's id
// (exactly) or one of its names or aliases (by NormalizeSubject). Only
// the entities that memory's agent sees count: the org-wide ones and, for
// an agent's memory, that agent's, which win over org-wide ones of the
// same name. A name that two entities of the same rank share denotes
// neither: a guess would merge two people.
func (n *EntityNames) Resolve(name, agentID string) *EntityProfile {
	if n == nil || name == "" {
		return nil
	}
	sees := func(e *EntityProfile) bool { return e.AgentID == "" || e.AgentID == agentID }
	if e := n.byID[name]; e != nil && sees(e) {
		return e
	}
	var own, org []*EntityProfile
	for _, e := range n.byName[NormalizeSubject(name)] {
		switch {
		case e.AgentID == "":
			org = append(org, e)
		case e.AgentID == agentID:
			own = append(own, e)
		}
	}
	switch {
	case len(own) == 1:
		return own[0]
	case len(own) == 0 && len(org) == 1:
		return org[0]
	}
	return nil
}
