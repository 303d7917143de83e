package query

import (
	"slices"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The plan step of an evaluation: the expression's select tree with its
// leaves numbered, each leaf split into parts (the alternatives of a term
// in its roles, or a property comparison), and the free terms: what the
// fetch step looks up. It does no I/O: the terms whose related terms the
// expression asks for are marked, and fetch adds them.

// alt is one way a part of a leaf can match: a term in some roles, with a
// weight (1 for the query's own terms).
type alt struct {
	term   string
	weight float64
	roles  string // roleKey; "" for any role
	// related asks fetch to add the term's related terms after it, as
	// alternatives in relatedRoles (a roleKey).
	related      bool
	relatedRoles string
	// expanded marks a related term that fetch added for another
	// alternative, which the question's bound may drop (boundRelated).
	expanded bool
}

// part is one condition of a leaf: any of its alternatives, or a property.
type part struct {
	alts []alt
	prop *propCond
}

// propCond is a property condition: a name, a comparison and its operands
// (the values of "in" joined by NUL), comparable as a map key.
type propCond struct {
	Name  string
	Op    memory.CompareOp
	Value string
}

// lookup is the property lookup of c under f.
func (c propCond) lookup(f memory.Filter, limit int) memory.PropertyLookup {
	q := memory.PropertyLookup{Filter: f, Name: c.Name, Op: c.Op, Value: c.Value, Limit: limit}
	if c.Op == memory.OpIn {
		q.Value, q.Values = "", strings.Split(c.Value, "\x00")
	}
	return q
}

// label is how c is shown among the terms a ref matched by.
func (c propCond) label() string {
	if c.Op == memory.OpExact {
		return c.Name + "=" + c.Value
	}
	return c.Name + " " + string(c.Op) + " " + strings.ReplaceAll(c.Value, "\x00", ",")
}

type leaf struct {
	parts    []part
	tense    string
	positive bool // under an even number of nots: it scores
}

// enode is the select tree with its leaves numbered.
type enode struct {
	and, or []*enode
	not     *enode
	leaf    int
}

func roleKey(roles ...string) string {
	rs := slices.Clone(roles)
	sort.Strings(rs)
	return strings.Join(rs, ",")
}

func roles(key string) []string {
	if key == "" {
		return nil
	}
	return strings.Split(key, ",")
}

// plan numbers the leaves, splits them into parts, and marks the
// expandable terms.
func (s *evaluation) plan() {
	if s.x.Select != nil {
		s.root = s.planNode(s.x.Select, true)
	}
	for _, t := range s.x.Terms {
		s.free = append(s.free, s.expand(t, roleKey(), roleKey()))
	}
}

// planNode plans n and the nodes below it, positive when n is under an
// even number of nots, appending its leaves to s.leaves in the order met.
func (s *evaluation) planNode(n *Node, positive bool) *enode {
	out := &enode{leaf: -1}
	kids := func(ns []Node) []*enode {
		var ks []*enode
		for i := range ns {
			ks = append(ks, s.planNode(&ns[i], positive))
		}
		return ks
	}
	switch {
	case n.And != nil:
		out.and = kids(n.And)
		return out
	case n.Or != nil:
		out.or = kids(n.Or)
		return out
	case n.Not != nil:
		out.not = s.planNode(n.Not, !positive)
		return out
	}
	l := leaf{positive: positive}
	exact := func(t string, rs ...string) part {
		return part{alts: []alt{{term: t, weight: 1, roles: roleKey(rs...)}}}
	}
	switch {
	case n.Entity != nil:
		en := n.Entity
		if en.Name != "" {
			if len(en.Facets) > 0 { // an action's subject facet describes its subject
				l.parts = append(l.parts, exact(en.Name, memory.RoleName, memory.RoleSubject))
			} else {
				l.parts = append(l.parts, exact(en.Name, memory.RoleName))
			}
		}
		if len(en.Types) > 0 {
			var p part
			for _, t := range en.Types {
				p.alts = append(p.alts, s.expand(t, roleKey(memory.RoleType), roleKey(memory.RoleName, memory.RoleType)).alts...)
			}
			l.parts = append(l.parts, dedupe(p))
		}
		for _, f := range en.Facets {
			if f.Value == "" {
				l.parts = append(l.parts, exact(f.Name, memory.RoleFacetName))
			} else {
				l.parts = append(l.parts, part{prop: &propCond{Name: f.Name, Value: f.Value}})
			}
		}
	case n.Action != nil:
		a := n.Action
		if len(a.Verbs) > 0 {
			var p part
			for _, v := range a.Verbs {
				p.alts = append(p.alts, s.expand(v, roleKey(memory.RoleVerb), roleKey(memory.RoleVerb)).alts...)
			}
			l.parts = append(l.parts, dedupe(p))
		}
		if a.Subject != "" {
			l.parts = append(l.parts, exact(a.Subject, memory.RoleSubject))
		}
		if a.Object != "" {
			l.parts = append(l.parts, exact(a.Object, memory.RoleObject))
		}
		if a.IndirectObject != "" {
			l.parts = append(l.parts, exact(a.IndirectObject, memory.RoleObject))
		}
		l.tense = a.Tense
	case n.Topic != "":
		l.parts = append(l.parts, s.expand(n.Topic, roleKey(memory.RoleTopic), roleKey(memory.RoleTopic)))
	case n.Term != "":
		l.parts = append(l.parts, s.expand(n.Term, roleKey(), roleKey()))
	case n.Property != nil:
		l.parts = append(l.parts, part{prop: &propCond{Name: n.Property.Name, Op: n.Property.Op,
			Value: n.Property.Value + strings.Join(n.Property.Values, "\x00")}})
	}
	out.leaf = len(s.leaves)
	s.leaves = append(s.leaves, l)
	return out
}

// dedupe keeps the heaviest alternative of each (term, roles).
func dedupe(p part) part {
	best := map[[2]string]int{}
	var out []alt
	for _, a := range p.alts {
		k := [2]string{a.term, a.roles}
		if i, ok := best[k]; ok {
			out[i].weight = max(out[i].weight, a.weight)
			out[i].expanded = out[i].expanded && a.expanded // a term the expression names stays
			continue
		}
		best[k] = len(out)
		out = append(out, a)
	}
	return part{alts: out, prop: p.prop}
}

// expand makes a part of term t in roles, marked for its related terms
// (in relatedRoles) when the expression has relatedTerms on and the
// evaluator has a RelatedTerms.
func (s *evaluation) expand(t, roles, relatedRoles string) part {
	use := s.x.UseRelated() && s.e.Related != nil
	return part{alts: []alt{{term: t, weight: 1, roles: roles, related: use, relatedRoles: relatedRoles}}}
}
