package query

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// Limits of an expression. Parse and Normalized reject what exceeds them.
const (
	MaxExprBytes   = 64 << 10             // bytes of an expression's JSON
	MaxDepth       = 8                    // levels of the select tree, its root included
	MaxLeaves      = memory.MaxQueryTerms // leaves of the select tree
	MaxTerms       = memory.MaxQueryTerms // free terms
	MaxListItems   = 8                    // verbs, types or facets of a leaf; anchor terms
	MaxStringBytes = 4 * memory.MaxTermBytes
	DefaultLimit   = 20          // memories in a result when Limit is 0
	MaxLimit       = memory.MaxK // memories in a result
)

// Time relations to an anchor event.
const (
	RelationBefore = "before"
	RelationAfter  = "after"
)

// Expr is a knowledge query expression. See the package documentation for
// the language and its semantics. The zero value is not a valid query:
// Select or Terms is required.
type Expr struct {
	// Select is a boolean tree whose leaves match semantic refs.
	Select *Node `json:"select,omitempty"`
	// Terms are free search terms, OR'ed, matched in any role.
	Terms []string `json:"terms,omitempty"`
	// Time bounds the memories' CreatedAt.
	Time *Time `json:"time,omitempty"`
	// Scope narrows to a room, a session or an agent.
	Scope *Scope `json:"scope,omitempty"`
	// RelatedTerms expands terms with related terms; nil means true.
	RelatedTerms *bool `json:"relatedTerms,omitempty"`
	// Limit is the most memories returned; 0 means DefaultLimit.
	Limit int `json:"limit,omitempty"`
	// AskTime marks a question about when something happened ("when
	// did..."): refs of actions with a time parameter are preferred.
	AskTime bool `json:"askTime,omitempty"`
}

// Node is one node of the select tree: exactly one field is set.
type Node struct {
	And      []Node        `json:"and,omitempty"`
	Or       []Node        `json:"or,omitempty"`
	Not      *Node         `json:"not,omitempty"`
	Entity   *EntityLeaf   `json:"entity,omitempty"`
	Action   *ActionLeaf   `json:"action,omitempty"`
	Topic    string        `json:"topic,omitempty"`
	Term     string        `json:"term,omitempty"`
	Property *PropertyLeaf `json:"property,omitempty"`
}

// EntityLeaf matches entity refs: by name, by any of the types, and by
// every facet. At least one part is required.
type EntityLeaf struct {
	Name   string      `json:"name,omitempty"`
	Types  []string    `json:"types,omitempty"`
	Facets []FacetTerm `json:"facets,omitempty"`
}

// FacetTerm is a facet an entity must have: a name, and a value unless any
// value will do.
type FacetTerm struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// ActionLeaf matches action refs: any of the verbs, the subject, the object
// and the indirect object, all on the same ref. At least one of verbs,
// subject, object and indirectObject is required; Tense narrows further.
type ActionLeaf struct {
	Verbs          []string `json:"verbs,omitempty"`
	Subject        string   `json:"subject,omitempty"`
	Object         string   `json:"object,omitempty"`
	IndirectObject string   `json:"indirectObject,omitempty"`
	Tense          string   `json:"tense,omitempty"`
}

// PropertyLeaf matches the refs with one facet, name and value, or whose
// facet of that name compares with Op to Value (or, for "in", to any of
// Values): eq, ne, lt, lte, gt, gte, in, over numbers, dates and strings
// as the facet values were typed when indexed (memory.ValueTypeOf). No Op
// is the exact match of the normalized strings.
type PropertyLeaf struct {
	Name   string           `json:"name"`
	Op     memory.CompareOp `json:"op,omitempty"`
	Value  string           `json:"value,omitempty"`
	Values []string         `json:"values,omitempty"`
}

// Time bounds a query in time: an absolute range (Start, End, either open),
// or an Expression resolved when the query runs, and optionally a Relation
// to an event described by the Anchor terms.
type Time struct {
	Start      string   `json:"start,omitempty"`      // RFC 3339, inclusive
	End        string   `json:"end,omitempty"`        // RFC 3339, exclusive
	Expression string   `json:"expression,omitempty"` // "last month", "in May 2023"...
	Relation   string   `json:"relation,omitempty"`   // before or after the anchor
	Anchor     []string `json:"anchor,omitempty"`     // terms of the anchor event
}

// Scope narrows a query to one room, session, agent or document, to a
// range of a document's positions or of a session's messages, or to the
// stretches of conversation about a topic (see scope.go), within what the
// caller may see.
type Scope struct {
	RoomID    string `json:"roomId,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	AgentID   string `json:"agentId,omitempty"`
	// DocumentID narrows to one document's fragments; FromPosition and
	// ToPosition (inclusive) to a range of their positions.
	DocumentID   string `json:"documentId,omitempty"`
	FromPosition *int   `json:"fromPosition,omitempty"`
	ToPosition   *int   `json:"toPosition,omitempty"`
	// A message range of the session SessionID: from FromMessageID
	// (included) or FromTime (RFC 3339, included), to ToMessageID
	// (included) or ToTime (RFC 3339, excluded).
	FromMessageID string `json:"fromMessageId,omitempty"`
	ToMessageID   string `json:"toMessageId,omitempty"`
	FromTime      string `json:"fromTime,omitempty"`
	ToTime        string `json:"toTime,omitempty"`
	// Topic is a topic description: the stretches of conversation whose
	// turns' topic sentences match it.
	Topic string `json:"topic,omitempty"`
}

// Parse decodes and validates an expression. Decoding is strict: unknown
// fields, duplicate keys, wrong types and trailing data are rejected. The
// result is normalized (Normalized). Errors are EINVALID and name the part
// at fault as a JSON path ("select.and[2].entity.facets[0].name: required").
func Parse(data []byte) (*Expr, error) {
	if len(data) > MaxExprBytes {
		return nil, memory.Errorf(memory.EINVALID, "expression: larger than %d bytes", MaxExprBytes)
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	x, err := decodeExpr(v)
	if err != nil {
		return nil, err
	}
	return x.Normalized()
}

// UseRelated reports whether related terms are on (the default).
func (x *Expr) UseRelated() bool { return x.RelatedTerms == nil || *x.RelatedTerms }

// Normalized validates x and returns a normalized copy: every term through
// memory.NormalizeTerm, verbs through Lemma, duplicates removed, empty
// lists and objects dropped. Normalizing a normalized expression changes
// nothing. Errors are EINVALID and name the part at fault as a JSON path.
func (x *Expr) Normalized() (*Expr, error) {
	if x == nil {
		return nil, memory.Errorf(memory.EINVALID, "expression: required")
	}
	v := &validator{}
	out := &Expr{Limit: x.Limit, AskTime: x.AskTime}
	if x.RelatedTerms != nil {
		b := *x.RelatedTerms
		out.RelatedTerms = &b
	}
	var err error
	if x.Select != nil {
		out.Select, err = v.node(x.Select, "select", 1)
		if err != nil {
			return nil, err
		}
	}
	if out.Terms, err = v.terms(x.Terms, "terms", MaxTerms); err != nil {
		return nil, err
	}
	if out.Select == nil && len(out.Terms) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "expression: select or terms required")
	}
	if out.Select != nil && !positive(out.Select) && len(out.Terms) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "select: matches only by exclusion (not); add a positive condition beside it in an and, or terms")
	}
	if out.Time, err = v.time(x.Time); err != nil {
		return nil, err
	}
	if out.Scope, err = scope(x.Scope); err != nil {
		return nil, err
	}
	if x.Limit < 0 || x.Limit > MaxLimit {
		return nil, memory.Errorf(memory.EINVALID, "limit: %d is outside 1..%d", x.Limit, MaxLimit)
	}
	return out, nil
}

// positive reports whether n selects a bounded set of memories, rather
// than "all memories but...": a leaf does; not flips; an and needs one
// positive child; an or needs all (by De Morgan's laws).
func positive(n *Node) bool {
	switch {
	case n.Not != nil:
		return !positive(n.Not)
	case n.And != nil:
		for i := range n.And {
			if positive(&n.And[i]) {
				return true
			}
		}
		return false
	case n.Or != nil:
		for i := range n.Or {
			if !positive(&n.Or[i]) {
				return false
			}
		}
	}
	return true
}

type validator struct{ leaves int }

func (v *validator) node(n *Node, path string, depth int) (*Node, error) {
	if depth > MaxDepth {
		return nil, memory.Errorf(memory.EINVALID, "%s: deeper than %d levels", path, MaxDepth)
	}
	set := 0
	for _, b := range []bool{n.And != nil, n.Or != nil, n.Not != nil, n.Entity != nil, n.Action != nil,
		n.Topic != "", n.Term != "", n.Property != nil} {
		if b {
			set++
		}
	}
	if set != 1 {
		return nil, memory.Errorf(memory.EINVALID, "%s: exactly one of and, or, not, entity, action, topic, term, property", path)
	}
	out := &Node{}
	var err error
	switch {
	case n.And != nil:
		out.And, err = v.children(n.And, path+".and", depth)
	case n.Or != nil:
		out.Or, err = v.children(n.Or, path+".or", depth)
	case n.Not != nil:
		out.Not, err = v.node(n.Not, path+".not", depth+1)
	default:
		v.leaves++
		if v.leaves > MaxLeaves {
			return nil, memory.Errorf(memory.EINVALID, "%s: more than %d leaves in select", path, MaxLeaves)
		}
		switch {
		case n.Entity != nil:
			out.Entity, err = v.entity(n.Entity, path+".entity")
		case n.Action != nil:
			out.Action, err = v.action(n.Action, path+".action")
		case n.Topic != "":
			out.Topic, err = term(n.Topic, path+".topic")
		case n.Term != "":
			out.Term, err = term(n.Term, path+".term")
		case n.Property != nil:
			out.Property, err = property(n.Property, path+".property")
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (v *validator) children(ns []Node, path string, depth int) ([]Node, error) {
	if len(ns) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "%s: at least one child required", path)
	}
	if len(ns) > MaxLeaves {
		return nil, memory.Errorf(memory.EINVALID, "%s: more than %d children", path, MaxLeaves)
	}
	out := make([]Node, len(ns))
	for i := range ns {
		c, err := v.node(&ns[i], fmt.Sprintf("%s[%d]", path, i), depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = *c
	}
	return out, nil
}

func (v *validator) entity(e *EntityLeaf, path string) (*EntityLeaf, error) {
	out := &EntityLeaf{}
	var err error
	if e.Name != "" {
		if out.Name, err = term(e.Name, path+".name"); err != nil {
			return nil, err
		}
	}
	if out.Types, err = v.terms(e.Types, path+".types", MaxListItems); err != nil {
		return nil, err
	}
	if len(e.Facets) > MaxListItems {
		return nil, memory.Errorf(memory.EINVALID, "%s.facets: more than %d facets", path, MaxListItems)
	}
	seen := map[FacetTerm]bool{}
	for i, f := range e.Facets {
		p := fmt.Sprintf("%s.facets[%d]", path, i)
		if f.Name == "" {
			return nil, memory.Errorf(memory.EINVALID, "%s.name: required", p)
		}
		var nf FacetTerm
		if nf.Name, err = term(f.Name, p+".name"); err != nil {
			return nil, err
		}
		if f.Value != "" {
			if nf.Value, err = term(f.Value, p+".value"); err != nil {
				return nil, err
			}
		}
		if !seen[nf] {
			seen[nf] = true
			out.Facets = append(out.Facets, nf)
		}
	}
	if out.Name == "" && len(out.Types) == 0 && len(out.Facets) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "%s: one of name, types, facets required", path)
	}
	return out, nil
}

func (v *validator) action(a *ActionLeaf, path string) (*ActionLeaf, error) {
	out := &ActionLeaf{}
	verbs, err := v.terms(a.Verbs, path+".verbs", MaxListItems)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, vb := range verbs {
		l := lemmaTerm(vb)
		if !memory.IndexableTerm(l) {
			return nil, memory.Errorf(memory.EINVALID, "%s.verbs[%d]: longer than %d bytes", path, i, memory.MaxTermBytes)
		}
		if !seen[l] {
			seen[l] = true
			out.Verbs = append(out.Verbs, l)
		}
	}
	for _, f := range []struct {
		in   string
		out  *string
		name string
	}{{a.Subject, &out.Subject, "subject"}, {a.Object, &out.Object, "object"}, {a.IndirectObject, &out.IndirectObject, "indirectObject"}} {
		if f.in != "" {
			if *f.out, err = term(f.in, path+"."+f.name); err != nil {
				return nil, err
			}
		}
	}
	switch a.Tense {
	case "", memory.TensePast, memory.TensePresent, memory.TenseFuture:
		out.Tense = a.Tense
	default:
		return nil, memory.Errorf(memory.EINVALID, "%s.tense: %q is not one of past, present, future", path, a.Tense)
	}
	if len(out.Verbs) == 0 && out.Subject == "" && out.Object == "" && out.IndirectObject == "" {
		return nil, memory.Errorf(memory.EINVALID, "%s: one of verbs, subject, object, indirectObject required", path)
	}
	return out, nil
}

// lemmaTerm is the lemma of a normalized verb, itself normalized: a fixed
// point of Lemma and memory.NormalizeTerm, or the verb when the lemma
// would be empty.
func lemmaTerm(v string) string {
	for range 4 {
		l := memory.NormalizeTerm(en.Lemma(v))
		if l == "" || l == v {
			break
		}
		v = l
	}
	return v
}

func property(p *PropertyLeaf, path string) (*PropertyLeaf, error) {
	if p.Name == "" {
		return nil, memory.Errorf(memory.EINVALID, "%s.name: required", path)
	}
	if err := memory.ValidCompareOp(p.Op); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "%s.%s", path, memory.ErrorMessage(err))
	}
	out := PropertyLeaf{Op: p.Op}
	var err error
	if out.Name, err = term(p.Name, path+".name"); err != nil {
		return nil, err
	}
	if p.Op == memory.OpIn {
		if p.Value != "" {
			return nil, memory.Errorf(memory.EINVALID, "%s.value: not with op in (values holds the operands)", path)
		}
		if len(p.Values) == 0 {
			return nil, memory.Errorf(memory.EINVALID, "%s.values: required with op in", path)
		}
		if len(p.Values) > memory.MaxInValues {
			return nil, memory.Errorf(memory.EINVALID, "%s.values: more than %d items", path, memory.MaxInValues)
		}
		seen := map[string]bool{}
		for i, v := range p.Values {
			n, err := term(v, fmt.Sprintf("%s.values[%d]", path, i))
			if err != nil {
				return nil, err
			}
			if !seen[n] {
				seen[n] = true
				out.Values = append(out.Values, n)
			}
		}
		return &out, nil
	}
	if len(p.Values) > 0 {
		return nil, memory.Errorf(memory.EINVALID, "%s.values: only with op in", path)
	}
	if p.Value == "" {
		return nil, memory.Errorf(memory.EINVALID, "%s.value: required", path)
	}
	if out.Value, err = term(p.Value, path+".value"); err != nil {
		return nil, err
	}
	return &out, nil
}

// terms normalizes a list of terms, without duplicates; nil when empty.
func (v *validator) terms(ts []string, path string, max int) ([]string, error) {
	if len(ts) > max {
		return nil, memory.Errorf(memory.EINVALID, "%s: more than %d items", path, max)
	}
	var out []string
	seen := map[string]bool{}
	for i, t := range ts {
		n, err := term(t, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// term normalizes one term, which must be indexable.
func term(s, path string) (string, error) {
	if s == "" {
		return "", memory.Errorf(memory.EINVALID, "%s: required", path)
	}
	if len(s) > MaxStringBytes {
		return "", memory.Errorf(memory.EINVALID, "%s: longer than %d bytes", path, MaxStringBytes)
	}
	t := memory.NormalizeTerm(s)
	if t == "" {
		return "", memory.Errorf(memory.EINVALID, "%s: empty after normalization (only punctuation, space or invalid UTF-8)", path)
	}
	if !memory.IndexableTerm(t) {
		return "", memory.Errorf(memory.EINVALID, "%s: longer than %d bytes or holds control characters", path, memory.MaxTermBytes)
	}
	if memory.NormalizeTerm(t) != t {
		return "", memory.Errorf(memory.EINVALID, "%s: has no stable normal form", path)
	}
	return t, nil
}

// refTime is the reference time against which Normalized checks that a
// time expression resolves; resolvability does not depend on it.
var refTime = time.Date(2024, time.June, 15, 12, 0, 0, 0, time.UTC)

func (v *validator) time(t *Time) (*Time, error) {
	if t == nil {
		return nil, nil
	}
	if t.Start == "" && t.End == "" && t.Expression == "" && t.Relation == "" && len(t.Anchor) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "time: one of start, end, expression, relation required")
	}
	out := &Time{Start: t.Start, End: t.End}
	var start, end time.Time
	var err error
	if t.Start != "" {
		if start, err = rfc3339(t.Start, "time.start"); err != nil {
			return nil, err
		}
	}
	if t.End != "" {
		if end, err = rfc3339(t.End, "time.end"); err != nil {
			return nil, err
		}
	}
	if t.Start != "" && t.End != "" && !end.After(start) {
		return nil, memory.Errorf(memory.EINVALID, "time.end: must be after time.start")
	}
	if t.Expression != "" {
		if t.Start != "" || t.End != "" {
			return nil, memory.Errorf(memory.EINVALID, "time.expression: excludes start and end")
		}
		if len(t.Expression) > MaxStringBytes {
			return nil, memory.Errorf(memory.EINVALID, "time.expression: longer than %d bytes", MaxStringBytes)
		}
		out.Expression = memory.NormalizeTerm(t.Expression)
		if _, err := ResolveTime(out.Expression, refTime); err != nil {
			return nil, memory.Errorf(memory.EINVALID, "time.expression: %q is not a time expression this language knows (see the package documentation)", t.Expression)
		}
	}
	switch t.Relation {
	case "", RelationBefore, RelationAfter:
		out.Relation = t.Relation
	default:
		return nil, memory.Errorf(memory.EINVALID, "time.relation: %q is not one of before, after", t.Relation)
	}
	if out.Anchor, err = v.terms(t.Anchor, "time.anchor", MaxListItems); err != nil {
		return nil, err
	}
	if out.Relation != "" && len(out.Anchor) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "time.anchor: required with time.relation")
	}
	if out.Relation == "" && len(out.Anchor) > 0 {
		return nil, memory.Errorf(memory.EINVALID, "time.relation: required with time.anchor")
	}
	return out, nil
}

func rfc3339(s, path string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return t, memory.Errorf(memory.EINVALID, "%s: not RFC 3339 (2023-05-01T00:00:00Z)", path)
	}
	if t.Before(time.Unix(0, 0)) {
		return t, memory.Errorf(memory.EINVALID, "%s: before 1970", path)
	}
	if t.UnixMilli() > math.MaxInt64/2 || t.Year() > 9999 {
		return t, memory.Errorf(memory.EINVALID, "%s: after 9999", path)
	}
	return t, nil
}

func scope(s *Scope) (*Scope, error) {
	if s == nil || *s == (Scope{}) {
		return nil, nil
	}
	for _, f := range []struct{ name, v string }{
		{"scope.roomId", s.RoomID}, {"scope.sessionId", s.SessionID}, {"scope.agentId", s.AgentID}} {
		if err := memory.ValidID(f.name, f.v); err != nil {
			return nil, err
		}
	}
	c := *s
	if err := validRanges(s, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// String renders x as JSON.
func (x *Expr) String() string {
	b, _ := json.Marshal(x)
	return string(b)
}
