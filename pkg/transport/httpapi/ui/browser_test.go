package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentmem/agentmem/internal/testenv"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The browser tests drive the explorer in headless Chromium against a real
// memoryd process on loopback: every request the page makes goes through
// the public API with the signed-in key. They skip when no Chromium is
// installed (scripts/browser.sh installs Debian's), unless REQUIRE_BROWSER
// is set, as make test sets it.

var keys = map[string]string{
	"a": "ui-test-key-org-a-0000", "b": "ui-test-key-org-b-0000",
	"x": "ui-test-key-agent-x-00", "y": "ui-test-key-agent-y-00",
}

// chromium finds the browser: CHROME_PATH, else the usual names on PATH.
func chromium(t *testing.T) string {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("REQUIRE_BROWSER") != "" {
		t.Fatal("no Chromium found (REQUIRE_BROWSER is set): run scripts/browser.sh install")
	}
	t.Skip("no Chromium found: run scripts/browser.sh install, or set CHROME_PATH")
	return ""
}

// daemon is a memoryd process.
type daemon struct {
	*testenv.Process
	url string
}

// startServer builds and starts memoryd on a free loopback port with the
// test keys (two orgs; two agents of org a).
func startServer(t *testing.T) *daemon {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "memoryd")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/agentmem/agentmem/cmd/memoryd").CombinedOutput(); err != nil {
		t.Fatalf("build memoryd: %v\n%s", err, out)
	}
	p, err := testenv.StartServer(bin, append(os.Environ(), "DATA_DIR="+t.TempDir(), "ADDR=127.0.0.1",
		fmt.Sprintf("API_KEYS=%s=org-a,%s=org-b,%s=org-a/x,%s=org-a/y", keys["a"], keys["b"], keys["x"], keys["y"])), 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	d := &daemon{Process: p, url: p.URL}
	return d
}

// api calls the server directly (seeding, and edits made "elsewhere").
func (d *daemon) api(t *testing.T, method, path, who string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		js, _ := json.Marshal(body)
		rd = bytes.NewReader(js)
	}
	req, _ := http.NewRequest(method, d.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+keys[who])
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// browser is one page of a headless Chromium.
type browser struct {
	t      *testing.T
	ctx    context.Context
	base   string
	shots  string // screenshot folder; "" takes none
	mu     sync.Mutex
	errors []string // uncaught exceptions and policy violations
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	path := chromium(t)
	profile, err := os.MkdirTemp("", "explorer-chromium")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.DisableGPU,
		chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 860))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses root without it
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 8*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		cancelAlloc()
		for range 50 { // Chromium's children may still write there a moment
			if os.RemoveAll(profile) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	b := &browser{t: t, ctx: ctx, base: base}
	if err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = fmt.Sprintf("%s %s:%d", e.ExceptionDetails.Text, e.ExceptionDetails.URL, e.ExceptionDetails.LineNumber)
			if ex := e.ExceptionDetails.Exception; ex != nil {
				msg += " " + ex.Description
			}
		case *log.EventEntryAdded:
			if strings.Contains(e.Entry.Text, "Content Security Policy") {
				msg = e.Entry.Text
			}
		}
		if msg != "" {
			b.mu.Lock()
			b.errors = append(b.errors, msg)
			b.mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	// Screenshots go to a temporary folder, so that a test run leaves the
	// checkout as it found it; UI_SCREENSHOTS=DIR writes them to DIR (the
	// Makefile's ui-screenshots target: docs/ui), =off takes none.
	switch dir := os.Getenv("UI_SCREENSHOTS"); dir {
	case "off":
	case "":
		b.shots = t.TempDir()
	default:
		b.shots = dir
	}
	return b
}

// stepTimeout bounds one step (a wait for an element, a click), so that a
// missing element fails the test with its name instead of hanging.
const stepTimeout = 45 * time.Second

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// wait waits until the JavaScript expression is truthy.
func (b *browser) wait(what, expr string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(stepTimeout))); err != nil {
		body, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
		b.t.Fatalf("waiting for %s: %v\npage text:\n%s", what, err, body)
	}
}

// waitText waits until the element sel holds text.
func (b *browser) waitText(sel, text string) {
	b.t.Helper()
	b.wait(fmt.Sprintf("%q in %s", text, sel), fmt.Sprintf(`(document.querySelector(%q)?.innerText || '').includes(%q)`, sel, text))
}

// eval returns the string value of expr.
func (b *browser) eval(expr string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		b.t.Fatalf("eval %s: %v", expr, err)
	}
	return s
}

// settled waits until the view has content and nothing loading.
func (b *browser) settled(view string) {
	b.t.Helper()
	b.wait(view+" loaded", `document.querySelector('#view').children.length > 0 && !document.querySelector('#view .loading')`)
}

// visit opens the view at hash.
func (b *browser) visit(hash string) {
	b.t.Helper()
	b.do("navigate to "+hash, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = %q`, hash)))
}

// shot writes name-1280.png and name-390.png, then restores 1280 px; at
// 390 px, where the panes stack, it scrolls to the element focus first.
func (b *browser) shot(name, focus string) {
	b.t.Helper()
	if b.shots == "" {
		return
	}
	if err := os.MkdirAll(b.shots, 0o755); err != nil {
		b.t.Fatal(err)
	}
	for _, vp := range []struct{ w, h int64 }{{1280, 860}, {390, 844}} {
		scroll := `window.scrollTo(0, 0)`
		if vp.w < 760 && focus != "" {
			scroll = fmt.Sprintf(`document.querySelector(%q).scrollIntoView()`, focus)
		}
		b.do("viewport", chromedp.EmulateViewport(vp.w, vp.h),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('toast').style.transition = 'none'; document.getElementById('toast').classList.remove('show'); `+scroll+`; document.activeElement.blur()`))
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			b.t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%s-%d.png", name, vp.w)), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	b.do("viewport", chromedp.EmulateViewport(1280, 860))
}

func (b *browser) signIn(who string) {
	b.t.Helper()
	b.do("open the sign-in page", chromedp.Navigate(b.base+"/ui/"),
		chromedp.WaitVisible(chromedp.CSS("#key")),
		chromedp.SetValue(chromedp.CSS("#key"), keys[who]),
		chromedp.Click(chromedp.CSS(".signin button[type=submit]")))
	b.wait("signed in", `!document.querySelector('#nav').hidden`)
	b.settled("memories")
}

func (b *browser) signOut() {
	b.t.Helper()
	b.do("sign out", chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#key")))
	if k := b.eval(`sessionStorage.length + ''`); k != "0" {
		b.t.Fatalf("the key is still in sessionStorage after sign-out (%s items)", k)
	}
}

func (b *browser) jsErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// seed writes what the views show: a conversation (its facts extracted in
// the server), a preference, agent X's and agent Y's own memories, a room
// and a document of agent Y's, and org B's memory.
func seed(t *testing.T, d *daemon) map[string]string {
	t.Helper()
	ids := map[string]string{}
	post := func(who, room, speaker string, turns ...string) {
		var msgs []any
		for _, text := range turns {
			msgs = append(msgs, map[string]any{"roomId": room, "entityId": speaker, "content": map[string]any{"text": text}})
		}
		if st, out := d.api(t, "POST", "/v1/messages", who, map[string]any{"messages": msgs}); st != 202 {
			t.Fatalf("seed messages: %d %v", st, out)
		}
	}
	create := func(name, who string, body map[string]any) {
		st, out := d.api(t, "POST", "/v1/memories", who, body)
		if st != 201 {
			t.Fatalf("seed %s: %d %v", name, st, out)
		}
		ids[name] = out["id"].(string)
	}
	post("a", "support-42", "priya",
		"Hi, I moved to Berlin last year and I work at Acme as an engineer.",
		"My daughter Mia loves swimming on Saturdays.",
		"I prefer window seats on long flights.")
	post("a", "support-42", "priya", "Actually I now work at Globex as an engineer.")
	create("pref", "a", map[string]any{"type": "fact", "kind": "preference", "entityId": "priya", "content": map[string]any{"text": "Priya prefers vegetarian meals when travelling"}})
	create("x-note", "x", map[string]any{"type": "fact", "content": map[string]any{"text": "Agent X note: renewal call with Contoso on Monday"}})
	create("y-note", "y", map[string]any{"type": "fact", "content": map[string]any{"text": "Agent Y note: the vault code is tango-seven"}})
	post("y", "y-private-room", "omar", "I booked the Zanzibar retreat for the board.")
	if st, out := d.api(t, "POST", "/v1/documents", "y", map[string]any{"name": "y-handbook.md", "content": "# Quokka protocol\n\nOnly agent Y reads the quokka protocol."}); st != 201 {
		t.Fatalf("seed y document: %d %v", st, out)
	}
	create("b-note", "b", map[string]any{"type": "fact", "content": map[string]any{"text": "Org B secret: project Nightjar launches soon"}})
	seedBlocks(t, d)
	// Extraction runs in the server's queue: wait for the facts of the
	// conversation (and of agent Y's room) before the views read them.
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, a := d.api(t, "GET", "/v1/memories/count?type=fact&entityId=priya", "a", nil)
		_, y := d.api(t, "GET", "/v1/memories/count?type=fact&agentId=y", "a", nil)
		if n, _ := a["count"].(float64); n >= 4 {
			if m, _ := y["count"].(float64); m >= 2 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("facts were not extracted: org %v, agent y %v", a, y)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return ids
}

// launchEntries are appended to the org's "launch" block, whose limit is
// 3: the block compacts, and each text must stay in the block or be named
// in its compaction history.
var launchEntries = [][2]string{
	{"chief", "We ship on Friday"}, {"cto", "Use postgres for the ledger"}, {"ops", "Pager rotation from Monday"},
	{"chief", "We ship on Friday"}, {"chief", "Remember the demo on the 14th"}, {"cto", "Freeze the schema on Wednesday"},
}

// seedBlocks writes the memory blocks: org A's shared "launch" block
// (compacted), and agent Y's own block, which agent X must not see.
func seedBlocks(t *testing.T, d *daemon) {
	t.Helper()
	for _, ws := range []struct {
		who, id, name string
		entries       [][2]string
	}{
		{"a", "launch", "Launch plan", launchEntries},
		{"y", "y-vault", "Agent Y vault", [][2]string{{"y", "The quokka door opens at nine"}}},
	} {
		if st, out := d.api(t, "POST", "/v1/workstreams", ws.who, map[string]any{"id": ws.id, "name": ws.name, "limit": 3}); st != 201 {
			t.Fatalf("seed workstream %s: %d %v", ws.id, st, out)
		}
		for _, e := range ws.entries {
			if st, out := d.api(t, "POST", "/v1/workstreams/"+ws.id+"/entries", ws.who, map[string]any{"role": e[0], "text": e[1]}); st != 201 {
				t.Fatalf("seed entry of %s: %d %v", ws.id, st, out)
			}
		}
	}
}

// TestExplorer signs in, creates a memory through the page and finds it
// in search, edits it through a version conflict, deletes it, uploads a
// document and sees it indexed, visits every view (taking screenshots at
// 1280 and 390 px), then checks that an agent-bound key sees none of
// another agent's (or org's) memories in any view.
func TestExplorer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds memoryd and drives Chromium")
	}
	path := chromium(t)
	t.Logf("browser: %s", path)
	d := startServer(t)
	ids := seed(t, d)
	b := newBrowser(t, d.url)
	t.Cleanup(func() {
		if errs := b.jsErrors(); t.Failed() && len(errs) > 0 {
			t.Logf("page errors:\n%s", strings.Join(errs, "\n"))
		}
	})
	// Each step builds on the one before: stop at the first failure.
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	run("sign in", func(t *testing.T) {
		b.t = t
		b.do("open", chromedp.Navigate(d.url+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#key")))
		b.shot("signin", "")
		// A wrong key is refused with a message, and nothing is kept.
		b.do("wrong key", chromedp.SetValue(chromedp.CSS("#key"), "not-a-valid-key-000000"), chromedp.Click(chromedp.CSS(".signin button[type=submit]")))
		b.waitText(".signin", "was not accepted")
		b.signIn("a")
		b.waitText("#who", "org-a")
		b.waitText("#who", "admin")

		// Keyboard: Tab reaches the views' links, the focus is visible,
		// Enter opens the view.
		b.do("focus the skip link", chromedp.Evaluate[chromedp.Void](`document.querySelector(".skip").focus()`))
		reached := false
		for range 5 {
			b.do("tab", chromedp.KeyEvent(kb.Tab))
			if b.eval(`document.activeElement.matches('#nav a[data-view=search]') + ''`) == "true" {
				reached = true
				break
			}
		}
		if !reached {
			t.Fatalf("Tab never reached the Search link (focus on %s)", b.eval(`document.activeElement.outerHTML.slice(0, 80)`))
		}
		if o := b.eval(`getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
			t.Fatal("the focused link shows no outline")
		}
		b.do("enter", chromedp.KeyEvent(kb.Enter))
		b.wait("the search view, by keyboard", `location.hash === '#/search' && !!document.querySelector('#search-query')`)
		b.visit("#/memories")
		b.settled("memories")
	})

	// The client reads errors in both shapes the API has used, and takes
	// a stale If-Match as a conflict at 409 and at 412.
	run("error shapes", func(t *testing.T) {
		b.t = t
		for _, tc := range []struct {
			name, body string
			status     int
			want       string // code|message|conflict
		}{
			{"error object", `{"error":{"code":"conflict","message":"memory \"m\" is at version 2, not 1"}}`, 409, `conflict|memory "m" is at version 2, not 1|true`},
			{"problem details", `{"type":"about:blank","title":"Precondition Failed","status":412,"detail":"memory \"m\" is at version 2, not 1","code":"precondition_failed"}`, 412, `precondition_failed|memory "m" is at version 2, not 1|true`},
			{"problem without detail", `{"title":"Not Found","status":404,"code":"not_found"}`, 404, `not_found|Not Found|false`},
			{"invalid field", `{"type":"about:blank","title":"Bad Request","status":400,"detail":"limit: must be between 1 and 1000","code":"invalid"}`, 400, `invalid|limit: must be between 1 and 1000|false`},
			{"not JSON", `upstream timed out`, 504, `|upstream timed out|false`},
		} {
			expr := fmt.Sprintf(`import('/ui/api.js').then(m => {
				const text = %q; let data = null; try { data = JSON.parse(text); } catch {}
				const e = m.errorOf(%d, data, text);
				return [e.code, e.message, m.isConflict(e)].join('|');
			})`, tc.body, tc.status)
			ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
			got, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			}
		}
	})

	var id string
	const text = "Priya's passport renews in June 2027"
	run("create and find in search", func(t *testing.T) {
		b.t = t
		b.do("create", chromedp.Click(chromedp.CSS("#create summary")),
			chromedp.SetValue(chromedp.CSS("#new-text"), text),
			chromedp.Click(chromedp.CSS("#create-submit")))
		b.waitText("#detail-text", text)
		id = strings.TrimPrefix(b.eval(`location.hash`), "#/memories/")
		if st, out := d.api(t, "GET", "/v1/memories/"+id, "a", nil); st != 200 || out["content"].(map[string]any)["text"] != text {
			t.Fatalf("created memory %q: %d %v", id, st, out)
		}
		b.waitText("#memory-list", text)
		b.shot("memories", "#detail")

		b.visit("#/search")
		b.do("search", chromedp.WaitVisible(chromedp.CSS("#search-query")),
			chromedp.SetValue(chromedp.CSS("#search-query"), "when does the passport renew"),
			chromedp.Click(chromedp.CSS("#search-submit")))
		b.waitText("#results-table", "passport renews")
		b.waitText("#context", "tokens used")
		if first := b.eval(`document.querySelector('#results-table tbody tr a').getAttribute('href')`); first != "#/memories/"+id {
			t.Fatalf("first result links %s, want the created memory %s", first, id)
		}
		if cols := b.eval(`[...document.querySelectorAll('#results-table th')].map(e => e.innerText).join(',')`); !strings.Contains(cols, "keyword") || !strings.Contains(cols, "semantic") {
			t.Fatalf("per-list columns: %s", cols)
		}
		b.settled("search")
		b.shot("search", "#search-results")
	})

	const edited = "Priya's passport renews in July 2027"
	run("edit with a version conflict", func(t *testing.T) {
		b.t = t
		b.visit("#/memories/" + id)
		b.waitText("#detail-text", text)
		b.do("edit", chromedp.Click(chromedp.CSS("#edit")), chromedp.WaitVisible(chromedp.CSS("#edit-text")))
		// Someone else changes it meanwhile.
		if st, out := d.api(t, "PATCH", "/v1/memories/"+id, "a", map[string]any{"importance": 0.9}); st != 200 {
			t.Fatalf("edit elsewhere: %d %v", st, out)
		}
		b.do("save", chromedp.SetValue(chromedp.CSS("#edit-text"), edited), chromedp.Click(chromedp.CSS("#save")))
		b.waitText("#edit-status", "Version conflict")
		b.shot("memories-conflict", "#edit-status")
		if _, out := d.api(t, "GET", "/v1/memories/"+id, "a", nil); out["content"].(map[string]any)["text"] != text {
			t.Fatalf("the conflicting save changed the memory: %v", out)
		}
		b.do("reload", chromedp.Click(chromedp.CSS("#edit-status button")))
		b.waitText("#detail", "0.9")
		b.do("edit again", chromedp.Click(chromedp.CSS("#edit")), chromedp.WaitVisible(chromedp.CSS("#edit-text")),
			chromedp.SetValue(chromedp.CSS("#edit-text"), edited), chromedp.Click(chromedp.CSS("#save")))
		b.waitText("#detail-text", edited)
		if _, out := d.api(t, "GET", "/v1/memories/"+id, "a", nil); out["content"].(map[string]any)["text"] != edited || out["version"].(float64) != 3 {
			t.Fatalf("after the second save: %v", out)
		}
	})

	run("delete with confirmation", func(t *testing.T) {
		b.t = t
		b.do("delete, cancel", chromedp.Click(chromedp.CSS("#delete")), chromedp.WaitVisible(chromedp.CSS("#confirm")),
			chromedp.Click(chromedp.CSS("#confirm button[value=cancel]")))
		b.wait("dialog closed", `!document.querySelector('#confirm').open`)
		if st, _ := d.api(t, "GET", "/v1/memories/"+id, "a", nil); st != 200 {
			t.Fatalf("cancelled delete removed the memory: %d", st)
		}
		b.do("delete, confirm", chromedp.Click(chromedp.CSS("#delete")), chromedp.WaitVisible(chromedp.CSS("#confirm")),
			chromedp.Click(chromedp.CSS("#confirm-ok")))
		b.waitText("#detail", "was deleted")
		if st, _ := d.api(t, "GET", "/v1/memories/"+id, "a", nil); st != 404 {
			t.Fatalf("deleted memory: %d, want 404", st)
		}
		b.wait("gone from the list", fmt.Sprintf(`!document.querySelector('#memory-list [data-id=%q]')`, id))
	})

	run("upload a document", func(t *testing.T) {
		b.t = t
		file := filepath.Join(t.TempDir(), "setup-guide.md")
		os.WriteFile(file, []byte("# Setup guide\n\nInstall the widget, then restart the gizmo.\n\n## Power\n\nThe gizmo needs a 12 V supply.\n"), 0o644)
		b.visit("#/documents")
		b.settled("documents")
		b.do("upload", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file}))
		b.waitText("#upload-status", "indexed")
		b.waitText("#documents-table", "setup-guide.md")
		b.do("open", chromedp.Click(chromedp.JSPath(`[...document.querySelectorAll('#documents-table button.link')].find(e => e.innerText === 'setup-guide.md')`)))
		b.waitText("#document-detail", "12 V supply")
		_, out := d.api(t, "GET", "/v1/documents", "a", nil)
		found := false
		for _, x := range out["documents"].([]any) {
			doc := x.(map[string]any)
			found = found || doc["name"] == "setup-guide.md" && doc["state"] == "indexed" && doc["fragments"].(float64) >= 1
		}
		if !found {
			t.Fatalf("uploaded document not indexed: %v", out)
		}
		b.shot("documents", "#document-detail")
	})

	run("knowledge", func(t *testing.T) {
		b.t = t
		b.visit("#/knowledge")
		b.settled("knowledge")
		b.waitText("#entities", "priya")
		b.do("type a term", chromedp.SendKeys(chromedp.CSS("#term"), "berl"))
		b.waitText("#hint-list", "berlin")
		b.do("open an entity", chromedp.Click(chromedp.JSPath(`[...document.querySelectorAll('#entities button.link')].find(e => e.innerText === 'priya')`)))
		b.waitText("#knowledge-answer", "moved to Berlin")
		b.settled("knowledge")
		b.shot("knowledge", "#knowledge-answer")
	})

	run("conversations", func(t *testing.T) {
		b.t = t
		b.visit("#/conversations/support-42")
		b.settled("conversations")
		b.waitText("#transcript", "daughter Mia")
		b.wait("a fact beside its turn", `document.querySelectorAll('#transcript .fact').length >= 3`)
		b.waitText("#transcript", "by rule")
		b.shot("conversations", "#transcript")
		// A fact opens in the memories view with its decision, its
		// source turn, and the relation to it.
		b.do("open a fact", chromedp.Click(chromedp.CSS("#transcript .fact a")))
		b.waitText("#detail", "Extraction decision")
		b.waitText("#detail", "Outgoing (1)")
		b.waitText("#detail", "Extracted from")
		b.settled("memories")
		b.shot("memory-detail", "#detail")
	})

	run("operations", func(t *testing.T) {
		b.t = t
		b.visit("#/operations")
		b.settled("operations")
		b.waitText("#consolidation", "No consolidation has run")
		b.do("run", chromedp.Click(chromedp.CSS("#consolidate")))
		b.wait("a report", `!!document.querySelector('#report')`)
		b.waitText("#report", "scanned")
		b.wait("the chart", `!!document.querySelector('#counts svg rect')`)
		b.settled("operations")
		b.shot("operations", "")
	})

	run("memory blocks", func(t *testing.T) {
		b.t = t
		b.visit("#/workstreams")
		b.settled("workstreams")
		b.waitText("#workstreams", "Launch plan")
		b.waitText("#workstreams", "Agent Y vault") // the org key's admin view
		b.do("open the launch block", chromedp.Click(chromedp.JSPath(`[...document.querySelectorAll('#workstreams a')].find(e => e.innerText === 'Launch plan')`)))
		b.waitText("#block", "of 3 entries")
		b.waitText("#block-history", "Version")
		b.waitText("#block-entries", "remember: never folded")
		// Nothing disappears: every text appended is in the block, or
		// named in a compaction record, as the page shows them.
		shown := b.eval(`document.querySelector('#block-entries').innerText + '\n' + document.querySelector('#block-history').innerText`)
		for _, e := range launchEntries {
			if !strings.Contains(shown, e[1]) {
				t.Errorf("%q is neither in the block nor in its history as shown:\n%s", e[1], shown)
			}
		}
		const note = "Demo dry run on Tuesday"
		b.do("append", chromedp.SetValue(chromedp.CSS("#entry-role"), "qa"), chromedp.SetValue(chromedp.CSS("#entry-text"), note),
			chromedp.Click(chromedp.CSS("#entry-submit")))
		b.waitText("#block-entries", note)
		if _, out := d.api(t, "GET", "/v1/workstreams/launch", "a", nil); !strings.Contains(fmt.Sprint(out["entries"]), note) {
			t.Fatalf("the appended entry is not in the block: %v", out["entries"])
		}
		b.settled("workstreams")
		b.shot("workstreams", "#block")
	})

	run("agent-bound key sees only its scope", func(t *testing.T) {
		b.t = t
		b.signOut()
		b.signIn("x")
		b.waitText("#who", "agent x")
		forbidden := []string{"Agent Y vault", "y-vault", "tango-seven", "Zanzibar", "zanzibar", "y-private-room", "y-handbook", "Quokka", "quokka", "Nightjar", "omar"}
		check := func(view string) {
			t.Helper()
			page := b.eval(`document.querySelector('#view').innerText`)
			for _, f := range forbidden {
				if strings.Contains(page, f) {
					t.Fatalf("%s view shows %q to agent x:\n%s", view, f, page)
				}
			}
		}
		b.waitText("#memory-list", "Agent X note")
		b.wait("every page", `!document.querySelector('.list-status button') && document.querySelector('#memory-list').children.length > 0`)
		check("memories")
		b.visit("#/memories/" + ids["y-note"])
		b.waitText("#detail", "not visible to this key")
		check("memory detail")
		b.visit("#/search")
		b.do("search", chromedp.WaitVisible(chromedp.CSS("#search-query")),
			chromedp.SetValue(chromedp.CSS("#search-query"), "vault code tango Zanzibar retreat quokka protocol Nightjar renewal"),
			chromedp.Click(chromedp.CSS("#search-submit")))
		b.waitText("#results-table", "Agent X note")
		b.waitText("#context", "tokens used")
		check("search")
		b.visit("#/knowledge")
		b.settled("knowledge")
		b.do("type a term", chromedp.SendKeys(chromedp.CSS("#term"), "zanz"))
		b.do("ask", chromedp.Click(chromedp.CSS("#ask")))
		b.waitText("#knowledge-answer", "Nothing known matches")
		check("knowledge")
		b.visit("#/conversations")
		b.settled("conversations")
		check("conversations")
		b.visit("#/documents")
		b.settled("documents")
		check("documents")
		b.visit("#/workstreams")
		b.settled("workstreams")
		b.waitText("#workstreams", "Launch plan") // the org's shared block
		check("workstreams")
		b.visit("#/workstreams/y-vault")
		b.waitText("#block", "not visible to this key")
		// The error names the id asked for, and nothing of the block.
		if page := b.eval(`document.querySelector('#view').innerText`); strings.Contains(page, "Agent Y vault") || strings.Contains(page, "quokka") {
			t.Fatalf("agent x sees agent y's block:\n%s", page)
		}
		b.visit("#/operations")
		b.settled("operations")
		b.waitText("#consolidation", "org-level key")
		if n := b.eval(`document.querySelectorAll('#consolidate').length + ''`); n != "0" {
			t.Fatal("an agent-bound key is offered the consolidation run")
		}
		check("operations")
		// Org B's key, likewise, in the memories view and search.
		b.signOut()
		b.signIn("b")
		b.waitText("#memory-list", "Nightjar")
		if page := b.eval(`document.querySelector('#view').innerText`); strings.Contains(page, "Agent X") || strings.Contains(page, "Priya") {
			t.Fatalf("org b sees org a's memories:\n%s", page)
		}
	})

	if errs := b.jsErrors(); len(errs) > 0 {
		t.Fatalf("the page threw or broke its policy:\n%s", strings.Join(errs, "\n"))
	}
}
