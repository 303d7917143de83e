package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// memorydServer opens memoryd's composition root (wiring/server) on a
// fresh data directory, with no LLM configured (the offline extractor),
// and serves the handler with the options memoryd gives it. It returns the
// client and the local extraction queue, to drain.
func memorydServer(t *testing.T) (*client, *extract.LocalQueue) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	env := map[string]string{"DATA_DIR": t.TempDir()}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	b, err := server.OpenWith(context.Background(), cfg, hashing.New(128), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if b.Settings == nil {
		t.Fatal("memoryd's backend has no settings store")
	}
	keys, err := auth.ParseKeys(fmt.Sprintf("%s=org-a,%s=org-b,%s=org-a/x", keyA, keyB, keyX))
	if err != nil {
		t.Fatal(err)
	}
	queue := extract.NewLocalQueue(b.Facts, 100)
	t.Cleanup(queue.Close) // runs before the backend's Close: cleanups run last registered first
	h := httpapi.New(b.Service, keys, log, httpapi.WithDocuments(b.Documents), httpapi.WithExtraction(queue),
		httpapi.WithConsolidation(b.Consolidation), httpapi.WithSettings(b.Settings))
	return newClient(t, h), queue
}

// TestExtractionSettingsEndpoint: org-level keys read and replace their
// org's settings with version checks; agent keys are refused; bad values
// are a 400 naming the field, and change nothing.
func TestExtractionSettingsEndpoint(t *testing.T) {
	c, _ := memorydServer(t)
	const path = "/v1/admin/settings/extraction"

	r := c.do("GET", path, keyA, nil)
	if r.Status != 200 || r.Body["version"] != 0.0 || r.Header.Get("ETag") != "" || len(r.Body["settings"].(map[string]any)) != 0 {
		t.Fatalf("before any put: %d %s", r.Status, r.Raw)
	}
	r = c.do("PUT", path, keyA, map[string]any{"instructions": "  Never record salaries. ", "dropCategories": []string{"health", "allergy", "health"},
		"keepKinds": []string{"fact", "preference", "entity"}, "language": "pt-br"})
	set, _ := r.Body["settings"].(map[string]any)
	if r.Status != 200 || r.Body["version"] != 1.0 || r.Header.Get("ETag") != `"1"` || set["language"] != "pt-BR" ||
		set["instructions"] != "Never record salaries." || fmt.Sprint(set["dropCategories"]) != "[health allergy]" {
		t.Fatalf("put: %d %s", r.Status, r.Raw)
	}
	if g := c.do("GET", path, keyA, nil); g.Raw != r.Raw || g.Header.Get("ETag") != `"1"` {
		t.Fatalf("get after put: %s, want %s", g.Raw, r.Raw)
	}

	tests := []struct {
		name, key string
		body      any
		ifMatch   string
		status    int
		message   string
	}{
		{"agent key", keyX, map[string]any{}, "", 403, "not granted admin"},
		{"no key", "", map[string]any{}, "", 401, "Authorization"},
		{"unknown kind", keyA, map[string]any{"dropKinds": []string{"opinion"}}, "", 400, `dropKinds[0]: "opinion" is not one of`},
		{"unknown category", keyA, map[string]any{"keepCategories": []string{"diet", "gossip"}}, "", 400, `keepCategories[1]: "gossip" is not one of`},
		{"kept and dropped", keyA, map[string]any{"keepCategories": []string{"diet"}, "dropCategories": []string{"diet"}}, "", 400, `dropCategories[0]: "diet" is also in keepCategories`},
		{"bad language", keyA, map[string]any{"language": "Portuguese"}, "", 400, `language: "Portuguese" is not a BCP 47 language tag`},
		{"instructions too long", keyA, map[string]any{"instructions": strings.Repeat("x", 2001)}, "", 400, "instructions: 2001 characters exceeds the limit of 2000"},
		{"instructions not a string", keyA, `{"instructions": 5}`, "", 400, "instructions: expected a string"},
		{"kinds not a list", keyA, `{"dropKinds": "fact"}`, "", 400, "dropKinds"},
		{"unknown field", keyA, map[string]any{"dropTopics": []string{"x"}}, "", 400, `unknown field "dropTopics"`},
		{"org in body", keyA, map[string]any{"orgId": "org-b"}, "", 400, `unknown field "orgId"`},
		{"empty body", keyA, "", "", 400, "body: a JSON object is required"},
		{"bad If-Match", keyA, map[string]any{}, "soon", 400, "If-Match"},
		{"stale If-Match", keyA, map[string]any{"language": "de"}, `"7"`, 412, "changed concurrently"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h []string
			if tc.ifMatch != "" {
				h = []string{"If-Match", tc.ifMatch}
			}
			r := c.do("PUT", path, tc.key, tc.body, h...)
			if r.Status != tc.status || !strings.Contains(errMessage(r), tc.message) {
				t.Fatalf("got %d %s; want %d with %q", r.Status, r.Raw, tc.status, tc.message)
			}
		})
	}
	if r := c.do("GET", path, keyX, nil); r.Status != 403 {
		t.Fatalf("agent key get: %d", r.Status)
	}
	if g := c.do("GET", path, keyA, nil); g.Body["version"] != 1.0 || !strings.Contains(g.Raw, "pt-BR") {
		t.Fatalf("a refused put changed the settings: %s", g.Raw)
	}
	// The current version is accepted; an empty object restores the defaults.
	if r := c.do("PUT", path, keyA, `{}`, "If-Match", `"1"`); r.Status != 200 || r.Body["version"] != 2.0 || len(r.Body["settings"].(map[string]any)) != 0 {
		t.Fatalf("reset: %d %s", r.Status, r.Raw)
	}
}

// TestExtractionHonoursDropRule: through memoryd's handler, org a drops
// allergies and health facts; the same conversation posted by org a and
// org b gives org a no allergy fact and org b one; once org a restores the
// defaults, its next conversation's allergy is kept.
func TestExtractionHonoursDropRule(t *testing.T) {
	c, queue := memorydServer(t)
	if r := c.do("PUT", "/v1/admin/settings/extraction", keyA, map[string]any{"dropCategories": []string{"allergy", "health"}}); r.Status != 200 {
		t.Fatalf("put: %d %s", r.Status, r.Raw)
	}
	say := func(key, room string, lines ...string) {
		t.Helper()
		var msgs []map[string]any
		for _, l := range lines {
			msgs = append(msgs, map[string]any{"roomId": room, "entityId": "Ana", "content": map[string]any{"text": l}})
		}
		if r := c.do("POST", "/v1/messages", key, map[string]any{"messages": msgs}); r.Status != 202 || r.Body["extractionQueued"] != true {
			t.Fatalf("post messages: %d %s", r.Status, r.Raw)
		}
		queue.Drain()
	}
	factTexts := func(key string) string {
		t.Helper()
		var texts []string
		for _, m := range c.do("GET", "/v1/memories?type=fact", key, nil).Body["memories"].([]any) {
			texts = append(texts, m.(map[string]any)["content"].(map[string]any)["text"].(string))
		}
		return strings.Join(texts, "; ")
	}
	conversation := []string{"I'm allergic to penicillin.", "I have asthma.", "I live in Lisbon."}
	say(keyA, "chat", conversation...)
	say(keyB, "chat", conversation...)
	tests := []struct {
		name, key string
		want      []string
		wantNot   []string
	}{
		{"org a drops", keyA, []string{"Ana lives in Lisbon"}, []string{"penicillin", "asthma"}},
		{"org b keeps", keyB, []string{"Ana lives in Lisbon", "Ana is allergic to penicillin", "asthma"}, nil},
	}
	for _, tc := range tests {
		got := factTexts(tc.key)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: facts %q lack %q", tc.name, got, w)
			}
		}
		for _, w := range tc.wantNot {
			if strings.Contains(got, w) {
				t.Errorf("%s: facts %q have %q", tc.name, got, w)
			}
		}
	}
	// The fact kept records the settings version it was extracted under.
	if l := c.do("GET", "/v1/memories?type=fact", keyA, nil); !strings.Contains(l.Raw, `"settingsVersion":1`) {
		t.Fatalf("org a's fact does not record settings version 1: %s", l.Raw)
	}
	// Restored defaults apply to the next job at once (one process, one
	// settings store).
	if r := c.do("PUT", "/v1/admin/settings/extraction", keyA, `{}`); r.Status != 200 {
		t.Fatalf("reset: %d %s", r.Status, r.Raw)
	}
	say(keyA, "chat-2", "I'm allergic to peanuts.")
	if got := factTexts(keyA); !strings.Contains(got, "peanuts") {
		t.Fatalf("after the reset org a's facts %q lack the peanut allergy", got)
	}
}
