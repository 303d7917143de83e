package memorytest

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// compareFacts are the facets of the comparison fixture: memory i holds one
// entity with the facets of compareFacts[i].
var compareFacts = [][]memory.Facet{
	{{Name: "age", Value: "25"}, {Name: "born", Value: "2001-02-03"}, {Name: "city", Value: "Lisbon"}},
	{{Name: "age", Value: "30"}, {Name: "born", Value: "1996-07-01"}, {Name: "city", Value: "Madrid"}},
	{{Name: "age", Quantity: &memory.Quantity{Amount: 31, Units: "years"}}, {Name: "born", Value: "March 5, 1995"}, {Name: "city", Value: "Oslo"}},
	{{Name: "age", Value: "40"}, {Name: "born", Value: "1986-03"}, {Name: "city", Value: "Berlin"}},
	{{Name: "age", Value: "unknown"}, {Name: "born", Value: "long ago"}, {Name: "city", Value: "Zagreb"}},
	{{Name: "age", Value: "0.5"}, {Name: "city", Value: "1,200"}},
}

// TermCompareSuite runs the comparison cases of TermIndex.LookupProperty
// (eq, ne, lt, lte, gt, gte, in over numbers, dates and strings) against
// stores made by open; each subtest gets a fresh, empty store.
func TermCompareSuite(t *testing.T, open func(t *testing.T) TermIndexStore) {
	ctx := context.Background()
	setup := func(t *testing.T) (TermIndexStore, []*memory.Memory) {
		s := open(t)
		ms := make([]*memory.Memory, len(compareFacts))
		for i := range ms {
			ms[i] = New(OrgA, "", memory.TypeMessage, fmt.Sprintf("compare %d", i), Base+int64(i)*1000)
		}
		if _, err := s.Create(ctx, ms); err != nil {
			t.Fatal(err)
		}
		for i, m := range ms {
			k := memory.Knowledge{Entities: []memory.Entity{{Name: fmt.Sprintf("Person %d", i), Types: []string{"person"}, Facets: compareFacts[i]}}}
			if err := s.PutKnowledge(ctx, OrgA, m.ID, m.Attrs(), "test/1", k.Refs(m.ID)); err != nil {
				t.Fatal(err)
			}
		}
		return s, ms
	}
	// got returns the fixture indices of the memories a lookup returns,
	// checking the order (newest first) and the untyped properties.
	got := func(t *testing.T, s TermIndexStore, ms []*memory.Memory, q memory.PropertyLookup) []int {
		t.Helper()
		ps, err := s.LookupProperty(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		idx := map[string]int{}
		for i, m := range ms {
			idx[m.ID] = i
		}
		var out []int
		for i, p := range ps {
			if i > 0 && ps[i-1].Attrs.CreatedAt < p.Attrs.CreatedAt {
				t.Errorf("%+v: postings not newest first: %+v", q, ps)
			}
			if p.Property.Name != q.Name || p.Property.Value == "" || p.Property.Value[0] == '#' {
				t.Errorf("%+v: posting property %+v is not untyped", q, p.Property)
			}
			j, ok := idx[p.Ref.MemoryID]
			if !ok {
				t.Fatalf("%+v: posting of an unknown memory %s", q, p.Ref.MemoryID)
			}
			out = append(out, j)
		}
		sort.Ints(out)
		return out
	}
	cases := []struct {
		name   string
		prop   string
		op     memory.CompareOp
		value  string
		values []string
		want   []int
	}{
		{"number gt", "age", memory.OpGt, "30", nil, []int{2, 3}},
		{"number gte", "age", memory.OpGte, "30", nil, []int{1, 2, 3}},
		{"number lt with fractions", "age", memory.OpLt, "30", nil, []int{0, 5}},
		{"number lte", "age", memory.OpLte, "25", nil, []int{0, 5}},
		{"number eq ignores units", "age", memory.OpEq, "31", nil, []int{2}},
		{"number eq with units", "age", memory.OpEq, "31 years", nil, []int{2}},
		{"number ne keeps numbers only", "age", memory.OpNe, "30", nil, []int{0, 2, 3, 5}},
		{"number in", "age", memory.OpIn, "", []string{"25", "40", "41"}, []int{0, 3}},
		{"number with thousands", "city", memory.OpGt, "1000", nil, []int{5}},
		{"date gt", "born", memory.OpGt, "1996-01-01", nil, []int{0, 1}},
		{"date lt month name", "born", memory.OpLt, "april 1995", nil, []int{2, 3}},
		{"date eq month", "born", memory.OpEq, "1986-03-01", nil, []int{3}},
		{"date gte rfc3339", "born", memory.OpGte, "1996-07-01t00:00:00z", nil, []int{0, 1}},
		{"string lt", "city", memory.OpLt, "m", nil, []int{0, 3}},
		{"string gte", "city", memory.OpGte, "madrid", nil, []int{1, 2, 4}},
		{"string eq", "age", memory.OpEq, "unknown", nil, []int{4}},
		{"string ne", "city", memory.OpNe, "oslo", nil, []int{0, 1, 3, 4}},
		{"string in", "city", memory.OpIn, "", []string{"oslo", "berlin", "rome"}, []int{2, 3}},
		{"mixed in", "age", memory.OpIn, "", []string{"unknown", "30"}, []int{1, 4}},
		{"nothing above", "age", memory.OpGt, "1000", nil, nil},
		{"exact stays untyped", "age", memory.OpExact, "31 years", nil, []int{2}},
		{"exact does not type", "age", memory.OpExact, "31", nil, nil},
	}
	t.Run("operators", func(t *testing.T) {
		s, ms := setup(t)
		for _, c := range cases {
			q := memory.PropertyLookup{Filter: memory.Filter{OrgID: OrgA}, Name: c.prop, Op: c.op, Value: c.value, Values: c.values}
			if g := got(t, s, ms, q); !reflect.DeepEqual(g, c.want) {
				t.Errorf("%s: %s %s %q %q: got memories %v, want %v", c.name, c.prop, c.op, c.value, c.values, g, c.want)
			}
		}
	})
	t.Run("limit and filter", func(t *testing.T) {
		s, ms := setup(t)
		q := memory.PropertyLookup{Filter: memory.Filter{OrgID: OrgA}, Name: "age", Op: memory.OpGte, Value: "0", Limit: 2}
		if g := got(t, s, ms, q); !reflect.DeepEqual(g, []int{3, 5}) {
			t.Errorf("limit 2: got %v, want the two newest of 0, 1, 2, 3, 5", g)
		}
		q = memory.PropertyLookup{Filter: memory.Filter{OrgID: OrgA, Start: ms[1].CreatedAt, End: ms[3].CreatedAt}, Name: "age", Op: memory.OpGt, Value: "0"}
		if g := got(t, s, ms, q); !reflect.DeepEqual(g, []int{1, 2}) {
			t.Errorf("time range: got %v, want [1 2]", g)
		}
		q = memory.PropertyLookup{Filter: memory.Filter{OrgID: OrgB}, Name: "age", Op: memory.OpGt, Value: "0"}
		if g := got(t, s, ms, q); len(g) != 0 {
			t.Errorf("another org sees %v", g)
		}
	})
	t.Run("visibility", func(t *testing.T) {
		s := open(t)
		shared := New(OrgA, "", memory.TypeMessage, "shared age", Base)
		private := New(OrgA, "", memory.TypeMessage, "private age", Base+1000)
		private.Visibility, private.RoomID = memory.VisibilityRoom, "room-1"
		if _, err := s.Create(ctx, []*memory.Memory{shared, private}); err != nil {
			t.Fatal(err)
		}
		for _, m := range []*memory.Memory{shared, private} {
			k := memory.Knowledge{Entities: []memory.Entity{{Name: "Ana", Facets: []memory.Facet{{Name: "age", Value: "50"}}}}}
			if err := s.PutKnowledge(ctx, OrgA, m.ID, m.Attrs(), "test/1", k.Refs(m.ID)); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			audiences []string
			want      []string
		}{
			{nil, []string{private.ID, shared.ID}},
			{[]string{}, []string{shared.ID}},
			{[]string{"room:room-2"}, []string{shared.ID}},
			{[]string{"room:room-1"}, []string{private.ID, shared.ID}},
		} {
			ps, err := s.LookupProperty(ctx, memory.PropertyLookup{Filter: memory.Filter{OrgID: OrgA, Audiences: c.audiences},
				Name: "age", Op: memory.OpGt, Value: "49"})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, p := range ps {
				ids = append(ids, p.Ref.MemoryID)
			}
			sort.Strings(ids)
			want := append([]string(nil), c.want...)
			sort.Strings(want)
			if !reflect.DeepEqual(ids, want) {
				t.Errorf("audiences %q: got %v, want %v", c.audiences, ids, want)
			}
		}
	})
	t.Run("replaced and deleted", func(t *testing.T) {
		s, ms := setup(t)
		m := ms[3]
		k := memory.Knowledge{Entities: []memory.Entity{{Name: "Person 3", Facets: []memory.Facet{{Name: "age", Value: "20"}}}}}
		if err := s.PutKnowledge(ctx, OrgA, m.ID, m.Attrs(), "test/2", k.Refs(m.ID)); err != nil {
			t.Fatal(err)
		}
		q := memory.PropertyLookup{Filter: memory.Filter{OrgID: OrgA}, Name: "age", Op: memory.OpGt, Value: "30"}
		if g := got(t, s, ms, q); !reflect.DeepEqual(g, []int{2}) {
			t.Errorf("after replacing 40 by 20: got %v, want [2]", g)
		}
		if err := s.DeleteKnowledge(ctx, OrgA, []string{ms[2].ID}); err != nil {
			t.Fatal(err)
		}
		if g := got(t, s, ms, q); len(g) != 0 {
			t.Errorf("after deleting: got %v, want none", g)
		}
		q.Op, q.Value = memory.OpLt, "21"
		if g := got(t, s, ms, q); !reflect.DeepEqual(g, []int{3, 5}) {
			t.Errorf("lt 21: got %v, want [3 5]", g)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		s := open(t)
		for _, q := range []memory.PropertyLookup{
			{Name: "age", Op: "between", Value: "3"},
			{Name: "age", Op: memory.OpIn, Value: "3"},
			{Name: "age", Op: memory.OpIn},
			{Name: "age", Op: memory.OpGt, Values: []string{"3"}},
			{Name: "age", Op: memory.OpGt},
			{Name: "age", Op: memory.OpIn, Values: []string{"Not Normalized"}},
		} {
			q.Filter = memory.Filter{OrgID: OrgA}
			if _, err := s.LookupProperty(ctx, q); memory.ErrorCode(err) != memory.EINVALID {
				t.Errorf("%+v: got %v, want EINVALID", q, err)
			}
		}
	})
}
