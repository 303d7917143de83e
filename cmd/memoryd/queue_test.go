package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// requeued finds how many messages a start queued again in the log.
var requeued = regexp.MustCompile(`"msg":"extraction queued again at start"[^\n]*"messages":(\d+)`)

// listAll pages through GET /v1/memories?type=typ and returns every
// memory.
func listAll(t *testing.T, base, key, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	cursor := ""
	for page := 0; page < 1000; page++ {
		q := url.Values{"type": {typ}, "limit": {"1000"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		st, body := raw(t, base, "GET", "/v1/memories?"+q.Encode(), key, nil)
		if st != 200 {
			t.Fatalf("list %s: %d %s", typ, st, body)
		}
		var p struct {
			Memories   []map[string]any `json:"memories"`
			NextCursor string           `json:"nextCursor"`
		}
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Memories...)
		if cursor = p.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatal("list: more than 1000 pages")
	return nil
}

// TestKillDuringMessageFlood runs the real memoryd, floods it with
// conversation turns from several clients, kills it with SIGKILL while its
// extraction queue is behind, restarts it, and checks that every stored
// turn (answered or not) gets its facts, with no fact stored twice: the
// turns awaiting extraction were recorded with them in the store and
// queued again at start, and extraction is idempotent.
func TestKillDuringMessageFlood(t *testing.T) {
	bin := buildMemoryd(t)
	const key = "flood-key-org-f-00000"
	env := append(os.Environ(), "DATA_DIR="+t.TempDir(), "EMBEDDER=hash", "CONSOLIDATE_EVERY=0", "RATE_LIMIT=0", "CONCURRENCY_LIMIT=0",
		"LOG_LEVEL=info", "EXTRACT_QUEUE_CAP=100000", "API_KEYS="+key+"=org-f")
	const clients, batch, maxBatches = 6, 10, 60
	const cycles = 2
	totalReplayed, acked := 0, 0
	for cycle := 0; cycle < cycles; cycle++ {
		srv := start(t, bin, env)
		if m := requeued.FindStringSubmatch(srv.log.String()); cycle > 0 && m != nil {
			n, _ := strconv.Atoi(m[1])
			totalReplayed += n
		}
		// The flood: each client posts batches of turns, each turn a
		// statement the local extractor makes one fact of, by its own
		// speaker (so no two turns fill the same slot).
		hc := &http.Client{Timeout: 30 * time.Second}
		var wg sync.WaitGroup
		var mu sync.Mutex
		stop := make(chan struct{})
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := 0; b < maxBatches; b++ {
					select {
					case <-stop:
						return
					default:
					}
					var turns []map[string]any
					for i := 0; i < batch; i++ {
						n := ((cycle*clients+c)*maxBatches+b)*batch + i
						turns = append(turns, map[string]any{"entityId": fmt.Sprintf("Speaker%d", n),
							"content": map[string]any{"text": fmt.Sprintf("I started learning guitar at the studio on street %d in Lisbon.", n)}})
					}
					js, _ := json.Marshal(map[string]any{"sessionId": fmt.Sprintf("flood-%d-%d", cycle, c), "messages": turns})
					req, _ := http.NewRequest("POST", srv.url+"/v1/messages", bytes.NewReader(js))
					req.Header.Set("Authorization", "Bearer "+key)
					res, err := hc.Do(req)
					if err != nil {
						return // the kill
					}
					res.Body.Close()
					if res.StatusCode == 202 {
						mu.Lock()
						acked += batch
						mu.Unlock()
					}
				}
			}()
		}
		time.Sleep(2500 * time.Millisecond)
		srv.cmd.Process.Kill() // SIGKILL: the queue in memory is lost
		srv.cmd.Wait()
		close(stop)
		wg.Wait()
	}

	srv := start(t, bin, env)
	defer srv.stop(t)
	if m := requeued.FindStringSubmatch(srv.log.String()); m != nil {
		n, _ := strconv.Atoi(m[1])
		totalReplayed += n
	}
	if totalReplayed == 0 {
		t.Fatalf("no start queued anything again: the kills found the queue empty, the test proves nothing\n%s", srv.log.String())
	}
	// Every stored turn gets its fact, within a bounded wait.
	var msgs, facts []map[string]any
	var missing []string
	deadline := time.Now().Add(120 * time.Second)
	for {
		msgs, facts = listAll(t, srv.url, key, "message"), listAll(t, srv.url, key, "fact")
		sourced := map[string]bool{}
		for _, f := range facts {
			meta, _ := f["metadata"].(map[string]any)
			srcs, _ := meta["sources"].([]any)
			for _, s := range srcs {
				sourced[fmt.Sprint(s)] = true
			}
		}
		missing = missing[:0]
		for _, m := range msgs {
			if id := m["id"].(string); !sourced[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if len(msgs) < acked {
		t.Fatalf("%d turns answered 202, %d stored", acked, len(msgs))
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d stored turns have no fact 120 s after the restart (first: %s)", len(missing), len(msgs), missing[0])
	}
	seen := map[string]int{}
	dups := 0
	for _, f := range facts {
		text := strings.ToLower(f["content"].(map[string]any)["text"].(string))
		if seen[text]++; seen[text] == 2 {
			dups++
		}
	}
	if dups > 0 {
		t.Fatalf("%d facts stored more than once among %d", dups, len(facts))
	}
	t.Logf("%d kills: %d turns answered, %d stored, %d queued again at the restarts; %d facts, every turn extracted, 0 duplicates",
		cycles, acked, len(msgs), totalReplayed, len(facts))
}
