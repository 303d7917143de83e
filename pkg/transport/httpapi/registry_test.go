package httpapi_test

import (
	"slices"
	"testing"
)

// itemIDs lists the "id" of each object of the array field of a response.
func itemIDs(r response, field string) []string {
	var out []string
	items, _ := r.Body[field].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		id, _ := m["id"].(string)
		out = append(out, id)
	}
	return out
}

// wantIDs checks the ids of a list response.
func wantIDs(field string, want ...string) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		t.Helper()
		if got := itemIDs(r, field); !slices.Equal(got, want) {
			t.Fatalf("%s: %v, want %v", field, got, want)
		}
	}
}

// wantParticipants checks a participants response.
func wantParticipants(want ...string) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		t.Helper()
		var got []string
		list, _ := r.Body["participants"].([]any)
		for _, p := range list {
			got = append(got, p.(string))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("participants: %v, want %v", got, want)
		}
	}
}

// TestRegistryLifecycle: entities, worlds and rooms through the real
// handler: create, conditional reads and writes, pages, the world's
// rooms, participants, and the deletes' order (a world goes after its
// rooms).
func TestRegistryLifecycle(t *testing.T) {
	c := newClient(t, newServer(t))
	none := ""
	run(t, c, &none, []step{
		{name: "create an entity", method: "POST", path: "/v1/entities", key: keyA, body: map[string]any{"id": "ana", "names": []string{"Ana"}},
			status: 201, check: header("Location", "/v1/entities/ana")},
		{name: "create an entity with an id made", method: "POST", path: "/v1/entities", key: keyA, body: map[string]any{"names": []string{"Bo"}}, status: 201,
			check: func(t *testing.T, r response) {
				if id, _ := r.Body["id"].(string); len(id) != 32 {
					t.Fatalf("id %q", id)
				}
			}},
		{name: "create zed", method: "POST", path: "/v1/entities", key: keyA, body: map[string]any{"id": "zed", "names": []string{"Zed"}}, status: 201},
		{name: "create a taken id", method: "POST", path: "/v1/entities", key: keyA, body: map[string]any{"id": "ana", "names": []string{"Other"}}, status: 409, code: "conflict"},
		{name: "a blank name", method: "POST", path: "/v1/entities", key: keyA, body: map[string]any{"id": "x", "names": []string{" "}}, status: 400, code: "invalid",
			check: func(t *testing.T, r response) {
				if m := errMessage(r); m != "names[0]: must not be blank" {
					t.Fatalf("message %q", m)
				}
			}},
		{name: "metadata that is not an object", method: "POST", path: "/v1/entities", key: keyA, body: map[string]any{"id": "x", "names": []string{"X"}, "metadata": []int{1}}, status: 400, code: "invalid"},
		{name: "get sends the ETag", method: "GET", path: "/v1/entities/ana", key: keyA, status: 200, check: header("ETag", `"1"`)},
		{name: "get while unchanged", method: "GET", path: "/v1/entities/ana", key: keyA, headers: []string{"If-None-Match", `"1"`}, status: 304},
		{name: "patch at the version", method: "PATCH", path: "/v1/entities/ana", key: keyA, body: map[string]any{"names": []string{"Ana", "Ana Lima"}},
			headers: []string{"If-Match", `"1"`}, status: 200, check: header("ETag", `"2"`)},
		{name: "patch at a stale version", method: "PATCH", path: "/v1/entities/ana", key: keyA, body: map[string]any{"names": []string{"Stale"}},
			headers: []string{"If-Match", `"1"`}, status: 412, code: "precondition_failed"},
		{name: "patch an unknown field", method: "PATCH", path: "/v1/entities/ana", key: keyA, body: map[string]any{"nickname": "A"}, status: 400, code: "invalid"},
		{name: "delete at a stale version", method: "DELETE", path: "/v1/entities/ana", key: keyA, headers: []string{"If-Match", `"1"`}, status: 412, code: "precondition_failed"},
		{name: "list one per page", method: "GET", path: "/v1/entities?limit=1", key: keyA, status: 200, check: func(t *testing.T, r response) {
			if len(itemIDs(r, "entities")) != 1 || r.Body["nextCursor"] == "" {
				t.Fatalf("first page: %s", r.Raw)
			}
		}},
		{name: "list after ana", method: "GET", path: "/v1/entities?cursor=ana", key: keyA, status: 200, check: func(t *testing.T, r response) {
			if got := itemIDs(r, "entities"); !slices.Equal(got, []string{"zed"}) || r.Body["nextCursor"] != "" {
				t.Fatalf("after ana: %s", r.Raw)
			}
		}},
		{name: "delete", method: "DELETE", path: "/v1/entities/ana", key: keyA, headers: []string{"If-Match", `"2"`}, status: 204},
		{name: "get after delete", method: "GET", path: "/v1/entities/ana", key: keyA, status: 404, code: "not_found"},

		{name: "create a world", method: "POST", path: "/v1/worlds", key: keyA, body: map[string]any{"id": "w1", "name": "Guild"}, status: 201},
		{name: "create another world", method: "POST", path: "/v1/worlds", key: keyA, body: map[string]any{"id": "w2"}, status: 201},
		{name: "a room in w1", method: "POST", path: "/v1/rooms", key: keyA, body: map[string]any{"id": "r1", "worldId": "w1", "participants": []string{"ana", "bo", "ana"}}, status: 201,
			check: wantParticipants("ana", "bo")},
		{name: "a room in w2", method: "POST", path: "/v1/rooms", key: keyA, body: map[string]any{"id": "r2", "worldId": "w2"}, status: 201},
		{name: "a room in no world", method: "POST", path: "/v1/rooms", key: keyA, body: map[string]any{"id": "r3"}, status: 201},
		{name: "a room in an unknown world", method: "POST", path: "/v1/rooms", key: keyA, body: map[string]any{"id": "r4", "worldId": "w9"}, status: 400, code: "invalid"},
		{name: "rooms of w1", method: "GET", path: "/v1/rooms?worldId=w1", key: keyA, status: 200, check: wantIDs("rooms", "r1")},
		{name: "all rooms", method: "GET", path: "/v1/rooms", key: keyA, status: 200, check: wantIDs("rooms", "r1", "r2", "r3")},
		{name: "rooms by an unsupported filter", method: "GET", path: "/v1/rooms?entityId=ana", key: keyA, status: 400, code: "invalid"},
		{name: "move r2 to w1", method: "PATCH", path: "/v1/rooms/r2", key: keyA, body: map[string]any{"worldId": "w1"}, status: 200},
		{name: "rooms of w1 after the move", method: "GET", path: "/v1/rooms?worldId=w1", key: keyA, status: 200, check: wantIDs("rooms", "r1", "r2")},
		{name: "delete the emptied w2", method: "DELETE", path: "/v1/worlds/w2", key: keyA, status: 204},
		{name: "delete w1 with its rooms", method: "DELETE", path: "/v1/worlds/w1", key: keyA, status: 409, code: "conflict"},

		{name: "add a participant", method: "POST", path: "/v1/rooms/r1/participants", key: keyA, body: map[string]any{"entityId": "cy"}, status: 200,
			check: wantParticipants("ana", "bo", "cy")},
		{name: "add it again", method: "POST", path: "/v1/rooms/r1/participants", key: keyA, body: map[string]any{"entityId": "cy"}, status: 200,
			check: header("ETag", `"2"`)},
		{name: "remove a participant", method: "DELETE", path: "/v1/rooms/r1/participants/bo", key: keyA, status: 200, check: wantParticipants("ana", "cy")},
		{name: "remove one that is not there", method: "DELETE", path: "/v1/rooms/r1/participants/bo", key: keyA, status: 404, code: "not_found"},
		{name: "the participants", method: "GET", path: "/v1/rooms/r1/participants", key: keyA, status: 200, check: wantParticipants("ana", "cy")},
		{name: "participants of an unknown room", method: "GET", path: "/v1/rooms/r9/participants", key: keyA, status: 404, code: "not_found"},
		{name: "delete r1", method: "DELETE", path: "/v1/rooms/r1", key: keyA, status: 204},
		{name: "delete r2", method: "DELETE", path: "/v1/rooms/r2", key: keyA, status: 204},
		{name: "delete w1, now empty", method: "DELETE", path: "/v1/worlds/w1", key: keyA, status: 204},
	})
}

// TestRegistryIsolation: org against org and agent against agent on every
// registry path; the org is never read from a body.
func TestRegistryIsolation(t *testing.T) {
	c := newClient(t, newServer(t))
	none := ""
	run(t, c, &none, []step{
		{name: "org A's world", method: "POST", path: "/v1/worlds", key: keyA, body: map[string]any{"id": "w"}, status: 201},
		{name: "org A's room", method: "POST", path: "/v1/rooms", key: keyA, body: map[string]any{"id": "r-org", "worldId": "w", "participants": []string{"ana"}}, status: 201},
		{name: "agent x's room", method: "POST", path: "/v1/rooms", key: keyX, body: map[string]any{"id": "r-x", "worldId": "w"}, status: 201,
			check: func(t *testing.T, r response) {
				if r.Body["agentId"] != "x" {
					t.Fatalf("agent x's room belongs to %v", r.Body["agentId"])
				}
			}},
		{name: "agent y's entity", method: "POST", path: "/v1/entities", key: keyY, body: map[string]any{"id": "e-y", "names": []string{"Y"}}, status: 201},
		{name: "an org named in a body", method: "POST", path: "/v1/entities", key: keyB, body: map[string]any{"id": "e", "names": []string{"E"}, "orgId": "org-a"}, status: 400, code: "invalid"},
		{name: "agent x creates an org-wide entity", method: "POST", path: "/v1/entities", key: keyX, body: map[string]any{"id": "e", "names": []string{"E"}, "scope": "org"}, status: 403, code: "forbidden"},
		{name: "agent x creates agent y's entity", method: "POST", path: "/v1/entities", key: keyX, body: map[string]any{"id": "e", "names": []string{"E"}, "agentId": "y"}, status: 403, code: "forbidden"},
	})
	// Org B sees nothing of org A's, on any path.
	for _, p := range []struct{ method, path string }{
		{"GET", "/v1/worlds/w"}, {"PATCH", "/v1/worlds/w"}, {"DELETE", "/v1/worlds/w"},
		{"GET", "/v1/rooms/r-org"}, {"PATCH", "/v1/rooms/r-org"}, {"DELETE", "/v1/rooms/r-org"},
		{"GET", "/v1/rooms/r-org/participants"}, {"POST", "/v1/rooms/r-org/participants"}, {"DELETE", "/v1/rooms/r-org/participants/ana"},
		{"GET", "/v1/entities/e-y"}, {"DELETE", "/v1/entities/e-y"},
	} {
		var body any
		switch p.method {
		case "PATCH":
			body = map[string]any{"name": "taken over"}
		case "POST":
			body = map[string]any{"entityId": "intruder"}
		}
		if r := c.do(p.method, p.path, keyB, body); r.Status != 404 {
			t.Errorf("org B: %s %s: %d %s, want 404", p.method, p.path, r.Status, r.Raw)
		}
	}
	for _, path := range []string{"/v1/worlds", "/v1/rooms", "/v1/rooms?worldId=w", "/v1/entities"} {
		r := c.do("GET", path, keyB, nil)
		if r.Status != 200 || r.Raw == "" {
			t.Fatalf("org B lists %s: %d %s", path, r.Status, r.Raw)
		}
		for _, field := range []string{"worlds", "rooms", "entities"} {
			if got := itemIDs(r, field); len(got) != 0 {
				t.Errorf("org B lists %s: %v", path, got)
			}
		}
	}
	// Agent y does not see agent x's room, nor x y's entity; both see the org's.
	run(t, c, &none, []step{
		{name: "y lists the world's rooms", method: "GET", path: "/v1/rooms?worldId=w", key: keyY, status: 200, check: wantIDs("rooms", "r-org")},
		{name: "x lists the world's rooms", method: "GET", path: "/v1/rooms?worldId=w", key: keyX, status: 200, check: wantIDs("rooms", "r-org", "r-x")},
		{name: "the org lists every room", method: "GET", path: "/v1/rooms", key: keyA, status: 200, check: wantIDs("rooms", "r-org", "r-x")},
		{name: "y gets x's room", method: "GET", path: "/v1/rooms/r-x", key: keyY, status: 404, code: "not_found"},
		{name: "y joins x's room", method: "POST", path: "/v1/rooms/r-x/participants", key: keyY, body: map[string]any{"entityId": "y-user"}, status: 404, code: "not_found"},
		{name: "y deletes x's room", method: "DELETE", path: "/v1/rooms/r-x", key: keyY, status: 404, code: "not_found"},
		{name: "x gets y's entity", method: "GET", path: "/v1/entities/e-y", key: keyX, status: 404, code: "not_found"},
		{name: "x lists entities", method: "GET", path: "/v1/entities", key: keyX, status: 200, check: wantIDs("entities")},
		{name: "x renames the org's room", method: "PATCH", path: "/v1/rooms/r-org", key: keyX, body: map[string]any{"name": "mine"}, status: 403, code: "forbidden"},
		{name: "x adds to the org's room", method: "POST", path: "/v1/rooms/r-org/participants", key: keyX, body: map[string]any{"entityId": "bo"}, status: 403, code: "forbidden"},
		{name: "x removes from the org's room", method: "DELETE", path: "/v1/rooms/r-org/participants/ana", key: keyX, status: 403, code: "forbidden"},
		{name: "x deletes the org's world", method: "DELETE", path: "/v1/worlds/w", key: keyX, status: 403, code: "forbidden"},
		{name: "x adds to its room", method: "POST", path: "/v1/rooms/r-x/participants", key: keyX, body: map[string]any{"entityId": "bo"}, status: 200, check: wantParticipants("bo")},
		{name: "the org's room is unchanged", method: "GET", path: "/v1/rooms/r-org/participants", key: keyA, status: 200, check: wantParticipants("ana")},
		// x's room keeps the org's world: no agent's room is left naming a world that is gone.
		{name: "the org deletes the world x's room names", method: "DELETE", path: "/v1/worlds/w", key: keyA, status: 409, code: "conflict"},
	})
	if r := c.do("GET", "/v1/rooms/r-org", keyA, nil); r.Status != 200 || r.Body["name"] != nil || r.Body["version"] != 1.0 {
		t.Errorf("the org's room after the refused changes: %d %s", r.Status, r.Raw)
	}
}
