package memory

import (
	"strings"
	"testing"
)

// TestVocabularyScopes checks that the counter scopes of a filter hold
// exactly the live memories Filter.Match selects, for every owner.
func TestVocabularyScopes(t *testing.T) {
	filters := []Filter{
		{OrgID: "o"}, {OrgID: "o", Viewer: "a1"}, {OrgID: "o", AgentID: OrgScope}, {OrgID: "o", AgentID: "a2"},
		{OrgID: "o", Viewer: "a1", AgentID: "a1"}, {OrgID: "o", Viewer: "a1", AgentID: "a2"},
		{OrgID: "o", Viewer: "a1", AgentID: OrgScope}, {OrgID: "o", IncludeArchived: true},
	}
	for _, f := range filters {
		scopes, ok := VocabularyScopes(f)
		if !ok {
			t.Fatalf("%+v: the counters should answer it", f)
		}
		for _, owner := range []string{"", "a1", "a2"} {
			a := Attrs{OrgID: "o", AgentID: owner}
			counted := false
			for _, s := range scopes {
				counted = counted || s == ScopeAll || s == ScopeOf(owner)
			}
			if counted != f.Match(a) {
				t.Fatalf("%+v, owner %q: counted %v, Match %v (scopes %q)", f, owner, counted, f.Match(a), scopes)
			}
		}
	}
	for _, f := range []Filter{
		{OrgID: "o", RoomID: "r"}, {OrgID: "o", Types: []Type{TypeFact}}, {OrgID: "o", Start: 1},
		{OrgID: "o", End: 9}, {OrgID: "o", SessionID: "s"}, {OrgID: "o", Kinds: []Kind{KindFact}},
		{OrgID: "o", Durability: DurabilityCore}, {OrgID: "o", EntityID: "e"}, {OrgID: "o", DocumentID: "d"},
	} {
		if _, ok := VocabularyScopes(f); ok {
			t.Fatalf("%+v: the counters cannot answer it", f)
		}
	}
}

func TestIndexableTerm(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"ana", true}, {"東京", true}, {"zoë", true}, {"", false}, {"a\x01b", false}, {"tab\there", false},
		{"\xff", false}, {strings.Repeat("a", MaxTermBytes), true}, {strings.Repeat("a", MaxTermBytes+1), false},
	} {
		if got := IndexableTerm(c.s); got != c.ok {
			t.Errorf("IndexableTerm(%q) = %v, want %v", c.s, got, c.ok)
		}
	}
}

func TestVocabularyDelta(t *testing.T) {
	refs := Knowledge{Entities: []Entity{{Name: "Jazz", Types: []string{"music"}}}, Topics: []string{"jazz"}}.Refs("m")
	d := VocabularyDelta{}
	d.AddVocabulary(Attrs{AgentID: "a"}, refs, +1)
	if got := d[ScopedTerm{ScopeAll, "jazz"}]; got != (TermDelta{Live: 2}) {
		t.Fatalf("jazz, in two refs: %+v", got)
	}
	if got := d[ScopedTerm{ScopeOf("a"), "music"}]; got != (TermDelta{Live: 1}) {
		t.Fatalf("music in agent a's scope: %+v", got)
	}
	// Archiving moves the counts; the same refs again cancel out.
	d.AddVocabulary(Attrs{AgentID: "a"}, refs, -1)
	d.AddVocabulary(Attrs{AgentID: "a", Archived: true}, refs, +1)
	if got := d[ScopedTerm{ScopeAll, "jazz"}]; got != (TermDelta{Archived: 2}) {
		t.Fatalf("jazz after archiving: %+v", got)
	}
	d.AddVocabulary(Attrs{AgentID: "a", Archived: true}, refs, -1)
	if len(d) != 0 {
		t.Fatalf("adding and removing the same refs leaves %v", d)
	}
}

func TestValidRefs(t *testing.T) {
	good := Knowledge{Entities: []Entity{{Name: "Ana"}}, Topics: []string{"x"}}.Refs("m")
	if refs, err := ValidRefs("m", good); err != nil || len(refs) != 2 {
		t.Fatalf("good refs: %v %v", refs, err)
	}
	many := make([]SemanticRef, MaxRefsPerMemory+5)
	for i := range many {
		many[i] = SemanticRef{Ordinal: i, Kind: KnowledgeTag, Topic: "t"}
	}
	if refs, err := ValidRefs("m", many); err != nil || len(refs) != MaxRefsPerMemory || refs[0].MemoryID != "m" {
		t.Fatalf("too many refs are cut: %d %v", len(refs), err)
	}
	for name, bad := range map[string][]SemanticRef{
		"ordinal":      {{Ordinal: 1, Kind: KnowledgeTag, Topic: "t"}},
		"memory":       {{MemoryID: "n", Kind: KnowledgeTag, Topic: "t"}},
		"kind":         {{Kind: "opinion", Topic: "t"}},
		"two payloads": {{Kind: KnowledgeTopic, Topic: "t", Entity: &Entity{Name: "x"}}},
		"no payload":   {{Kind: KnowledgeAction}},
		"range":        {{Kind: KnowledgeTag, Topic: "t", Range: TextRange{Start: -1}}},
	} {
		if _, err := ValidRefs("m", bad); ErrorCode(err) != EINVALID {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}
