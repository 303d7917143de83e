package knowledge

import (
	"context"
	"encoding/json"
	"maps"
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

// orgSettings is a fake OrgSettings: each org's settings, or err.
type orgSettings struct {
	by  map[string]memory.ExtractionSettings
	err error
}

func (s orgSettings) ExtractionSettings(_ context.Context, org string) (memory.ExtractionSettings, int64, error) {
	return s.by[org], 1, s.err
}

func TestProvidedKeysOf(t *testing.T) {
	settings := orgSettings{by: map[string]memory.ExtractionSettings{
		"a": {ProvidedKeys: map[string]ProvidedRole{"venue": ProvidedLocation, "title": ProvidedNone, "from": ProvidedProperty}},
	}}
	base := map[string]ProvidedRole{"from": ProvidedSender, "title": ProvidedSubject}
	for _, tt := range []struct {
		name string
		k    *Service
		org  string
		want map[string]ProvidedRole
	}{
		{"no settings store: the service's keys", &Service{ProvidedKeys: base}, "a", base},
		{"an org without the setting", &Service{ProvidedKeys: base, Settings: settings}, "b", base},
		{"the org's keys over the service's", &Service{ProvidedKeys: base, Settings: settings}, "a",
			map[string]ProvidedRole{"from": ProvidedProperty, "venue": ProvidedLocation}},
		{"over the defaults", &Service{Settings: settings}, "a", func() map[string]ProvidedRole {
			m := maps.Clone(DefaultProvidedKeys)
			m["from"], m["venue"] = ProvidedProperty, ProvidedLocation
			delete(m, "title")
			return m
		}()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.k.providedKeysOf(context.Background(), tt.org)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v %v, want %v", got, err, tt.want)
			}
		})
	}
	if _, ok := DefaultProvidedKeys["venue"]; ok {
		t.Fatal("an org's key leaked into the defaults")
	}
	failing := &Service{Settings: orgSettings{err: memory.Errorf(memory.EUNAVAILABLE, "store down")}}
	if _, err := failing.providedKeysOf(context.Background(), "a"); memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Errorf("a failing settings store: %v, want its EUNAVAILABLE", err)
	}
}

func TestProvidedNoneKey(t *testing.T) {
	m := &memory.Memory{ID: "m1", Type: memory.TypeMessage, Metadata: json.RawMessage(`{"from": "Kevin", "venue": "Redmond"}`)}
	got := Provided(m, map[string]ProvidedRole{"from": ProvidedNone, "venue": ProvidedLocation})
	if len(got.Actions) != 0 || len(got.Entities) != 2 || got.Entities[0].Name != "Redmond" || got.Entities[0].Types[0] != "place" {
		t.Errorf("a key of role none: %+v, want Redmond as a place and no sender", got)
	}
}
