package query

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The plan step of an evaluation: the expression's select tree with its
// leaves numbered, each leaf split into parts (the alternatives of a term
// in its roles, or a property comparison), and the free terms: what the
// fetch step looks up.

// alt is one way a part of a leaf can match: a term in some roles, with a
// weight (1 for the query's own terms).
type alt struct {
	term   string
	weight float64
	roles  string // roleKey; "" for any role
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

// plan numbers the leaves, splits them into parts, and expands the
// expandable terms with related terms.
func (s *evaluation) plan(ctx context.Context) error {
	s.related = map[string][]Related{}
	var err error
	if s.x.Select != nil {
		if s.root, err = s.planNode(ctx, s.x.Select, true); err != nil {
			return err
		}
	}
	for _, t := range s.x.Terms {
		p, err := s.expand(ctx, t, roleKey(), roleKey())
		if err != nil {
			return err
		}
		s.free = append(s.free, p)
	}
	return nil
}

func (s *evaluation) planNode(ctx context.Context, n *Node, positive bool) (*enode, error) {
	out := &enode{leaf: -1}
	kids := func(ns []Node) ([]*enode, error) {
		var ks []*enode
		for i := range ns {
			k, err := s.planNode(ctx, &ns[i], positive)
			if err != nil {
				return nil, err
			}
			ks = append(ks, k)
		}
		return ks, nil
	}
	var err error
	switch {
	case n.And != nil:
		out.and, err = kids(n.And)
		return out, err
	case n.Or != nil:
		out.or, err = kids(n.Or)
		return out, err
	case n.Not != nil:
		out.not, err = s.planNode(ctx, n.Not, !positive)
		return out, err
	}
	l := leaf{positive: positive}
	add := func(p part, err error) error {
		if err == nil {
			l.parts = append(l.parts, p)
		}
		return err
	}
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
				q, err := s.expand(ctx, t, roleKey(memory.RoleType), roleKey(memory.RoleName, memory.RoleType))
				if err != nil {
					return nil, err
				}
				p.alts = append(p.alts, q.alts...)
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
				q, err := s.expand(ctx, v, roleKey(memory.RoleVerb), roleKey(memory.RoleVerb))
				if err != nil {
					return nil, err
				}
				p.alts = append(p.alts, q.alts...)
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
		if err := add(s.expand(ctx, n.Topic, roleKey(memory.RoleTopic), roleKey(memory.RoleTopic))); err != nil {
			return nil, err
		}
	case n.Term != "":
		if err := add(s.expand(ctx, n.Term, roleKey(), roleKey())); err != nil {
			return nil, err
		}
	case n.Property != nil:
		l.parts = append(l.parts, part{prop: &propCond{Name: n.Property.Name, Op: n.Property.Op,
			Value: n.Property.Value + strings.Join(n.Property.Values, "\x00")}})
	}
	out.leaf = len(s.leaves)
	s.leaves = append(s.leaves, l)
	return out, nil
}

// dedupe keeps the heaviest alternative of each (term, roles).
func dedupe(p part) part {
	best := map[[2]string]int{}
	var out []alt
	for _, a := range p.alts {
		k := [2]string{a.term, a.roles}
		if i, ok := best[k]; ok {
			out[i].weight = max(out[i].weight, a.weight)
			continue
		}
		best[k] = len(out)
		out = append(out, a)
	}
	return part{alts: out, prop: p.prop}
}

// expand makes a part of term t in roles, plus its related terms (in
// relatedRoles) when the expression has relatedTerms on.
func (s *evaluation) expand(ctx context.Context, t, roles, relatedRoles string) (part, error) {
	p := part{alts: []alt{{term: t, weight: 1, roles: roles}}}
	if !s.x.UseRelated() || s.e.Related == nil {
		return p, nil
	}
	rs, ok := s.related[t]
	if !ok {
		var err error
		rs, err = s.e.Related.Related(ctx, s.org, t)
		if err != nil {
			if ctx.Err() != nil {
				return p, ctx.Err()
			}
			s.e.log().WarnContext(ctx, "knowledge query: related terms unavailable", "org", s.org, "err", err)
			rs = nil
		}
		rs = cleanRelated(t, rs)
		s.related[t] = rs
	}
	for _, r := range rs {
		p.alts = append(p.alts, alt{term: r.Term, weight: r.Weight * RelatedWeight, roles: relatedRoles})
	}
	return dedupe(p), nil
}
