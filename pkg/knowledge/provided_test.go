package knowledge

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

func TestProvided(t *testing.T) {
	person := func(n string) memory.Entity { return memory.Entity{Name: n, Types: []string{"person"}} }
	send := func(from, to, obj string, params ...memory.ActionParam) memory.Action {
		return memory.Action{Verbs: []string{"send"}, Tense: memory.TensePast, Subject: from, Object: obj, IndirectObject: to, Params: params}
	}
	keys := map[string]ProvidedRole{"from": ProvidedSender, "to": ProvidedReceiver, "subject": ProvidedSubject,
		"location": ProvidedLocation, "priority": ProvidedProperty}
	for _, tt := range []struct {
		name, meta string
		keys       map[string]ProvidedRole
		want       memory.Knowledge
	}{
		{"an e-mail", `{"from": "Kevin", "to": "Satya", "subject": "New AI models", "location": "Redmond", "other": "x"}`, keys, memory.Knowledge{
			Entities: []memory.Entity{person("Kevin"), person("Satya"), {Name: "Redmond", Types: []string{"place"}},
				{Name: "New AI models", Types: []string{"message"}, Facets: []memory.Facet{{Name: "from", Value: "Kevin"},
					{Name: "location", Value: "Redmond"}, {Name: "subject", Value: "New AI models"}, {Name: "to", Value: "Satya"}}}},
			Actions: []memory.Action{send("Kevin", "Satya", "New AI models", memory.ActionParam{Name: "location", Value: "Redmond"})},
			Topics:  []string{"New AI models"}}},
		{"receivers as a list and a comma list, keys in any case, a number", `{"From": "ana", "TO": ["bo", "cy, di"], "priority": 3}`, keys, memory.Knowledge{
			Entities: []memory.Entity{person("ana"), person("bo"), person("cy"), person("di"),
				{Name: "message", Types: []string{"message"}, Facets: []memory.Facet{{Name: "from", Value: "ana"},
					{Name: "to", Value: "bo"}, {Name: "to", Value: "cy"}, {Name: "to", Value: "di"}, {Name: "priority", Value: "3"}}}},
			Actions: []memory.Action{send("ana", "bo", ""), send("ana", "cy", ""), send("ana", "di", "")}}},
		{"a location alone", `{"location": "Lisbon"}`, keys, memory.Knowledge{
			Entities: []memory.Entity{{Name: "Lisbon", Types: []string{"place"}},
				{Name: "message", Types: []string{"message"}, Facets: []memory.Facet{{Name: "location", Value: "Lisbon"}}}}}},
		{"no chosen key", `{"other": "x", "tags": ["a"]}`, keys, memory.Knowledge{}},
		{"empty and punctuation values", `{"from": "", "to": ["...", " "], "subject": null}`, keys, memory.Knowledge{}},
		{"no keys configured", `{"from": "Kevin"}`, map[string]ProvidedRole{}, memory.Knowledge{}},
		{"not an object", `["from"]`, keys, memory.Knowledge{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &memory.Memory{ID: "m1", Type: memory.TypeMessage, Metadata: json.RawMessage(tt.meta)}
			if got := Provided(m, tt.keys); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestProvidedFragment(t *testing.T) {
	m := &memory.Memory{ID: "f1", Type: memory.TypeFragment, Metadata: json.RawMessage(`{"title": "Leave policy"}`)}
	got := Provided(m, DefaultProvidedKeys)
	if len(got.Entities) != 1 || got.Entities[0].Name != "Leave policy" || got.Entities[0].Types[0] != "document" ||
		len(got.Topics) != 1 || len(got.Actions) != 0 {
		t.Errorf("a fragment's title: %+v", got)
	}
}

func TestWithProvidedKeepsRanges(t *testing.T) {
	kn := memory.Knowledge{Entities: []memory.Entity{{Name: "Ana"}}, EntityRanges: []memory.TextRange{{Start: 0, End: 3}},
		Topics: []string{"jazz"}, TopicRanges: []memory.TextRange{{Start: 4, End: 8}}}
	p := memory.Knowledge{Entities: []memory.Entity{{Name: "Lisbon"}}, Topics: []string{"trip"}}
	got := withProvided(kn, p)
	refs := got.Refs("m1")
	if len(refs) != 4 || refs[0].Range != (memory.TextRange{Start: 0, End: 3}) || refs[1].Entity.Name != "Lisbon" ||
		refs[1].Range != (memory.TextRange{}) || refs[2].Range != (memory.TextRange{Start: 4, End: 8}) || refs[3].Topic != "trip" {
		t.Errorf("refs %+v", refs)
	}
	if len(kn.Entities) != 1 {
		t.Errorf("withProvided changed its argument: %+v", kn)
	}
}
