package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/api"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

const key = "test-key-0123456789abcdef"

var quiet = slog.New(slog.DiscardHandler)

func TestNewServesThePartsItHas(t *testing.T) {
	ctx := context.Background()
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	keys, err := auth.ParseKeys(key + "=acme")
	if err != nil {
		t.Fatal(err)
	}
	refuse := func(context.Context, memory.Caller) (time.Duration, error) {
		return time.Second, memory.Errorf(memory.ERATELIMIT, "admission: refused")
	}
	bare := api.Parts{Service: b.Service}
	full := api.Parts{Service: b.Service, Quotas: api.Quotas(config.Quotas{Memories: 1}, b.Store, b.Store), Keys: b.Store,
		Knowledge: b.Knowledge, Registry: b.Registry}
	tests := []struct {
		name         string
		parts        api.Parts
		method, path string
		body         string
		want         int
	}{
		{"no quotas: no usage", bare, "GET", "/v1/admin/usage", "", http.StatusNotFound},
		{"no key store: no keys", bare, "GET", "/v1/admin/keys", "", http.StatusNotFound},
		{"no tokens: no minting", full, "POST", "/v1/tokens", `{}`, http.StatusNotFound},
		{"quotas: usage", full, "GET", "/v1/admin/usage", "", http.StatusOK},
		{"key store: keys", full, "GET", "/v1/admin/keys", "", http.StatusOK},
		{"MCP mounted without parts", bare, "POST", api.MCPPath,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			http.StatusOK},
		{"admission refuses", api.Parts{Service: b.Service, Admission: refuse}, "GET", "/v1/memories", "", http.StatusTooManyRequests},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(api.New(tc.parts, keys, quiet))
			defer srv.Close()
			if got := do(t, srv.URL, tc.method, tc.path, tc.body); got != tc.want {
				t.Errorf("%s %s = %d, want %d", tc.method, tc.path, got, tc.want)
			}
		})
	}

	// The quotas apply to writes: the second memory of a one-memory org is refused.
	srv := httptest.NewServer(api.New(full, keys, quiet))
	defer srv.Close()
	for i, want := range []int{http.StatusCreated, http.StatusForbidden} {
		if got := do(t, srv.URL, "POST", "/v1/memories", `{"content":{"text":"fact `+string(rune('a'+i))+`"}}`); got != want {
			t.Errorf("memory %d: POST /v1/memories = %d, want %d", i+1, got, want)
		}
	}
}

func TestQuotasReadTheOrgsOwnLimits(t *testing.T) {
	ctx := context.Background()
	s, err := local.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.PutRecord(ctx, "big", httpapi.QuotaRecordKind, httpapi.QuotaRecordID, memory.OrgUsage{Memories: 500}, 0); err != nil {
		t.Fatal(err)
	}
	cfg := config.Quotas{Memories: 10, Bytes: 1000, Documents: 3, UsageTTL: time.Minute}
	tests := []struct {
		org       string
		overrides memory.RecordStore
		want      memory.OrgUsage
	}{
		{"big", s, memory.OrgUsage{Memories: 500, Bytes: 1000, Documents: 3}},
		{"small", s, memory.OrgUsage{Memories: 10, Bytes: 1000, Documents: 3}},
		{"big", nil, memory.OrgUsage{Memories: 10, Bytes: 1000, Documents: 3}},
	}
	for _, tc := range tests {
		q := api.Quotas(cfg, s, tc.overrides)
		if q.UsageTTL != cfg.UsageTTL {
			t.Errorf("UsageTTL = %v, want %v", q.UsageTTL, cfg.UsageTTL)
		}
		got, err := q.LimitsOf(ctx, tc.org)
		if err != nil || got != tc.want {
			t.Errorf("LimitsOf(%s, overrides %v) = %+v, %v; want %+v", tc.org, tc.overrides != nil, got, err, tc.want)
		}
	}
}

// do sends one request with the test key and returns its status.
func do(t *testing.T, base, method, path, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
