package query

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// ageWorld is an org of four people with ages and birth dates.
func ageWorld() *fakeIndex {
	f := newFakeIndex()
	for i, p := range []struct {
		id, name, age, born string
	}{{"p1", "Ana", "25", "1999-04-02"}, {"p2", "Bo", "30", "1994-01-15"}, {"p3", "Cy", "31 years", "1993-03-01"}, {"p4", "Di", "52", "1972-11-30"}} {
		f.put(p.id, memory.Attrs{OrgID: org, Type: memory.TypeMessage, CreatedAt: at(i + 1)}, memory.Knowledge{
			Entities: []memory.Entity{person(p.name, memory.Facet{Name: "age", Value: p.age}, memory.Facet{Name: "born", Value: p.born})}})
	}
	return f
}

func TestPropertyComparisons(t *testing.T) {
	for _, tt := range []struct {
		name, expr string
		want       []string
	}{
		{"gt on an age", `{"select": {"property": {"name": "age", "op": "gt", "value": "30"}}}`, []string{"p3", "p4"}},
		{"lte on an age", `{"select": {"property": {"name": "age", "op": "lte", "value": "30"}}}`, []string{"p1", "p2"}},
		{"after a date", `{"select": {"property": {"name": "born", "op": "gt", "value": "1993-12-31"}}}`, []string{"p1", "p2"}},
		{"before a month", `{"select": {"property": {"name": "born", "op": "lt", "value": "March 1993"}}}`, []string{"p4"}},
		{"in", `{"select": {"property": {"name": "age", "op": "in", "values": ["25", "52"]}}}`, []string{"p1", "p4"}},
		{"ne", `{"select": {"property": {"name": "age", "op": "ne", "value": "30"}}}`, []string{"p1", "p3", "p4"}},
		{"and with a name", `{"select": {"and": [{"entity": {"name": "cy"}}, {"property": {"name": "age", "op": "gte", "value": "31"}}]}}`, []string{"p3"}},
		{"exact stays exact", `{"select": {"property": {"name": "age", "value": "31"}}}`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev := &Evaluator{Index: ageWorld(), Related: NoRelated{}}
			res, err := ev.Evaluate(ctx, memory.Filter{OrgID: org}, mustParse(t, tt.expr))
			if err != nil {
				t.Fatal(err)
			}
			got := ids(res)
			sort.Strings(got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPropertyComparisonErrors(t *testing.T) {
	for _, tt := range []struct{ expr, want string }{
		{`{"select": {"property": {"name": "age", "op": "between", "value": "3"}}}`, "select.property.op"},
		{`{"select": {"property": {"name": "age", "op": "gt"}}}`, "select.property.value: required"},
		{`{"select": {"property": {"name": "age", "op": "in", "value": "3"}}}`, "select.property.value: not with op in"},
		{`{"select": {"property": {"name": "age", "op": "in"}}}`, "select.property.values: required"},
		{`{"select": {"property": {"name": "age", "op": "gt", "value": "3", "values": ["4"]}}}`, "select.property.values: only with op in"},
		{`{"select": {"property": {"name": "age", "op": 3, "value": "3"}}}`, "select.property.op: must be a string"},
	} {
		_, err := Parse([]byte(tt.expr))
		if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(memory.ErrorMessage(err), tt.want) {
			t.Errorf("%s: got %v, want EINVALID naming %q", tt.expr, err, tt.want)
		}
	}
}

func TestTranslateComparisons(t *testing.T) {
	now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		text string
		want []PropertyLeaf
	}{
		{"people older than 30", []PropertyLeaf{{Name: "age", Op: memory.OpGt, Value: "30"}}},
		{"who is younger than 25 years old?", []PropertyLeaf{{Name: "age", Op: memory.OpLt, Value: "25"}}},
		{"friends over 40 years old", []PropertyLeaf{{Name: "age", Op: memory.OpGt, Value: "40"}}},
		{"anyone at least 18 years old", []PropertyLeaf{{Name: "age", Op: memory.OpGte, Value: "18"}}},
		{"jobs with a salary higher than 5000", []PropertyLeaf{{Name: "salary", Op: memory.OpGt, Value: "5000"}}},
		{"a price less than 20", []PropertyLeaf{{Name: "price", Op: memory.OpLt, Value: "20"}}},
		{"the 30 people over there", nil},
	} {
		x, err := Translate(tt.text, now)
		if err != nil {
			t.Fatalf("%q: %v", tt.text, err)
		}
		var got []PropertyLeaf
		var walk func(n *Node)
		walk = func(n *Node) {
			if n == nil {
				return
			}
			if n.Property != nil {
				got = append(got, *n.Property)
			}
			for i := range n.And {
				walk(&n.And[i])
			}
			for i := range n.Or {
				walk(&n.Or[i])
			}
		}
		walk(x.Select)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: comparisons %+v, want %+v (expression %+v)", tt.text, got, tt.want, x)
		}
		if len(tt.want) > 0 && (x.Select == nil || (x.Select.Property == nil && x.Select.And == nil)) {
			t.Errorf("%q: a comparison must restrict the query, got %+v", tt.text, x.Select)
		}
	}
}
