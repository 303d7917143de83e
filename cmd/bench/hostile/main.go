// Command bench-hostile measures what hostile documents cost another
// tenant. It serves the HTTP API on loopback over the configured backend
// (the environment, as memoryd reads it, in a temporary data directory),
// fills tenant B with memories, and times B's searches twice: alone, then
// while tenant A uploads hostile documents (a PDF whose page tree points
// back at itself, a DOCX that inflates far beyond its size) from several
// clients at once, beside one ordinary document. It prints B's latency
// percentiles for both phases and each of A's documents with its state and
// reason: the hostile ones must fail alone, with a clear reason.
//
//	go run ./cmd/bench/hostile -memories 5000 -queries 300 -hostile 4
//
// It is a benchmark: run it on a quiet machine.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// Options size a run.
type Options struct {
	Memories int // tenant B's memories
	Queries  int // B's searches per phase
	Hostile  int // A's concurrent uploaders of hostile documents
	Rounds   int // hostile documents each uploader posts
}

// Phase is B's search latency in one phase, in milliseconds.
type Phase struct {
	Name          string
	Searches      int
	Errors        int
	P50, P95, P99 float64
}

// Document is the outcome of one of A's uploads.
type Document struct {
	Name    string
	Hostile bool
	Status  int    // of POST /v1/documents
	State   string // from GET /v1/documents: indexed, failed, pending
	Reason  string
}

// Result is what a run measured.
type Result struct {
	Phases    []Phase
	Documents []Document
}

const (
	keyA = "bench-hostile-key-a-0000" // the tenant uploading hostile files
	keyB = "bench-hostile-key-b-0000" // the tenant searching
)

func main() {
	var o Options
	flag.IntVar(&o.Memories, "memories", 2000, "tenant B's memories")
	flag.IntVar(&o.Queries, "queries", 200, "tenant B's searches per phase")
	flag.IntVar(&o.Hostile, "hostile", 4, "tenant A's concurrent uploaders of hostile documents")
	flag.IntVar(&o.Rounds, "rounds", 2, "hostile documents each uploader posts")
	flag.Parse()
	res, err := Run(context.Background(), o, os.Getenv, slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-hostile:", err)
		os.Exit(1)
	}
	Print(os.Stdout, res)
}

// Print writes the result as two tables.
func Print(w io.Writer, r Result) {
	fmt.Fprintf(w, "%-28s %9s %7s %9s %9s %9s\n", "tenant B search", "searches", "errors", "p50 ms", "p95 ms", "p99 ms")
	for _, p := range r.Phases {
		fmt.Fprintf(w, "%-28s %9d %7d %9.1f %9.1f %9.1f\n", p.Name, p.Searches, p.Errors, p.P50, p.P95, p.P99)
	}
	fmt.Fprintf(w, "\n%-22s %-8s %6s %-8s %s\n", "tenant A document", "hostile", "status", "state", "reason")
	for _, d := range r.Documents {
		fmt.Fprintf(w, "%-22s %-8v %6d %-8s %s\n", d.Name, d.Hostile, d.Status, d.State, d.Reason)
	}
}

// Run serves the API over the backend getenv configures, in a temporary
// data directory, and measures one run.
func Run(ctx context.Context, o Options, getenv func(string) string, log *slog.Logger) (Result, error) {
	dir, err := os.MkdirTemp("", "bench-hostile-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	cfg, err := config.Load(func(k string) string {
		switch k {
		case "DATA_DIR":
			return dir
		case "BACKEND", "INDEX", "API_KEYS":
			return "" // the embedded backend, the keys below
		}
		return getenv(k)
	})
	if err != nil {
		return Result{}, err
	}
	b, err := server.Open(ctx, cfg, log)
	if err != nil {
		return Result{}, err
	}
	defer b.Close()
	keys, err := auth.ParseKeys(keyA + "=tenant-a," + keyB + "=tenant-b")
	if err != nil {
		return Result{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Result{}, err
	}
	srv := &http.Server{Handler: httpapi.New(b.Service, keys, log, httpapi.WithDocuments(b.Documents)), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	c := &client{url: "http://" + ln.Addr().String()}

	if err := c.fill(o.Memories); err != nil {
		return Result{}, err
	}
	var res Result
	res.Phases = append(res.Phases, c.searches("alone", o.Queries))

	// The hostile uploads run until they are done; B searches meanwhile.
	var wg sync.WaitGroup
	var mu sync.Mutex
	post := func(name string, data []byte, hostile bool) {
		st, _ := c.post("/v1/documents", keyA, map[string]any{"name": name, "contentBase64": base64.StdEncoding.EncodeToString(data)}, nil)
		mu.Lock()
		res.Documents = append(res.Documents, Document{Name: name, Hostile: hostile, Status: st})
		mu.Unlock()
	}
	bomb := ingesttest.DOCXBomb(16 << 20)
	for u := 0; u < o.Hostile; u++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < o.Rounds; i++ {
				post(fmt.Sprintf("cyclic-%d-%d.pdf", u, i), ingesttest.CyclicPDF(), true)
				post(fmt.Sprintf("bomb-%d-%d.docx", u, i), bomb, true)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		post("handbook.pdf", ingesttest.MakePDF("Vacation requests go to your manager.", "Expenses are filed monthly."), false)
	}()
	res.Phases = append(res.Phases, c.searches("while hostile files load", o.Queries))
	wg.Wait()
	if err := c.states(res.Documents); err != nil {
		return res, err
	}
	sort.Slice(res.Documents, func(i, j int) bool { return res.Documents[i].Name < res.Documents[j].Name })
	return res, nil
}

// client calls the API over loopback.
type client struct{ url string }

func (c *client) post(path, key string, body, out any) (int, error) {
	js, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	return c.do("POST", path, key, bytes.NewReader(js), out)
}

func (c *client) do(method, path, key string, body io.Reader, out any) (int, error) {
	req, err := http.NewRequest(method, c.url+path, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err == nil && out != nil && res.StatusCode/100 == 2 {
		err = json.Unmarshal(raw, out)
	}
	return res.StatusCode, err
}

// topics make tenant B's memories and queries.
var topics = []string{"invoice", "renewal", "onboarding", "outage", "migration", "budget", "hiring", "roadmap", "security", "travel"}

// fill writes n memories for tenant B, 100 per request.
func (c *client) fill(n int) error {
	for i := 0; i < n; {
		var batch []map[string]any
		for ; i < n && len(batch) < 100; i++ {
			batch = append(batch, map[string]any{"type": "fact", "content": map[string]any{"text": fmt.Sprintf(
				"Note %d about the %s of team %d: follow up with %s in week %d", i, topics[i%len(topics)], i%37, topics[(i/7)%len(topics)], i%52)}})
		}
		if st, err := c.post("/v1/memories", keyB, map[string]any{"memories": batch}, nil); err != nil || st != 201 {
			return fmt.Errorf("fill tenant B: status %d: %v", st, err)
		}
	}
	return nil
}

// searches runs n of tenant B's searches one after the other.
func (c *client) searches(name string, n int) Phase {
	p := Phase{Name: name, Searches: n}
	var ms []float64
	for i := 0; i < n; i++ {
		q := fmt.Sprintf("%s follow up week %d", topics[i%len(topics)], i%52)
		start := time.Now()
		if st, err := c.post("/v1/search", keyB, map[string]any{"query": q, "k": 10}, nil); err != nil || st != 200 {
			p.Errors++
			continue
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	slices.Sort(ms)
	pct := func(q float64) float64 {
		if len(ms) == 0 {
			return 0
		}
		return ms[min(len(ms)-1, int(q*float64(len(ms))))]
	}
	p.P50, p.P95, p.P99 = pct(0.50), pct(0.95), pct(0.99)
	return p
}

// states fills each document's state and reason from tenant A's list.
func (c *client) states(docs []Document) error {
	byName := map[string]*Document{}
	for i := range docs {
		byName[docs[i].Name] = &docs[i]
	}
	cursor := ""
	for {
		var page struct {
			Documents []struct {
				Name, State, Reason string
			} `json:"documents"`
			NextCursor string `json:"nextCursor"`
		}
		if st, err := c.do("GET", "/v1/documents?limit=1000&cursor="+cursor, keyA, nil, &page); err != nil || st != 200 {
			return fmt.Errorf("list tenant A's documents: status %d: %v", st, err)
		}
		for _, d := range page.Documents {
			if x, ok := byName[d.Name]; ok {
				x.State, x.Reason = d.State, d.Reason
			}
		}
		if page.NextCursor == "" {
			return nil
		}
		cursor = page.NextCursor
	}
}
