package httpapi

import (
	"embed"
	"io/fs"
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The memory explorer: a page at /ui, built from plain ES modules and CSS
// embedded in the binary (nothing is fetched at run time). It signs in
// with an API key kept in the browser session and calls the public API
// with it, so it sees what the key sees and nothing more.

//go:embed ui/*.html ui/*.js ui/*.css ui/*.svg
var uiFiles embed.FS

// uiCSP keeps the page to its own origin: its scripts, styles and API
// calls; no inline script, no frames.
const uiCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// home sends a browser opening the server's address to the explorer
// (under the API Gateway stage it came through). It is public and holds
// no data.
func (s *Server) home(w http.ResponseWriter, r *http.Request, _ memory.Caller) error {
	http.Redirect(w, r, requestBasePath(r)+"/ui/", http.StatusFound)
	return nil
}

// ui serves the explorer's files under /ui/ (public: the page holds no
// data; every call it makes carries the user's key).
func (s *Server) ui() handlerFunc {
	sub, _ := fs.Sub(uiFiles, "ui")
	files := http.StripPrefix("/ui/", http.FileServerFS(sub))
	return func(w http.ResponseWriter, r *http.Request, _ memory.Caller) error {
		if r.URL.Path == "/ui" {
			// Under the API Gateway stage the request came through
			// (/dev/ui to /dev/ui/), so that the browser stays on it.
			http.Redirect(w, r, requestBasePath(r)+"/ui/", http.StatusMovedPermanently)
			return nil
		}
		h := w.Header()
		h.Set("Content-Security-Policy", uiCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
		return nil
	}
}
