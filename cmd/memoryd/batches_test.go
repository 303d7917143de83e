package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLargeBatchesNo5xx runs memoryd with its default limits and has 20
// clients, each with its own org's key, post batches of 100 memories of
// about 10 KB of text (1 MiB bodies, the largest accepted) for 30 s: no
// request answers 5xx (a busy database waits on the single writer; the
// limits answer 429), and every batch answered 201 is stored.
func TestLargeBatchesNo5xx(t *testing.T) {
	bin := buildMemoryd(t)
	const clients, perBatch, textBytes = 20, 100, 10_200
	duration := 30 * time.Second
	var static []string
	keys := make([]string, clients)
	for i := range keys {
		keys[i] = fmt.Sprintf("batch-key-org-%02d-00000", i)
		static = append(static, fmt.Sprintf("%s=org-b%02d", keys[i], i))
	}
	env := append(os.Environ(), "DATA_DIR="+t.TempDir(), "EMBEDDER=hash", "CONSOLIDATE_EVERY=0", "LOG_LEVEL=warn",
		"API_KEYS="+strings.Join(static, ","))
	srv := start(t, bin, env)
	defer srv.stop(t)

	words := strings.Fields("ana booked a flight to lisbon on friday and asked the agent to remind her about the hotel the invoice " +
		"was paid late because the card expired so support issued a refund and promised a follow up call next week")
	hc := &http.Client{Timeout: 120 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	var mu sync.Mutex
	statuses := map[int]int{}
	stored := make([]int, clients)
	var bodies []string // the first answers of 5xx
	var sent int64
	var wg sync.WaitGroup
	until := time.Now().Add(duration)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 38))
			for b := 0; b < 1000 && time.Now().Before(until); b++ {
				ms := make([]map[string]any, perBatch)
				for i := range ms {
					var sb strings.Builder
					fmt.Fprintf(&sb, "note %d-%d-%d:", c, b, i)
					for sb.Len() < textBytes {
						sb.WriteString(" " + words[rng.IntN(len(words))])
					}
					ms[i] = map[string]any{"type": "fact", "content": map[string]any{"text": sb.String()}}
				}
				js, _ := json.Marshal(map[string]any{"memories": ms})
				req, _ := http.NewRequest("POST", srv.url+"/v1/memories", bytes.NewReader(js))
				req.Header.Set("Authorization", "Bearer "+keys[c])
				req.Header.Set("Content-Type", "application/json")
				res, err := hc.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				mu.Lock()
				statuses[res.StatusCode]++
				sent += int64(len(js))
				if res.StatusCode == 201 {
					stored[c] += perBatch
				}
				if res.StatusCode >= 500 && len(bodies) < 3 {
					bodies = append(bodies, string(body))
				}
				mu.Unlock()
				if res.StatusCode == 429 || res.StatusCode == 503 {
					time.Sleep(time.Duration(50+rng.IntN(100)) * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d clients × 1 MiB batches for %s: statuses %v, %.0f MiB sent", clients, duration, statuses, float64(sent)/(1<<20))
	for st, n := range statuses {
		if st >= 500 {
			t.Errorf("%d answers %d: %v", n, st, bodies)
		}
	}
	if statuses[201] == 0 {
		t.Fatal("no batch was stored")
	}
	for c, want := range stored {
		st, _, out := call(t, srv.url, "GET", "/v1/memories/count", keys[c], "", nil)
		if got, _ := out["count"].(float64); st != 200 || int(got) != want {
			t.Fatalf("org-b%02d: %d, count %v, want %d stored", c, st, out, want)
		}
	}
}
