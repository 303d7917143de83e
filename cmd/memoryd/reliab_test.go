package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// buildMemoryd builds this package's binary into a test directory.
func buildMemoryd(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	bin := filepath.Join(t.TempDir(), "memoryd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// call sends one request with key and decodes a JSON answer.
func call(t *testing.T, url, method, path, key, contentType string, body io.Reader) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url+path, body)
	req.Header.Set("Authorization", "Bearer "+key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, res.Header, out
}

// TestImportWithinQuotas runs memoryd with small quotas and imports more
// than they allow, as an agent key and as org keys: each import answers
// 403 quota_exceeded naming the first line over, and the org's usage and
// its listed documents stay within the limits.
func TestImportWithinQuotas(t *testing.T) {
	bin := buildMemoryd(t)
	keys := map[string]string{"agent": "quota-key-agent-x-000", "bytes": "quota-key-org-r-00000", "docs": "quota-key-org-s-00000",
		"admin-q": "quota-key-org-q-00000"}
	env := append(os.Environ(), "DATA_DIR="+t.TempDir(), "EMBEDDER=hash", "CONSOLIDATE_EVERY=0", "RATE_LIMIT=0", "CONCURRENCY_LIMIT=0",
		"QUOTA_MEMORIES=50", "QUOTA_BYTES=20000", "QUOTA_DOCUMENTS=2",
		fmt.Sprintf("API_KEYS=%s=org-q/x,%s=org-q,%s=org-r,%s=org-s", keys["agent"], keys["admin-q"], keys["bytes"], keys["docs"]))
	srv := start(t, bin, env)
	defer srv.stop(t)

	memories := func(n, size int, agent string) io.Reader {
		var b bytes.Buffer
		for i := 1; i <= n; i++ {
			txt := fmt.Sprintf("imported fact %05d ", i)
			txt += strings.Repeat("z", max(0, size-len(txt)))
			m := map[string]any{"id": fmt.Sprintf("mem_imp_%s_%05d", agent, i), "type": "fact", "content": map[string]any{"text": txt},
				"importance": 0.5, "durability": "standard", "createdAt": 1_700_000_000_000, "version": 1}
			if agent != "" {
				m["agentId"] = agent
			}
			js, _ := json.Marshal(map[string]any{"kind": "memory", "memory": m})
			b.Write(append(js, '\n'))
		}
		return &b
	}
	records := func(n int) io.Reader {
		var b bytes.Buffer
		for i := 1; i <= n; i++ {
			v := map[string]any{"id": fmt.Sprintf("doc_imp_%02d", i), "orgId": "org-other", "key": fmt.Sprintf("org-other/_org/d%02d.md", i),
				"name": fmt.Sprintf("d%02d.md", i), "state": "failed"}
			raw, _ := json.Marshal(v)
			js, _ := json.Marshal(map[string]any{"kind": "record", "record": map[string]any{"kind": "DOC", "id": v["id"], "value": json.RawMessage(raw)}})
			b.Write(append(js, '\n'))
		}
		return &b
	}
	for _, tc := range []struct {
		name, key, admin string
		body             io.Reader
		detail           string // the problem's detail starts with it
	}{
		{"agent key, 5000 memories over a quota of 50", keys["agent"], keys["admin-q"], memories(5000, 200, "x"), "line 51: quota memories"},
		{"org key, 1000-byte memories over 20000 bytes", keys["bytes"], keys["bytes"], memories(40, 1000, ""), "line 21: quota bytes"},
		{"document records over a quota of 2", keys["docs"], keys["docs"], records(12), "line 3: quota documents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _, out := call(t, srv.url, "POST", "/v1/import", tc.key, "application/x-ndjson", tc.body)
			detail, _ := out["detail"].(string)
			if st != 403 || out["code"] != "quota_exceeded" || !strings.HasPrefix(detail, tc.detail) {
				t.Fatalf("import: %d %v, want 403 quota_exceeded starting %q", st, out, tc.detail)
			}
			st, _, out = call(t, srv.url, "GET", "/v1/admin/usage", tc.admin, "", nil)
			if st != 200 {
				t.Fatalf("usage: %d %v", st, out)
			}
			u, l := out["usage"].(map[string]any), out["limits"].(map[string]any)
			for _, q := range []string{"memories", "bytes", "documents"} {
				if u[q].(float64) > l[q].(float64) {
					t.Fatalf("usage %s %v over its limit %v", q, u[q], l[q])
				}
			}
			st, _, out = call(t, srv.url, "GET", "/v1/documents", tc.admin, "", nil)
			if docs, _ := out["documents"].([]any); st != 200 || len(docs) > 2 {
				t.Fatalf("documents: %d, %d listed against a quota of 2", st, len(docs))
			}
			for _, d := range out["documents"].([]any) {
				if k := d.(map[string]any)["key"].(string); strings.HasPrefix(k, "org-other/") {
					t.Fatalf("an imported record kept another org's key: %q", k)
				}
			}
		})
	}
}

// TestOrgRateAcrossKeys runs memoryd with a per-key rate of 20/s and an
// org rate of 24/s, and measures, after the bursts are spent, what one
// key of one org gets and what ten keys of another org get together:
// at most 1.5 times one key's rate.
func TestOrgRateAcrossKeys(t *testing.T) {
	bin := buildMemoryd(t)
	var static []string
	orgKeys := make([]string, 10)
	for i := range orgKeys {
		orgKeys[i] = fmt.Sprintf("rate-key-org-m-%06d", i)
		static = append(static, orgKeys[i]+"=org-m")
	}
	single := "rate-key-org-n-000000"
	static = append(static, single+"=org-n")
	env := append(os.Environ(), "DATA_DIR="+t.TempDir(), "EMBEDDER=hash", "CONSOLIDATE_EVERY=0", "CONCURRENCY_LIMIT=0",
		"RATE_LIMIT=20", "RATE_LIMIT_BURST=5", "ORG_RATE_LIMIT=24", "ORG_RATE_LIMIT_BURST=5", "LOG_LEVEL=warn",
		"API_KEYS="+strings.Join(static, ","))
	srv := start(t, bin, env)
	defer srv.stop(t)
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	// rate sends from each key in its own loop (at most 4000 requests
	// each) for warm then for measure, and returns the 200s per second
	// of the measured part.
	rate := func(keys []string, warm, measure time.Duration) float64 {
		var mu sync.Mutex
		ok := 0
		start := time.Now()
		from, until := start.Add(warm), start.Add(warm+measure)
		var wg sync.WaitGroup
		for _, k := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 4000 && time.Now().Before(until); i++ {
					req, _ := http.NewRequest("GET", srv.url+"/v1/memories?limit=1", nil)
					req.Header.Set("Authorization", "Bearer "+k)
					res, err := hc.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if now := time.Now(); res.StatusCode == 200 && now.After(from) && now.Before(until) {
						mu.Lock()
						ok++
						mu.Unlock()
					} else if res.StatusCode != 200 && res.StatusCode != 429 {
						t.Errorf("status %d", res.StatusCode)
						return
					}
					if res.StatusCode == 429 {
						time.Sleep(5 * time.Millisecond)
					}
				}
			}()
		}
		wg.Wait()
		return float64(ok) / measure.Seconds()
	}
	one := rate([]string{single}, time.Second, 3*time.Second)
	ten := rate(orgKeys, time.Second, 3*time.Second)
	t.Logf("one key: %.1f ok/s; ten keys of one org: %.1f ok/s (%.2f×)", one, ten, ten/one)
	if one < 10 {
		t.Fatalf("one key got %.1f ok/s, far below its rate of 20", one)
	}
	if ten > 1.5*one {
		t.Fatalf("ten keys of one org got %.1f ok/s, %.2f× one key's %.1f (at most 1.5×)", ten, ten/one, one)
	}
}
