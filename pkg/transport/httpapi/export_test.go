package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// ndjson splits an export into its lines, decoded.
func ndjson(t *testing.T, raw string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(raw), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("export line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func ids(lines []map[string]any, kind string) []string {
	var out []string
	for _, l := range lines {
		if l["kind"] == kind && kind == "memory" {
			out = append(out, l["memory"].(map[string]any)["id"].(string))
		}
		if l["kind"] == kind && kind == "relation" {
			r := l["relation"].(map[string]any)
			out = append(out, r["fromId"].(string)+">"+r["toId"].(string))
		}
		if l["kind"] == kind && kind == "record" {
			out = append(out, l["record"].(map[string]any)["id"].(string))
		}
	}
	sort.Strings(out)
	return out
}

func TestMetadataFilters(t *testing.T) {
	c := newClient(t, newServer(t))
	mk := func(key, text, meta string) string {
		return c.create(key, map[string]any{"content": map[string]any{"text": text}, "metadata": json.RawMessage(meta)})
	}
	a := mk(keyA, "alpha about hiking", `{"project":"apollo","tags":["red","blue"],"priority":1}`)
	b := mk(keyA, "beta about hiking", `{"project":"gemini","tags":["blue"],"priority":2}`)
	cc := mk(keyA, "gamma about hiking", `{"project":"mercury, inc","done":true}`)
	other := mk(keyB, "alpha about hiking", `{"project":"apollo"}`) // org b's twin
	xs := mk(keyX, "agent x about hiking", `{"project":"apollo"}`)

	list := func(key, query string) []string {
		t.Helper()
		r := c.do("GET", "/v1/memories?"+query, key, nil)
		if r.Status != 200 {
			t.Fatalf("list %s: %d %s", query, r.Status, r.Raw)
		}
		var out []string
		for _, m := range r.Body["memories"].([]any) {
			out = append(out, m.(map[string]any)["id"].(string))
		}
		sort.Strings(out)
		return out
	}
	want := func(ids ...string) []string { sort.Strings(ids); return ids }
	for _, tc := range []struct {
		name, key, query string
		want             []string
	}{
		{"equal", keyA, "metadata.project=apollo", want(a, xs)},
		{"in by repetition", keyA, "metadata.project=apollo&metadata.project=gemini", want(a, b, xs)},
		{"a comma is part of the value", keyA, "metadata.project=" + url.QueryEscape("mercury, inc"), want(cc)},
		{"array element", keyA, "metadata.tags=blue", want(a, b)},
		{"number", keyA, "metadata.priority=2", want(b)},
		{"boolean", keyA, "metadata.done=true", want(cc)},
		{"two keys", keyA, "metadata.tags=blue&metadata.priority=1", want(a)},
		{"with another filter", keyA, "metadata.project=apollo&agentId=_org", want(a)},
		{"org b sees its own only", keyB, "metadata.project=apollo", want(other)},
		{"agent y does not see agent x", keyY, "metadata.project=apollo", want(a)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := list(tc.key, tc.query); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("listed %v, want %v", got, tc.want)
			}
			r := c.do("GET", "/v1/memories/count?"+tc.query, tc.key, nil)
			if r.Status != 200 || r.Body["count"] != float64(len(tc.want)) {
				t.Fatalf("count: %d %s, want %d", r.Status, r.Raw, len(tc.want))
			}
		})
	}
	for _, mode := range []string{"hybrid", "keyword", "semantic"} {
		r := c.do("POST", "/v1/search", keyA, map[string]any{"query": "hiking", "mode": mode, "k": 10,
			"filters": map[string]any{"metadata": map[string]any{"tags": []any{"red", "green"}}}})
		if r.Status != 200 {
			t.Fatalf("search: %d %s", r.Status, r.Raw)
		}
		res := r.Body["results"].([]any)
		if len(res) != 1 || res[0].(map[string]any)["memory"].(map[string]any)["id"] != a {
			t.Fatalf("%s search with metadata tags in [red green]: %s", mode, r.Raw)
		}
	}
	r := c.do("POST", "/v1/context", keyA, map[string]any{"query": "hiking", "budgetTokens": 2000,
		"filters": map[string]any{"metadata": map[string]any{"project": "gemini"}}})
	if r.Status == 200 && (strings.Contains(r.Raw, "alpha about") || !strings.Contains(r.Raw, "beta about")) {
		t.Fatalf("context with metadata project=gemini: %s", r.Raw)
	}
	if r := c.do("DELETE", "/v1/memories?metadata.project=gemini", keyA, nil); r.Status != 200 {
		t.Fatalf("bulk delete by metadata: %d %s", r.Status, r.Raw)
	}
	if got := list(keyA, "metadata.tags=blue"); strings.Join(got, ",") != a {
		t.Fatalf("after deleting project=gemini, tags=blue lists %v", got)
	}

	many := url.Values{}
	for i := 0; i < 9; i++ {
		many.Set(fmt.Sprintf("metadata.k%d", i), "v")
	}
	manyVals := url.Values{}
	for i := 0; i < 33; i++ {
		manyVals.Add("metadata.k", fmt.Sprint(i))
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"bad key", "GET", "/v1/memories?metadata.a%3Db=1", nil, "metadata.a=b"},
		{"empty key", "GET", "/v1/memories?metadata.=1", nil, "metadata."},
		{"too many keys", "GET", "/v1/memories/count?" + many.Encode(), nil, "metadata: 9 keys"},
		{"too many values", "GET", "/v1/memories?" + manyVals.Encode(), nil, "metadata.k: 33 values"},
		{"long value", "GET", "/v1/memories?metadata.k=" + strings.Repeat("v", 257), nil, "metadata.k: a value is longer"},
		{"object value", "POST", "/v1/search", map[string]any{"query": "x", "filters": map[string]any{"metadata": map[string]any{"k": map[string]any{"a": 1}}}}, "metadata.k: values must be"},
		{"empty array", "POST", "/v1/search", map[string]any{"query": "x", "filters": map[string]any{"metadata": map[string]any{"k": []any{}}}}, "metadata.k: at least one value"},
		{"not an object", "POST", "/v1/search", map[string]any{"query": "x", "filters": map[string]any{"metadata": "k=v"}}, "metadata: must be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do(tc.method, tc.path, keyA, tc.body)
			if r.Status != 400 || !strings.Contains(r.Raw, tc.field) {
				t.Fatalf("%d %s, want 400 naming %q", r.Status, r.Raw, tc.field)
			}
		})
	}
}

func TestHistory(t *testing.T) {
	c := newClient(t, newServer(t))
	id := c.create(keyX, map[string]any{"content": map[string]any{"text": "likes tea"}, "metadata": map[string]any{"v": 1}})
	if r := c.do("PATCH", "/v1/memories/"+id, keyX, `{"content":{"text":"likes coffee"}}`); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	if r := c.do("PATCH", "/v1/memories/"+id, keyA, `{"metadata":{"v":2}}`); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	r := c.do("GET", "/v1/memories/"+id+"/history", keyX, nil)
	if r.Status != 200 {
		t.Fatalf("history: %d %s", r.Status, r.Raw)
	}
	vs := r.Body["versions"].([]any)
	want := []struct {
		version       float64
		op, text, who string
	}{{1, "create", "likes tea", "x"}, {2, "update", "likes coffee", "x"}, {3, "update", "likes coffee", ""}}
	if len(vs) != len(want) {
		t.Fatalf("%d versions: %s", len(vs), r.Raw)
	}
	for i, w := range want {
		v := vs[i].(map[string]any)
		m := v["memory"].(map[string]any)
		who, _ := v["by"].(map[string]any)["agentId"].(string)
		if v["version"] != w.version || v["op"] != w.op || m["content"].(map[string]any)["text"] != w.text || who != w.who || v["at"].(float64) <= 0 {
			t.Fatalf("version %d = %v, want %+v", i, v, w)
		}
	}
	if strings.Contains(r.Raw, "embedding") {
		t.Fatal("history shows embeddings")
	}
	// Isolation: another org and another agent see no history; the org's
	// own key does.
	for _, tc := range []struct {
		key    string
		status int
	}{{keyB, 404}, {keyY, 404}, {keyA, 200}} {
		if r := c.do("GET", "/v1/memories/"+id+"/history", tc.key, nil); r.Status != tc.status {
			t.Fatalf("history with another key: %d %s, want %d", r.Status, r.Raw, tc.status)
		}
	}
	// Deleting the memory deletes its history.
	if r := c.do("DELETE", "/v1/memories/"+id, keyX, nil); r.Status != 204 && r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/memories/"+id+"/history", keyA, nil); r.Status != 404 {
		t.Fatalf("history after delete: %d %s", r.Status, r.Raw)
	}
}

// seed fills a server with memories of every scope, a relation and an
// archived memory, and returns org a's ids.
func seed(t *testing.T, c *client) (orgA []string, orgB string) {
	t.Helper()
	var out []string
	for i, key := range []string{keyA, keyA, keyX, keyY} {
		out = append(out, c.create(key, map[string]any{"type": "fact", "roomId": "r1", "metadata": map[string]any{"n": i},
			"content": map[string]any{"text": fmt.Sprintf("memory %d: the launch code is marigold %d", i, i)}}))
	}
	if r := c.do("PATCH", "/v1/memories/"+out[1], keyA, `{"importance":0.9}`); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	return out, c.create(keyB, map[string]any{"content": map[string]any{"text": "org b's own"}})
}

func TestExportImportRoundTrip(t *testing.T) {
	src := newClient(t, newServer(t))
	seeded, _ := seed(t, src)
	r := src.do("GET", "/v1/export?embeddings=true", keyA, nil)
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-ndjson") {
		t.Fatalf("export: %d %s %s", r.Status, r.Header.Get("Content-Type"), r.Raw)
	}
	lines := ndjson(t, r.Raw)
	sort.Strings(seeded)
	if got := ids(lines, "memory"); strings.Join(got, ",") != strings.Join(seeded, ",") {
		t.Fatalf("exported %v, want org a's %v", got, seeded)
	}
	for _, l := range lines {
		if l["kind"] == "memory" && (len(l["embedding"].([]any)) != 128 || l["embeddingModel"] == "") {
			t.Fatalf("a memory without its embedding: %v", l)
		}
	}
	if strings.Contains(r.Raw, "org b's own") {
		t.Fatal("org a's export holds org b's memory")
	}
	if plain := src.do("GET", "/v1/export", keyA, nil); strings.Contains(plain.Raw, `"embedding"`) {
		t.Fatal("embeddings exported without embeddings=true")
	}

	// A fresh deployment reads it back: the same ids, versions and texts.
	dst := newClient(t, newServer(t))
	imp := dst.do("POST", "/v1/import", keyA, r.Raw)
	if imp.Status != 200 {
		t.Fatalf("import: %d %s", imp.Status, imp.Raw)
	}
	if m := imp.Body["memories"].(map[string]any); m["created"] != float64(len(seeded)) || len(imp.Body["errors"].([]any)) != 0 {
		t.Fatalf("import report %s", imp.Raw)
	}
	again := dst.do("GET", "/v1/export?embeddings=true", keyA, nil)
	if a, b := memoryLines(t, r.Raw), memoryLines(t, again.Raw); a != b {
		t.Fatalf("the round trip changed memories:\n%s\n---\n%s", a, b)
	}
	for _, id := range seeded {
		got := dst.do("GET", "/v1/memories/"+id, keyA, nil)
		want := src.do("GET", "/v1/memories/"+id, keyA, nil)
		if got.Status != 200 || got.Body["version"] != want.Body["version"] || got.Header.Get("ETag") != want.Header.Get("ETag") {
			t.Fatalf("%s: %d version %v, want %v", id, got.Status, got.Body["version"], want.Body["version"])
		}
	}
	// Searchable at once, in the new deployment.
	if s := dst.do("POST", "/v1/search", keyA, map[string]any{"query": "launch code marigold", "k": 10}); len(s.Body["results"].([]any)) != len(seeded) {
		t.Fatalf("search after import: %s", s.Raw)
	}
	// Idempotent: a second import creates nothing.
	imp = dst.do("POST", "/v1/import", keyA, r.Raw)
	if m := imp.Body["memories"].(map[string]any); imp.Status != 200 || m["created"] != 0.0 || m["existing"] != float64(len(seeded)) {
		t.Fatalf("second import: %d %s", imp.Status, imp.Raw)
	}
	if n := dst.do("GET", "/v1/memories/count?includeArchived=true", keyA, nil); n.Body["count"] != float64(len(seeded)) {
		t.Fatalf("count after two imports: %s", n.Raw)
	}
	// History records the import.
	h := dst.do("GET", "/v1/memories/"+seeded[0]+"/history", keyA, nil)
	if h.Status != 200 || !strings.Contains(h.Raw, `"op":"import"`) {
		t.Fatalf("history of an imported memory: %d %s", h.Status, h.Raw)
	}
}

// memoryLines is an export's memory lines without access counters, sorted.
func memoryLines(t *testing.T, raw string) string {
	var out []string
	for _, l := range ndjson(t, raw) {
		if l["kind"] != "memory" {
			continue
		}
		m := l["memory"].(map[string]any)
		delete(m, "accessCount")
		delete(m, "lastAccessedAt")
		js, _ := json.Marshal(l)
		out = append(out, string(js))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestExportImportIsolation: an export holds only the caller's org or
// scope, and an import lands in the caller's org and scope whatever the
// file says.
func TestExportImportIsolation(t *testing.T) {
	c := newClient(t, newServer(t))
	seeded, orgB := seed(t, c) // org a: org scope ×2, agent x, agent y
	orgA := c.do("GET", "/v1/export", keyA, nil).Raw

	// Exports: org b sees none of org a, agent x none of agent y.
	for _, tc := range []struct {
		key, query string
		status     int
		want       []string
	}{
		{keyB, "", 200, []string{orgB}},
		{keyX, "", 200, []string{seeded[2]}},
		{keyX, "?agentId=x", 200, []string{seeded[2]}},
		{keyX, "?agentId=y", 403, nil},
		{keyA, "?agentId=y", 200, []string{seeded[3]}},
		{keyA, "?agentId=_org", 200, []string{seeded[0], seeded[1]}},
	} {
		r := c.do("GET", "/v1/export"+tc.query, tc.key, nil)
		if r.Status != tc.status {
			t.Fatalf("export %s: %d %s", tc.query, r.Status, r.Raw)
		}
		if tc.status != 200 {
			continue
		}
		sort.Strings(tc.want)
		if got := ids(ndjson(t, r.Raw), "memory"); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Fatalf("export %s: %v, want %v", tc.query, got, tc.want)
		}
	}

	// Org b imports org a's file (which says orgId org-a): it lands in org
	// b, and org a is untouched.
	before := c.do("GET", "/v1/memories/count?includeArchived=true&agentId=_org", keyA, nil).Body["count"]
	imp := c.do("POST", "/v1/import", keyB, orgA)
	if imp.Status != 200 || imp.Body["memories"].(map[string]any)["created"] != 4.0 {
		t.Fatalf("org b importing org a's export: %d %s", imp.Status, imp.Raw)
	}
	if n := c.do("GET", "/v1/memories/count?includeArchived=true", keyB, nil).Body["count"]; n != 5.0 {
		t.Fatalf("org b has %v memories, want its own and the 4 imported", n)
	}
	if n := c.do("GET", "/v1/memories/count?includeArchived=true&agentId=_org", keyA, nil).Body["count"]; n != before {
		t.Fatalf("org a's count changed from %v to %v", before, n)
	}
	// The ids are org b's now; org a's copies are still org a's.
	for _, id := range seeded[:2] {
		rb := c.do("GET", "/v1/memories/"+id, keyB, nil)
		if rb.Status != 200 || rb.Body["orgId"] != "org-b" {
			t.Fatalf("imported %s in org b: %d %s", id, rb.Status, rb.Raw)
		}
		if ra := c.do("GET", "/v1/memories/"+id, keyA, nil); ra.Status != 200 || ra.Body["orgId"] != "org-a" {
			t.Fatalf("org a's %s: %d %s", id, ra.Status, ra.Raw)
		}
	}

	// Agent x imports a file holding agent y's memory and an org-scope
	// one: both lines are refused, nothing lands anywhere.
	yLine := `{"kind":"memory","memory":{"id":"m-into-y","orgId":"org-a","agentId":"y","type":"fact","content":{"text":"planted in y"},"durability":"standard","importance":0.5,"confidence":1,"version":1}}`
	orgLine := `{"kind":"memory","memory":{"id":"m-into-org","orgId":"org-a","type":"fact","content":{"text":"planted in the org"},"durability":"standard","importance":0.5,"confidence":1,"version":1}}`
	own := `{"kind":"memory","memory":{"id":"m-own","orgId":"org-b","agentId":"x","type":"fact","content":{"text":"x's own import"},"durability":"standard","importance":0.5,"confidence":1,"version":1}}`
	imp = c.do("POST", "/v1/import", keyX, yLine+"\n"+orgLine+"\n"+own+"\nnot json\n")
	if imp.Status != 200 {
		t.Fatalf("agent import: %d %s", imp.Status, imp.Raw)
	}
	errs := imp.Body["errors"].([]any)
	if imp.Body["memories"].(map[string]any)["created"] != 1.0 || len(errs) != 3 {
		t.Fatalf("agent x's import report: %s", imp.Raw)
	}
	for i, want := range []struct {
		line float64
		code string
	}{{1, "forbidden"}, {2, "forbidden"}, {4, "invalid"}} {
		e := errs[i].(map[string]any)
		if e["line"] != want.line || e["code"] != want.code {
			t.Fatalf("error %d = %v, want line %v %s", i, e, want.line, want.code)
		}
	}
	for _, id := range []string{"m-into-y", "m-into-org"} {
		for _, key := range []string{keyA, keyY} {
			if r := c.do("GET", "/v1/memories/"+id, key, nil); r.Status != 404 {
				t.Fatalf("%s landed: %d %s", id, r.Status, r.Raw)
			}
		}
	}
	if r := c.do("GET", "/v1/memories/m-own", keyX, nil); r.Status != 200 || r.Body["agentId"] != "x" || r.Body["orgId"] != "org-a" {
		t.Fatalf("agent x's own import: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/memories/m-own", keyY, nil); r.Status != 404 {
		t.Fatalf("agent y sees x's import: %d", r.Status)
	}
}
