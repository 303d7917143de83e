package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// conversation is a small conversation in one room, one turn a month or
// so, whose knowledge the offline extractor finds: speakers (people),
// sports, a city, a pet, a book, a relative and an occupation.
var conversation = []struct {
	speaker, text, at string
}{
	{"Ana", "I tried fencing last week and I loved it.", "2023-04-10T18:00:00Z"},
	{"Bo", "My sister Maria started climbing at the gym in Lisbon.", "2023-05-02T09:30:00Z"},
	{"Ana", "We moved to Lisbon in May and adopted a puppy.", "2023-05-20T12:00:00Z"},
	{"Bo", "I read a novel by Elena Ferrante on the train.", "2023-06-15T07:45:00Z"},
	{"Ana", "My friend Carlos is a painter.", "2023-07-01T20:15:00Z"},
}

// postConversation stores the conversation as messages with key and
// returns their ids, in order.
func postConversation(t *testing.T, c *client, key, room string) []string {
	t.Helper()
	var batch []map[string]any
	for _, m := range conversation {
		at, err := time.Parse(time.RFC3339, m.at)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, map[string]any{"type": "message", "roomId": room, "sessionId": "s1", "entityId": m.speaker,
			"createdAt": at.UnixMilli(), "content": map[string]any{"text": m.text}})
	}
	r := c.do("POST", "/v1/memories", key, map[string]any{"memories": batch})
	if r.Status != 201 {
		t.Fatalf("post the conversation: %d %s", r.Status, r.Raw)
	}
	var ids []string
	for _, m := range r.Body["memories"].([]any) {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	return ids
}

// list returns r.Body[field] as a list of objects.
func list(t *testing.T, r response, field string) []map[string]any {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	raw, ok := r.Body[field].([]any)
	if !ok {
		t.Fatalf("no list %q in %s", field, r.Raw)
	}
	out := make([]map[string]any, len(raw))
	for i, x := range raw {
		out[i] = x.(map[string]any)
	}
	return out
}

// strs returns the string field of each object, sorted.
func strs(objs []map[string]any, field string) []string {
	var out []string
	for _, o := range objs {
		out = append(out, fmt.Sprint(o[field]))
	}
	slices.Sort(out)
	return out
}

// memoryIDs returns the ids of a search's memories, sorted.
func memoryIDs(t *testing.T, r response) []string {
	t.Helper()
	var out []string
	for _, m := range list(t, r, "memories") {
		out = append(out, m["memory"].(map[string]any)["id"].(string))
	}
	slices.Sort(out)
	return out
}

func sorted(ids ...string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func lower(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// TestKnowledgeEndToEnd posts a conversation through the API of the
// embedded backend (SQLite, the bolt index, the offline extractor), then
// queries its knowledge by entity type, by a related term (a type the
// extractor gave: "sport" finds fencing and climbing), and by time range,
// as expressions and as questions.
func TestKnowledgeEndToEnd(t *testing.T) {
	c := newClient(t, newServer(t))
	ids := postConversation(t, c, keyA, "chat")
	fencing, climbing, lisbon, novel, painter := ids[0], ids[1], ids[2], ids[3], ids[4]

	tests := []struct {
		name     string
		body     string
		memories []string // exactly these memories, when set
		include  []string // at least these memories
		entities []string // at least these entity names (lower case)
		inExpr   string   // the expression used contains this
	}{
		{name: "entities of type person", body: `{"query": {"select": {"entity": {"types": ["person"]}}}}`,
			memories: ids, entities: []string{"ana", "bo", "maria", "carlos"}},
		{name: "related term through a type: sport", body: `{"query": {"select": {"entity": {"types": ["sport"]}}}}`,
			memories: []string{fencing, climbing}, entities: []string{"fencing", "climbing"}},
		{name: "related term through a type: book", body: `{"query": {"select": {"entity": {"types": ["book"]}}}}`,
			memories: []string{novel}, entities: []string{"novel"}},
		{name: "related term through a type: animal", body: `{"query": {"select": {"entity": {"types": ["animal"]}}}}`,
			memories: []string{lisbon}, entities: []string{"puppy"}},
		{name: "a question about a type", body: `{"text": "What sports has Ana tried?"}`,
			include: []string{fencing, climbing}, entities: []string{"fencing", "climbing"}, inExpr: `"sport"`},
		{name: "an action", body: `{"query": {"select": {"action": {"verbs": ["moved"], "subject": "Ana"}}}}`,
			memories: []string{lisbon}},
		{name: "a facet", body: `{"query": {"select": {"entity": {"facets": [{"name": "occupation", "value": "painter"}]}}}}`,
			memories: []string{painter}, entities: []string{"carlos"}},
		{name: "time range in the filters", body: `{"query": {"select": {"entity": {"types": ["person"]}}},
			"filters": {"start": "2023-05-01T00:00:00Z", "end": "2023-06-01T00:00:00Z"}}`,
			memories: []string{climbing, lisbon}, entities: []string{"bo", "maria", "ana"}},
		{name: "time expression in the query", body: `{"query": {"select": {"entity": {"types": ["city"]}}, "time": {"expression": "in May 2023"}}}`,
			memories: []string{climbing, lisbon}, entities: []string{"lisbon"}},
		{name: "time range in a question", body: `{"text": "Who went to Lisbon in May 2023?"}`,
			include: []string{lisbon}, inExpr: `"time"`},
		{name: "time range that holds nothing", body: `{"query": {"terms": ["lisbon"], "time": {"start": "2024-01-01T00:00:00Z"}}}`,
			memories: []string{}},
		{name: "another room", body: `{"query": {"select": {"entity": {"types": ["person"]}}}, "filters": {"roomId": "elsewhere"}}`,
			memories: []string{}},
		{name: "scope in the expression", body: `{"query": {"terms": ["lisbon"], "scope": {"roomId": "chat", "sessionId": "s1"}}}`,
			memories: []string{climbing, lisbon}},
		{name: "limit", body: `{"query": {"select": {"entity": {"types": ["person"]}}}, "limit": 2}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do("POST", "/v1/knowledge/search", keyA, tc.body)
			got := memoryIDs(t, r)
			if tc.memories != nil && !slices.Equal(got, sorted(tc.memories...)) {
				t.Fatalf("memories %v, want %v\n%s", got, sorted(tc.memories...), r.Raw)
			}
			for _, id := range tc.include {
				if !slices.Contains(got, id) {
					t.Fatalf("memories %v lack %s\n%s", got, id, r.Raw)
				}
			}
			entities := list(t, r, "entities")
			names := lower(strs(entities, "name"))
			for _, e := range tc.entities {
				if !slices.Contains(names, e) {
					t.Fatalf("entities %v lack %q", names, e)
				}
			}
			if strings.Contains(tc.body, `"limit"`) {
				if len(got) != 2 || len(entities) > 2 {
					t.Fatalf("limit 2: %d memories, %d entities", len(got), len(entities))
				}
			}
			if tc.inExpr != "" && !strings.Contains(fmt.Sprint(r.Body["expression"]), strings.Trim(tc.inExpr, `"`)) {
				t.Fatalf("the expression %v lacks %s", r.Body["expression"], tc.inExpr)
			}
			if r.Body["expression"] == nil {
				t.Fatal("no expression in the response")
			}
			// Every item's sources are returned memories, shown as the
			// API shows memories: a snippet of their text, room, time.
			for _, field := range []string{"entities", "topics", "actions"} {
				for _, it := range list(t, r, field) {
					srcs := it["sources"].([]any)
					if len(srcs) == 0 || it["sourceCount"].(float64) < float64(len(srcs)) {
						t.Fatalf("%s item without sources: %v", field, it)
					}
					for _, s := range srcs {
						s := s.(map[string]any)
						if !slices.Contains(got, s["memoryId"].(string)) || s["snippet"] == "" || s["roomId"] != "chat" || s["createdAt"].(float64) == 0 {
							t.Fatalf("%s source %v", field, s)
						}
					}
				}
			}
		})
	}

	// The sources of an entity: Lisbon in the two turns that name it,
	// each with the words it was found in.
	r := c.do("POST", "/v1/knowledge/search", keyA, `{"query": {"select": {"entity": {"name": "Lisbon"}}}}`)
	es := list(t, r, "entities")
	if len(es) != 1 || es[0]["name"] != "Lisbon" || es[0]["sourceCount"] != 2.0 || !slices.Contains(toStrings(es[0]["types"]), "city") {
		t.Fatalf("lisbon: %v", es)
	}
	for _, s := range es[0]["sources"].([]any) {
		if !strings.Contains(s.(map[string]any)["snippet"].(string), "Lisbon") {
			t.Fatalf("snippet %v", s)
		}
	}
	if acts := list(t, c.do("POST", "/v1/knowledge/search", keyA, `{"query": {"select": {"action": {"verbs": ["adopt"]}}}}`), "actions"); len(acts) != 1 ||
		acts[0]["subject"] != "Ana" || acts[0]["object"] != "puppy" || acts[0]["tense"] != "past" {
		t.Fatalf("actions %v", acts)
	}

	// Entities and topics with filters and counts.
	people := list(t, c.do("GET", "/v1/knowledge/entities?type=person", keyA, nil), "entities")
	if got := strs(people, "name"); !slices.Equal(got, []string{"ana", "bo", "carlos", "maria"}) {
		t.Fatalf("people %v", got)
	}
	for _, p := range people {
		if want := map[string]float64{"ana": 3, "bo": 2, "carlos": 1, "maria": 1}[p["name"].(string)]; p["memories"] != want {
			t.Fatalf("%v is in %v memories, want %v", p["name"], p["memories"], want)
		}
	}
	var paged []string
	for cursor, pages := "", 0; ; pages++ {
		if pages > 4 {
			t.Fatal("the pages do not end")
		}
		r := c.do("GET", "/v1/knowledge/entities?type=person&limit=1&cursor="+url.QueryEscape(cursor), keyA, nil)
		items := list(t, r, "entities")
		if len(items) > 1 {
			t.Fatalf("limit 1: %d items", len(items))
		}
		paged = append(paged, strs(items, "name")...)
		if cursor, _ = r.Body["nextCursor"].(string); cursor == "" {
			break
		}
	}
	if !slices.Equal(paged, []string{"ana", "bo", "carlos", "maria"}) {
		t.Fatalf("paged people %v", paged)
	}
	if got := strs(list(t, c.do("GET", "/v1/knowledge/entities?type=person&start=2023-05-01T00:00:00Z&end=2023-06-01T00:00:00Z", keyA, nil), "entities"), "name"); !slices.Equal(got, []string{"ana", "bo", "maria"}) {
		t.Fatalf("people of May %v", got)
	}
	if got := list(t, c.do("GET", "/v1/knowledge/entities?name=Lisbon", keyA, nil), "entities"); len(got) != 1 || got[0]["memories"] != 2.0 || got[0]["refs"] != 2.0 {
		t.Fatalf("lisbon %v", got)
	}
	if got := strs(list(t, c.do("GET", "/v1/knowledge/entities?prefix=CL", keyA, nil), "entities"), "name"); !slices.Equal(got, []string{"climbing"}) {
		t.Fatalf("prefix cl %v", got)
	}
	if got := list(t, c.do("GET", "/v1/knowledge/entities?roomId=elsewhere", keyA, nil), "entities"); len(got) != 0 {
		t.Fatalf("another room %v", got)
	}
	if got := strs(list(t, c.do("GET", "/v1/knowledge/topics", keyA, nil), "topics"), "name"); !slices.Contains(got, "painter") {
		t.Fatalf("topics %v", got)
	}

	// Completion hints: the term, what it is, how often.
	terms := list(t, c.do("GET", "/v1/knowledge/terms?prefix=Lis&kinds=true", keyA, nil), "terms")
	if len(terms) == 0 || terms[0]["term"] != "lisbon" || terms[0]["count"].(float64) < 2 || terms[0]["kind"] != "entity" {
		t.Fatalf("terms lis %v", terms)
	}
	terms = list(t, c.do("GET", "/v1/knowledge/terms?prefix=spo&kinds=1", keyA, nil), "terms")
	if len(terms) != 1 || terms[0]["term"] != "sport" || terms[0]["count"] != 2.0 || terms[0]["role"] != "type" {
		t.Fatalf("terms spo %v", terms)
	}
	if terms := list(t, c.do("GET", "/v1/knowledge/terms?prefix=spo", keyA, nil), "terms"); len(terms) != 1 || terms[0]["kind"] != nil {
		t.Fatalf("terms without kinds %v", terms)
	}

	// Forgetting a memory forgets its knowledge.
	if r := c.do("DELETE", "/v1/memories/"+novel, keyA, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if got := memoryIDs(t, c.do("POST", "/v1/knowledge/search", keyA, `{"query": {"select": {"entity": {"types": ["book"]}}}}`)); len(got) != 0 {
		t.Fatalf("the deleted memory's knowledge is still found: %v", got)
	}
	if got := list(t, c.do("GET", "/v1/knowledge/entities?prefix=novel", keyA, nil), "entities"); len(got) != 0 {
		t.Fatalf("the deleted memory's entity is still listed: %v", got)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestKnowledgeBadInput(t *testing.T) {
	c := newClient(t, newServer(t))
	postConversation(t, c, keyA, "chat")
	long := strings.Repeat("a", 300)
	tests := []struct {
		name, method, path, key string
		body                    any
		status                  int
		message                 string
	}{
		{"no key", "POST", "/v1/knowledge/search", "", `{"text": "a"}`, 401, "missing Authorization"},
		{"neither query nor text", "POST", "/v1/knowledge/search", keyA, `{"limit": 5}`, 400, "query, text: one of them is required"},
		{"both query and text", "POST", "/v1/knowledge/search", keyA, `{"text": "a", "query": {"terms": ["a"]}}`, 400, "not both"},
		{"query as a string", "POST", "/v1/knowledge/search", keyA, `{"query": "who is Ana"}`, 400, "put a question in natural language in text"},
		{"malformed expression: a leaf's part", "POST", "/v1/knowledge/search", keyA,
			`{"query": {"select": {"and": [{"term": "a"}, {"entity": {"facets": [{"value": "blue"}]}}]}}}`, 400, "query.select.and[1].entity.facets[0].name: required"},
		{"malformed expression: unknown field", "POST", "/v1/knowledge/search", keyA,
			`{"query": {"select": {"or": [{"term": "a"}, {"entity": {"nme": "Ana"}}]}}}`, 400, "query.select.or[1].entity.nme: unknown field"},
		{"malformed expression: two kinds in a node", "POST", "/v1/knowledge/search", keyA,
			`{"query": {"select": {"term": "a", "topic": "b"}}}`, 400, "query.select: exactly one of"},
		{"malformed expression: time", "POST", "/v1/knowledge/search", keyA,
			`{"query": {"terms": ["a"], "time": {"start": "May"}}}`, 400, "query.time.start: not RFC 3339"},
		{"malformed expression: empty", "POST", "/v1/knowledge/search", keyA, `{"query": {}}`, 400, "query: select or terms required"},
		{"malformed expression: only not", "POST", "/v1/knowledge/search", keyA, `{"query": {"select": {"not": {"term": "a"}}}}`, 400, "select: matches only by exclusion"},
		{"expression limit", "POST", "/v1/knowledge/search", keyA, `{"query": {"terms": ["a"], "limit": 1000}}`, 400, "query.limit: "},
		{"request limit", "POST", "/v1/knowledge/search", keyA, `{"text": "sports", "limit": 101}`, 400, "limit: 101 is outside 1..100"},
		{"blank text", "POST", "/v1/knowledge/search", keyA, `{"text": "  "}`, 400, "text: required"},
		{"text of function words", "POST", "/v1/knowledge/search", keyA, `{"text": "what did they do?"}`, 400, "text: no search terms"},
		{"unknown field", "POST", "/v1/knowledge/search", keyA, `{"text": "a", "org": "org-b"}`, 400, `unknown field "org"`},
		{"bad filter", "POST", "/v1/knowledge/search", keyA, `{"text": "a", "filters": {"start": 200, "end": 100}}`, 400, "end: must be after start"},
		{"search another agent", "POST", "/v1/knowledge/search", keyX, `{"text": "sports", "filters": {"agentId": "y"}}`, 403, "bound to agent"},
		{"expression scope of another agent", "POST", "/v1/knowledge/search", keyX, `{"query": {"terms": ["sport"], "scope": {"agentId": "y"}}}`, 403, "query.scope.agentId"},
		{"entities bad limit", "GET", "/v1/knowledge/entities?limit=5000", keyA, nil, 400, "limit: 5000 is outside 1..1000"},
		{"entities zero limit", "GET", "/v1/knowledge/entities?limit=0", keyA, nil, 400, "limit: must be at least 1"},
		{"entities limit not a number", "GET", "/v1/knowledge/entities?limit=ten", keyA, nil, 400, `limit: "ten" is not an integer`},
		{"entities bad cursor", "GET", "/v1/knowledge/entities?cursor=!!!", keyA, nil, 400, "cursor: not a cursor"},
		{"entities long prefix", "GET", "/v1/knowledge/entities?prefix=" + long, keyA, nil, 400, "prefix: longer than 256 bytes"},
		{"entities long type", "GET", "/v1/knowledge/entities?type=" + long, keyA, nil, 400, "type: longer than 256 bytes"},
		{"entities name and prefix", "GET", "/v1/knowledge/entities?name=a&prefix=a", keyA, nil, 400, "name: excludes prefix and cursor"},
		{"entities unknown parameter", "GET", "/v1/knowledge/entities?colour=red", keyA, nil, 400, `query parameter "colour"`},
		{"entities bad memory type", "GET", "/v1/knowledge/entities?memoryType=note", keyA, nil, 400, `type: "note"`},
		{"entities bad time", "GET", "/v1/knowledge/entities?start=yesterday", keyA, nil, 400, `start: "yesterday" is neither`},
		{"entities of another agent", "GET", "/v1/knowledge/entities?agentId=y", keyX, nil, 403, "bound to agent"},
		{"topics have no type", "GET", "/v1/knowledge/topics?type=person", keyA, nil, 400, "type: only entities have types"},
		{"topics bad limit", "GET", "/v1/knowledge/topics?limit=-1", keyA, nil, 400, "limit: -1 is outside"},
		{"topics of another agent", "GET", "/v1/knowledge/topics?agentId=y", keyX, nil, 403, "bound to agent"},
		{"terms long prefix", "GET", "/v1/knowledge/terms?prefix=" + long, keyA, nil, 400, "prefix: longer than 256 bytes"},
		{"terms control character", "GET", "/v1/knowledge/terms?prefix=a%01b", keyA, nil, 400, "prefix: must be valid UTF-8"},
		{"terms bad limit", "GET", "/v1/knowledge/terms?prefix=a&limit=101", keyA, nil, 400, "limit: 101 is outside 1..100"},
		{"terms bad kinds", "GET", "/v1/knowledge/terms?prefix=a&kinds=maybe", keyA, nil, 400, `kinds: "maybe"`},
		{"terms have no type", "GET", "/v1/knowledge/terms?prefix=a&type=person", keyA, nil, 400, "type: only entities have types"},
		{"terms of another agent", "GET", "/v1/knowledge/terms?prefix=a&agentId=y", keyX, nil, 403, "bound to agent"},
		{"wrong method", "GET", "/v1/knowledge/search", keyA, nil, 405, "method GET is not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do(tc.method, tc.path, tc.key, tc.body)
			if r.Status != tc.status || !strings.Contains(errMessage(r), tc.message) {
				t.Fatalf("got %d %s; want %d with %q", r.Status, r.Raw, tc.status, tc.message)
			}
		})
	}
}

// TestKnowledgeIsolation crosses orgs and agents on every knowledge path:
// what one tenant's memories hold is never searched, listed, counted or
// completed for another, and an agent-bound key sees the org scope and its
// own agent's knowledge only.
func TestKnowledgeIsolation(t *testing.T) {
	c := newClient(t, newServer(t))
	post := func(key string, body map[string]any) string {
		t.Helper()
		body["type"], body["roomId"], body["sessionId"] = "message", "shared-room", "s1"
		return c.create(key, body)
	}
	// Each tenant's memory names one entity no other memory names.
	owned := []struct {
		name, key, id, term string
	}{
		{"org a", keyA, post(keyA, map[string]any{"entityId": "Ana", "content": map[string]any{"text": "I visited Zanzibar with my cousin."}}), "zanzibar"},
		{"org b", keyB, post(keyB, map[string]any{"entityId": "Bo", "content": map[string]any{"text": "I visited Kyoto with my cousin."}}), "kyoto"},
		{"agent x", keyX, post(keyX, map[string]any{"entityId": "Xia", "content": map[string]any{"text": "I visited Reykjavik with my cousin."}}), "reykjavik"},
		{"agent y", keyY, post(keyY, map[string]any{"entityId": "Yoav", "content": map[string]any{"text": "I visited Marrakesh with my cousin."}}), "marrakesh"},
	}
	// sees reports what key finds of one owner's memory on each path.
	sees := func(key, id, term string) []string {
		t.Helper()
		var found []string
		for _, body := range []string{
			`{"query": {"terms": ["` + term + `"]}}`,
			`{"query": {"select": {"entity": {"types": ["city", "place"]}}}}`,
			`{"query": {"select": {"entity": {"types": ["person"]}}}, "filters": {"roomId": "shared-room", "sessionId": "s1"}}`,
			`{"text": "Who visited ` + term + `?"}`,
		} {
			r := c.do("POST", "/v1/knowledge/search", key, body)
			if r.Status != 200 {
				t.Fatalf("search %s: %d %s", body, r.Status, r.Raw)
			}
			delete(r.Body, "expression") // it repeats the question's terms
			if res, _ := json.Marshal(r.Body); strings.Contains(string(res), id) || strings.Contains(strings.ToLower(string(res)), term) {
				found = append(found, "search "+body)
			}
		}
		for _, path := range []string{"/v1/knowledge/entities?limit=1000", "/v1/knowledge/entities?type=city",
			"/v1/knowledge/entities?name=" + term, "/v1/knowledge/entities?roomId=shared-room", "/v1/knowledge/topics?limit=1000",
			"/v1/knowledge/terms?prefix=" + term[:2], "/v1/knowledge/terms?prefix=" + term[:2] + "&roomId=shared-room", "/v1/knowledge/terms?limit=100"} {
			r := c.do("GET", path, key, nil)
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
			}
			if strings.Contains(r.Raw, term) {
				found = append(found, path)
			}
		}
		return found
	}
	tests := []struct {
		key   string
		sees  []string // owners whose knowledge key sees
		hides []string
	}{
		{keyA, []string{"org a", "agent x", "agent y"}, []string{"org b"}},
		{keyB, []string{"org b"}, []string{"org a", "agent x", "agent y"}},
		{keyX, []string{"org a", "agent x"}, []string{"org b", "agent y"}},
		{keyY, []string{"org a", "agent y"}, []string{"org b", "agent x"}},
	}
	for _, tc := range tests {
		for _, o := range owned {
			want := slices.Contains(tc.sees, o.name)
			found := sees(tc.key, o.id, o.term)
			switch {
			case want && len(found) < 4: // at least the term search, the entity name, the prefix and the question
				t.Errorf("key %s finds %s's knowledge on %d paths only: %v", tc.key, o.name, len(found), found)
			case !want && len(found) > 0:
				t.Errorf("key %s finds %s's knowledge: %v", tc.key, o.name, found)
			}
		}
	}
	// Counts: the cousin (every tenant has one) counts once per visible
	// memory; org b sees one memory, which gives the refs per memory.
	perMemory := list(t, c.do("GET", "/v1/knowledge/terms?prefix=cousin&limit=1", keyB, nil), "terms")[0]["count"].(float64)
	for _, tc := range tests {
		items := list(t, c.do("GET", "/v1/knowledge/entities?name=cousin", tc.key, nil), "entities")
		if len(items) != 1 || items[0]["memories"] != float64(len(tc.sees)) {
			t.Errorf("key %s: cousin %v, want %d memories", tc.key, items, len(tc.sees))
		}
		terms := list(t, c.do("GET", "/v1/knowledge/terms?prefix=cousin", tc.key, nil), "terms")
		if len(terms) == 0 || terms[0]["term"] != "cousin" || terms[0]["count"] != perMemory*float64(len(tc.sees)) {
			t.Errorf("key %s: term cousin %v, want count %v", tc.key, terms, perMemory*float64(len(tc.sees)))
		}
	}
	// An agent key names another agent: 403 on every path.
	for _, r := range []response{
		c.do("POST", "/v1/knowledge/search", keyX, `{"query": {"terms": ["marrakesh"]}, "filters": {"agentId": "y"}}`),
		c.do("POST", "/v1/knowledge/search", keyX, `{"query": {"terms": ["marrakesh"], "scope": {"agentId": "y"}}}`),
		c.do("GET", "/v1/knowledge/entities?agentId=y", keyX, nil),
		c.do("GET", "/v1/knowledge/topics?agentId=y", keyX, nil),
		c.do("GET", "/v1/knowledge/terms?prefix=ma&agentId=y", keyX, nil),
	} {
		if r.Status != 403 || strings.Contains(r.Raw, "marrakesh") {
			t.Errorf("agent x naming agent y: %d %s", r.Status, r.Raw)
		}
	}
	// Org scope only, for an agent key: its own agent's knowledge is out.
	if r := c.do("GET", "/v1/knowledge/entities?agentId=_org&name=reykjavik", keyX, nil); len(list(t, r, "entities")) != 0 {
		t.Errorf("agent x, org scope only, lists its own agent's entity: %s", r.Raw)
	}
}

// TestKnowledgeAPIGateway: the knowledge paths behind API Gateway take the
// caller from the authorizer's context, agent binding included.
func TestKnowledgeAPIGateway(t *testing.T) {
	s := newServer(t)
	c := newClient(t, s)
	postConversation(t, c, keyA, "chat")
	private := c.create(keyY, map[string]any{"type": "message", "roomId": "chat", "entityId": "Yoav",
		"content": map[string]any{"text": "I practice archery every Sunday."}})
	tests := []struct {
		name, method, path, org, agent, body string
		status                               int
		has, hasNot                          string
	}{
		{"search as the org", "POST", "/v1/knowledge/search", "org-a", "", `{"query": {"select": {"entity": {"types": ["sport"]}}}}`, 200, private, ""},
		{"search as agent x", "POST", "/v1/knowledge/search", "org-a", "x", `{"query": {"select": {"entity": {"types": ["sport"]}}}}`, 200, "fencing", private},
		{"search as another org", "POST", "/v1/knowledge/search", "org-b", "", `{"text": "What sports did they try?"}`, 200, `"memories":[]`, "fencing"},
		{"entities as agent y", "GET", "/v1/knowledge/entities?type=sport", "org-a", "y", "", 200, "archery", ""},
		{"entities as agent x", "GET", "/v1/knowledge/entities?type=sport", "org-a", "x", "", 200, "fencing", "archery"},
		{"terms as agent x of agent y", "GET", "/v1/knowledge/terms?prefix=ar&agentId=y", "org-a", "x", "", 403, "bound to agent", "archery"},
		{"no caller", "GET", "/v1/knowledge/topics", "", "", "", 401, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := gatewayEvent(tc.method, tc.path, tc.org, tc.agent, tc.body)
			if p, q, ok := strings.Cut(tc.path, "?"); ok {
				vs, _ := url.ParseQuery(q)
				ev.Path, ev.QueryStringParameters = p, map[string]string{}
				for k := range vs {
					ev.QueryStringParameters[k] = vs.Get(k)
				}
			}
			res, err := s.HandleAPIGateway(t.Context(), ev)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tc.status || !strings.Contains(res.Body, tc.has) || (tc.hasNot != "" && strings.Contains(res.Body, tc.hasNot)) {
				t.Fatalf("%d %s; want %d with %q without %q", res.StatusCode, res.Body, tc.status, tc.has, tc.hasNot)
			}
		})
	}
}
