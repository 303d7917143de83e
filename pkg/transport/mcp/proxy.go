package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProxyOptions say where Proxy finds the server.
type ProxyOptions struct {
	// URL is the server's MCP endpoint (http://127.0.0.1:8080/mcp).
	URL string
	// Key is the API key sent as a Bearer token.
	Key string
	// Version is the version reported in the handshake.
	Version string
	// HTTPClient sends the requests (default http.DefaultClient's
	// transport).
	HTTPClient *http.Client
	// Log receives the proxy's own messages (never to stdout, which is the
	// protocol's).
	Log *slog.Logger
}

// Proxy serves, over t (stdio for memctl mcp), the tools of the MCP
// server at o.URL, calling them with o.Key, until ctx ends or the client
// disconnects. memoryd holds its embedded data files exclusively, so a
// stdio server cannot open them beside it; the proxy reaches the running
// server instead, and so gets exactly its tools, grants and tenancy.
//
// It connects first, so that a wrong URL or key fails at start with a
// message naming it. A tool's own failure comes back as the server's
// tool result (isError); a call that cannot reach the server is a
// JSON-RPC error with the contract's code (unavailable, unauthorized...),
// since no tool ran.
func Proxy(ctx context.Context, t sdk.Transport, o ProxyOptions) error {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	client := *hc
	client.Transport = bearer{key: o.Key, next: base}
	remote := sdk.NewClient(&sdk.Implementation{Name: "memctl-mcp", Version: o.Version}, nil)
	sess, err := remote.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: o.URL, HTTPClient: &client,
		DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		return fmt.Errorf("mcp proxy: connecting to %s: %w", o.URL, err)
	}
	defer sess.Close()
	var tools []*sdk.Tool
	for tl, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("mcp proxy: listing the tools of %s: %w", o.URL, err)
		}
		tools = append(tools, tl)
	}
	init := sess.InitializeResult()
	srv := sdk.NewServer(&sdk.Implementation{Name: Name, Title: init.ServerInfo.Title, Version: init.ServerInfo.Version},
		&sdk.ServerOptions{Instructions: init.Instructions, Logger: o.Log})
	for _, tl := range tools {
		srv.AddTool(tl, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := sess.CallTool(ctx, &sdk.CallToolParams{Meta: req.Params.Meta, Name: req.Params.Name, Arguments: req.Params.Arguments})
			if err != nil {
				return nil, proxyError(o.URL, err)
			}
			return res, nil
		})
	}
	o.Log.Info("mcp proxy ready", "url", o.URL, "tools", len(tools))
	return srv.Run(ctx, t)
}

// proxyError is the JSON-RPC error of a call the server did not answer
// with a tool result: its own JSON-RPC error as it is, anything else (the
// server unreachable, the key refused) with the contract's code.
func proxyError(url string, err error) error {
	// The standard codes (-32700 to -32600) are the server's answers (an
	// unknown tool, invalid params); the SDK's client marks its own
	// failures to deliver a call (rejected by the transport, closing)
	// with other codes, which are the server's absence here.
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code >= -32700 && wire.Code <= -32600 {
		return wire
	}
	k := contract.Kind(memory.EUNAVAILABLE)
	return &jsonrpc.Error{Code: int64(k.RPC), Message: fmt.Sprintf("%s: the memory server at %s did not answer: %v", k.Code, url, err)}
}

// bearer adds the API key to every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}
