package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The decoder reads the JSON into a generic tree first (rejecting duplicate
// keys and deep nesting), then into the typed expression, so that every
// error names the exact path at fault, which encoding/json's strict mode
// does not do for unknown fields.

// maxJSONDepth bounds the nesting of the JSON itself: two levels per select
// level, plus the leaves' own objects and lists.
const maxJSONDepth = 2*MaxDepth + 8

func decodeJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, memory.Errorf(memory.EINVALID, "expression: not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec, "", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, memory.Errorf(memory.EINVALID, "expression: data after the JSON value")
	}
	return v, nil
}

func syntaxError(err error) error {
	if errors.Is(err, io.EOF) {
		return memory.Errorf(memory.EINVALID, "expression: not valid JSON: unexpected end")
	}
	return memory.Errorf(memory.EINVALID, "expression: not valid JSON: %s", err.Error())
}

func readValue(dec *json.Decoder, path string, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, memory.Errorf(memory.EINVALID, "%s: nested too deeply", orRoot(path))
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch d {
	case '{':
		obj := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, syntaxError(err)
			}
			k, _ := kt.(string)
			kp := join(path, k)
			if _, dup := obj[k]; dup {
				return nil, memory.Errorf(memory.EINVALID, "%s: duplicate key", kp)
			}
			if obj[k], err = readValue(dec, kp, depth+1); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, syntaxError(err)
		}
		return obj, nil
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := readValue(dec, fmt.Sprintf("%s[%d]", path, len(arr)), depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, syntaxError(err)
		}
		return arr, nil
	}
	return nil, memory.Errorf(memory.EINVALID, "expression: not valid JSON: unexpected %v", d)
}

// join appends key k to a JSON path: a.b, or a["odd key"].
func join(path, k string) string {
	ident := k != ""
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			ident = false
			break
		}
	}
	switch {
	case !ident:
		return path + "[" + strconv.Quote(k) + "]"
	case path == "":
		return k
	}
	return path + "." + k
}

func orRoot(path string) string {
	if path == "" {
		return "expression"
	}
	return path
}

// object checks that v is an object with only the known keys, and returns
// it without its null members (null is the same as absent).
func object(v any, path string, known ...string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, memory.Errorf(memory.EINVALID, "%s: must be an object", orRoot(path))
	}
	out := make(map[string]any, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(known, k) {
			return nil, memory.Errorf(memory.EINVALID, "%s: unknown field", join(path, k))
		}
		if m[k] != nil {
			out[k] = m[k]
		}
	}
	return out, nil
}

func str(m map[string]any, k, path string) (string, error) {
	v, ok := m[k]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", memory.Errorf(memory.EINVALID, "%s: must be a string", join(path, k))
	}
	return s, nil
}

// nonEmptyStr is str for a key whose presence selects a node kind: an
// empty string is an error rather than absence.
func nonEmptyStr(m map[string]any, k, path string) (string, error) {
	s, err := str(m, k, path)
	if err == nil && s == "" {
		if _, ok := m[k]; ok {
			return "", memory.Errorf(memory.EINVALID, "%s: required", join(path, k))
		}
	}
	return s, err
}

func array(m map[string]any, k, path string) ([]any, bool, error) {
	v, ok := m[k]
	if !ok {
		return nil, false, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, true, memory.Errorf(memory.EINVALID, "%s: must be an array", join(path, k))
	}
	return a, true, nil
}

func strs(m map[string]any, k, path string) ([]string, error) {
	a, _, err := array(m, k, path)
	if err != nil {
		return nil, err
	}
	var out []string
	for i, v := range a {
		s, ok := v.(string)
		if !ok {
			return nil, memory.Errorf(memory.EINVALID, "%s[%d]: must be a string", join(path, k), i)
		}
		out = append(out, s)
	}
	return out, nil
}

// field is a string member to decode, in a fixed order so that the first
// error reported does not depend on map order.
type field struct {
	k string
	p *string
}

func decodeExpr(v any) (*Expr, error) {
	m, err := object(v, "", "select", "terms", "time", "scope", "relatedTerms", "limit", "askTime")
	if err != nil {
		return nil, err
	}
	x := &Expr{}
	if s, ok := m["select"]; ok {
		if x.Select, err = decodeNode(s, "select", 1); err != nil {
			return nil, err
		}
	}
	if x.Terms, err = strs(m, "terms", ""); err != nil {
		return nil, err
	}
	if t, ok := m["time"]; ok {
		tm, err := object(t, "time", "start", "end", "expression", "relation", "anchor")
		if err != nil {
			return nil, err
		}
		x.Time = &Time{}
		for _, f := range []field{{"start", &x.Time.Start}, {"end", &x.Time.End}, {"expression", &x.Time.Expression}, {"relation", &x.Time.Relation}} {
			if *f.p, err = str(tm, f.k, "time"); err != nil {
				return nil, err
			}
		}
		if x.Time.Anchor, err = strs(tm, "anchor", "time"); err != nil {
			return nil, err
		}
	}
	if s, ok := m["scope"]; ok {
		sm, err := object(s, "scope", scopeKeys...)
		if err != nil {
			return nil, err
		}
		x.Scope = &Scope{}
		for _, f := range []field{{"roomId", &x.Scope.RoomID}, {"sessionId", &x.Scope.SessionID}, {"agentId", &x.Scope.AgentID}} {
			if *f.p, err = str(sm, f.k, "scope"); err != nil {
				return nil, err
			}
		}
		if err := decodeScopeRanges(sm, x.Scope); err != nil {
			return nil, err
		}
	}
	if b, ok := m["relatedTerms"]; ok {
		v, ok := b.(bool)
		if !ok {
			return nil, memory.Errorf(memory.EINVALID, "relatedTerms: must be true or false")
		}
		x.RelatedTerms = &v
	}
	if b, ok := m["askTime"]; ok {
		v, ok := b.(bool)
		if !ok {
			return nil, memory.Errorf(memory.EINVALID, "askTime: must be true or false")
		}
		x.AskTime = v
	}
	if l, ok := m["limit"]; ok {
		n, ok := l.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil || i < 0 || i > MaxLimit {
			return nil, memory.Errorf(memory.EINVALID, "limit: must be an integer from 1 to %d", MaxLimit)
		}
		x.Limit = int(i)
	}
	return x, nil
}

func decodeNode(v any, path string, depth int) (*Node, error) {
	if depth > MaxDepth {
		return nil, memory.Errorf(memory.EINVALID, "%s: deeper than %d levels", path, MaxDepth)
	}
	m, err := object(v, path, "and", "or", "not", "entity", "action", "topic", "term", "property")
	if err != nil {
		return nil, err
	}
	if len(m) != 1 {
		return nil, memory.Errorf(memory.EINVALID, "%s: exactly one of and, or, not, entity, action, topic, term, property", path)
	}
	n := &Node{}
	for k, x := range m {
		kp := join(path, k)
		switch k {
		case "and", "or":
			a, _, err := array(m, k, path)
			if err != nil {
				return nil, err
			}
			if len(a) == 0 {
				return nil, memory.Errorf(memory.EINVALID, "%s: at least one child required", kp)
			}
			if len(a) > MaxLeaves {
				return nil, memory.Errorf(memory.EINVALID, "%s: more than %d children", kp, MaxLeaves)
			}
			cs := make([]Node, len(a))
			for i, c := range a {
				cn, err := decodeNode(c, fmt.Sprintf("%s[%d]", kp, i), depth+1)
				if err != nil {
					return nil, err
				}
				cs[i] = *cn
			}
			if k == "and" {
				n.And = cs
			} else {
				n.Or = cs
			}
		case "not":
			if n.Not, err = decodeNode(x, kp, depth+1); err != nil {
				return nil, err
			}
		case "topic":
			if n.Topic, err = nonEmptyStr(m, k, path); err != nil {
				return nil, err
			}
		case "term":
			if n.Term, err = nonEmptyStr(m, k, path); err != nil {
				return nil, err
			}
		case "entity":
			em, err := object(x, kp, "name", "types", "facets")
			if err != nil {
				return nil, err
			}
			e := &EntityLeaf{}
			if e.Name, err = str(em, "name", kp); err != nil {
				return nil, err
			}
			if e.Types, err = strs(em, "types", kp); err != nil {
				return nil, err
			}
			fs, _, err := array(em, "facets", kp)
			if err != nil {
				return nil, err
			}
			for i, f := range fs {
				fp := fmt.Sprintf("%s.facets[%d]", kp, i)
				fm, err := object(f, fp, "name", "value")
				if err != nil {
					return nil, err
				}
				var ft FacetTerm
				if ft.Name, err = str(fm, "name", fp); err != nil {
					return nil, err
				}
				if ft.Value, err = str(fm, "value", fp); err != nil {
					return nil, err
				}
				if ft.Name == "" {
					return nil, memory.Errorf(memory.EINVALID, "%s.name: required", fp)
				}
				e.Facets = append(e.Facets, ft)
			}
			n.Entity = e
		case "action":
			am, err := object(x, kp, "verbs", "subject", "object", "indirectObject", "tense")
			if err != nil {
				return nil, err
			}
			a := &ActionLeaf{}
			if a.Verbs, err = strs(am, "verbs", kp); err != nil {
				return nil, err
			}
			for _, f := range []field{{"subject", &a.Subject}, {"object", &a.Object}, {"indirectObject", &a.IndirectObject}, {"tense", &a.Tense}} {
				if *f.p, err = str(am, f.k, kp); err != nil {
					return nil, err
				}
			}
			n.Action = a
		case "property":
			pm, err := object(x, kp, "name", "op", "value", "values")
			if err != nil {
				return nil, err
			}
			p := &PropertyLeaf{}
			var op string
			for _, f := range []field{{"name", &p.Name}, {"op", &op}, {"value", &p.Value}} {
				if *f.p, err = str(pm, f.k, kp); err != nil {
					return nil, err
				}
			}
			p.Op = memory.CompareOp(op)
			if p.Values, err = strs(pm, "values", kp); err != nil {
				return nil, err
			}
			n.Property = p
		}
	}
	return n, nil
}
