package knowledge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Provided structure as knowledge (issue 42), after KnowPro's "structured
// data added to a relational table associated with the conversation": the
// chosen metadata keys of a message or a document fragment become refs of
// the memory beside the extracted ones, so that a query joins them with
// extracted actions, entities and topics, and they are deleted with the
// memory and replaced when its metadata changes.
//
// Given metadata {"from": "kevin", "to": ["satya"], "subject": "New AI
// models", "location": "Redmond"}, the memory gets:
//   - the sender and each receiver as person entities, the location as a
//     place entity, the subject as a topic;
//   - an action "send", sender to each receiver, of the subject;
//   - an entity for the message itself, named by its subject (or
//     "message"), typed "message" (a fragment's "document"), with a facet per provided value (from,
//     to, subject, location, and each key of role ProvidedProperty), which
//     the property index keeps typed, so comparisons apply.

// ProvidedRole is what the value of a metadata key is (the vocabulary's,
// which an org's settings name).
type ProvidedRole = memory.ProvidedRole

// The provided roles (memory.ProvidedRoles).
const (
	ProvidedSender   = memory.ProvidedSender
	ProvidedReceiver = memory.ProvidedReceiver
	ProvidedSubject  = memory.ProvidedSubject
	ProvidedLocation = memory.ProvidedLocation
	ProvidedProperty = memory.ProvidedProperty
	ProvidedNone     = memory.ProvidedNone
)

// DefaultProvidedKeys are the metadata keys read as structure when a
// Service sets no ProvidedKeys (keys compare case-insensitively).
var DefaultProvidedKeys = map[string]ProvidedRole{
	"from": ProvidedSender, "sender": ProvidedSender, "author": ProvidedSender,
	"to": ProvidedReceiver, "receiver": ProvidedReceiver, "receivers": ProvidedReceiver,
	"recipient": ProvidedReceiver, "recipients": ProvidedReceiver, "cc": ProvidedReceiver,
	"subject": ProvidedSubject, "title": ProvidedSubject,
	"location": ProvidedLocation, "place": ProvidedLocation,
}

// Limits of provided structure.
const (
	maxProvidedValues = 16  // values of one key
	maxProvidedBytes  = 200 // bytes of one value; longer ones are skipped
)

// providedKeys returns k's keys: ProvidedKeys, or the defaults.
func (k *Service) providedKeys() map[string]ProvidedRole {
	if k.ProvidedKeys != nil {
		return k.ProvidedKeys
	}
	return DefaultProvidedKeys
}

// OrgSettings reads an org's extraction settings (service.SettingsStore,
// which caches them).
type OrgSettings interface {
	ExtractionSettings(ctx context.Context, org string) (memory.ExtractionSettings, int64, error)
}

// providedKeysOf returns the keys read as structure in orgID's memories:
// k's keys with the org's ProvidedKeys setting over them (ProvidedNone
// taking a key away). Errors: the settings store's, wrapped.
func (k *Service) providedKeysOf(ctx context.Context, orgID string) (map[string]ProvidedRole, error) {
	keys := k.providedKeys()
	if k.Settings == nil {
		return keys, nil
	}
	set, _, err := k.Settings.ExtractionSettings(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("knowledge: the provided keys of org %s: %w", orgID, err)
	}
	if len(set.ProvidedKeys) == 0 {
		return keys, nil
	}
	out := maps.Clone(keys)
	if out == nil {
		out = map[string]ProvidedRole{}
	}
	for key, role := range set.ProvidedKeys {
		if role == ProvidedNone {
			delete(out, strings.ToLower(key))
		} else {
			out[strings.ToLower(key)] = role
		}
	}
	return out, nil
}

// providedValues returns the string values of one metadata value: a
// string (a comma-separated list for receivers), a number, a boolean, or
// an array of them.
func providedValues(raw json.RawMessage, list bool) []string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil
	}
	var out []string
	add := func(x any) {
		var s string
		switch x := x.(type) {
		case string:
			s = x
		case json.Number:
			s = x.String()
		case bool:
			s = strconv.FormatBool(x)
		}
		parts := []string{s}
		if list {
			parts = strings.Split(s, ",")
		}
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" && len(p) <= maxProvidedBytes && memory.NormalizeTerm(p) != "" && len(out) < maxProvidedValues {
				out = append(out, p)
			}
		}
	}
	if a, ok := v.([]any); ok {
		for _, x := range a {
			add(x)
		}
	} else {
		add(v)
	}
	return out
}

// Provided returns the knowledge the metadata of m provides under keys
// (metadata key, lower case, to role); empty when it provides none.
func Provided(m *memory.Memory, keys map[string]ProvidedRole) memory.Knowledge {
	var kn memory.Knowledge
	if len(m.Metadata) == 0 || len(keys) == 0 {
		return kn
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(m.Metadata, &obj) != nil {
		return kn
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names)
	var senders, receivers, subjects, places []string
	var facets []memory.Facet
	for _, name := range names {
		role, ok := keys[strings.ToLower(name)]
		if !ok || role == ProvidedNone {
			continue
		}
		vs := providedValues(obj[name], role == ProvidedReceiver)
		facet := string(role)
		switch role {
		case ProvidedSender:
			senders = append(senders, vs...)
		case ProvidedReceiver:
			receivers = append(receivers, vs...)
		case ProvidedSubject:
			subjects = append(subjects, vs...)
		case ProvidedLocation:
			places = append(places, vs...)
		default:
			facet = strings.ToLower(name)
		}
		for _, v := range vs {
			facets = append(facets, memory.Facet{Name: facet, Value: v})
		}
	}
	if len(facets) == 0 {
		return kn
	}
	for _, s := range senders {
		kn.Entities = append(kn.Entities, memory.Entity{Name: s, Types: []string{"person"}})
	}
	for _, r := range receivers {
		kn.Entities = append(kn.Entities, memory.Entity{Name: r, Types: []string{"person"}})
	}
	for _, p := range places {
		kn.Entities = append(kn.Entities, memory.Entity{Name: p, Types: []string{"place"}})
	}
	name := "message"
	if len(subjects) > 0 {
		name = subjects[0]
	}
	kind := "document" // a fragment's
	if m.Type == memory.TypeMessage {
		kind = "message"
	}
	kn.Entities = append(kn.Entities, memory.Entity{Name: name, Types: []string{kind}, Facets: facets})
	kn.Topics = append(kn.Topics, subjects...)
	object := strings.Join(subjects, "; ")
	for _, s := range senders {
		var params []memory.ActionParam
		for _, p := range places {
			params = append(params, memory.ActionParam{Name: "location", Value: p})
		}
		if len(receivers) == 0 {
			kn.Actions = append(kn.Actions, memory.Action{Verbs: []string{"send"}, Tense: memory.TensePast, Subject: s, Object: object, Params: params})
		}
		for _, r := range receivers {
			kn.Actions = append(kn.Actions, memory.Action{Verbs: []string{"send"}, Tense: memory.TensePast, Subject: s, Object: object,
				IndirectObject: r, Params: params})
		}
	}
	return kn
}

// withProvided appends the provided knowledge p to the extracted kn,
// keeping kn's text ranges aligned (p's items cover the whole memory).
func withProvided(kn, p memory.Knowledge) memory.Knowledge {
	if p.Empty() {
		return kn
	}
	grow := func(rs []memory.TextRange, items, more int) []memory.TextRange {
		if len(rs) != items || items == 0 {
			return rs
		}
		return append(rs[:len(rs):len(rs)], make([]memory.TextRange, more)...)
	}
	kn.EntityRanges = grow(kn.EntityRanges, len(kn.Entities), len(p.Entities))
	kn.ActionRanges = grow(kn.ActionRanges, len(kn.Actions), len(p.Actions))
	kn.TopicRanges = grow(kn.TopicRanges, len(kn.Topics), len(p.Topics))
	kn.Entities = append(kn.Entities[:len(kn.Entities):len(kn.Entities)], p.Entities...)
	kn.Actions = append(kn.Actions[:len(kn.Actions):len(kn.Actions)], p.Actions...)
	kn.Topics = append(kn.Topics[:len(kn.Topics):len(kn.Topics)], p.Topics...)
	return kn
}
