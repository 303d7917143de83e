package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// newKeyedServer is the API on a real SQLite store whose key table holds
// the keys created through the admin endpoint, beside the static keys of
// newServer (keyA is org-a's, keyB org-b's, full grants), with quotas.
func newKeyedServer(t *testing.T, limits memory.OrgUsage) (*httpapi.Server, *local.Backend) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(128), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	static, err := auth.ParseKeys(fmt.Sprintf("%s=org-a,%s=org-b", keyA, keyB))
	if err != nil {
		t.Fatal(err)
	}
	docs := &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 200, Overlap: 40}, Log: log}
	settings := service.NewSettingsStore(b.Store)
	queue := extract.NewLocalQueue(&extract.Pipeline{Service: b.Service.Pipelines(), Extractor: extract.Local{}, Log: log, Settings: settings}, 100)
	t.Cleanup(queue.Close)
	job := &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: log}
	quotas := &httpapi.Quotas{Limits: limits, Usage: b.Store, Overrides: b.Store}
	srv := httpapi.New(b.Service, auth.Chain{static, auth.StoreKeys{Store: b.Store}}, log, httpapi.WithDocuments(docs),
		httpapi.WithExtraction(queue), httpapi.WithConsolidation(job), httpapi.WithKeys(b.Store), httpapi.WithQuotas(quotas),
		httpapi.WithKnowledge(b.Knowledge), httpapi.WithSettings(settings))
	return srv, b
}

// newKey creates a key through the admin endpoint with admin's key.
func (c *client) newKey(admin string, body map[string]any) (secret, id string) {
	c.t.Helper()
	r := c.do("POST", "/v1/admin/keys", admin, body)
	if r.Status != 201 {
		c.t.Fatalf("create key %v: %d %s", body, r.Status, r.Raw)
	}
	return r.Body["secret"].(string), r.Body["key"].(map[string]any)["id"].(string)
}

// fixture is what each case may touch: memories of org a in the org
// scope and in agents x's and y's, and an org-scope document, all in a
// room of their own.
type fixture struct {
	room, org, x, y, doc string
	texts                []string
}

func (c *client) fixture(n int) fixture {
	c.t.Helper()
	fx := fixture{room: fmt.Sprintf("room-%d", n)}
	mk := func(scope, agent, who string) string {
		text := fmt.Sprintf("case %d %s secret vermilion-%d-%s", n, who, n, who)
		fx.texts = append(fx.texts, text)
		return c.create(keyA, map[string]any{"scope": scope, "agentId": agent, "roomId": fx.room, "content": map[string]any{"text": text}})
	}
	fx.org, fx.x, fx.y = mk("org", "", "org"), mk("agent", "x", "x"), mk("agent", "y", "y")
	r := c.do("POST", "/v1/documents", keyA, map[string]any{"name": fmt.Sprintf("doc-%d.txt", n), "content": fmt.Sprintf("case %d document text indigo-%d", n, n)})
	if r.Status != 201 {
		c.t.Fatalf("document: %d %s", r.Status, r.Raw)
	}
	fx.doc = r.Body["id"].(string)
	return fx
}

// exists reports which of the fixture's memories and document the org
// admin still finds.
func (c *client) exists(fx fixture) map[string]bool {
	out := map[string]bool{}
	for name, path := range map[string]string{"org": "/v1/memories/" + fx.org, "x": "/v1/memories/" + fx.x,
		"y": "/v1/memories/" + fx.y, "doc": "/v1/documents/" + fx.doc} {
		out[name] = c.do("GET", path, keyA, nil).Status == 200
	}
	return out
}

// TestKeyPermissions tries every operation with every kind of key: the
// status each gets, that a refused operation changes nothing, that a
// delete removes exactly what the key may delete, and that no answer to
// another org's key, or to agent y's, shows what it may not see.
func TestKeyPermissions(t *testing.T) {
	srv, _ := newKeyedServer(t, memory.OrgUsage{})
	c := newClient(t, srv)
	keys := map[string]string{"otherOrg": keyB}
	var ids []string
	for kind, body := range map[string]map[string]any{
		"admin":          {"name": "ops", "grants": []string{"read", "write", "delete", "delete:org", "admin"}},
		"orgRead":        {"name": "dashboard", "grants": []string{"read"}},
		"agentRW":        {"name": "bot x", "agentId": "x", "grants": []string{"read", "write", "delete"}},
		"agentNoDelete":  {"name": "bot x, no delete", "agentId": "x", "grants": []string{"read", "write"}},
		"agentDeleteOrg": {"name": "bot x, curator", "agentId": "x", "grants": []string{"read", "write", "delete:org"}},
		"agentY":         {"name": "bot y", "agentId": "y", "grants": []string{"read", "write", "delete"}},
		"revoked":        {"name": "leaked", "grants": []string{"read", "write", "delete", "admin"}},
	} {
		var id string
		keys[kind], id = c.newKey(keyA, body)
		ids = append(ids, id)
		if kind == "revoked" {
			if r := c.do("DELETE", "/v1/admin/keys/"+id, keyA, nil); r.Status != 200 {
				t.Fatalf("revoke: %d %s", r.Status, r.Raw)
			}
		}
	}
	kinds := []string{"admin", "orgRead", "agentRW", "agentNoDelete", "agentDeleteOrg", "agentY", "otherOrg", "revoked"}
	// st lists the statuses in kinds order.
	st := func(codes ...int) map[string]int {
		m := map[string]int{}
		for i, k := range kinds {
			m[k] = codes[i]
		}
		return m
	}
	type op struct {
		name string
		run  func(key string, fx fixture) response
		want map[string]int
		// gone names the fixtures a successful call removes, per kind.
		gone map[string][]string
	}
	get := func(path string) func(string, fixture) response {
		return func(k string, fx fixture) response {
			return c.do("GET", strings.ReplaceAll(path, "ROOM", fx.room), k, nil)
		}
	}
	ops := []op{
		//                                                                                  admin orgRead agentRW noDel delOrg agentY otherOrg revoked
		{"create memory", func(k string, fx fixture) response {
			return c.do("POST", "/v1/memories", k, map[string]any{"content": map[string]any{"text": "new " + fx.room + " " + k[:12]}})
		}, st(201, 403, 201, 201, 201, 201, 201, 401), nil},
		{"list", get("/v1/memories?roomId=ROOM"), st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"count", get("/v1/memories/count?roomId=ROOM"), st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"get org-scope memory", func(k string, fx fixture) response { return c.do("GET", "/v1/memories/"+fx.org, k, nil) },
			st(200, 200, 200, 200, 200, 200, 404, 401), nil},
		{"get agent x's memory", func(k string, fx fixture) response { return c.do("GET", "/v1/memories/"+fx.x, k, nil) },
			st(200, 200, 200, 200, 200, 404, 404, 401), nil},
		{"patch agent x's memory", func(k string, fx fixture) response {
			return c.do("PATCH", "/v1/memories/"+fx.x, k, map[string]any{"importance": 0.9})
		}, st(200, 403, 200, 200, 200, 404, 404, 401), nil},
		{"delete agent x's memory", func(k string, fx fixture) response { return c.do("DELETE", "/v1/memories/"+fx.x, k, nil) },
			st(204, 403, 204, 403, 204, 404, 404, 401), map[string][]string{"admin": {"x"}, "agentRW": {"x"}, "agentDeleteOrg": {"x"}}},
		{"delete org-scope memory", func(k string, fx fixture) response { return c.do("DELETE", "/v1/memories/"+fx.org, k, nil) },
			st(204, 403, 403, 403, 204, 403, 404, 401), map[string][]string{"admin": {"org"}, "agentDeleteOrg": {"org"}}},
		{"bulk delete the room", func(k string, fx fixture) response { return c.do("DELETE", "/v1/memories?roomId="+fx.room, k, nil) },
			st(200, 403, 200, 403, 200, 200, 200, 401),
			map[string][]string{"admin": {"org", "x", "y"}, "agentRW": {"x"}, "agentDeleteOrg": {"x"}, "agentY": {"y"}}},
		{"bulk delete the org scope", func(k string, fx fixture) response {
			return c.do("DELETE", "/v1/memories?agentId=_org&roomId="+fx.room, k, nil)
		}, st(200, 403, 403, 403, 200, 403, 200, 401), map[string][]string{"admin": {"org"}, "agentDeleteOrg": {"org"}}},
		{"bulk delete agent y's scope", func(k string, fx fixture) response {
			return c.do("DELETE", "/v1/memories?agentId=y&roomId="+fx.room, k, nil)
		}, st(200, 403, 403, 403, 403, 200, 200, 401), map[string][]string{"admin": {"y"}, "agentY": {"y"}}},
		{"search", func(k string, fx fixture) response {
			return c.do("POST", "/v1/search", k, map[string]any{"query": "secret vermilion indigo", "k": 50, "filters": map[string]any{"roomId": fx.room}})
		}, st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"search everything", func(k string, fx fixture) response {
			return c.do("POST", "/v1/search", k, map[string]any{"query": "secret vermilion indigo document", "k": 100})
		}, st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"context", func(k string, fx fixture) response {
			return c.do("POST", "/v1/context", k, map[string]any{"query": "secret vermilion", "roomId": fx.room, "budgetTokens": 2000})
		}, st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"messages", func(k string, fx fixture) response {
			return c.do("POST", "/v1/messages", k, map[string]any{"messages": []any{map[string]any{"entityId": "u", "content": map[string]any{"text": "hi " + fx.room}}}})
		}, st(202, 403, 202, 202, 202, 202, 202, 401), nil},
		{"post document", func(k string, fx fixture) response {
			return c.do("POST", "/v1/documents", k, map[string]any{"name": fx.room + "-" + k[:8] + ".txt", "content": "posted"})
		}, st(201, 403, 201, 201, 201, 201, 201, 401), nil},
		{"list documents", get("/v1/documents"), st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"get org-scope document", func(k string, fx fixture) response { return c.do("GET", "/v1/documents/"+fx.doc, k, nil) },
			st(200, 200, 200, 200, 200, 200, 404, 401), nil},
		{"delete org-scope document", func(k string, fx fixture) response { return c.do("DELETE", "/v1/documents/"+fx.doc, k, nil) },
			st(204, 403, 403, 403, 204, 403, 404, 401), map[string][]string{"admin": {"doc"}, "agentDeleteOrg": {"doc"}}},
		{"list keys", get("/v1/admin/keys"), st(200, 403, 403, 403, 403, 403, 200, 401), nil},
		{"create key", func(k string, fx fixture) response {
			return c.do("POST", "/v1/admin/keys", k, map[string]any{"name": "child", "grants": []string{"read"}})
		}, st(201, 403, 403, 403, 403, 403, 201, 401), nil},
		{"revoke org a's key", func(k string, fx fixture) response {
			_, id := c.newKey(keyA, map[string]any{"name": "victim", "grants": []string{"read"}})
			return c.do("DELETE", "/v1/admin/keys/"+id, k, nil)
		}, st(200, 403, 403, 403, 403, 403, 404, 401), nil},
		{"usage", get("/v1/admin/usage"), st(200, 403, 403, 403, 403, 403, 200, 401), nil},
		{"consolidate", func(k string, fx fixture) response { return c.do("POST", "/v1/admin/consolidate", k, nil) },
			st(200, 403, 403, 403, 403, 403, 200, 401), nil},
		{"forget the room", func(k string, fx fixture) response {
			return c.do("POST", "/v1/forget", k, map[string]any{"roomId": fx.room})
		}, st(200, 403, 200, 403, 200, 200, 200, 401),
			map[string][]string{"admin": {"org", "x", "y"}, "agentRW": {"x"}, "agentDeleteOrg": {"x"}, "agentY": {"y"}}},
		{"audit log", get("/v1/admin/audit"), st(200, 403, 403, 403, 403, 403, 200, 401), nil},
		{"get extraction settings", get("/v1/admin/settings/extraction"), st(200, 403, 403, 403, 403, 403, 200, 401), nil},
		{"put extraction settings", func(k string, fx fixture) response {
			return c.do("PUT", "/v1/admin/settings/extraction", k, map[string]any{"dropCategories": []string{"health"}})
		}, st(200, 403, 403, 403, 403, 403, 200, 401), nil},
		{"knowledge search", func(k string, fx fixture) response {
			return c.do("POST", "/v1/knowledge/search", k, map[string]any{"text": "secret vermilion", "filters": map[string]any{"roomId": fx.room}})
		}, st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"knowledge entities", get("/v1/knowledge/entities?roomId=ROOM"), st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"knowledge topics", get("/v1/knowledge/topics?roomId=ROOM"), st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"knowledge terms", get("/v1/knowledge/terms?prefix=verm"), st(200, 200, 200, 200, 200, 200, 200, 401), nil},
		{"knowledge status", get("/v1/knowledge/status"), st(200, 200, 403, 403, 403, 403, 200, 401), nil},
	}
	n := 0
	for _, o := range ops {
		for _, kind := range kinds {
			n++
			t.Run(o.name+"/"+kind, func(t *testing.T) {
				fx := c.fixture(n)
				r := o.run(keys[kind], fx)
				if r.Status != o.want[kind] {
					t.Fatalf("status %d, want %d: %s", r.Status, o.want[kind], r.Raw)
				}
				// What the key may not see is in no answer.
				hidden := []string{}
				switch kind {
				case "otherOrg":
					hidden = append(append(hidden, fx.org, fx.x, fx.y, fx.doc), fx.texts...)
					hidden = append(hidden, ids...)
				case "agentY":
					hidden = append(hidden, fx.x, fx.texts[1])
				}
				if r.Status >= 300 {
					hidden = hidden[:0] // an error may repeat the id it was asked for, never content
					if kind == "otherOrg" {
						hidden = append(hidden, fx.texts...)
					}
				}
				for _, h := range hidden {
					if strings.Contains(r.Raw, h) {
						t.Fatalf("the answer shows %q: %s", h, r.Raw)
					}
				}
				if kind == "revoked" && r.Header.Get("WWW-Authenticate") == "" {
					t.Fatal("401 without WWW-Authenticate")
				}
				// Exactly what the key may delete is gone.
				gone := map[string]bool{}
				for _, g := range o.gone[kind] {
					gone[g] = true
				}
				for name, ok := range c.exists(fx) {
					if ok == gone[name] {
						t.Errorf("%s: exists=%v after the call, want %v", name, ok, !gone[name])
					}
				}
			})
		}
	}
}

// TestAdminKeys: a secret is shown once and never listed; a key grants
// only what it holds; bad input names its field.
func TestAdminKeys(t *testing.T) {
	srv, b := newKeyedServer(t, memory.OrgUsage{})
	c := newClient(t, srv)
	limited, _ := c.newKey(keyA, map[string]any{"name": "limited admin", "grants": []string{"admin", "read"}})
	secret, id := c.newKey(keyA, map[string]any{"name": "bot", "agentId": "x", "grants": []string{"read", "write"}})
	l := c.do("GET", "/v1/admin/keys", keyA, nil)
	if l.Status != 200 || strings.Contains(l.Raw, secret) || strings.Contains(l.Raw, auth.Hash(secret)) || !strings.Contains(l.Raw, id) {
		t.Fatalf("list: %d %s", l.Status, l.Raw)
	}
	if r := c.do("GET", "/v1/memories/count", secret, nil); r.Status != 200 {
		t.Fatalf("the new key does not work: %d %s", r.Status, r.Raw)
	}
	tests := []struct {
		name, key string
		body      any
		status    int
		message   string
	}{
		{"escalation", limited, map[string]any{"grants": []string{"read", "delete"}}, 403, "cannot grant delete"},
		{"admin for an agent", keyA, map[string]any{"agentId": "x", "grants": []string{"admin"}}, 400, "grants: admin is for org-level keys"},
		{"unknown grant", keyA, map[string]any{"grants": []string{"root"}}, 400, `grants: "root" is not one of`},
		{"no grants", keyA, map[string]any{"name": "n"}, 400, "grants: required"},
		{"bad agent", keyA, map[string]any{"agentId": "a b", "grants": []string{"read"}}, 400, "agentId:"},
		{"org in the body", keyA, map[string]any{"orgId": "org-b", "grants": []string{"read"}}, 400, "orgId"},
	}
	for _, tc := range tests {
		r := c.do("POST", "/v1/admin/keys", tc.key, tc.body)
		if r.Status != tc.status || !strings.Contains(errMessage(r), tc.message) {
			t.Errorf("%s: %d %s, want %d %q", tc.name, r.Status, r.Raw, tc.status, tc.message)
		}
	}
	if r := c.do("DELETE", "/v1/admin/keys/"+id, keyB, nil); r.Status != 404 {
		t.Fatalf("org b revoking org a's key: %d %s", r.Status, r.Raw)
	}
	if r := c.do("DELETE", "/v1/admin/keys/"+id, limited, nil); r.Status != 200 {
		t.Fatalf("revoke: %d %s", r.Status, r.Raw)
	}
	if r := c.do("GET", "/v1/memories/count", secret, nil); r.Status != 401 {
		t.Fatalf("the revoked key still works: %d %s", r.Status, r.Raw)
	}
	// Only the hash is stored.
	k, err := b.Store.KeyByHash(context.Background(), auth.Hash(secret))
	if err != nil || k.RevokedAt == nil || strings.Contains(fmt.Sprint(k), secret) {
		t.Fatalf("stored key %+v %v", k, err)
	}
}

// TestQuotas: each quota is refused with 403 quota_exceeded naming it,
// usage is reported, an org's own record overrides the defaults, and
// concurrent writers never pass a limit together.
func TestQuotas(t *testing.T) {
	srv, b := newKeyedServer(t, memory.OrgUsage{Memories: 4, Bytes: 40, Documents: 1})
	c := newClient(t, srv)
	text := func(s string) map[string]any { return map[string]any{"content": map[string]any{"text": s}} }
	c.create(keyA, text("0123456789")) // 10 bytes
	if r := c.do("POST", "/v1/memories", keyA, text(strings.Repeat("b", 31))); r.Status != 403 ||
		errCode(r) != memory.EQUOTA || !strings.Contains(errMessage(r), "quota bytes: the org holds 10 of its 40") {
		t.Fatalf("bytes: %d %s", r.Status, r.Raw)
	}
	if r := c.do("POST", "/v1/documents", keyA, map[string]any{"name": "a.txt", "content": "doc"}); r.Status != 201 {
		t.Fatalf("document: %d %s", r.Status, r.Raw)
	}
	if r := c.do("POST", "/v1/documents", keyA, map[string]any{"name": "b.txt", "content": "doc"}); r.Status != 403 || !strings.Contains(errMessage(r), "quota documents") {
		t.Fatalf("second document: %d %s", r.Status, r.Raw)
	}
	if r := c.do("POST", "/v1/memories", keyA, map[string]any{"memories": []any{text("one"), text("two"), text("three")}}); r.Status != 403 || !strings.Contains(errMessage(r), "quota memories") {
		t.Fatalf("memories: %d %s", r.Status, r.Raw)
	}
	if r := c.do("POST", "/v1/messages", keyA, map[string]any{"messages": []any{map[string]any{"entityId": "u", "content": map[string]any{"text": strings.Repeat("m", 40)}}}}); r.Status != 403 {
		t.Fatalf("messages over the byte quota: %d %s", r.Status, r.Raw)
	}
	u := c.do("GET", "/v1/admin/usage", keyA, nil)
	usage := u.Body["usage"].(map[string]any)
	if u.Status != 200 || usage["documents"] != 1.0 || usage["memories"].(float64) < 2 || u.Body["limits"].(map[string]any)["memories"] != 4.0 {
		t.Fatalf("usage: %d %s", u.Status, u.Raw)
	}
	// Org b is not affected by org a's usage.
	if r := c.do("POST", "/v1/memories", keyB, text(strings.Repeat("b", 30))); r.Status != 201 {
		t.Fatalf("org b: %d %s", r.Status, r.Raw)
	}
	// Org b's own record raises its memory quota. 20 concurrent writers of
	// one memory each never pass it together (a write racing others near
	// the limit may be refused while they complete); once they are done,
	// writes fill the quota exactly: no reservation is left behind.
	if _, err := b.Store.PutRecord(context.Background(), "org-b", httpapi.QuotaRecordKind, httpapi.QuotaRecordID, memory.OrgUsage{Memories: 11, Bytes: 1000}, 0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	statuses := make(chan int, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- c.do("POST", "/v1/memories", keyB, text(fmt.Sprintf("writer %02d", i))).Status
		}()
	}
	wg.Wait()
	close(statuses)
	created := 0
	for s := range statuses {
		switch s {
		case 201:
			created++
		case 403:
		default:
			t.Fatalf("concurrent writer: %d", s)
		}
	}
	if created > 10 {
		t.Fatalf("%d concurrent writers passed a quota with room for 10", created)
	}
	for i := 0; ; i++ {
		r := c.do("POST", "/v1/memories", keyB, text(fmt.Sprintf("after %02d", i)))
		if r.Status == 403 {
			break
		}
		if r.Status != 201 || i > 20 {
			t.Fatalf("sequential write %d: %d %s", i, r.Status, r.Raw)
		}
	}
	if r := c.do("GET", "/v1/memories/count", keyB, nil); r.Body["count"] != 11.0 {
		t.Fatalf("org b holds %v, want its quota of 11", r.Body["count"])
	}
}

// TestAPIGatewayGrants: behind API Gateway the grants come from the
// authorizer context only; a context without them (an authorizer older
// than grants) has its binding's default grants.
func TestAPIGatewayGrants(t *testing.T) {
	s := newServer(t)
	create := `{"content":{"text":"from the gateway"}}`
	tests := []struct {
		name, method, path, agent, body string
		grants                          any // nil: absent
		status                          int
	}{
		{"read-only key writes", "POST", "/v1/memories", "", create, "read", 403},
		{"read-only key reads", "GET", "/v1/memories/count", "", "", "read", 200},
		{"no grants at all", "GET", "/v1/memories/count", "", "", "", 403},
		{"absent: org default", "GET", "/v1/admin/keys", "", "", nil, 404}, // no key store wired: no route
		{"absent: agent default writes", "POST", "/v1/memories", "x", create, nil, 201},
		{"absent: agent default is no admin", "POST", "/v1/admin/consolidate", "x", "", nil, 403},
		{"agent admin in the context is dropped", "POST", "/v1/admin/consolidate", "x", "", "admin,read", 403},
	}
	for _, tc := range tests {
		ev := gatewayEvent(tc.method, tc.path, "org-a", tc.agent, tc.body)
		if tc.grants != nil {
			ev.RequestContext.Authorizer["grants"] = tc.grants
		}
		res, err := s.HandleAPIGateway(context.Background(), ev)
		if err != nil || res.StatusCode != tc.status {
			t.Errorf("%s: %d %s %v, want %d", tc.name, res.StatusCode, res.Body, err, tc.status)
		}
	}
}
