package memory

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Relational property queries: a property leaf compares a facet's value
// with an operand (eq, ne, lt, lte, gt, gte, in). Values are typed when they
// are indexed (ValueTypeOf): a number ("30", "30 years", "1,250.5"), a date
// ("2024-03-05", "2024-03", "march 5, 2024", RFC 3339) or a string. A
// comparison compares values of the operand's type only: "age gt 30" sees
// the ages that are numbers, "name lt m" the names that are strings.
//
// The comparison is pushed down into the stores by typed postings: beside
// each property posting (name, value), a TermIndex keeps one under the
// typed name TypedPropertyName(type, name) whose value sorts in the type's
// order (TypedProperties), so that every comparison is one or two key
// ranges of one partition (PropertyLookup.Ranges).

// CompareOp is the comparison of a property lookup.
type CompareOp string

// The comparison operators. OpExact, the zero value, is the untyped
// equality of normalized strings that property leaves always had.
const (
	OpExact CompareOp = ""
	OpEq    CompareOp = "eq"
	OpNe    CompareOp = "ne"
	OpLt    CompareOp = "lt"
	OpLte   CompareOp = "lte"
	OpGt    CompareOp = "gt"
	OpGte   CompareOp = "gte"
	OpIn    CompareOp = "in"
)

// CompareOps lists the explicit comparison operators.
var CompareOps = []CompareOp{OpEq, OpNe, OpLt, OpLte, OpGt, OpGte, OpIn}

// ValidCompareOp checks op against CompareOps ("" is valid: OpExact).
func ValidCompareOp(op CompareOp) error {
	if op == OpExact {
		return nil
	}
	for _, o := range CompareOps {
		if o == op {
			return nil
		}
	}
	return Errorf(EINVALID, "op: %q is not one of %s", op, joinEnum(CompareOps))
}

// MaxInValues is the most operands of an "in" comparison.
const MaxInValues = 64

// ValueType is the type a property value is compared as.
type ValueType string

// The value types.
const (
	ValueNumber ValueType = "number"
	ValueDate   ValueType = "date"
	ValueString ValueType = "string"
)

// typeTags are the one-letter tags of the typed property names.
var typeTags = map[ValueType]string{ValueNumber: "n", ValueDate: "d", ValueString: "s"}

// TypedPropertyName is the name typed postings of name are kept under. It
// starts with "#", which no normalized name does (NormalizeTerm trims
// leading punctuation), so it never meets a facet's own name.
func TypedPropertyName(t ValueType, name string) string { return "#" + typeTags[t] + ":" + name }

// dateLayouts are the date forms a value is typed as a date by, tried in
// order on the upper-cased value (time.Parse matches month names in any
// case).
var dateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02", "2006-01", "2006/01/02",
	"January 2, 2006", "January 2 2006", "2 January 2006", "January 2006", "Jan 2, 2006", "2 Jan 2006", "Jan 2006",
}

// ValueTypeOf types a normalized value, and returns its key: a string that
// sorts, bytewise, as values of that type compare. A number is its amount,
// its first word ("30 years" is 30, "1,250" is 1250); a date is its first
// instant, in UTC when it names no zone. Both have keys of 16 hex digits; a
// string is its own key.
func ValueTypeOf(v string) (ValueType, string) {
	if f, ok := parseNumber(v); ok {
		return ValueNumber, sortableFloat(f)
	}
	if t, ok := parseDate(v); ok {
		return ValueDate, sortableFloat(float64(t.UnixMilli()))
	}
	return ValueString, v
}

func parseNumber(v string) (float64, bool) {
	words := strings.Fields(v)
	if len(words) == 0 || len(words) > 3 {
		return 0, false
	}
	w := strings.ReplaceAll(words[0], ",", "")
	f, err := strconv.ParseFloat(w, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(w, "xXpP_") {
		return 0, false
	}
	for _, u := range words[1:] { // units are words, not more numbers
		if _, err := strconv.ParseFloat(u, 64); err == nil {
			return 0, false
		}
	}
	return f, true
}

func parseDate(v string) (time.Time, bool) {
	u := strings.ToUpper(v)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, u); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// sortableFloat renders f as 16 hex digits that sort as the floats do.
func sortableFloat(f float64) string {
	if f == 0 {
		f = 0 // -0 sorts as 0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return fmt.Sprintf("%016x", b)
}

// typedValue is the value of the typed posting of v: the key, and for a
// number or a date the value itself after a space, so that the original
// can be shown (TypedPropertyValue).
func typedValue(t ValueType, key, v string) string {
	if t == ValueString {
		return v
	}
	return key + " " + v
}

// keyEnd is what follows the key of a typed value of type t: "~" is above
// the space that ends a number's or date's key, and " " is above every
// string that extends a string key with control characters only (which no
// value holds). So [key, key+keyEnd) holds exactly the values of that key.
func keyEnd(t ValueType) string {
	if t == ValueString {
		return " "
	}
	return "~"
}

// TypedProperties returns the typed postings of r's IndexedProperties: one
// per property, under TypedPropertyName, whose value starts with the key
// of ValueTypeOf. Those that would not be IndexableTerm are left out.
func TypedProperties(r SemanticRef) []Property {
	var out []Property
	for _, p := range IndexedProperties(r) {
		t, key := ValueTypeOf(p.Value)
		tp := Property{Name: TypedPropertyName(t, p.Name), Value: typedValue(t, key, p.Value)}
		if IndexableTerm(tp.Name) && IndexableTerm(tp.Value) {
			out = append(out, tp)
		}
	}
	return out
}

// StoredProperties returns every property posting a TermIndex keeps for r:
// IndexedProperties, then TypedProperties.
func StoredProperties(r SemanticRef) []Property {
	return append(IndexedProperties(r), TypedProperties(r)...)
}

// UntypedProperty returns the property a typed posting stands for: its
// name and original value. Other properties are returned as they are.
func UntypedProperty(p Property) Property {
	if len(p.Name) < 4 || p.Name[0] != '#' || p.Name[2] != ':' {
		return p
	}
	tag := p.Name[1:2]
	p.Name = p.Name[3:]
	if tag != typeTags[ValueString] && len(p.Value) > 17 && p.Value[16] == ' ' {
		p.Value = p.Value[17:]
	}
	return p
}

// PropertyRange is one key range of a comparison: the typed postings of
// Name (a TypedPropertyName) whose value v has Lo <= v < Hi, bytewise, ""
// leaving that end open.
type PropertyRange struct {
	Name, Lo, Hi string
}

// Ranges returns the key ranges a lookup with an explicit comparison reads,
// without duplicates; nil for OpExact. q must be normalized.
func (q PropertyLookup) Ranges() []PropertyRange {
	var out []PropertyRange
	seen := map[PropertyRange]bool{}
	add := func(r PropertyRange) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	operand := func(v string) (string, string, string) {
		t, key := ValueTypeOf(v)
		return TypedPropertyName(t, q.Name), key, key + keyEnd(t)
	}
	switch q.Op {
	case OpExact:
		return nil
	case OpIn:
		for _, v := range q.Values {
			n, k, end := operand(v)
			add(PropertyRange{n, k, end})
		}
		return out
	}
	n, k, end := operand(q.Value)
	switch q.Op {
	case OpEq:
		add(PropertyRange{n, k, end})
	case OpNe:
		add(PropertyRange{n, "", k})
		add(PropertyRange{n, end, ""})
	case OpLt:
		add(PropertyRange{n, "", k})
	case OpLte:
		add(PropertyRange{n, "", end})
	case OpGt:
		add(PropertyRange{n, end, ""})
	case OpGte:
		add(PropertyRange{n, k, ""})
	}
	return out
}

// MergePropertyPostings merges the postings of a comparison's ranges into
// PropertyLookup's order (newest first: CreatedAt, MemoryID, Ordinal
// descending), with their properties untyped (UntypedProperty), without
// duplicate (ref, property), at most limit.
func MergePropertyPostings(ps []PropertyPosting, limit int) []PropertyPosting {
	type key struct {
		r RefKey
		p Property
	}
	seen := map[key]bool{}
	out := ps[:0:0]
	for _, p := range ps {
		p.Property = UntypedProperty(p.Property)
		if k := (key{p.Ref, p.Property}); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Attrs.CreatedAt != b.Attrs.CreatedAt:
			return a.Attrs.CreatedAt > b.Attrs.CreatedAt
		case a.Ref.MemoryID != b.Ref.MemoryID:
			return a.Ref.MemoryID > b.Ref.MemoryID
		}
		return a.Ref.Ordinal > b.Ref.Ordinal
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
