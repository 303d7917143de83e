package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// discarded finds the staged memories a recovery discarded in the log.
var discarded = regexp.MustCompile(`"staged_discarded":(\d+)`)

// client talks to one memoryd as the orgs of the crash test.
type client struct {
	url  string
	keys map[string]string // org → key
	http *http.Client
}

func (c *client) do(method, path, org string, body any) (int, map[string]any, error) {
	var rd io.Reader
	if body != nil {
		js, _ := json.Marshal(body)
		rd = bytes.NewReader(js)
	}
	req, _ := http.NewRequest(method, c.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+c.keys[org])
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out, nil
}

// acked is a write the server answered 2xx.
type acked struct {
	org, id, token string
}

// ackedDoc is a document the server answered 201.
type ackedDoc struct {
	org, id, token string
	fragments      int
}

// TestKillDuringWrites runs the real memoryd on a temporary data directory,
// kills it with SIGKILL while clients of two orgs create memories in
// batches and post documents, restarts it, and checks after every restart:
//   - every create answered 2xx is there, for its org only, and searchable;
//   - no document is left pending (recovery rolled the interrupted ones
//     back), every document answered 201 is indexed whole, and a failed
//     one has no fragment left;
//   - after the last cycle, with the server stopped, the store holds no
//     staged memory and the index agrees with the store entry by entry.
func TestKillDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the server")
	}
	bin := filepath.Join(t.TempDir(), "memoryd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dataDir := t.TempDir()
	keys := map[string]string{"org-a": "crash-key-org-a-00000", "org-b": "crash-key-org-b-00000"}
	// The per-key rate and concurrency limits are off: the test is about
	// what a kill leaves, and the writers go as fast as the server lets them.
	env := append(os.Environ(), "DATA_DIR="+dataDir, "EMBEDDER=hash", "CONSOLIDATE_EVERY=0", "LOG_LEVEL=info",
		"RATE_LIMIT=0", "CONCURRENCY_LIMIT=0",
		fmt.Sprintf("API_KEYS=%s=org-a,%s=org-b", keys["org-a"], keys["org-b"]))
	rng := rand.New(rand.NewPCG(17, uint64(time.Now().UnixNano())))
	const cycles = 4
	var creates []acked
	var docs []ackedDoc
	checked := 0 // creates already searched for
	rolledBack, killedDocs, stagedDiscarded := 0, 0, 0
	for cycle := 0; cycle <= cycles; cycle++ {
		srv := start(t, bin, env)
		cl := &client{url: srv.url, keys: keys, http: &http.Client{Timeout: 30 * time.Second}}
		checkInvariants(t, cl, creates[checked:], creates, docs)
		checked = len(creates)
		rolledBack += strings.Count(srv.log.String(), "interrupted document rolled back")
		for _, m := range discarded.FindAllStringSubmatch(srv.log.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			stagedDiscarded += n
		}
		if cycle == cycles {
			srv.stop(t)
			break
		}
		// Writers until the kill.
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		var wg sync.WaitGroup
		inflight := 0
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				org := []string{"org-a", "org-b"}[w%2]
				for n := 0; ctx.Err() == nil; n++ {
					var batch []map[string]any
					var tokens []string
					for i := 0; i < 10; i++ {
						tok := fmt.Sprintf("tokc%dw%dn%di%d", cycle, w, n, i)
						tokens = append(tokens, tok)
						batch = append(batch, map[string]any{"type": "fact", "content": map[string]any{"text": "note " + tok + " about the crash test"}})
					}
					st, out, err := cl.do("POST", "/v1/memories", org, map[string]any{"memories": batch})
					if err != nil || st/100 != 2 {
						continue // killed mid-request: not answered
					}
					res, _ := out["memories"].([]any)
					mu.Lock()
					for i, r := range res {
						creates = append(creates, acked{org: org, id: r.(map[string]any)["id"].(string), token: tokens[i]})
					}
					mu.Unlock()
				}
			}(w)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				org := []string{"org-a", "org-b"}[n%2]
				tok := fmt.Sprintf("docc%dn%d", cycle, n)
				var b strings.Builder
				for p := 0; p < 120; p++ {
					fmt.Fprintf(&b, "Section %d of %s: the %s procedure, step %d, is described here.\n\n", p, tok, tok, p)
				}
				mu.Lock()
				inflight++
				mu.Unlock()
				st, out, err := cl.do("POST", "/v1/documents", org, map[string]any{"name": tok + ".md", "content": b.String()})
				mu.Lock()
				inflight--
				if err == nil && st == http.StatusCreated {
					docs = append(docs, ackedDoc{org: org, id: out["id"].(string), token: tok, fragments: int(out["fragments"].(float64))})
				}
				mu.Unlock()
			}
		}()
		time.Sleep(time.Duration(400+rng.IntN(900)) * time.Millisecond)
		mu.Lock()
		killedDocs += inflight
		mu.Unlock()
		srv.cmd.Process.Kill() // SIGKILL: no shutdown, no flush
		srv.cmd.Wait()
		cancel()
		wg.Wait()
	}
	t.Logf("%d cycles: %d creates and %d documents answered; %d documents in flight at a kill, %d rolled back at restart, "+
		"%d staged memories discarded", cycles, len(creates), len(docs), killedDocs, rolledBack, stagedDiscarded)
	if len(creates) == 0 || len(docs) == 0 {
		t.Fatalf("nothing was written before the kills: %d creates, %d documents", len(creates), len(docs))
	}

	// The server is stopped: the store and the index, as it left them.
	ctx := context.Background()
	store, err := local.OpenStore(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	staged := 0
	if err := store.Scan(ctx, func(m *memory.Memory) error {
		if m.Pending {
			staged++
		}
		return nil
	}); err != nil || staged != 0 {
		t.Fatalf("%d staged memories left after recovery (%v)", staged, err)
	}
	emb := hashing.New(hashing.DefaultDimensions)
	ix, _, err := bolt.Open(filepath.Join(dataDir, "index"), emb.Model(), emb.Dimensions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := local.CheckIndex(ctx, store, ix, emb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil || st.Missing+st.Stale+st.Orphans+st.OtherModel != 0 || st.Checked == 0 {
		t.Fatalf("store and index disagree: %+v %v", st, err)
	}
}

// checkInvariants checks, over the wire, what every restart must show.
// fresh are the creates not searched for yet (every one is read back).
func checkInvariants(t *testing.T, cl *client, fresh, all []acked, docs []ackedDoc) {
	t.Helper()
	for _, a := range all {
		st, _, err := cl.do("GET", "/v1/memories/"+a.id, a.org, nil)
		if err != nil || st != http.StatusOK {
			t.Fatalf("create %s answered 2xx, then lost after a kill: %d %v", a.id, st, err)
		}
	}
	for i, a := range fresh {
		st, out, err := cl.do("POST", "/v1/search", a.org, map[string]any{"query": a.token, "mode": "keyword", "k": 3})
		if err != nil || st != http.StatusOK || !hasResult(out, a.id) {
			t.Fatalf("create %s (%s) is not searchable after a kill: %d %v %v", a.id, a.token, st, out, err)
		}
		if i%50 == 0 { // isolation, sampled: the other org never sees it
			other := map[string]string{"org-a": "org-b", "org-b": "org-a"}[a.org]
			if st, _, _ := cl.do("GET", "/v1/memories/"+a.id, other, nil); st != http.StatusNotFound {
				t.Fatalf("%s reads %s's memory %s: %d", other, a.org, a.id, st)
			}
		}
	}
	answered := map[string]ackedDoc{}
	for _, d := range docs {
		answered[d.id] = d
	}
	for _, org := range []string{"org-a", "org-b"} {
		cursor := ""
		for {
			st, out, err := cl.do("GET", "/v1/documents?limit=1000&cursor="+cursor, org, nil)
			if err != nil || st != http.StatusOK {
				t.Fatalf("list documents: %d %v", st, err)
			}
			for _, raw := range out["documents"].([]any) {
				d := raw.(map[string]any)
				id, state := d["id"].(string), d["state"].(string)
				_, cnt, err := cl.do("GET", "/v1/memories/count?documentId="+id, org, nil)
				if err != nil {
					t.Fatal(err)
				}
				n := int(cnt["count"].(float64))
				switch state {
				case "indexed":
					if want := int(d["fragments"].(float64)) + 1; n != want {
						t.Fatalf("document %s is indexed with %d memories, want %d", id, n, want)
					}
				case "failed":
					if n != 0 {
						t.Fatalf("document %s failed (%v) and left %d orphan memories", id, d["reason"], n)
					}
					if _, ok := answered[id]; ok {
						t.Fatalf("document %s answered 201, then failed", id)
					}
				default:
					t.Fatalf("document %s is %s after recovery", id, state)
				}
				delete(answered, id)
			}
			next, _ := out["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
	}
	if len(answered) != 0 {
		t.Fatalf("%d documents answered 201 are gone", len(answered))
	}
	for _, d := range docs {
		st, out, err := cl.do("POST", "/v1/search", d.org, map[string]any{"query": d.token + " procedure", "mode": "keyword", "k": 5})
		if err != nil || st != http.StatusOK || len(out["results"].([]any)) == 0 {
			t.Fatalf("document %s is not searchable: %d %v", d.id, st, err)
		}
	}
}

func hasResult(out map[string]any, id string) bool {
	rs, _ := out["results"].([]any)
	for _, r := range rs {
		if m, ok := r.(map[string]any)["memory"].(map[string]any); ok && m["id"] == id {
			return true
		}
	}
	return false
}
