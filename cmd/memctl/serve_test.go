package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/testenv"
)

// TestWhileTheServerServes runs memctl against a real memoryd as `make
// run` starts it (no API_KEYS: the development key of DATA_DIR), with
// the same environment: add, get, search, context, export, import and
// forget go over HTTP instead of opening the data directory the server
// holds.
func TestWhileTheServerServes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	dir := t.TempDir()
	bin, ctl := filepath.Join(dir, "memoryd"), filepath.Join(dir, "memctl")
	for out, pkg := range map[string]string{bin: "../memoryd", ctl: "."} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, b)
		}
	}
	env := append(os.Environ(), "DATA_DIR="+filepath.Join(dir, "data"), "API_KEYS=", "BACKEND=", "INDEX=", "EMBEDDER=hash",
		"AGENTMEM_URL=", "AGENTMEM_API_KEY=")
	p, err := testenv.StartServer(bin, env, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Stop(); err != nil {
			t.Errorf("server exit: %v\n%s", err, p.Log.String())
		}
	}()
	u, _ := url.Parse(p.URL)
	env = append(env, "PORT="+u.Port())
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(ctl, args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("memctl %v: %v\n%s%s", args, err, out.String(), errb.String())
		}
		if strings.Contains(errb.String(), "opening the data directory") {
			t.Fatalf("memctl %v opened the data directory while the server runs", args)
		}
		return out.String()
	}

	id := strings.TrimSpace(run("", "add", "Dana prefers jasmine tea", "--user", "dana"))
	if !regexp.MustCompile(`^\S+$`).MatchString(id) {
		t.Fatalf("add printed %q, want an id", id)
	}
	run("", "add", "Ana climbs in Lisbon", "-type", "fact") // the former single-dash flags still parse

	if got := run("", "get", id); !strings.Contains(got, "Dana prefers jasmine tea") || !strings.Contains(got, id) {
		t.Fatalf("get:\n%s", got)
	}
	got := run("", "search", "what does Dana drink", "--user", "dana", "-k", "5")
	if !regexp.MustCompile(`(?m)^1\. ` + regexp.QuoteMeta(id) + ` \[fact, \d{4}-\d\d-\d\d\] Dana prefers jasmine tea$`).MatchString(got) {
		t.Fatalf("search: want the memory on the first numbered line:\n%s", got)
	}
	var res struct {
		Results []struct {
			Memory struct{ ID string } `json:"memory"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(run("", "search", "jasmine", "--json")), &res); err != nil || len(res.Results) == 0 {
		t.Fatalf("search --json: %v %+v", err, res)
	}
	if got := run("", "context", "what does Dana drink", "--user", "dana"); !strings.Contains(got, "jasmine tea") || strings.HasPrefix(got, "{") {
		t.Fatalf("context: want the prompt text:\n%s", got)
	}

	export := run("", "export")
	if n := strings.Count(export, `"kind":"memory"`); n != 2 {
		t.Fatalf("export: %d memories, want 2:\n%s", n, export)
	}
	var rep struct {
		Lines    int
		Memories struct{ Created, Existing, Failed int }
	}
	if err := json.Unmarshal([]byte(run(export, "import")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Memories.Existing != 2 || rep.Memories.Created != 0 || rep.Memories.Failed != 0 {
		t.Fatalf("import of the server's own export: %+v, want 2 existing", rep)
	}

	docs := filepath.Join(dir, "docs")
	os.MkdirAll(filepath.Join(docs, "team"), 0o755)
	os.WriteFile(filepath.Join(docs, "team", "onboarding.md"), []byte("# Onboarding\n\nThe office opens at nine on Mondays.\n"), 0o644)
	if got := run("", "ingest", docs); !strings.Contains(got, "files 1: 1 indexed, 0 failed") {
		t.Fatalf("ingest: %s", got)
	}
	if got := run("", "search", "when does the office open"); !strings.Contains(got, "The office opens at nine") {
		t.Fatalf("search after ingest:\n%s", got)
	}

	if got := run("", "forget", "--session", "none-such"); !strings.Contains(got, "forgot 0 memories") {
		t.Fatalf("forget: %s", got)
	}
}

// TestNoServer: the commands that need a server say so, and export
// without one opens the data directory (which needs --org).
func TestNoServer(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	t.Setenv("PORT", "1") // nothing listens on port 1
	t.Setenv("AGENTMEM_URL", "")
	t.Setenv("AGENTMEM_API_KEY", "")
	t.Setenv("API_KEYS", "")
	t.Setenv("BACKEND", "")
	t.Setenv("INDEX", "")
	t.Setenv("EMBEDDER", "hash")
	for _, tc := range []struct {
		args []string
		want string // in the error; "" for success
	}{
		{[]string{"search", "tea"}, "no server answers at http://127.0.0.1:1"},
		{[]string{"export"}, "give --org"},
		{[]string{"export", "-org", "acme"}, ""},
		{[]string{"forget"}, "at least one of"},
		{[]string{"add"}, "requires at least 1 arg"},
	} {
		root := newRoot()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(longFlags(tc.args))
		err := root.Execute()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) == 0 {
		t.Errorf("export -org did not open the data directory")
	}
}

func TestLongFlags(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"export", "-org", "acme", "-embeddings"}, []string{"export", "--org", "acme", "--embeddings"}},
		{[]string{"search", "-k", "5", "--user", "u"}, []string{"search", "-k", "5", "--user", "u"}},
		{[]string{"add", "-type=fact", "--", "-not-a-flag"}, []string{"add", "--type=fact", "--", "-not-a-flag"}},
		{[]string{"add", "-5"}, []string{"add", "-5"}},
	} {
		if got := longFlags(tc.in); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("longFlags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
