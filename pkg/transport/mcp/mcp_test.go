package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/internal/testenv"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"github.com/agentmem/agentmem/pkg/transport/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The keys of the test server: two orgs, two agents of org a, and a
// read-only key of org a made through the admin API.
var keys = map[string]string{
	"a": "mcp-key-org-a-0000000", "b": "mcp-key-org-b-0000000",
	"x": "mcp-key-agent-x-00000", "y": "mcp-key-agent-y-00000",
}

// env is one memoryd for the package's tests, started by TestMain's first
// user.
type env struct {
	url, ctl string
	bins     string
	proc     *testenv.Process
}

var (
	srvOnce sync.Once
	srv     *env
	srvErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if srv != nil {
		if code != 0 {
			fmt.Fprintf(os.Stderr, "memoryd's log:\n%s", srv.proc.Log.String())
		}
		srv.proc.Stop()
		os.RemoveAll(srv.bins)
	}
	os.Exit(code)
}

// server builds memoryd and memctl and runs memoryd on loopback, once.
func server(t *testing.T) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs memoryd")
	}
	srvOnce.Do(func() { srv, srvErr = startServer() })
	if srvErr != nil {
		t.Fatal(srvErr)
	}
	return srv
}

func startServer() (*env, error) {
	dir, err := os.MkdirTemp("", "mcp-e2e")
	if err != nil {
		return nil, err
	}
	e := &env{bins: dir, ctl: filepath.Join(dir, "memctl")}
	bin := filepath.Join(dir, "memoryd")
	for out, pkg := range map[string]string{bin: "../../../cmd/memoryd", e.ctl: "../../../cmd/memctl"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s: %v\n%s", pkg, err, b)
		}
	}
	e.proc, err = testenv.StartServer(bin, append(os.Environ(), "DATA_DIR="+filepath.Join(dir, "data"),
		"BACKEND=", "INDEX=", "EMBEDDER=hash", "LLM_PROVIDER=", "RERANKER=", "API_KEYS="+fmt.Sprintf(
			"%s=org-a,%s=org-b,%s=org-a/x,%s=org-a/y", keys["a"], keys["b"], keys["x"], keys["y"])), 60*time.Second)
	if err != nil {
		return nil, err
	}
	e.url = e.proc.URL
	// Two more keys of org a, through the admin API: a read-only one, and
	// one bound to agent x that holds delete:org.
	for who, body := range map[string]string{
		"ro": `{"name":"mcp read-only","grants":["read"]}`,
		"xd": `{"name":"mcp curator x","agentId":"x","grants":["read","write","delete:org"]}`,
	} {
		secret, err := createKey(e.url, body)
		if err != nil {
			return nil, fmt.Errorf("create key %s: %w", who, err)
		}
		keys[who] = secret
	}
	return e, nil
}

// createKey creates a key of org a through the admin API and returns its
// secret.
func createKey(url, body string) (string, error) {
	req, _ := http.NewRequest("POST", url+"/v1/admin/keys", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+keys["a"])
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct{ Secret string }
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusCreated || out.Secret == "" {
		return "", fmt.Errorf("%d %v", res.StatusCode, err)
	}
	return out.Secret, nil
}

// bearer adds a key to the client's requests.
type bearer string

func (k bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(k))
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP is the SDK's client over streamable HTTP, as who.
func connectHTTP(t *testing.T, e *env, who string) *sdk.ClientSession {
	t.Helper()
	s, err := dialHTTP(e, keys[who])
	if err != nil {
		t.Fatalf("connect as %s: %v", who, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dialHTTP(e *env, key string) (*sdk.ClientSession, error) {
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearer(key)}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
}

// connectStdio runs memctl mcp as a subprocess, as who.
func connectStdio(t *testing.T, e *env, who string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(e.ctl, "mcp")
	cmd.Env = append(os.Environ(), "AGENTMEM_URL="+e.url, "AGENTMEM_API_KEY="+keys[who])
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("memctl mcp as %s: %v", who, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// call calls a tool and decodes its structured result into out; it
// returns the result (IsError and _meta for failures).
func call(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any, out any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode %s: %v", tool, b, err)
		}
	}
	return res
}

// mustCall is call that fails the test on a tool error; it returns the
// result's text.
func mustCall(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any, out any) string {
	t.Helper()
	res := call(t, s, tool, args, out)
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// wantError checks a failed tool call: isError, the code in the text and
// in _meta with the contract's HTTP status and JSON-RPC code.
func wantError(t *testing.T, res *sdk.CallToolResult, code string) {
	t.Helper()
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		t.Fatalf("succeeded (%s), want %s", b, code)
	}
	if !strings.HasPrefix(text(res), code+": ") {
		t.Fatalf("text %q, want the code %s first", text(res), code)
	}
	meta, _ := res.Meta[mcp.ErrorMeta].(map[string]any)
	k := contract.Kind(code)
	if meta["code"] != code || meta["status"] != float64(k.Status) || meta["rpcCode"] != float64(k.RPC) {
		t.Fatalf("_meta %v, want code %s, status %d, rpcCode %d", res.Meta, code, k.Status, k.RPC)
	}
}

func toolNames(t *testing.T, s *sdk.ClientSession) []string {
	t.Helper()
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: description, input and output schemas are required", tl.Name)
		}
	}
	slices.Sort(names)
	return names
}

func ids[T any](items []T, id func(T) string) []string {
	var out []string
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

// TestTools runs every tool through the SDK's client over streamable HTTP
// and over stdio (memctl mcp), against the real memoryd.
func TestTools(t *testing.T) {
	e := server(t)
	for _, tr := range []struct {
		name    string
		connect func(*testing.T, *env, string) *sdk.ClientSession
	}{{"http", connectHTTP}, {"stdio", connectStdio}} {
		t.Run(tr.name, func(t *testing.T) {
			a := tr.connect(t, e, "a")
			want := []string{mcp.ToolForget, mcp.ToolGetContext, mcp.ToolPrefetch, mcp.ToolKnowledgeSearch, mcp.ToolList, mcp.ToolRecall, mcp.ToolRemember,
				mcp.ToolWorkstreamAppend, mcp.ToolWorkstreamGet}
			if got := toolNames(t, a); !slices.Equal(got, want) {
				t.Fatalf("tools %v, want %v", got, want)
			}
			room := "room-" + tr.name
			var rem mcp.RememberOutput
			mustCall(t, a, mcp.ToolRemember, map[string]any{"content": "Ingrid's favourite climbing crag is Kalymnos", "roomId": room,
				"entityId": "ingrid", "metadata": map[string]any{"source": tr.name}}, &rem)
			if rem.ID == "" || rem.Duplicate {
				t.Fatalf("remember: %+v", rem)
			}
			var dup mcp.RememberOutput
			mustCall(t, a, mcp.ToolRemember, map[string]any{"content": "Ingrid's favourite climbing crag is Kalymnos", "roomId": room, "entityId": "ingrid"}, &dup)
			if dup.ID != rem.ID || !dup.Duplicate {
				t.Fatalf("remember again: %+v, want a duplicate of %s", dup, rem.ID)
			}

			// The text a model reads is compact: numbered lines with ids,
			// type, date and text; the structured result is beside it.
			line := regexp.MustCompile(`^1\. ` + regexp.QuoteMeta(rem.ID) + ` \[fact, \d{4}-\d\d-\d\d\] Ingrid's favourite climbing crag is Kalymnos$`)
			var rec mcp.RecallOutput
			txt := mustCall(t, a, mcp.ToolRecall, map[string]any{"query": "climbing crag Kalymnos", "mode": "keyword", "roomId": room}, &rec)
			if len(rec.Results) != 1 || rec.Results[0].ID != rem.ID || rec.Results[0].Metadata["source"] != tr.name || rec.Mode != "keyword" {
				t.Fatalf("recall: %+v", rec)
			}
			if !line.MatchString(txt) {
				t.Fatalf("recall's text %q, want one numbered line", txt)
			}

			var ctxOut mcp.ContextOutput
			txt = mustCall(t, a, mcp.ToolGetContext, map[string]any{"query": "where does Ingrid like to climb?", "roomId": room, "budgetTokens": 500}, &ctxOut)
			if !strings.Contains(ctxOut.Context, "Kalymnos") || ctxOut.UsedTokens > 500 || ctxOut.BudgetTokens != 500 {
				t.Fatalf("get_context: %+v", ctxOut)
			}
			if txt != ctxOut.Context {
				t.Fatalf("get_context's text %q, want the context itself %q", txt, ctxOut.Context)
			}

			var page mcp.ListOutput
			txt = mustCall(t, a, mcp.ToolList, map[string]any{"roomId": room, "limit": 1}, &page)
			if len(page.Memories) != 1 || page.Memories[0].ID != rem.ID || page.NextCursor != "" || !line.MatchString(txt) {
				t.Fatalf("list: %+v, text %q", page, txt)
			}

			var ks mcp.KnowledgeOutput
			txt = mustCall(t, a, mcp.ToolKnowledgeSearch, map[string]any{"query": map[string]any{"select": map[string]any{"entity": map[string]any{"name": "Kalymnos"}}}, "roomId": room}, &ks)
			if len(ks.Memories) != 1 || ks.Memories[0].ID != rem.ID || ks.Expression == nil {
				t.Fatalf("knowledge_search: %+v", ks)
			}
			if !strings.Contains(txt, "\n1. "+rem.ID+" [fact, ") && !strings.HasPrefix(txt, "1. "+rem.ID+" [fact, ") {
				t.Fatalf("knowledge_search's text %q, want the memory on a numbered line", txt)
			}

			var pf mcp.PrefetchOutput
			mustCall(t, a, mcp.ToolPrefetch, map[string]any{"text": "where is kalym", "roomId": room}, &pf)
			if len(pf.Completions) == 0 || pf.Completions[0] != "kalymnos" || len(pf.Memories) != 1 || pf.Memories[0].ID != rem.ID {
				t.Fatalf("knowledge_prefetch: %+v", pf)
			}

			var fg mcp.ForgetOutput
			mustCall(t, a, mcp.ToolForget, map[string]any{"id": rem.ID}, &fg)
			if fg.Deleted != 1 {
				t.Fatalf("forget: %+v", fg)
			}
			wantError(t, call(t, a, mcp.ToolForget, map[string]any{"id": rem.ID}, nil), memory.ENOTFOUND)
			mustCall(t, a, mcp.ToolList, map[string]any{"roomId": room}, &page)
			if len(page.Memories) != 0 {
				t.Fatalf("list after forget: %+v", page)
			}

			// Erasure by filter, audited.
			mustCall(t, a, mcp.ToolRemember, map[string]any{"content": "Session note: the ferry leaves at nine", "sessionId": "s-" + tr.name}, &rem)
			mustCall(t, a, mcp.ToolForget, map[string]any{"sessionId": "s-" + tr.name}, &fg)
			if fg.Deleted != 1 || fg.Matched != 1 || fg.AuditID == "" {
				t.Fatalf("forget by session: %+v", fg)
			}

			// Bad input: a tool error naming the field, with the code.
			for _, tc := range []struct {
				tool  string
				args  map[string]any
				field string
			}{
				{mcp.ToolRecall, map[string]any{"query": "  "}, "query"},
				{mcp.ToolRecall, map[string]any{"query": "x", "start": "last tuesday"}, "start"},
				{mcp.ToolRemember, map[string]any{"content": "x", "type": "memo"}, "type"},
				{mcp.ToolForget, map[string]any{}, "id"},
				{mcp.ToolForget, map[string]any{"id": rem.ID, "roomId": "r"}, "id"},
				{mcp.ToolList, map[string]any{"limit": 5000}, "limit"},
				{mcp.ToolKnowledgeSearch, map[string]any{}, "text"},
			} {
				res := call(t, a, tc.tool, tc.args, nil)
				if !res.IsError || !strings.Contains(text(res), tc.field) {
					t.Errorf("%s %v: %v %q, want an error naming %s", tc.tool, tc.args, res.IsError, text(res), tc.field)
				}
			}
			wantError(t, call(t, a, mcp.ToolRecall, map[string]any{"query": "  "}, nil), memory.EINVALID)

			// An unknown tool is a protocol error, not a tool's.
			_, err := a.CallTool(context.Background(), &sdk.CallToolParams{Name: "drop_everything", Arguments: map[string]any{}})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != contract.RPCInvalidParams || !strings.Contains(wire.Message, "drop_everything") {
				t.Fatalf("unknown tool: %v (%T), want JSON-RPC invalid params naming it", err, err)
			}
		})
	}
}

// TestGrants: a read-only key sees only the read tools, and remember and
// forget fail with forbidden, over both transports.
func TestGrants(t *testing.T) {
	e := server(t)
	a := connectHTTP(t, e, "a")
	var rem mcp.RememberOutput
	mustCall(t, a, mcp.ToolRemember, map[string]any{"content": "The grants test memory stays"}, &rem)
	for _, tr := range []struct {
		name    string
		connect func(*testing.T, *env, string) *sdk.ClientSession
	}{{"http", connectHTTP}, {"stdio", connectStdio}} {
		t.Run(tr.name, func(t *testing.T) {
			ro := tr.connect(t, e, "ro")
			want := []string{mcp.ToolGetContext, mcp.ToolPrefetch, mcp.ToolKnowledgeSearch, mcp.ToolList, mcp.ToolRecall, mcp.ToolWorkstreamGet}
			if got := toolNames(t, ro); !slices.Equal(got, want) {
				t.Fatalf("read-only tools %v, want %v", got, want)
			}
			if tr.name == "http" { // the proxy offers only the tools the server lists
				wantError(t, call(t, ro, mcp.ToolRemember, map[string]any{"content": "a read-only key writes"}, nil), memory.EFORBIDDEN)
				wantError(t, call(t, ro, mcp.ToolForget, map[string]any{"id": rem.ID}, nil), memory.EFORBIDDEN)
			} else {
				if _, err := ro.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolRemember, Arguments: map[string]any{"content": "x"}}); err == nil {
					t.Fatal("remember through the proxy with a read-only key succeeded")
				}
			}
			var page mcp.ListOutput
			mustCall(t, ro, mcp.ToolList, map[string]any{}, &page)
			if !slices.Contains(ids(page.Memories, func(m mcp.Memory) string { return m.ID }), rem.ID) {
				t.Fatalf("the read-only key lists %v, without %s", page.Memories, rem.ID)
			}
		})
	}
}

// TestUnauthenticated: no key, or an unknown one, is refused at the HTTP
// layer (401), before any tool; memctl mcp fails at start naming the
// server.
func TestUnauthenticated(t *testing.T) {
	e := server(t)
	for _, key := range []string{"", "not-a-key-of-this-server"} {
		if _, err := dialHTTP(e, key); err == nil {
			t.Fatalf("key %q: connected", key)
		}
	}
	req, _ := http.NewRequest("POST", e.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("no key: %d %v", res.StatusCode, res.Header)
	}
	cmd := exec.Command(e.ctl, "mcp", "-url", e.url, "-key", "not-a-key-of-this-server")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), e.url) {
		t.Fatalf("memctl mcp with a bad key: %v %s", err, out)
	}
}
