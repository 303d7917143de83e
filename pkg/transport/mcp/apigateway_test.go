package mcp_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/transport/mcp"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/aws/aws-lambda-go/events"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// gateway is an http.RoundTripper that delivers the SDK client's requests
// to the API as API Gateway proxy events, with the authorizer's context
// (org, agent, grants; no org: a request the authorizer did not pass), as
// the API Lambda receives them.
type gateway struct {
	api                *httpapi.Server
	org, agent, grants string
}

func (g gateway) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body.Close()
	}
	ev := events.APIGatewayProxyRequest{HTTPMethod: r.Method, Path: r.URL.Path, Body: string(body), Headers: map[string]string{},
		RequestContext: events.APIGatewayProxyRequestContext{RequestID: "gw-req", Authorizer: map[string]any{}}}
	for k := range r.Header {
		ev.Headers[k] = r.Header.Get(k)
	}
	if g.org != "" {
		ev.RequestContext.Authorizer[auth.ContextOrgKey] = g.org
		ev.RequestContext.Authorizer[auth.ContextAgentKey] = g.agent
		ev.RequestContext.Authorizer[auth.ContextGrantsKey] = g.grants
	}
	res, err := g.api.HandleAPIGateway(r.Context(), ev)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	for k, v := range res.Headers {
		h.Set(k, v)
	}
	for k, vs := range res.MultiValueHeaders {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	return &http.Response{StatusCode: res.StatusCode, Header: h, Body: io.NopCloser(bytes.NewReader([]byte(res.Body))),
		Request: r, ProtoMajor: 1, ProtoMinor: 1}, nil
}

// TestAPIGateway runs the SDK's client through the API Gateway adapter
// (the API Lambda's path): the authorizer's caller, its grants, org
// isolation, and 401 without an authorizer context.
func TestAPIGateway(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(128), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	api := httpapi.New(b.Service, nil, log, httpapi.WithMount("/mcp", mcp.New(b.Service, mcp.WithLogger(log)).Handler()))
	connect := func(g gateway) (*sdk.ClientSession, error) {
		c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
		return c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: "https://api.example/mcp",
			HTTPClient: &http.Client{Transport: g}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	}
	sessions := map[string]*sdk.ClientSession{}
	for name, g := range map[string]gateway{
		"a":  {api: api, org: "org-a", grants: "read,write,delete"},
		"b":  {api: api, org: "org-b", grants: "read,write,delete"},
		"ro": {api: api, org: "org-a", grants: "read"},
	} {
		s, err := connect(g)
		if err != nil {
			t.Fatalf("connect as %s: %v", name, err)
		}
		t.Cleanup(func() { s.Close() })
		sessions[name] = s
	}
	if _, err := connect(gateway{api: api}); err == nil {
		t.Fatal("connected without an authorizer context")
	}

	var rem mcp.RememberOutput
	mustCall(t, sessions["a"], mcp.ToolRemember, map[string]any{"content": "The gateway memory: invoices go out on the first Monday"}, &rem)
	for _, tc := range []struct {
		who  string
		want int
	}{{"a", 1}, {"ro", 1}, {"b", 0}} {
		var out mcp.RecallOutput
		mustCall(t, sessions[tc.who], mcp.ToolRecall, map[string]any{"query": "invoices first Monday", "mode": "keyword"}, &out)
		if len(out.Results) != tc.want || tc.want == 1 && out.Results[0].ID != rem.ID {
			t.Fatalf("%s recalls %+v, want %d", tc.who, out.Results, tc.want)
		}
	}
	wantError(t, call(t, sessions["ro"], mcp.ToolRemember, map[string]any{"content": "a read-only write"}, nil), memory.EFORBIDDEN)
	wantError(t, call(t, sessions["ro"], mcp.ToolForget, map[string]any{"id": rem.ID}, nil), memory.EFORBIDDEN)
	wantError(t, call(t, sessions["b"], mcp.ToolForget, map[string]any{"id": rem.ID}, nil), memory.ENOTFOUND)
	var fg mcp.ForgetOutput
	mustCall(t, sessions["a"], mcp.ToolForget, map[string]any{"id": rem.ID}, &fg)
	if fg.Deleted != 1 {
		t.Fatalf("forget: %+v", fg)
	}
}
