package httpapi_test

import (
	"strings"
	"testing"
)

// step is one request of a scripted exchange and what must come back.
type step struct {
	name, method, path, key string
	body                    any
	headers                 []string
	status                  int
	// code is the problem's code for an error status.
	code string
	// check, when set, checks more of the response.
	check func(t *testing.T, r response)
}

// run plays steps in order on c; path may hold {id}, replaced by *id.
func run(t *testing.T, c *client, id *string, steps []step) {
	t.Helper()
	for _, s := range steps {
		path := strings.ReplaceAll(s.path, "{id}", *id)
		r := c.do(s.method, path, s.key, s.body, s.headers...)
		if r.Status != s.status || (s.code != "" && errCode(r) != s.code) {
			t.Fatalf("%s: %s %s: %d %s; want %d %s", s.name, s.method, path, r.Status, r.Raw, s.status, s.code)
		}
		if s.check != nil {
			s.check(t, r)
		}
	}
}

func header(name, want string) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		t.Helper()
		if got := r.Header.Get(name); got != want {
			t.Fatalf("%s: %q, want %q", name, got, want)
		}
	}
}

// TestConditionalRequests: ETags and If-Match / If-None-Match on a memory,
// and Location on a 201.
func TestConditionalRequests(t *testing.T) {
	c := newClient(t, newServer(t))
	var id string
	text := map[string]any{"content": map[string]any{"text": "Prefers the aisle seat"}}
	run(t, c, &id, []step{
		{name: "create", method: "POST", path: "/v1/memories", key: keyA, body: text, status: 201, check: func(t *testing.T, r response) {
			id = r.Body["id"].(string)
			header("Location", "/v1/memories/"+id)(t, r)
		}},
		{name: "a duplicate is 200 without Location", method: "POST", path: "/v1/memories", key: keyA, body: text, status: 200, check: header("Location", "")},
		{name: "create-only over an existing memory", method: "POST", path: "/v1/memories", key: keyA, body: text,
			headers: []string{"If-None-Match", "*"}, status: 412, code: "precondition_failed"},
		{name: "create-only of a new memory", method: "POST", path: "/v1/memories", key: keyA,
			body: map[string]any{"content": map[string]any{"text": "Allergic to peanuts"}}, headers: []string{"If-None-Match", "*"}, status: 201},
		{name: "If-None-Match with a tag on a write", method: "POST", path: "/v1/memories", key: keyA, body: text,
			headers: []string{"If-None-Match", `"1"`}, status: 400, code: "invalid"},
		{name: "create-only on a batch", method: "POST", path: "/v1/memories", key: keyA, body: map[string]any{"memories": []any{text}},
			headers: []string{"If-None-Match", "*"}, status: 400, code: "invalid"},
		{name: "GET sends the ETag", method: "GET", path: "/v1/memories/{id}", key: keyA, status: 200, check: header("ETag", `"1"`)},
		{name: "GET with the current ETag", method: "GET", path: "/v1/memories/{id}", key: keyA, headers: []string{"If-None-Match", `"1"`}, status: 304,
			check: func(t *testing.T, r response) {
				if r.Raw != "" || r.Header.Get("ETag") != `"1"` {
					t.Fatalf("304 with body %q, ETag %q", r.Raw, r.Header.Get("ETag"))
				}
			}},
		{name: "GET with a weak current ETag in a list", method: "GET", path: "/v1/memories/{id}", key: keyA, headers: []string{"If-None-Match", `"7", W/"1"`}, status: 304},
		{name: "GET with another ETag", method: "GET", path: "/v1/memories/{id}", key: keyA, headers: []string{"If-None-Match", `"2"`}, status: 200},
		{name: "PATCH at the version", method: "PATCH", path: "/v1/memories/{id}", key: keyA, body: map[string]any{"importance": 0.9},
			headers: []string{"If-Match", `"1"`}, status: 200, check: header("ETag", `"2"`)},
		{name: "PATCH with a stale version", method: "PATCH", path: "/v1/memories/{id}", key: keyA, body: map[string]any{"importance": 0.1},
			headers: []string{"If-Match", `"1"`}, status: 412, code: "precondition_failed"},
		{name: "the old ETag is now modified", method: "GET", path: "/v1/memories/{id}", key: keyA, headers: []string{"If-None-Match", `"1"`}, status: 200,
			check: func(t *testing.T, r response) {
				if r.Body["importance"] != 0.9 {
					t.Fatalf("the stale PATCH applied: %s", r.Raw)
				}
			}},
		{name: "DELETE with a stale version", method: "DELETE", path: "/v1/memories/{id}", key: keyA, headers: []string{"If-Match", `"1"`}, status: 412, code: "precondition_failed"},
		{name: "still there", method: "GET", path: "/v1/memories/{id}", key: keyA, status: 200},
		{name: "DELETE with a bad If-Match", method: "DELETE", path: "/v1/memories/{id}", key: keyA, headers: []string{"If-Match", "soon"}, status: 400, code: "invalid"},
		{name: "DELETE at the version", method: "DELETE", path: "/v1/memories/{id}", key: keyA, headers: []string{"If-Match", `"2"`}, status: 204},
		{name: "gone", method: "GET", path: "/v1/memories/{id}", key: keyA, status: 404, code: "not_found"},
	})
}

// TestPutByKey: PUT /v1/memories/by-key/{key} creates then replaces the
// memory of the client's key; GET and DELETE find it by the key.
func TestPutByKey(t *testing.T) {
	c := newClient(t, newServer(t))
	var id string
	path := "/v1/memories/by-key/user-42:prefs"
	content := func(text string) map[string]any {
		return map[string]any{"type": "fact", "content": map[string]any{"text": text}, "metadata": map[string]any{"src": "langgraph"}}
	}
	run(t, c, &id, []step{
		{name: "If-Match on an absent key", method: "PUT", path: path, key: keyA, body: content("Likes tea"), headers: []string{"If-Match", `"1"`}, status: 412, code: "precondition_failed"},
		{name: "GET of an absent key", method: "GET", path: path, key: keyA, status: 404, code: "not_found"},
		{name: "create", method: "PUT", path: path, key: keyA, body: content("Likes tea"), status: 201, check: func(t *testing.T, r response) {
			id = r.Body["id"].(string)
			header("Location", "/v1/memories/"+id)(t, r)
			header("ETag", `"1"`)(t, r)
			if r.Body["externalId"] != "user-42:prefs" || r.Body["version"] != 1.0 {
				t.Fatalf("created: %s", r.Raw)
			}
		}},
		{name: "create-only over it", method: "PUT", path: path, key: keyA, body: content("Likes coffee"), headers: []string{"If-None-Match", "*"}, status: 412, code: "precondition_failed"},
		{name: "replace", method: "PUT", path: path, key: keyA, body: content("Likes coffee"), status: 200, check: func(t *testing.T, r response) {
			header("Location", "")(t, r)
			header("ETag", `"2"`)(t, r)
			if r.Body["id"] != id || r.Body["version"] != 2.0 || r.Body["content"].(map[string]any)["text"] != "Likes coffee" {
				t.Fatalf("replaced: %s", r.Raw)
			}
		}},
		{name: "replace with a stale version", method: "PUT", path: path, key: keyA, body: content("Likes juice"), headers: []string{"If-Match", `"1"`}, status: 412, code: "precondition_failed"},
		{name: "replace at the version", method: "PUT", path: path, key: keyA, body: content("Likes juice"), headers: []string{"If-Match", `"2"`}, status: 200, check: header("ETag", `"3"`)},
		{name: "both conditions", method: "PUT", path: path, key: keyA, body: content("x"), headers: []string{"If-Match", `"3"`, "If-None-Match", "*"}, status: 400, code: "invalid"},
		{name: "another externalId in the body", method: "PUT", path: path, key: keyA,
			body: map[string]any{"externalId": "other", "content": map[string]any{"text": "x"}}, status: 400, code: "invalid"},
		{name: "an invalid body", method: "PUT", path: path, key: keyA, body: map[string]any{"content": map[string]any{}}, status: 400, code: "invalid"},
		{name: "GET by key", method: "GET", path: path, key: keyA, status: 200, check: func(t *testing.T, r response) {
			header("ETag", `"3"`)(t, r)
			if r.Body["id"] != id || r.Body["content"].(map[string]any)["text"] != "Likes juice" {
				t.Fatalf("by key: %s", r.Raw)
			}
		}},
		{name: "GET by key, unchanged", method: "GET", path: path, key: keyA, headers: []string{"If-None-Match", `"3"`}, status: 304},
		{name: "GET by id", method: "GET", path: "/v1/memories/{id}", key: keyA, status: 200},
		{name: "a create with the same externalId is its duplicate", method: "POST", path: "/v1/memories", key: keyA,
			body: map[string]any{"externalId": "user-42:prefs", "content": map[string]any{"text": "anything"}}, status: 200,
			check: func(t *testing.T, r response) {
				if r.Body["id"] != id || r.Body["duplicate"] != true {
					t.Fatalf("create with the key: %s", r.Raw)
				}
			}},
		{name: "an unknown query parameter", method: "GET", path: path + "?org=b", key: keyA, status: 400, code: "invalid"},
		{name: "DELETE with a stale version", method: "DELETE", path: path, key: keyA, headers: []string{"If-Match", `"2"`}, status: 412, code: "precondition_failed"},
		{name: "DELETE by key", method: "DELETE", path: path, key: keyA, status: 204},
		{name: "gone by key", method: "GET", path: path, key: keyA, status: 404, code: "not_found"},
		{name: "gone by id", method: "GET", path: "/v1/memories/{id}", key: keyA, status: 404, code: "not_found"},
		{name: "the key is free again", method: "PUT", path: path, key: keyA, body: content("Likes water"), status: 201},
	})
}

// TestIdempotencyKey: a POST retried with its Idempotency-Key replays the
// first response and changes nothing; the key cannot be reused for
// another request.
func TestIdempotencyKey(t *testing.T) {
	c := newClient(t, newServer(t))
	var id string
	first := map[string]any{"content": map[string]any{"text": "Flies to Lisbon on Friday"}}
	count := func(want float64) func(t *testing.T, r response) {
		return func(t *testing.T, _ response) {
			t.Helper()
			if r := c.do("GET", "/v1/memories/count", keyA, nil); r.Body["count"] != want {
				t.Fatalf("count %v, want %v", r.Body["count"], want)
			}
		}
	}
	idem := func(k string) []string { return []string{"Idempotency-Key", k} }
	run(t, c, &id, []step{
		{name: "first", method: "POST", path: "/v1/memories", key: keyA, body: first, headers: idem("k-1"), status: 201, check: func(t *testing.T, r response) {
			id = r.Body["id"].(string)
			header("Idempotent-Replayed", "")(t, r)
		}},
		{name: "retry", method: "POST", path: "/v1/memories", key: keyA, body: first, headers: idem("k-1"), status: 201, check: func(t *testing.T, r response) {
			header("Idempotent-Replayed", "true")(t, r)
			header("Location", "/v1/memories/"+id)(t, r)
			header("Content-Type", "application/json")(t, r)
			if r.Body["id"] != id || r.Body["duplicate"] != false {
				t.Fatalf("replay: %s", r.Raw)
			}
			count(1)(t, r)
		}},
		{name: "the key with another body", method: "POST", path: "/v1/memories", key: keyA, headers: idem("k-1"),
			body: map[string]any{"content": map[string]any{"text": "Flies to Porto"}}, status: 422, code: "unprocessable", check: count(1)},
		{name: "the key on another path", method: "POST", path: "/v1/search", key: keyA, headers: idem("k-1"),
			body: map[string]any{"query": "Lisbon"}, status: 422, code: "unprocessable"},
		{name: "an empty key", method: "POST", path: "/v1/memories", key: keyA, body: first, headers: idem(""), status: 400, code: "invalid"},
		{name: "a key too long", method: "POST", path: "/v1/memories", key: keyA, body: first, headers: idem(strings.Repeat("k", 256)), status: 400, code: "invalid"},
		{name: "a rejected request", method: "POST", path: "/v1/memories", key: keyA, body: `{"content":{}}`, headers: idem("k-bad"), status: 400, code: "invalid",
			check: header("Idempotent-Replayed", "")},
		{name: "its retry gets the same rejection", method: "POST", path: "/v1/memories", key: keyA, body: `{"content":{}}`, headers: idem("k-bad"), status: 400, code: "invalid",
			check: header("Idempotent-Replayed", "true")},
		{name: "a second key runs again: a duplicate", method: "POST", path: "/v1/memories", key: keyA, body: first, headers: idem("k-2"), status: 200,
			check: header("Idempotent-Replayed", "")},
		{name: "without a key nothing is kept", method: "POST", path: "/v1/memories", key: keyA,
			body: map[string]any{"content": map[string]any{"text": "Rents a car"}}, status: 201, check: count(2)},
		{name: "a search replays", method: "POST", path: "/v1/search", key: keyA, body: map[string]any{"query": "Lisbon"}, headers: idem("s-1"), status: 200},
		{name: "the same search", method: "POST", path: "/v1/search", key: keyA, body: map[string]any{"query": "Lisbon"}, headers: idem("s-1"), status: 200,
			check: header("Idempotent-Replayed", "true")},
		{name: "PATCH ignores the header", method: "PATCH", path: "/v1/memories/{id}", key: keyA, body: map[string]any{"importance": 0.2}, headers: idem("k-1"), status: 200},
	})
}

// TestIdempotencyIsolation: an Idempotency-Key is the caller's own: the
// same key from another org, or from another agent of the org, runs its
// own request and never sees the first one's response.
func TestIdempotencyIsolation(t *testing.T) {
	c := newClient(t, newServer(t))
	var id string
	body := map[string]any{"content": map[string]any{"text": "Renewal is due in March"}}
	idem := []string{"Idempotency-Key", "shared-key"}
	notReplayed := func(t *testing.T, r response) {
		t.Helper()
		header("Idempotent-Replayed", "")(t, r)
		if r.Body["id"] == id || r.Body["id"] == nil {
			t.Fatalf("another caller got the first response: %s", r.Raw)
		}
	}
	run(t, c, &id, []step{
		{name: "org a", method: "POST", path: "/v1/memories", key: keyA, body: body, headers: idem, status: 201, check: func(t *testing.T, r response) { id = r.Body["id"].(string) }},
		{name: "org b, same key and body", method: "POST", path: "/v1/memories", key: keyB, body: body, headers: idem, status: 201, check: notReplayed},
		{name: "org b, same key, another body: not org a's conflict", method: "POST", path: "/v1/memories", key: keyB,
			body: map[string]any{"content": map[string]any{"text": "other"}}, headers: []string{"Idempotency-Key", "b-only"}, status: 201},
		{name: "agent x, same key and body", method: "POST", path: "/v1/memories", key: keyX, body: body, headers: idem, status: 201, check: notReplayed},
		{name: "agent y, same key and body", method: "POST", path: "/v1/memories", key: keyY, body: body, headers: idem, status: 201, check: func(t *testing.T, r response) {
			notReplayed(t, r)
			header("Location", "/v1/memories/"+r.Body["id"].(string))(t, r)
		}},
		{name: "agent x replays its own", method: "POST", path: "/v1/memories", key: keyX, body: body, headers: idem, status: 201, check: header("Idempotent-Replayed", "true")},
		{name: "org a replays its own", method: "POST", path: "/v1/memories", key: keyA, body: body, headers: idem, status: 201, check: func(t *testing.T, r response) {
			header("Idempotent-Replayed", "true")(t, r)
			if r.Body["id"] != id {
				t.Fatalf("org a's replay: %s", r.Raw)
			}
		}},
	})

}

// TestByKeyIsolation: a client key is per scope: another org never finds
// it, another agent neither finds nor changes it, and the same key in
// another scope is another memory.
func TestByKeyIsolation(t *testing.T) {
	c := newClient(t, newServer(t))
	var id string
	path := "/v1/memories/by-key/session-notes"
	body := func(text string) map[string]any { return map[string]any{"content": map[string]any{"text": text}} }
	distinct := func(t *testing.T, r response) {
		t.Helper()
		if r.Body["id"] == id {
			t.Fatalf("another scope reached agent x's memory: %s", r.Raw)
		}
	}
	run(t, c, &id, []step{
		{name: "agent x creates", method: "PUT", path: path, key: keyX, body: body("x's notes"), status: 201, check: func(t *testing.T, r response) { id = r.Body["id"].(string) }},
		{name: "agent y does not find it", method: "GET", path: path, key: keyY, status: 404, code: "not_found"},
		{name: "agent y cannot name agent x", method: "GET", path: path + "?agentId=x", key: keyY, status: 403, code: "forbidden"},
		{name: "agent y cannot delete it", method: "DELETE", path: path + "?agentId=x", key: keyY, status: 403, code: "forbidden"},
		{name: "agent y cannot write it", method: "PUT", path: path, key: keyY, body: map[string]any{"agentId": "x", "content": map[string]any{"text": "y"}}, status: 403, code: "forbidden"},
		{name: "agent y's own key is another memory", method: "PUT", path: path, key: keyY, body: body("y's notes"), status: 201, check: distinct},
		{name: "org b does not find it", method: "GET", path: path + "?agentId=x", key: keyB, status: 404, code: "not_found"},
		{name: "org b's key is another memory", method: "PUT", path: path + "", key: keyB, body: map[string]any{"agentId": "x", "content": map[string]any{"text": "b's"}}, status: 201, check: distinct},
		{name: "org b's delete finds nothing of org a", method: "DELETE", path: path, key: keyB, status: 404, code: "not_found"},
		{name: "the org scope's key is another memory", method: "PUT", path: path, key: keyA, body: body("org notes"), status: 201, check: distinct},
		{name: "agent x's memory is unchanged", method: "GET", path: path, key: keyX, status: 200, check: func(t *testing.T, r response) {
			if r.Body["id"] != id || r.Body["content"].(map[string]any)["text"] != "x's notes" || r.Body["version"] != 1.0 {
				t.Fatalf("agent x's memory: %s", r.Raw)
			}
		}},
		{name: "org a reads it by naming agent x", method: "GET", path: path + "?agentId=x", key: keyA, status: 200, check: func(t *testing.T, r response) {
			if r.Body["id"] != id {
				t.Fatalf("org a by agent x's key: %s", r.Raw)
			}
		}},
	})
}

// TestIdempotencyIsolationEndUsers: end users of one org and agent never
// see each other's responses through an Idempotency-Key: a client that
// derives its keys from the body sends the same key for the same request.
func TestIdempotencyIsolationEndUsers(t *testing.T) {
	api, _ := deployment(t)
	c := newClient(t, api)
	body := map[string]any{"content": map[string]any{"text": "Renewal is due in March"}}
	// End users of one org and agent: Bob's token never replays what
	// Alice's got (a client that derives its keys from the body sends the
	// same key for the same request).
	token := func(user string) string {
		r := c.do("POST", "/v1/tokens", adminKey, map[string]any{"userId": user, "grants": []string{"read", "write"}, "ttlSeconds": 300})
		if r.Status != 201 {
			t.Fatalf("token for %s: %d %s", user, r.Status, r.Raw)
		}
		return r.Body["token"].(string)
	}
	alice, bob := token("alice"), token("bob")
	var aliceID string
	userKey := []string{"Idempotency-Key", "derived-from-the-body"}
	run(t, c, &aliceID, []step{
		{name: "alice", method: "POST", path: "/v1/memories", key: alice, body: body, headers: userKey, status: 201, check: func(t *testing.T, r response) { aliceID = r.Body["id"].(string) }},
		{name: "bob, same key and body", method: "POST", path: "/v1/memories", key: bob, body: body, headers: userKey, status: 201, check: func(t *testing.T, r response) {
			header("Idempotent-Replayed", "")(t, r)
			if r.Body["id"] == aliceID {
				t.Fatalf("Bob got Alice's response: %s", r.Raw)
			}
		}},
		{name: "alice replays her own", method: "POST", path: "/v1/memories", key: alice, body: body, headers: userKey, status: 201, check: func(t *testing.T, r response) {
			header("Idempotent-Replayed", "true")(t, r)
			if r.Body["id"] != aliceID {
				t.Fatalf("Alice's replay: %s", r.Raw)
			}
		}},
	})
}
