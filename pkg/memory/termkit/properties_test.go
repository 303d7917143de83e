package termkit

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

func TestRangesAndUntyped(t *testing.T) {
	q := memory.PropertyLookup{Name: "age", Op: memory.OpNe, Value: "30"}
	rs := Ranges(q)
	if len(rs) != 2 || rs[0].Name != "#n:age" || rs[0].Lo != "" || rs[1].Hi != "" || rs[0].Hi >= rs[1].Lo {
		t.Errorf("ne: %+v", rs)
	}
	if rs := Ranges(memory.PropertyLookup{Name: "age", Op: memory.OpIn, Values: []string{"30", "30.0", "x"}}); len(rs) != 2 {
		t.Errorf("in with a duplicate operand: %+v", rs)
	}
	if rs := Ranges(memory.PropertyLookup{Name: "age", Value: "30"}); rs != nil {
		t.Errorf("exact: %+v", rs)
	}
	r := memory.SemanticRef{Kind: memory.KnowledgeEntity, Entity: &memory.Entity{Name: "Ana", Facets: []memory.Facet{{Name: "age", Value: "30 years"}, {Name: "city", Value: "Oslo"}}}}
	for _, p := range TypedProperties(r) {
		u := UntypedProperty(p)
		if u != (memory.Property{Name: "age", Value: "30 years"}) && u != (memory.Property{Name: "city", Value: "oslo"}) {
			t.Errorf("typed %+v untyped to %+v", p, u)
		}
	}
	if got := len(StoredProperties(r)); got != 4 {
		t.Errorf("stored properties: %d, want 4 (two plain, two typed)", got)
	}
}
