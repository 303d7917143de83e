package ui

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// stage stands in for an API Gateway stage's URL in front of memoryd: it
// serves /dev/... by passing the rest of the path on (API Gateway hands the
// function the path without the stage) and refuses every other path, as
// the execute-api endpoint does for a path outside any stage.
type stage struct {
	mu      sync.Mutex
	outside []string // paths asked for outside the stage
}

func (s *stage) handler(t *testing.T, target string) http.Handler {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/dev/")
		if !ok && r.URL.Path != "/favicon.ico" { // the browser's own guess, not the page's
			s.mu.Lock()
			s.outside = append(s.outside, r.Method+" "+r.URL.Path)
			s.mu.Unlock()
		}
		if !ok {
			http.Error(w, `{"message":"Forbidden"}`, http.StatusForbidden)
			return
		}
		r.URL.Path, r.URL.RawPath = "/"+rest, ""
		proxy.ServeHTTP(w, r)
	})
}

// TestExplorerUnderStagePrefix: the explorer and the API reference work
// from a stage's URL (/dev/ui/, /dev/docs): the page's files and every API
// call it makes stay under the stage. (The /ui redirect under a stage
// comes from API Gateway's request context, which this stand-in has not:
// TestUIRedirectUnderPrefix in package httpapi checks it.)
func TestExplorerUnderStagePrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds memoryd and drives Chromium")
	}
	chromium(t)
	d := startServer(t)
	if status, _ := d.api(t, "POST", "/v1/memories", "a", map[string]any{"content": map[string]any{"text": "seen through the stage prefix"}}); status != 201 {
		t.Fatalf("seed: %d", status)
	}
	st := &stage{}
	front := httptest.NewServer(st.handler(t, d.url))
	t.Cleanup(front.Close)
	b := newBrowser(t, front.URL+"/dev")
	b.shots = ""

	b.do("open /dev/ui/", chromedp.Navigate(front.URL+"/dev/ui/"), chromedp.WaitVisible(chromedp.CSS("#key")))
	b.do("sign in", chromedp.SetValue(chromedp.CSS("#key"), keys["a"]), chromedp.Click(chromedp.CSS(".signin button[type=submit]")))
	b.wait("signed in", `!document.querySelector('#nav').hidden`)
	b.waitText("#who", "org-a")
	b.settled("memories")
	b.waitText("#view", "seen through the stage prefix")

	b.do("open /dev/docs", chromedp.Navigate(front.URL+"/dev/docs"))
	b.wait("the reference rendered from /dev/v1/openapi.json", `(document.body.innerText || '').includes('agentmem API')`)

	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.outside) > 0 {
		t.Fatalf("requests left the stage: %v", st.outside)
	}
	if errs := b.jsErrors(); len(errs) > 0 {
		t.Fatalf("page errors:\n%s", strings.Join(errs, "\n"))
	}
}
