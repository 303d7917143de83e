package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stage is one stage of the Dockerfile: its base, its name, and its
// instructions in order (keyword, arguments).
type stage struct {
	from, name string
	ins        [][2]string
}

// parseDockerfile reads the instructions of path by stage, joining
// continued lines and dropping comments.
func parseDockerfile(t *testing.T, path string) []*stage {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	cur := ""
	for _, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#") || (l == "" && cur == "") {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		lines = append(lines, strings.Join(strings.Fields(cur+l), " "))
		cur = ""
	}
	var out []*stage
	for _, l := range lines {
		kw, args, _ := strings.Cut(l, " ")
		kw = strings.ToUpper(kw)
		if kw == "FROM" {
			f := strings.Fields(args)
			s := &stage{from: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			out = append(out, s)
			continue
		}
		if len(out) == 0 {
			t.Fatalf("%s: %q before any FROM", path, l)
		}
		out[len(out)-1].ins = append(out[len(out)-1].ins, [2]string{kw, args})
	}
	return out
}

// env returns a stage's ENV settings.
func (s *stage) env() map[string]string {
	out := map[string]string{}
	for _, in := range s.ins {
		if in[0] != "ENV" {
			continue
		}
		for _, kv := range strings.Fields(in[1]) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				out[k] = v
			}
		}
	}
	return out
}

func (s *stage) all(kw string) []string {
	var out []string
	for _, in := range s.ins {
		if in[0] == kw {
			out = append(out, in[1])
		}
	}
	return out
}

// TestDockerfile checks the Dockerfile as far as this machine can without
// a Docker engine: its stages agree with each other and with the server
// (the binary the build stage writes is the one the final stage copies and
// runs, the model directory the model stage fills is the server's
// MODEL_DIR, the exposed port is PORT, it listens on every interface, the
// Go image is go.mod's version), and their commands run: the build stage's
// go build and the model stage's scripts/models.sh, whose outputs then
// start as the image would and answer with the ONNX embedder.
func TestDockerfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	stages := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	byName := map[string]*stage{}
	for _, s := range stages {
		byName[s.name] = s
	}
	model, build, final := byName["model"], byName["build"], stages[len(stages)-1]
	if model == nil || build == nil || len(stages) != 3 {
		t.Fatalf("want the stages model, build and a final one; have %d", len(stages))
	}
	if !strings.HasPrefix(final.from, "gcr.io/distroless/") {
		t.Fatalf("final image %s: want distroless (no shell, no package manager)", final.from)
	}
	if u := final.all("USER"); len(u) != 1 || u[0] != "nonroot" {
		t.Fatalf("final stage USER %v: want nonroot", u)
	}
	// The Go image is go.mod's minor version.
	gomod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	goVer := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if goVer == nil || !strings.HasPrefix(build.from, "golang:"+string(goVer[1])) {
		t.Fatalf("build image %s, go.mod says go %s", build.from, goVer[1])
	}
	// The build stage's go build writes the binary the final stage runs.
	var goBuild string
	for _, r := range build.all("RUN") {
		if strings.Contains(r, "go build") {
			goBuild = r
		}
	}
	out := regexp.MustCompile(`-o (\S+) \./cmd/memoryd$`).FindStringSubmatch(goBuild)
	if out == nil {
		t.Fatalf("build stage: no go build of ./cmd/memoryd with -o: %q", goBuild)
	}
	copies := map[string]string{} // destination -> stage:source
	for _, c := range final.all("COPY") {
		f := strings.Fields(c)
		if len(f) == 3 && strings.HasPrefix(f[0], "--from=") {
			copies[f[2]] = strings.TrimPrefix(f[0], "--from=") + ":" + f[1]
		}
	}
	var entry []string
	if e := final.all("ENTRYPOINT"); len(e) == 1 {
		json.Unmarshal([]byte(e[0]), &entry)
	}
	if len(entry) != 1 || copies[entry[0]] != "build:"+out[1] {
		t.Fatalf("ENTRYPOINT %v does not run the build stage's %s (copies %v)", entry, out[1], copies)
	}
	env := final.env()
	if env["ADDR"] != "0.0.0.0" {
		t.Fatalf("ADDR=%q: a container must listen on every interface", env["ADDR"])
	}
	if e := final.all("EXPOSE"); len(e) != 1 || e[0] != env["PORT"] {
		t.Fatalf("EXPOSE %v, PORT=%q", e, env["PORT"])
	}
	var fetch string
	for _, r := range model.all("RUN") {
		if strings.Contains(r, "scripts/models.sh fetch") {
			fetch = r
		}
	}
	md := regexp.MustCompile(`MODEL_DIR=(\S+)`).FindStringSubmatch(fetch)
	if md == nil || md[1] != env["MODEL_DIR"] || copies[filepath.Dir(md[1])] != "model:"+filepath.Dir(md[1]) {
		t.Fatalf("the model stage fills %v; the final stage copies %v and sets MODEL_DIR=%s", md, copies, env["MODEL_DIR"])
	}

	// The commands, outside Docker: the build stage's go build (its flags
	// as written) and the model stage's fetch (into a directory of ours,
	// from the same cache make test fills).
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "memoryd")
	args := strings.Fields(strings.Replace(goBuild, out[1], bin, 1))
	var vars []string
	for len(args) > 0 && strings.Contains(args[0], "=") {
		vars, args = append(vars, args[0]), args[1:]
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = root, append(os.Environ(), vars...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", goBuild, err, b)
	}
	modelDir := filepath.Join(tmp, "models", filepath.Base(env["MODEL_DIR"]))
	fc := exec.Command("bash", "scripts/models.sh", "fetch")
	fc.Dir, fc.Env = root, append(os.Environ(), "MODEL_DIR="+modelDir)
	if b, err := fc.CombinedOutput(); err != nil {
		t.Skipf("the model could not be fetched here (%v); the build stage ran:\n%s", err, b)
	}
	// Start as the image would, PORT aside (a free one of ours).
	runEnv := []string{"HOME=" + tmp, "PATH=" + os.Getenv("PATH"), "MODEL_DIR=" + modelDir, "DATA_DIR=" + filepath.Join(tmp, "data"),
		"ADDR=" + env["ADDR"], "API_KEYS=docker-test-key-0000000=org-a"}
	srv := start(t, bin, runEnv)
	defer srv.stop(t)
	// The log's listening line names the bound address (the banner prints
	// a loopback URL to click).
	if !strings.Contains(srv.log.String(), `"addr":"[::]:`) && !strings.Contains(srv.log.String(), `"addr":"0.0.0.0:`) {
		t.Fatalf("not listening on every interface:\n%s", srv.log.String())
	}
	res, err := http.Get(srv.url + "/v1/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var h struct{ Embedder string }
	json.NewDecoder(res.Body).Decode(&h)
	if res.StatusCode != http.StatusOK || !strings.Contains(h.Embedder, "onnx") {
		t.Fatalf("healthz %d, embedder %q: want 200 and the ONNX model the model stage fetched", res.StatusCode, h.Embedder)
	}
	fmt.Fprintln(os.Stderr, "dockerfile: build stage and model stage ran; server up with", h.Embedder)
}
