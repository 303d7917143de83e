package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestModelChangeAnswersAtOnce fills memoryd with the hashing embedder,
// restarts it with the offline model (onnx), and checks that it answers at
// once: within 2 s of the process start, before the re-embedding is done,
// with keyword search working and semantic search reported degraded in
// /v1/healthz and in search responses. It kills the server during the
// re-embedding, checks that the next start resumes it, and that semantic
// search comes back when it ends.
func TestModelChangeAnswersAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	modelDir := os.Getenv("MODEL_DIR")
	if _, err := os.Stat(filepath.Join(modelDir, "model.onnx")); modelDir == "" || err != nil {
		if os.Getenv("REQUIRE_MODEL") == "1" {
			t.Fatalf("REQUIRE_MODEL=1 but the model is not in MODEL_DIR=%q", modelDir)
		}
		t.Skip("the offline model is not in MODEL_DIR (scripts/models.sh fetch)")
	}
	dir := t.TempDir()
	bin, ctl := filepath.Join(dir, "memoryd"), filepath.Join(dir, "memctl")
	for out, pkg := range map[string]string{bin: ".", ctl: "../memctl"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, b)
		}
	}
	dataDir := t.TempDir()
	keys := map[string]string{"org-a": "model-key-org-a-00000", "org-b": "model-key-org-b-00000"}
	base := append(os.Environ(), "DATA_DIR="+dataDir, "CONSOLIDATE_EVERY=0", "MODEL_DIR="+modelDir,
		fmt.Sprintf("API_KEYS=%s=org-a,%s=org-b", keys["org-a"], keys["org-b"]))

	srv := start(t, bin, append(base, "EMBEDDER=hash"))
	cl := &client{url: srv.url, keys: keys, http: &http.Client{Timeout: 30 * time.Second}}
	const n = 400
	var marker string
	for b := 0; b < n/100; b++ {
		var batch []map[string]any
		for i := 0; i < 100; i++ {
			text := fmt.Sprintf("note %d: the quarterly report number %d is filed under finance", b*100+i, b*100+i)
			if b == 0 && i == 7 {
				text = "the zeppelin museum in Friedrichshafen opens at nine"
			}
			batch = append(batch, map[string]any{"type": "fact", "content": map[string]any{"text": text}})
		}
		st, out, err := cl.do("POST", "/v1/memories", "org-a", map[string]any{"memories": batch})
		if err != nil || st != http.StatusCreated {
			t.Fatalf("create: %d %v %v", st, out, err)
		}
		if b == 0 {
			marker = out["memories"].([]any)[7].(map[string]any)["id"].(string)
		}
	}
	srv.stop(t)

	onnx := append(base, "EMBEDDER=onnx")
	begin := time.Now()
	srv = start(t, bin, onnx)
	cl.url = srv.url
	st, health, err := cl.do("GET", "/v1/healthz", "", nil)
	answered := time.Since(begin)
	if err != nil || st != http.StatusOK {
		t.Fatalf("healthz: %d %v", st, err)
	}
	t.Logf("answered %v after the start, health %v", answered.Round(time.Millisecond), health)
	if answered > 2*time.Second {
		t.Errorf("the server answered %v after its start during a model change, want within 2s", answered)
	}
	re, _ := health["reembedding"].(map[string]any)
	if health["status"] != "degraded" || re == nil || re["state"] != "running" || re["total"].(float64) != n {
		t.Fatalf("at the first answer, re-embedding %d memories should be under way: %v", n, health)
	}
	if out, err := exec.Command(ctl, "status", "-url", srv.url).Output(); err != nil ||
		!strings.Contains(string(out), "status:    degraded") || !strings.Contains(string(out), "re-embedding: ") {
		t.Fatalf("memctl status while re-embedding: %v\n%s", err, out)
	}
	st, out, err := cl.do("POST", "/v1/search", "org-a", map[string]any{"query": "zeppelin museum", "mode": "keyword", "k": 3})
	if err != nil || st != http.StatusOK || !hasResult(out, marker) || out["degraded"] == nil {
		t.Fatalf("keyword search while re-embedding: %d %v %v", st, out, err)
	}
	if st, out, _ := cl.do("POST", "/v1/search", "org-b", map[string]any{"query": "zeppelin museum", "mode": "keyword", "k": 3}); st != http.StatusOK || hasResult(out, marker) {
		t.Fatalf("org b finds org a's memory while re-embedding: %v", out)
	}

	// Killed during the re-embedding, the next start resumes it.
	srv.cmd.Process.Kill()
	srv.cmd.Wait()
	srv = start(t, bin, onnx)
	defer srv.stop(t)
	cl.url = srv.url
	deadline := time.Now().Add(3 * time.Minute)
	for {
		_, health, err = cl.do("GET", "/v1/healthz", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if health["status"] == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("re-embedding did not end: %v\n%s", health, srv.log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	re, _ = health["reembedding"].(map[string]any)
	if re == nil || re["state"] != "done" || re["done"].(float64) > n {
		t.Fatalf("after the resumed re-embedding: %v", health)
	}
	st, out, err = cl.do("POST", "/v1/search", "org-a", map[string]any{"query": "airship exhibition hours", "mode": "semantic", "k": 3})
	if err != nil || st != http.StatusOK || !hasResult(out, marker) || out["degraded"] != nil {
		t.Fatalf("semantic search after re-embedding: %d %v %v", st, out, err)
	}
}
