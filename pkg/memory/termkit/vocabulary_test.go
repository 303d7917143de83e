package termkit

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestVocabularyScopes checks that the counter scopes of a filter hold
// exactly the live memories Filter.Match selects, for every owner.
func TestVocabularyScopes(t *testing.T) {
	filters := []memory.Filter{
		{OrgID: "o"}, {OrgID: "o", Viewer: "a1"}, {OrgID: "o", AgentID: memory.OrgScope}, {OrgID: "o", AgentID: "a2"},
		{OrgID: "o", Viewer: "a1", AgentID: "a1"}, {OrgID: "o", Viewer: "a1", AgentID: "a2"},
		{OrgID: "o", Viewer: "a1", AgentID: memory.OrgScope}, {OrgID: "o", IncludeArchived: true},
	}
	for _, f := range filters {
		scopes, ok := VocabularyScopes(f)
		if !ok {
			t.Fatalf("%+v: the counters should answer it", f)
		}
		for _, owner := range []string{"", "a1", "a2"} {
			a := memory.Attrs{OrgID: "o", AgentID: owner}
			counted := false
			for _, s := range scopes {
				counted = counted || s == ScopeAll || s == ScopeOf(owner)
			}
			if counted != f.Match(a) {
				t.Fatalf("%+v, owner %q: counted %v, Match %v (scopes %q)", f, owner, counted, f.Match(a), scopes)
			}
		}
	}
	for _, f := range []memory.Filter{
		{OrgID: "o", RoomID: "r"}, {OrgID: "o", Types: []memory.Type{memory.TypeFact}}, {OrgID: "o", Start: 1},
		{OrgID: "o", End: 9}, {OrgID: "o", SessionID: "s"}, {OrgID: "o", Kinds: []memory.Kind{memory.KindFact}},
		{OrgID: "o", Durability: memory.DurabilityCore}, {OrgID: "o", EntityID: "e"}, {OrgID: "o", DocumentID: "d"},
	} {
		if _, ok := VocabularyScopes(f); ok {
			t.Fatalf("%+v: the counters cannot answer it", f)
		}
	}
}

func TestVocabularyDelta(t *testing.T) {
	refs := memory.Knowledge{Entities: []memory.Entity{{Name: "Jazz", Types: []string{"music"}}}, Topics: []string{"jazz"}}.Refs("m")
	d := VocabularyDelta{}
	d.AddVocabulary(memory.Attrs{AgentID: "a"}, refs, +1)
	if got := d[ScopedTerm{ScopeAll, "jazz"}]; got != (TermDelta{Live: 2}) {
		t.Fatalf("jazz, in two refs: %+v", got)
	}
	if got := d[ScopedTerm{ScopeOf("a"), "music"}]; got != (TermDelta{Live: 1}) {
		t.Fatalf("music in agent a's scope: %+v", got)
	}
	// Archiving moves the counts; the same refs again cancel out.
	d.AddVocabulary(memory.Attrs{AgentID: "a"}, refs, -1)
	d.AddVocabulary(memory.Attrs{AgentID: "a", Archived: true}, refs, +1)
	if got := d[ScopedTerm{ScopeAll, "jazz"}]; got != (TermDelta{Archived: 2}) {
		t.Fatalf("jazz after archiving: %+v", got)
	}
	d.AddVocabulary(memory.Attrs{AgentID: "a", Archived: true}, refs, -1)
	if len(d) != 0 {
		t.Fatalf("adding and removing the same refs leaves %v", d)
	}
}
