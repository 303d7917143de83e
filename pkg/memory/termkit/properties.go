package termkit

import (
	"sort"

	"github.com/agentmem/agentmem/pkg/memory"
)

// typeTags are the one-letter tags of the typed property names.
var typeTags = map[memory.ValueType]string{memory.ValueNumber: "n", memory.ValueDate: "d", memory.ValueString: "s"}

// TypedPropertyName is the name typed postings of name are kept under. It
// starts with "#", which no normalized name does (NormalizeTerm trims
// leading punctuation), so it never meets a facet's own name.
func TypedPropertyName(t memory.ValueType, name string) string { return "#" + typeTags[t] + ":" + name }

// typedValue is the value of the typed posting of v: the key, and for a
// number or a date the value itself after a space, so that the original
// can be shown (UntypedProperty).
func typedValue(t memory.ValueType, key, v string) string {
	if t == memory.ValueString {
		return v
	}
	return key + " " + v
}

// keyEnd is what follows the key of a typed value of type t: "~" is above
// the space that ends a number's or date's key, and " " is above every
// string that extends a string key with control characters only (which no
// value holds). So [key, key+keyEnd) holds exactly the values of that key.
func keyEnd(t memory.ValueType) string {
	if t == memory.ValueString {
		return " "
	}
	return "~"
}

// TypedProperties returns the typed postings of r's memory.IndexedProperties:
// one per property, under TypedPropertyName, whose value starts with the key of
// memory.ValueTypeOf. Those that would not be memory.IndexableTerm are left
// out.
func TypedProperties(r memory.SemanticRef) []memory.Property {
	var out []memory.Property
	for _, p := range memory.IndexedProperties(r) {
		t, key := memory.ValueTypeOf(p.Value)
		tp := memory.Property{Name: TypedPropertyName(t, p.Name), Value: typedValue(t, key, p.Value)}
		if memory.IndexableTerm(tp.Name) && memory.IndexableTerm(tp.Value) {
			out = append(out, tp)
		}
	}
	return out
}

// StoredProperties returns every property posting a memory.TermIndex keeps for
// r: memory.IndexedProperties, then TypedProperties.
func StoredProperties(r memory.SemanticRef) []memory.Property {
	return append(memory.IndexedProperties(r), TypedProperties(r)...)
}

// UntypedProperty returns the property a typed posting stands for: its
// name and original value. Other properties are returned as they are.
func UntypedProperty(p memory.Property) memory.Property {
	if len(p.Name) < 4 || p.Name[0] != '#' || p.Name[2] != ':' {
		return p
	}
	tag := p.Name[1:2]
	p.Name = p.Name[3:]
	if tag != typeTags[memory.ValueString] && len(p.Value) > 17 && p.Value[16] == ' ' {
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
func Ranges(q memory.PropertyLookup) []PropertyRange {
	var out []PropertyRange
	seen := map[PropertyRange]bool{}
	add := func(r PropertyRange) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	operand := func(v string) (string, string, string) {
		t, key := memory.ValueTypeOf(v)
		return TypedPropertyName(t, q.Name), key, key + keyEnd(t)
	}
	switch q.Op {
	case memory.OpExact:
		return nil
	case memory.OpIn:
		for _, v := range q.Values {
			n, k, end := operand(v)
			add(PropertyRange{n, k, end})
		}
		return out
	}
	n, k, end := operand(q.Value)
	switch q.Op {
	case memory.OpEq:
		add(PropertyRange{n, k, end})
	case memory.OpNe:
		add(PropertyRange{n, "", k})
		add(PropertyRange{n, end, ""})
	case memory.OpLt:
		add(PropertyRange{n, "", k})
	case memory.OpLte:
		add(PropertyRange{n, "", end})
	case memory.OpGt:
		add(PropertyRange{n, end, ""})
	case memory.OpGte:
		add(PropertyRange{n, k, ""})
	}
	return out
}

// MergePropertyPostings merges the postings of a comparison's ranges into
// memory.PropertyLookup's order (newest first: CreatedAt, MemoryID, Ordinal
// descending), with their properties untyped (UntypedProperty), without
// duplicate (ref, property), at most limit.
func MergePropertyPostings(ps []memory.PropertyPosting, limit int) []memory.PropertyPosting {
	type key struct {
		r memory.RefKey
		p memory.Property
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
