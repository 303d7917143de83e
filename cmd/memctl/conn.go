package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/client"
)

// globals are the flags every command shares.
type globals struct {
	url, key string
	json     bool
}

// baseURL is the server's URL and whether it was named (by --url or
// AGENTMEM_URL) rather than defaulted to the local server.
func (g *globals) baseURL() (string, bool) {
	if g.url != "" {
		return strings.TrimSuffix(g.url, "/"), true
	}
	if u := os.Getenv("AGENTMEM_URL"); u != "" {
		return strings.TrimSuffix(u, "/"), true
	}
	return "http://127.0.0.1:" + envOr("PORT", "8080"), false
}

// apiKey is the key of --key, else AGENTMEM_API_KEY, else the development
// key memoryd keeps in DATA_DIR.
func (g *globals) apiKey() (string, error) {
	if g.key != "" {
		return g.key, nil
	}
	if k := os.Getenv("AGENTMEM_API_KEY"); k != "" {
		return k, nil
	}
	dir := envOr("DATA_DIR", "data")
	b, err := os.ReadFile(filepath.Join(dir, auth.DevKeyFile))
	if err != nil {
		return "", fmt.Errorf("no API key: give --key or AGENTMEM_API_KEY (no development key in %s)", dir)
	}
	return strings.TrimSpace(string(b)), nil
}

// errNoServer says no server answers at the URL.
var errNoServer = errors.New("no server")

// running says whether a server answers /v1/healthz at url.
func running(ctx context.Context, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/healthz", nil)
	if err != nil {
		return false
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	res.Body.Close()
	return true
}

// server returns a client of the running server. When none answers, it
// returns errNoServer if the URL was defaulted (so that the caller may
// open the data directory instead), and an error naming the URL if it
// was given.
func (g *globals) server(ctx context.Context) (*client.Client, error) {
	url, named := g.baseURL()
	if !running(ctx, url) {
		if named {
			return nil, fmt.Errorf("no server answers at %s", url)
		}
		return nil, errNoServer
	}
	key, err := g.apiKey()
	if err != nil {
		return nil, err
	}
	return client.New(url, key, client.WithUserAgent("memctl"))
}

// mustServer is server for the commands that need one.
func (g *globals) mustServer(ctx context.Context) (*client.Client, error) {
	c, err := g.server(ctx)
	if errors.Is(err, errNoServer) {
		url, _ := g.baseURL()
		return nil, fmt.Errorf("no server answers at %s: start one (make run) or set AGENTMEM_URL", url)
	}
	return c, err
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
