package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/transport/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCmd serves MCP over stdio for desktop clients, as a proxy onto a
// running memoryd's /mcp: memoryd holds the embedded data files
// exclusively, and the proxy gets exactly the server's tools, grants and
// tenancy. The URL and key come from the flags, else AGENTMEM_URL and
// AGENTMEM_API_KEY, else the local server (PORT) and the development key
// of DATA_DIR. Logs go to stderr: stdout is the protocol's.
func mcpCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	url := fs.String("url", envOr("AGENTMEM_URL", "http://127.0.0.1:"+port), "the server's base URL (env AGENTMEM_URL)")
	key := fs.String("key", os.Getenv("AGENTMEM_API_KEY"), "the API key (env AGENTMEM_API_KEY; default: the development key of DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *key == "" {
		dir := envOr("DATA_DIR", "data")
		b, err := os.ReadFile(filepath.Join(dir, auth.DevKeyFile))
		if err != nil {
			return fmt.Errorf("mcp: no key: give -key or AGENTMEM_API_KEY (no development key in %s)", dir)
		}
		*key = strings.TrimSpace(string(b))
	}
	endpoint := strings.TrimSuffix(*url, "/")
	if !strings.HasSuffix(endpoint, "/mcp") {
		endpoint += "/mcp"
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return mcp.Proxy(ctx, &sdk.StdioTransport{}, mcp.ProxyOptions{URL: endpoint, Key: *key, Log: log})
}
