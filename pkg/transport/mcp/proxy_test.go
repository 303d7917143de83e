package mcp_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/transport/mcp"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProxyErrors runs the stdio proxy in process over pipes, onto an API
// with MCP mounted: a tool's failure passes through as the server's tool
// result; a call the server cannot answer (it is gone) is a JSON-RPC
// error with the contract's code for unavailable; a refused key fails
// the proxy at start, naming the URL.
func TestProxyErrors(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(64), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	const key = "proxy-test-key-0000000"
	km, err := auth.ParseKeys(key + "=org-p")
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(b.Service, km, log, httpapi.WithMount("/mcp", mcp.New(b.Service, mcp.WithLogger(log)).Handler()))
	ts := httptest.NewServer(api)
	defer ts.Close()

	if err := mcp.Proxy(context.Background(), &sdk.IOTransport{Reader: io.NopCloser(strings.NewReader("")), Writer: nopWriter{}},
		mcp.ProxyOptions{URL: ts.URL + "/mcp", Key: "not-this-servers-key-00", Log: log}); err == nil || !strings.Contains(err.Error(), ts.URL) {
		t.Fatalf("a refused key: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	toProxy, clientOut := io.Pipe()
	clientIn, fromProxy := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- mcp.Proxy(ctx, &sdk.IOTransport{Reader: toProxy, Writer: fromProxy}, mcp.ProxyOptions{URL: ts.URL + "/mcp", Key: key, Log: log})
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var rem mcp.RememberOutput
	mustCall(t, cs, mcp.ToolRemember, map[string]any{"content": "The proxy passes tool results through"}, &rem)
	if rem.ID == "" {
		t.Fatalf("remember: %+v", rem)
	}
	wantError(t, call(t, cs, mcp.ToolRecall, map[string]any{"query": " "}, nil), memory.EINVALID)

	ts.CloseClientConnections()
	ts.Close()
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolRecall, Arguments: map[string]any{"query": "proxy"}})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != int64(contract.Kind(memory.EUNAVAILABLE).RPC) || !strings.Contains(wire.Message, ts.URL) {
		t.Fatalf("the server gone: %v (%T), want JSON-RPC %d naming the URL", err, err, contract.Kind(memory.EUNAVAILABLE).RPC)
	}
	cs.Close()
	cancel()
	<-done
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriter) Close() error                { return nil }
