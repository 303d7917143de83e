package httpapi_test

import (
	"strings"
	"testing"
)

// TestAPIGatewayPublicPaths: the paths the stage serves without the
// authorizer (infra: GET /, /ui, /ui/..., /docs, /docs/..., /v1/openapi.json)
// reach the API function with no authorizer context and no key, and it
// serves them; every other path without an authorizer context is refused,
// whatever key the request carries, and a path that only looks public is
// not served as one.
func TestAPIGatewayPublicPaths(t *testing.T) {
	s := newServer(t)
	// A memory of org-a, which none of the public answers may reveal.
	created, err := s.HandleAPIGateway(t.Context(), gatewayEvent("POST", "/v1/memories", "org-a", "", `{"content":{"text":"the vault code is 4417"}}`))
	if err != nil || created.StatusCode != 201 {
		t.Fatalf("create: %d %s %v", created.StatusCode, created.Body, err)
	}
	for _, tc := range []struct {
		name        string
		method      string // GET when empty
		path        string
		key         string // a bearer key sent along, never consulted
		status      int
		contentType string
		contains    string
		location    string
	}{
		{name: "home", path: "/", status: 302, location: "/ui/"},
		{name: "explorer page", path: "/ui/", status: 200, contentType: "text/html", contains: `src="app.js"`},
		{name: "explorer script", path: "/ui/app.js", status: 200, contentType: "javascript", contains: "whoami"},
		{name: "explorer API client", path: "/ui/api.js", status: 200, contentType: "javascript", contains: "BASE"},
		{name: "explorer style", path: "/ui/style.css", status: 200, contentType: "text/css"},
		{name: "explorer missing file", path: "/ui/missing.js", status: 404},
		{name: "reference page", path: "/docs", status: 200, contentType: "text/html", contains: "redoc"},
		{name: "reference script", path: "/docs/redoc.standalone.js", status: 200, contentType: "javascript"},
		{name: "openapi document", path: "/v1/openapi.json", status: 200, contentType: "json", contains: `"openapi"`},
		{name: "public page with a key", path: "/docs", key: keyA, status: 200, contentType: "text/html"},
		{name: "memories", path: "/v1/memories", status: 401},
		{name: "memories with a valid key", path: "/v1/memories", key: keyA, status: 401},
		{name: "whoami", path: "/v1/whoami", key: keyA, status: 401},
		{name: "search", method: "POST", path: "/v1/search", key: keyA, status: 401},
		{name: "audit log", path: "/v1/admin/audit", key: keyA, status: 401},
		// ServeMux cleans the path and redirects to the clean one, which
		// the stage sends through the authorizer; it never serves the
		// memories under /ui.
		{name: "dot-dot out of /ui", path: "/ui/../v1/memories", status: 307, location: "/v1/memories"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = "GET"
			}
			ev := gatewayEvent(method, tc.path, "", "", "")
			if tc.key != "" {
				ev.Headers["Authorization"] = "Bearer " + tc.key
			}
			res, err := s.HandleAPIGateway(t.Context(), ev)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %.200s", res.StatusCode, tc.status, res.Body)
			}
			if strings.Contains(res.Body, "4417") {
				t.Fatalf("the answer holds org-a's memory: %.200s", res.Body)
			}
			if tc.contentType != "" && !strings.Contains(res.Headers["Content-Type"], tc.contentType) {
				t.Fatalf("content type %q, want %q", res.Headers["Content-Type"], tc.contentType)
			}
			if res.Headers["Location"] != tc.location {
				t.Fatalf("Location %q, want %q", res.Headers["Location"], tc.location)
			}
			if !strings.Contains(res.Body, tc.contains) {
				t.Fatalf("body lacks %q: %.200s", tc.contains, res.Body)
			}
		})
	}
}

// TestUIRedirectUnderPrefix: /ui (301) and / (302) redirect to /ui/ under the stage the
// request came through (API Gateway's request context holds the full
// path), so that on a stage's URL the browser lands on the stage's page;
// anything but plain path segments before the function's path is ignored.
func TestUIRedirectUnderPrefix(t *testing.T) {
	s := newServer(t)
	for _, tc := range []struct {
		name, path, full, want string
		status                 int
	}{
		{"home on a stage", "/", "/dev/", "/dev/ui/", 302},
		{"home", "/", "/", "/ui/", 302},
		{"stage", "/ui", "/dev/ui", "/dev/ui/", 301},
		{"custom domain base path and stage", "/ui", "/memory/prod/ui", "/memory/prod/ui/", 301},
		{"no request context path", "/ui", "", "/ui/", 301},
		{"same path", "/ui", "/ui", "/ui/", 301},
		{"not a prefix", "/ui", "/dev/other", "/ui/", 301},
		{"protocol-relative", "/ui", "//evil.example/ui", "/ui/", 301},
		{"scheme", "/ui", "https://evil.example/ui", "/ui/", 301},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := gatewayEvent("GET", tc.path, "", "", "")
			ev.RequestContext.Path = tc.full
			res, err := s.HandleAPIGateway(t.Context(), ev)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tc.status || res.Headers["Location"] != tc.want {
				t.Fatalf("%d to %q, want %d to %q", res.StatusCode, res.Headers["Location"], tc.status, tc.want)
			}
		})
	}
}
