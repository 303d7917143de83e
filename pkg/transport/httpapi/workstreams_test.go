package httpapi_test

import (
	"strings"
	"testing"
)

// TestWorkstreamReadsAct: a workstream read names whom it serves
// (userId, roomId, worldId) as a memory read does. Bob's block is in the
// admin view of the org key, in a read that serves Bob, and in no read
// that serves Alice; the shared block is in all of them; another org's
// key sees neither; an unknown parameter is a 400 naming it.
func TestWorkstreamReadsAct(t *testing.T) {
	_, h := deployment(t)
	c := newClient(t, h)
	for _, body := range []map[string]any{
		{"id": "bob-notes", "visibility": "user", "userId": "bob"},
		{"id": "room-notes", "visibility": "room", "roomId": "room-bob"},
		{"id": "team-notes"},
	} {
		if r := c.do("POST", "/v1/workstreams", adminKey, body); r.Status != 201 {
			t.Fatalf("create %v: %d %s", body, r.Status, r.Raw)
		}
	}
	if r := c.do("POST", "/v1/workstreams/bob-notes/entries", adminKey, map[string]any{"role": "bob", "text": "locker code walrus-nine"}); r.Status != 201 {
		t.Fatalf("append: %d %s", r.Status, r.Raw)
	}
	for _, tc := range []struct {
		name, key, query string
		list             []string // the ids GET /v1/workstreams lists
		bob              int      // the status of GET /v1/workstreams/bob-notes
	}{
		{name: "admin view", key: adminKey, list: []string{"bob-notes", "room-notes", "team-notes"}, bob: 200},
		{name: "serving bob", key: adminKey, query: "userId=bob", list: []string{"bob-notes", "team-notes"}, bob: 200},
		{name: "serving bob in his room", key: adminKey, query: "userId=bob&roomId=room-bob", list: []string{"bob-notes", "room-notes", "team-notes"}, bob: 200},
		{name: "serving alice", key: adminKey, query: "userId=alice", list: []string{"team-notes"}, bob: 404},
		{name: "serving bob's room only", key: adminKey, query: "roomId=room-bob", list: []string{"room-notes", "team-notes"}, bob: 404},
		{name: "another org", key: otherKey, query: "userId=bob", list: nil, bob: 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := ""
			if tc.query != "" {
				q = "?" + tc.query
			}
			r := c.do("GET", "/v1/workstreams"+q, tc.key, nil)
			if r.Status != 200 {
				t.Fatalf("list: %d %s", r.Status, r.Raw)
			}
			var got []string
			for _, w := range r.Body["workstreams"].([]any) {
				got = append(got, w.(map[string]any)["id"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tc.list, ",") {
				t.Errorf("list: %v, want %v", got, tc.list)
			}
			r = c.do("GET", "/v1/workstreams/bob-notes"+q, tc.key, nil)
			if r.Status != tc.bob {
				t.Fatalf("get bob's block: %d %s, want %d", r.Status, r.Raw, tc.bob)
			}
			if tc.bob == 200 && !strings.Contains(r.Raw, "walrus-nine") {
				t.Errorf("bob's block without its entry: %s", r.Raw)
			}
		})
	}
	for _, path := range []string{"/v1/workstreams?agent=x", "/v1/workstreams/bob-notes?limit=3"} {
		if r := c.do("GET", path, adminKey, nil); r.Status != 400 || !strings.Contains(r.Raw, "is not supported") {
			t.Errorf("GET %s: %d %s, want 400 naming the parameter", path, r.Status, r.Raw)
		}
	}
}
