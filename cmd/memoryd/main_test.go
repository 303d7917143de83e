package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/agentmem/agentmem/internal/testenv"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServerEndToEnd builds memoryd, runs it as a real process on loopback,
// exercises the API across two orgs and two agents, then stops and restarts
// it on the same data directory and checks that everything survived.
func TestServerEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	bin := filepath.Join(t.TempDir(), "memoryd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dataDir := t.TempDir()
	keys := map[string]string{
		"a": "e2e-key-org-a-000000", "b": "e2e-key-org-b-000000",
		"x": "e2e-key-agent-x-0000", "y": "e2e-key-agent-y-0000",
	}
	env := append(os.Environ(), "DATA_DIR="+dataDir, "API_KEYS="+fmt.Sprintf(
		"%s=org-a,%s=org-b,%s=org-a/x,%s=org-a/y", keys["a"], keys["b"], keys["x"], keys["y"]))

	srv := start(t, bin, env)
	call := func(method, path, who string, body any) (int, map[string]any) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			js, _ := json.Marshal(body)
			rd = bytes.NewReader(js)
		}
		req, _ := http.NewRequest(method, srv.url+path, rd)
		req.Header.Set("Authorization", "Bearer "+keys[who])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	create := func(who string, body map[string]any) string {
		t.Helper()
		st, out := call("POST", "/v1/memories", who, body)
		if st != 201 {
			t.Fatalf("create as %s: %d %v", who, st, out)
		}
		return out["id"].(string)
	}
	ids := map[string]string{
		"a-pizza": create("a", map[string]any{"type": "fact", "content": map[string]any{"text": "Priya's favourite food is margherita pizza"}}),
		"a-hike":  create("a", map[string]any{"type": "message", "roomId": "chat", "entityId": "priya", "content": map[string]any{"text": "We are hiking the Dolomites in September"}}),
		"b-pizza": create("b", map[string]any{"type": "fact", "content": map[string]any{"text": "Priya's favourite food is margherita pizza"}}),
		"x-note":  create("x", map[string]any{"content": map[string]any{"text": "Agent X: customer renewal is due in March"}}),
		"y-note":  create("y", map[string]any{"content": map[string]any{"text": "Agent Y: customer renewal is due in March"}}),
	}
	search := func(who, query, mode string) []string {
		t.Helper()
		st, out := call("POST", "/v1/search", who, map[string]any{"query": query, "mode": mode, "k": 20})
		if st != 200 {
			t.Fatalf("search: %d %v", st, out)
		}
		var got []string
		for _, r := range out["results"].([]any) {
			got = append(got, r.(map[string]any)["memory"].(map[string]any)["id"].(string))
		}
		return got
	}
	checkSearches := func() {
		t.Helper()
		for _, mode := range []string{"hybrid", "semantic", "keyword"} {
			if got := search("a", "favourite food pizza", mode); len(got) == 0 || got[0] != ids["a-pizza"] || has(got, ids["b-pizza"]) {
				t.Fatalf("%s: org a pizza search %v", mode, got)
			}
			if got := search("b", "favourite food pizza", mode); len(got) != 1 || got[0] != ids["b-pizza"] {
				t.Fatalf("%s: org b pizza search %v", mode, got)
			}
			if got := search("a", "hiking Dolomites", mode); len(got) == 0 || got[0] != ids["a-hike"] {
				t.Fatalf("%s: hiking search %v", mode, got)
			}
			if got := search("x", "customer renewal", mode); len(got) == 0 || got[0] != ids["x-note"] || has(got, ids["y-note"]) {
				t.Fatalf("%s: agent x search %v", mode, got)
			}
			if got := search("y", "customer renewal", mode); len(got) == 0 || got[0] != ids["y-note"] || has(got, ids["x-note"]) {
				t.Fatalf("%s: agent y search %v", mode, got)
			}
		}
	}
	// Knowledge: extracted as the memories were written, kept across a
	// restart, each org's own.
	checkKnowledge := func() {
		t.Helper()
		for _, who := range []string{"a", "b"} {
			st, out := call("POST", "/v1/knowledge/search", who, map[string]any{"query": map[string]any{"select": map[string]any{"entity": map[string]any{"name": "Dolomites"}}}})
			if st != 200 {
				t.Fatalf("knowledge search as %s: %d %v", who, st, out)
			}
			var got []string
			for _, m := range out["memories"].([]any) {
				got = append(got, m.(map[string]any)["memory"].(map[string]any)["id"].(string))
			}
			if want := who == "a"; want != (len(got) == 1 && got[0] == ids["a-hike"]) || !want && len(got) != 0 {
				t.Fatalf("knowledge search as %s: %v", who, got)
			}
			st, out = call("GET", "/v1/knowledge/terms?prefix=dolo", who, nil)
			if terms, _ := out["terms"].([]any); st != 200 || (who == "a") != (len(terms) == 1) {
				t.Fatalf("terms as %s: %d %v", who, st, out)
			}
		}
	}
	checkSearches()
	checkKnowledge()
	if st, _ := call("GET", "/v1/memories/"+ids["a-pizza"], "b", nil); st != 404 {
		t.Fatalf("org b reads org a: %d", st)
	}
	if st, _ := call("GET", "/v1/memories/"+ids["y-note"], "x", nil); st != 404 {
		t.Fatalf("agent x reads agent y: %d", st)
	}
	if st, out := call("POST", "/v1/memories", "a", map[string]any{"type": "fact", "content": map[string]any{"text": "priya's favourite food is MARGHERITA pizza"}}); st != 200 || out["duplicate"] != true {
		t.Fatalf("duplicate: %d %v", st, out)
	}

	srv.stop(t)
	srv = start(t, bin, env)
	defer srv.stop(t)
	for name, id := range ids {
		who := name[:1]
		if st, _ := call("GET", "/v1/memories/"+id, who, nil); st != 200 {
			t.Fatalf("after restart %s is gone: %d", name, st)
		}
	}
	if _, out := call("GET", "/v1/memories/count", "a", nil); out["count"] != 4.0 {
		t.Fatalf("after restart org a counts %v, want 4", out["count"])
	}
	checkSearches()
	checkKnowledge()
	if !strings.Contains(srv.log.String(), `"msg":"listening"`) || strings.Contains(srv.log.String(), "rebuilding the index") {
		t.Fatalf("restart should reopen the index, not rebuild it:\n%s", srv.log.String())
	}
}

func has(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

type daemon struct {
	cmd *exec.Cmd
	url string
	log *testenv.LogBuffer
	p   *testenv.Process
}

func start(t *testing.T, bin string, env []string) *daemon {
	t.Helper()
	p, err := testenv.StartServer(bin, env, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return &daemon{cmd: p.Cmd, url: p.URL, log: p.Log, p: p}
}

func (s *daemon) stop(t *testing.T) {
	t.Helper()
	if err := s.p.Stop(); err != nil {
		t.Fatalf("server exit: %v\n%s", err, s.log.String())
	}
}

// TestServerOnDynamoDB runs memoryd with BACKEND=aws against DynamoDB Local:
// memctl create-key writes a key (hashed) to the table, the server
// authenticates with it, and memories go to DynamoDB.
func TestServerOnDynamoDB(t *testing.T) {
	ep := testenv.Get(t, "DYNAMODB_ENDPOINT")
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	dir := t.TempDir()
	bin, ctl := filepath.Join(dir, "memoryd"), filepath.Join(dir, "memctl")
	for out, pkg := range map[string]string{bin: ".", ctl: "../memctl"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, b)
		}
	}
	env := append(os.Environ(), "BACKEND=aws", "DYNAMODB_ENDPOINT="+ep, "DYNAMODB_CREATE_TABLE=true",
		fmt.Sprintf("DYNAMODB_TABLE=e2e-%d", time.Now().UnixNano()), "DATA_DIR="+filepath.Join(dir, "data"),
		"AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_REGION=us-east-1", "API_KEYS=")
	mk := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(ctl, append([]string{"create-key"}, args...)...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("memctl create-key %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	keyA, keyB := mk("-org", "acme", "-name", "e2e"), mk("-org", "globex")
	if !strings.HasPrefix(keyA, "amk_") || keyA == keyB {
		t.Fatalf("keys %q %q", keyA, keyB)
	}
	srv := start(t, bin, env)
	defer srv.stop(t)
	do := func(method, path, key, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, srv.url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	st, out := do("POST", "/v1/memories", keyA, `{"type":"fact","content":{"text":"Acme's fiscal year starts in April"}}`)
	if st != 201 {
		t.Fatalf("create with a DynamoDB key: %d %v", st, out)
	}
	id := out["id"].(string)
	if st, _ := do("GET", "/v1/memories/"+id, keyB, ""); st != 404 {
		t.Fatalf("globex reads acme: %d", st)
	}
	if st, _ := do("GET", "/v1/memories/"+id, "amk_not-a-real-key-0000", ""); st != 401 {
		t.Fatalf("unknown key: %d", st)
	}
	st, out = do("POST", "/v1/search", keyA, `{"query":"when does the fiscal year start","mode":"hybrid"}`)
	if st != 200 || len(out["results"].([]any)) != 1 {
		t.Fatalf("search: %d %v", st, out)
	}
}

// TestDevKeyPrintedOnce runs memoryd without API_KEYS twice on one data
// directory: the first start creates the development key and prints it,
// the second uses the same key and prints only where it is kept.
func TestDevKeyPrintedOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	bin := filepath.Join(t.TempDir(), "memoryd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dataDir := t.TempDir()
	env := append(os.Environ(), "DATA_DIR="+dataDir, "API_KEYS=", "BACKEND=", "INDEX=", "EMBEDDER=hash")
	for run, wantKey := range []bool{true, false} {
		srv := start(t, bin, env)
		srv.stop(t)
		raw, err := os.ReadFile(filepath.Join(dataDir, "dev-api-key"))
		if err != nil {
			t.Fatal(err)
		}
		key := strings.TrimSpace(string(raw))
		if printed := strings.Contains(srv.log.String(), key); printed != wantKey {
			t.Fatalf("start %d: key printed %v, want %v:\n%s", run+1, printed, wantKey, srv.log.String())
		}
		if !strings.Contains(srv.log.String(), "dev-api-key") {
			t.Fatalf("start %d: the log does not say where the key is:\n%s", run+1, srv.log.String())
		}
	}
}
