package query

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/agentmem/agentmem/pkg/memory"
)

// fakeIndex is an in-memory term index with the semantics of
// memory.TermIndex's lookups: postings from memory.IndexedTerms and
// IndexedProperties, memory.Filter.Match, newest first, a limit per term,
// and the lookups' own validation (Normalize).
type fakeIndex struct {
	mu      sync.Mutex
	attrs   map[string]memory.Attrs
	refs    map[memory.RefKey]memory.SemanticRef
	lookups []memory.TermLookup
	props   []memory.PropertyLookup
	loads   int
	fail    error
}

func newFakeIndex() *fakeIndex {
	return &fakeIndex{attrs: map[string]memory.Attrs{}, refs: map[memory.RefKey]memory.SemanticRef{}}
}

// put indexes the knowledge of one memory.
func (f *fakeIndex) put(id string, a memory.Attrs, k memory.Knowledge) {
	f.attrs[id] = a
	for _, r := range k.Refs(id) {
		f.refs[r.Key()] = r
	}
}

// sortedRefs are the refs newest first, as the postings are ordered.
func (f *fakeIndex) sortedRefs() []memory.SemanticRef {
	var rs []memory.SemanticRef
	for _, r := range f.refs {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if ca, cb := f.attrs[a.MemoryID].CreatedAt, f.attrs[b.MemoryID].CreatedAt; ca != cb {
			return ca > cb
		}
		if a.MemoryID != b.MemoryID {
			return a.MemoryID > b.MemoryID
		}
		return a.Ordinal > b.Ordinal
	})
	return rs
}

func (f *fakeIndex) LookupTerms(_ context.Context, q memory.TermLookup) ([]memory.TermPosting, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups = append(f.lookups, q)
	if f.fail != nil {
		return nil, f.fail
	}
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	roles := map[string]bool{}
	for _, r := range q.Roles {
		roles[r] = true
	}
	var out []memory.TermPosting
	for _, t := range q.Terms {
		n := 0
		for _, r := range f.sortedRefs() {
			a := f.attrs[r.MemoryID]
			if !q.Filter.Match(a) {
				continue
			}
			ts := memory.IndexedTerms(r)
			for i := len(ts) - 1; i >= 0; i-- { // role descending
				rt := ts[i]
				if rt.Term == t && (len(roles) == 0 || roles[rt.Role]) && n < q.Limit {
					out = append(out, memory.TermPosting{Term: t, Role: rt.Role, Ref: r.Key(), Kind: r.Kind, Attrs: a})
					n++
				}
			}
		}
	}
	return out, nil
}

func (f *fakeIndex) LookupProperty(_ context.Context, q memory.PropertyLookup) ([]memory.PropertyPosting, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.props = append(f.props, q)
	if f.fail != nil {
		return nil, f.fail
	}
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	var out []memory.PropertyPosting
	for _, r := range f.sortedRefs() {
		a := f.attrs[r.MemoryID]
		if !q.Filter.Match(a) || len(out) >= q.Limit {
			continue
		}
		for _, p := range memory.IndexedProperties(r) {
			if p.Name == q.Name && fakeCompare(q, p.Value) {
				out = append(out, memory.PropertyPosting{Property: p, Ref: r.Key(), Kind: r.Kind, Attrs: a})
			}
		}
	}
	return out, nil
}

func (f *fakeIndex) Refs(_ context.Context, orgID string, keys []memory.RefKey) (map[memory.RefKey]memory.SemanticRef, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads++
	if len(keys) > memory.MaxRefKeys {
		return nil, memory.Errorf(memory.EINVALID, "keys: more than %d", memory.MaxRefKeys)
	}
	out := map[memory.RefKey]memory.SemanticRef{}
	for _, k := range keys {
		if r, ok := f.refs[k]; ok && f.attrs[k.MemoryID].OrgID == orgID {
			out[k] = r
		}
	}
	return out, nil
}

// lookupsOnly hides the fake's Refs: an Index that cannot load refs.
type lookupsOnly struct{ Index }

// fakeCompare is the reference semantics of a property comparison: the
// value and the operand are of one type (memory.ValueTypeOf) and their keys
// compare as the operator says.
func fakeCompare(q memory.PropertyLookup, v string) bool {
	if q.Op == memory.OpExact {
		return v == q.Value
	}
	vt, vk := memory.ValueTypeOf(v)
	cmp := func(operand string) (int, bool) {
		ot, ok := memory.ValueTypeOf(operand)
		return strings.Compare(vk, ok), vt == ot
	}
	if q.Op == memory.OpIn {
		for _, o := range q.Values {
			if c, same := cmp(o); same && c == 0 {
				return true
			}
		}
		return false
	}
	c, same := cmp(q.Value)
	if !same {
		return false
	}
	switch q.Op {
	case memory.OpEq:
		return c == 0
	case memory.OpNe:
		return c != 0
	case memory.OpLt:
		return c < 0
	case memory.OpLte:
		return c <= 0
	case memory.OpGt:
		return c > 0
	}
	return c >= 0
}
