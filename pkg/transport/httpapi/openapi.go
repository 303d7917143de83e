package httpapi

import (
	"embed"
	"net/http"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/contract"
)

// Route is one entry of the route table: what New registered, and the
// grant a key needs for it. Tests walk it against the OpenAPI document.
type Route struct {
	// Method is the HTTP method ("GET", "POST"...); "" when the route
	// serves every method.
	Method string
	// Pattern is the path pattern, with wildcards as the OpenAPI document
	// writes them ("/v1/memories/{id}").
	Pattern string
	// Grants is the grant a key needs; 0 for a public route.
	Grants memory.Grants
}

// newRoute splits a ServeMux pattern ("GET /v1/memories/{id}"); a
// pattern without a method ("/mcp") serves every method (Method "").
func newRoute(pattern string, op memory.Grants) Route {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		return Route{Pattern: pattern, Grants: op}
	}
	// "/{$}" (the root exactly) is the document's "/".
	return Route{Method: method, Pattern: strings.TrimSuffix(path, "{$}"), Grants: op}
}

// Routes returns the server's route table, in the order New registered
// it: the routes of the options it was given, and no others.
func (s *Server) Routes() []Route {
	return append([]Route(nil), s.routes...)
}

// docsFS is the API reference page and the Redoc bundle it runs (see
// docs/README.md): vendored, so the page fetches nothing from elsewhere.
//
//go:embed docs/index.html docs/redoc.standalone.js
var docsFS embed.FS

// docsPolicy is the reference page's Content-Security-Policy: its own
// script, its inline styles (Redoc injects them), and the spec from this
// origin; nothing from anywhere else.
const docsPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// routeOpenAPI registers the public OpenAPI document and its rendered
// reference.
func (s *Server) routeOpenAPI() {
	s.route("GET /v1/openapi.json", serveOpenAPI, public)
	s.route("GET /docs", serveDocs("docs/index.html", "text/html; charset=utf-8"), public)
	s.route("GET /docs/redoc.standalone.js", serveDocs("docs/redoc.standalone.js", "text/javascript; charset=utf-8"), public)
}

// serveOpenAPI answers GET /v1/openapi.json: the document of
// contract.OpenAPI, as it is embedded.
func serveOpenAPI(w http.ResponseWriter, r *http.Request, _ memory.Caller) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Access-Control-Allow-Origin", "*") // public; lets other tools' pages read it
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(contract.OpenAPI)
	return err
}

// serveDocs answers with the embedded file name of docsFS.
func serveDocs(name, contentType string) handlerFunc {
	body, err := docsFS.ReadFile(name)
	if err != nil {
		panic("httpapi: " + name + " is not embedded: " + err.Error())
	}
	return func(w http.ResponseWriter, r *http.Request, _ memory.Caller) error {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Security-Policy", docsPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=3600")
		w.WriteHeader(http.StatusOK)
		_, err := w.Write(body)
		return err
	}
}
