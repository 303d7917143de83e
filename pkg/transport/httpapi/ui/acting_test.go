package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestExplorerActsAsUser signs in with org A's key, which sees everything
// (the admin view), then acts as Alice: every view must hide Bob's
// user-visible memory, his room's turn and the facts learnt from it, and
// show Alice's. Acting for Alice's room does the same; stopping brings the
// admin view back.
func TestExplorerActsAsUser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds memoryd and drives Chromium")
	}
	chromium(t)
	d := startServer(t)
	turn := func(room, user, text string) {
		body := map[string]any{"roomId": room, "userId": user, "messages": []any{map[string]any{"role": "user", "content": text}}}
		if st, out := d.api(t, "POST", "/v1/messages", "a", body); st != 202 {
			t.Fatalf("seed %s's turn: %d %v", user, st, out)
		}
	}
	turn("room-bob", "bob", "I am allergic to peanuts and I live at 12 Elm Street, Springfield.")
	turn("room-alice", "alice", "I love hiking in the Alps.")
	for _, m := range []map[string]any{
		{"visibility": "user", "userId": "bob", "entityId": "bob", "content": map[string]any{"text": "Bob's locker code is walrus-nine"}},
		{"visibility": "user", "userId": "alice", "entityId": "alice", "content": map[string]any{"text": "Alice's locker code is heron-four"}},
		{"visibility": "shared", "content": map[string]any{"text": "The Springfield office closes at six"}},
	} {
		if st, out := d.api(t, "POST", "/v1/memories", "a", m); st != 201 {
			t.Fatalf("seed %v: %d %v", m, st, out)
		}
	}
	for _, ws := range []struct{ id, text string }{{"bob-block", "Bob's walrus locker"}, {"office-block", "Springfield office keys"}} {
		body := map[string]any{"id": ws.id, "visibility": "shared"}
		if ws.id == "bob-block" {
			body = map[string]any{"id": ws.id, "visibility": "user", "userId": "bob"}
		}
		if st, out := d.api(t, "POST", "/v1/workstreams", "a", body); st != 201 {
			t.Fatalf("seed %s: %d %v", ws.id, st, out)
		}
		if st, out := d.api(t, "POST", "/v1/workstreams/"+ws.id+"/entries", "a", map[string]any{"role": "note", "text": ws.text}); st != 201 {
			t.Fatalf("seed %s's entry: %d %v", ws.id, st, out)
		}
	}
	// Wait for the facts learnt from Bob's turn, so that the views are
	// checked against them too.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if _, out := d.api(t, "GET", "/v1/memories/count?type=fact&entityId=bob", "a", nil); out["count"].(float64) >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no fact was learnt from Bob's turn")
		}
	}

	b := newBrowser(t, d.url)
	t.Cleanup(func() {
		if errs := b.jsErrors(); t.Failed() && len(errs) > 0 {
			t.Logf("page errors:\n%s", strings.Join(errs, "\n"))
		}
	})
	b.signIn("a")
	b.waitText("#acting-status", "admin view")
	b.waitText("#memory-list", "walrus-nine") // the admin view sees Bob's

	bobs := []string{"walrus", "peanut", "Peanut", "Elm Street", "elm street", "room-bob"}
	check := func(view string) {
		b.t.Helper()
		page := b.eval(`document.querySelector('#view').innerText`)
		for _, f := range bobs {
			if strings.Contains(page, f) {
				b.t.Fatalf("acting as Alice, the %s view shows Bob's %q:\n%s", view, f, page)
			}
		}
	}
	every := func() {
		b.t.Helper()
		b.visit("#/memories")
		b.waitText("#memory-list", "The Springfield office")
		b.wait("every page", `!document.querySelector('.list-status button') && document.querySelector('#memory-list').children.length > 0`)
		check("memories")
		b.visit("#/search")
		b.do("search", chromedp.WaitVisible(chromedp.CSS("#search-query")),
			chromedp.SetValue(chromedp.CSS("#search-query"), "allergic peanuts Elm Street walrus locker code hiking"),
			chromedp.Click(chromedp.CSS("#search-submit")))
		b.waitText("#context", "tokens used")
		b.wait("the results", `!document.querySelector('#search-results .loading')`)
		check("search")
		b.visit("#/knowledge")
		b.settled("knowledge")
		b.wait("the entities", `!document.querySelector('#entities .loading') && !document.querySelector('#topics .loading')`)
		b.do("ask", chromedp.SendKeys(chromedp.CSS("#term"), "allergic"), chromedp.Click(chromedp.CSS("#ask")))
		b.wait("the answer", `!document.querySelector('#knowledge-answer .loading') && document.querySelector('#knowledge-answer').innerText.length > 0`)
		check("knowledge")
		b.visit("#/conversations")
		b.settled("conversations")
		b.wait("the rooms", `!document.querySelector('.rooms .loading')`)
		check("conversations")
		b.visit("#/operations")
		b.settled("operations")
		check("operations")
		b.visit("#/workstreams")
		b.settled("workstreams")
		b.waitText("#workstreams", "office-block")
		check("workstreams")
		b.visit("#/workstreams/bob-block")
		b.waitText("#block", "not visible to this key")
	}

	t.Run("as Alice's userId", func(t *testing.T) {
		b.t = t
		b.do("act as alice", chromedp.SetValue(chromedp.CSS("#acting-user"), "alice"), chromedp.Click(chromedp.CSS("#acting-apply")))
		b.waitText("#acting-status", "user alice")
		if on := b.eval(`document.querySelector('#acting').classList.contains('on') + ''`); on != "true" {
			t.Fatal("the acting bar is not highlighted while acting")
		}
		every()
		b.visit("#/memories")
		b.waitText("#memory-list", "heron-four") // Alice's own
		b.waitText("#acting-status", "user alice")
		b.shot("acting", "#acting")
	})

	t.Run("as Alice's room", func(t *testing.T) {
		b.t = t
		b.do("act in room-alice", chromedp.Evaluate[chromedp.Void](`document.querySelector('#acting-user').value = ''`),
			chromedp.SetValue(chromedp.CSS("#acting-room"), "room-alice"), chromedp.Click(chromedp.CSS("#acting-apply")))
		b.waitText("#acting-status", "room room-alice")
		b.visit("#/memories")
		b.waitText("#memory-list", "hiking in the Alps")
		check("memories")
		b.visit("#/search")
		b.do("search", chromedp.WaitVisible(chromedp.CSS("#search-query")),
			chromedp.SetValue(chromedp.CSS("#search-query"), "allergic peanuts Elm Street walrus hiking"),
			chromedp.Click(chromedp.CSS("#search-submit")))
		b.waitText("#context", "tokens used")
		b.wait("the results", `!document.querySelector('#search-results .loading')`)
		check("search")
	})

	t.Run("stop acting", func(t *testing.T) {
		b.t = t
		b.do("stop", chromedp.Click(chromedp.CSS("#acting-stop")))
		b.waitText("#acting-status", "admin view")
		b.visit("#/memories")
		b.waitText("#memory-list", "walrus-nine")
		b.visit("#/workstreams/bob-block")
		b.waitText("#block-entries", "walrus locker")
		b.signOut() // also forgets whom the page acted for
	})

	if errs := b.jsErrors(); len(errs) > 0 {
		t.Fatalf("the page threw or broke its policy:\n%s", strings.Join(errs, "\n"))
	}
}
