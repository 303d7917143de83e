package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestOrgProvidedKeys: org A reads the metadata key "venue" as a location
// (its extraction settings), org B does not; the same message becomes a
// place entity in A only, and "what happened in Redmond?" finds it in A
// only, on both backends. Bad settings are a 400 naming the field.
func TestOrgProvidedKeys(t *testing.T) {
	const keyA, keyB = "orgkeys-key-a-0000000", "orgkeys-key-b-0000000"
	onBothBackendsKeys(t, "orgkeys", keyA+"=orga,"+keyB+"=orgb", func(t *testing.T, c *apiClient) {
		for _, tc := range []struct {
			name, field string
			body        map[string]any
		}{
			{"an unknown role", "providedKeys.venue", map[string]any{"providedKeys": map[string]any{"venue": "place"}}},
			{"a key with a space", "providedKeys.the venue", map[string]any{"providedKeys": map[string]any{"the venue": "location"}}},
			{"not a string", "providedKeys", map[string]any{"providedKeys": map[string]any{"venue": 3}}},
		} {
			st, raw := c.do("PUT", "/v1/admin/settings/extraction", keyA, tc.body)
			if st != 400 || !strings.Contains(raw, tc.field) {
				t.Errorf("%s: %d %s, want 400 naming %s", tc.name, st, raw, tc.field)
			}
		}
		out := c.must(200, "PUT", "/v1/admin/settings/extraction", keyA, map[string]any{"providedKeys": map[string]any{"Venue": "location"}})
		if got := out["settings"].(map[string]any)["providedKeys"]; !reflect.DeepEqual(got, map[string]any{"venue": "location"}) {
			t.Errorf("stored provided keys: %v, want venue: location", got)
		}
		ids := map[string]string{}
		for _, key := range []string{keyA, keyB} {
			out := c.must(201, "POST", "/v1/memories", key, map[string]any{"type": "message", "roomId": "events", "entityId": "host",
				"content": map[string]any{"text": "The keynote went well and the demo worked."}, "metadata": map[string]any{"venue": "Redmond"}})
			ids[key] = out["id"].(string)
		}
		place := map[string]any{"query": map[string]any{"select": map[string]any{"entity": map[string]any{"name": "Redmond", "types": []any{"place"}}}}}
		question := map[string]any{"text": "What happened in Redmond?"}
		var got []string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if got = knowledgeSearch(c, keyA, place); slices.Equal(got, []string{ids[keyA]}) {
				break // extraction may lag the write
			}
		}
		if !slices.Equal(got, []string{ids[keyA]}) {
			t.Fatalf("org A, Redmond as a place: got %v, want %s", got, ids[keyA])
		}
		if got := knowledgeSearch(c, keyA, question); !slices.Equal(got, []string{ids[keyA]}) {
			t.Errorf("org A, what happened in Redmond: got %v, want %s", got, ids[keyA])
		}
		// Org B's memory is extracted too (its text's knowledge), but
		// its venue is no place.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if got = knowledgeSearch(c, keyB, map[string]any{"text": "keynote demo"}); slices.Contains(got, ids[keyB]) {
				break
			}
		}
		if !slices.Contains(got, ids[keyB]) {
			t.Fatalf("org B's message never extracted: keynote demo found %v", got)
		}
		if got := knowledgeSearch(c, keyB, place); len(got) != 0 {
			t.Errorf("org B, Redmond as a place: got %v, want none", got)
		}
		if got := knowledgeSearch(c, keyB, question); len(got) != 0 {
			t.Errorf("org B, what happened in Redmond: got %v, want none", got)
		}
	})
}
