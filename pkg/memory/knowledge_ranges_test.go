package memory

import "testing"

func TestRefsCarryRanges(t *testing.T) {
	k := Knowledge{
		Entities:     []Entity{{Name: "Ana", Types: []string{"person"}}, {Name: " ", Types: []string{"x"}}, {Name: "Lisbon"}},
		Actions:      []Action{{Verbs: []string{"move"}, Subject: "Ana", IndirectObject: "Lisbon", Negated: true}},
		Topics:       []string{"moving abroad"},
		EntityRanges: []TextRange{{0, 3}, {4, 5}, {15, 21}},
		ActionRanges: []TextRange{{0, 21}},
		TopicRanges:  []TextRange{{1, 2}, {3, 4}}, // wrong length: ignored
	}
	refs := k.Refs("m1")
	want := []struct {
		kind KnowledgeKind
		r    TextRange
	}{{KnowledgeEntity, TextRange{0, 3}}, {KnowledgeEntity, TextRange{15, 21}}, {KnowledgeAction, TextRange{0, 21}}, {KnowledgeTopic, TextRange{}}}
	if len(refs) != len(want) {
		t.Fatalf("%d refs, want %d: %+v", len(refs), len(want), refs)
	}
	for i, w := range want {
		if refs[i].Kind != w.kind || refs[i].Range != w.r || refs[i].Ordinal != i {
			t.Errorf("ref %d: %s %+v ordinal %d, want %s %+v", i, refs[i].Kind, refs[i].Range, refs[i].Ordinal, w.kind, w.r)
		}
	}
	if !refs[2].Action.Negated {
		t.Error("the action lost Negated")
	}
	// Without ranges every ref covers the whole memory.
	for _, r := range (Knowledge{Entities: k.Entities, Topics: k.Topics}).Refs("m1") {
		if r.Range != (TextRange{}) {
			t.Errorf("%s: range %+v without ranges", r, r.Range)
		}
	}
}
