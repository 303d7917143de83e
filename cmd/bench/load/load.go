package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The operations, as the report names them.
const (
	opCreate    = "create"
	opDupRace   = "create (duplicate race)"
	opMsgRace   = "messages (Idempotency-Key race)"
	opGet       = "get"
	opPatch     = "patch (If-Match)"
	opPatchRace = "patch (If-Match race)"
	opDelete    = "delete"
	opSearch    = "search"
	opCheck     = "check (after the run)"
)

// expected are the statuses of an operation that are not errors: 412 is a
// conditional patch that lost, 409 a duplicate or an Idempotency-Key whose
// first request is still in flight, 429 a rate limit.
func expected(status int) bool {
	return status < 400 || status == 409 || status == 412 || status == 429
}

// tracked is one memory a client was told exists (or was deleted).
type tracked struct {
	id, key, externalID, token, text string
	version                          int64
	deleted                          bool
	message                          bool // a turn of /v1/messages: not patched or deleted
}

// load is one run.
type load struct {
	o      options
	prefix string // this run's prefix for externalIds and tokens
	http   *http.Client
	seq    atomic.Int64
	mu     sync.Mutex
	lat    map[string][]time.Duration
	status map[string]map[string]int
	viol   []string
	nviol  int
	msgs   atomic.Bool // /v1/messages exists
}

func newLoad(o options) *load {
	var b [4]byte
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyz"[rand.IntN(26)]
	}
	l := &load{o: o, prefix: string(b[:]), lat: map[string][]time.Duration{}, status: map[string]map[string]int{},
		http: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4 * o.clients}}}
	l.msgs.Store(true)
	return l
}

// violation records a consistency violation (the first 50 are kept).
func (l *load) violation(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nviol++
	if len(l.viol) < 50 {
		l.viol = append(l.viol, fmt.Sprintf(format, args...))
	}
}

// response is what a call returned.
type response struct {
	status int
	header http.Header
	body   map[string]any
}

// call sends one request and records its latency and status under op. The
// check after the run waits out a 429 (Retry-After) and asks again, up to
// 50 times: the server's rate limits must not pass for lost memories.
func (l *load) call(ctx context.Context, op, method, path, key string, body any, headers ...string) response {
	for try := 0; ; try++ {
		r := l.call1(ctx, op, method, path, key, body, headers...)
		if op != opCheck || r.status != http.StatusTooManyRequests || try == 50 || ctx.Err() != nil {
			return r
		}
		wait := time.Second
		if s, err := strconv.Atoi(r.header.Get("Retry-After")); err == nil && s >= 0 {
			wait = time.Duration(s)*time.Second + time.Duration(rand.IntN(200))*time.Millisecond
		}
		select {
		case <-ctx.Done():
			return r
		case <-time.After(wait):
		}
	}
}

func (l *load) call1(ctx context.Context, op, method, path, key string, body any, headers ...string) response {
	var rd io.Reader
	if body != nil {
		js, _ := json.Marshal(body)
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.o.url+path, rd)
	if err != nil {
		l.record(op, 0, "error", 0)
		return response{}
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	start := time.Now()
	res, err := l.http.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			l.record(op, 0, "error", time.Since(start))
		}
		return response{}
	}
	defer res.Body.Close()
	out := response{status: res.StatusCode, header: res.Header}
	raw, _ := io.ReadAll(res.Body)
	json.Unmarshal(raw, &out.body)
	l.record(op, res.StatusCode, strconv.Itoa(res.StatusCode), time.Since(start))
	return out
}

func (l *load) record(op string, status int, label string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.status[op] == nil {
		l.status[op] = map[string]int{}
	}
	l.status[op][label]++
	if status != 0 {
		l.lat[op] = append(l.lat[op], d)
	}
}

// client is one simulated agent: its key, its room and what it was told.
type client struct {
	l    *load
	n    int
	key  string
	room string
	rng  *rand.Rand
	mems []*tracked // every memory it created, deleted ones included
	live []*tracked // those not deleted, not messages
}

func (c *client) next() string { return fmt.Sprintf("%s%d", c.l.prefix, c.l.seq.Add(1)) }

// token is a word no other memory holds, so that a keyword search for it
// must find its memory.
func (c *client) token(seq string) string { return "loadtok" + seq + "x" }

func (c *client) text(token string, rev int) string {
	return fmt.Sprintf("Load test note %s revision %d from client %d about quarterly planning", token, rev, c.n)
}

func (c *client) create(ctx context.Context) {
	seq := c.next()
	m := &tracked{key: c.key, externalID: "ext-" + seq, token: c.token(seq)}
	m.text = c.text(m.token, 0)
	r := c.l.call(ctx, opCreate, "POST", "/v1/memories", c.key, map[string]any{"type": "fact", "roomId": c.room,
		"externalId": m.externalID, "content": map[string]any{"text": m.text}})
	if r.status == 201 {
		m.id, m.version = str(r.body["id"]), 1
		c.mems, c.live = append(c.mems, m), append(c.live, m)
	}
}

// dupRace sends the same create from three connections at once: every
// 2xx must name the same id, and only one may be new.
func (c *client) dupRace(ctx context.Context) {
	seq := c.next()
	m := &tracked{key: c.key, externalID: "race-" + seq, token: c.token(seq), version: 1}
	m.text = c.text(m.token, 0)
	body := map[string]any{"type": "fact", "roomId": c.room, "externalId": m.externalID, "content": map[string]any{"text": m.text}}
	rs := parallel(3, func(int) response { return c.l.call(ctx, opDupRace, "POST", "/v1/memories", c.key, body) })
	ids, created := map[string]bool{}, 0
	for _, r := range rs {
		if r.status == 201 || r.status == 200 {
			ids[str(r.body["id"])] = true
			if r.body["duplicate"] == false {
				created++
			}
		}
	}
	if len(ids) > 1 || created > 1 {
		c.l.violation("duplicate race on externalId %s: %d ids, %d answered as new", m.externalID, len(ids), created)
	}
	for id := range ids {
		m.id = id
		c.mems, c.live = append(c.mems, m), append(c.live, m)
		break
	}
}

// msgRace posts one turn twice at once with the same Idempotency-Key.
func (c *client) msgRace(ctx context.Context) {
	seq := c.next()
	m := &tracked{key: c.key, externalID: "idem-" + seq + "/0", token: c.token(seq), version: 1, message: true}
	m.text = c.text(m.token, 0)
	body := map[string]any{"messages": []map[string]any{{"roomId": c.room, "entityId": fmt.Sprintf("client%d", c.n),
		"content": map[string]any{"text": m.text}}}}
	rs := parallel(2, func(int) response {
		return c.l.call(ctx, opMsgRace, "POST", "/v1/messages", c.key, body, "Idempotency-Key", "idem-"+seq)
	})
	ids := map[string]bool{}
	for _, r := range rs {
		if r.status == 404 || r.status == 405 {
			c.l.msgs.Store(false) // the server takes no messages
			return
		}
		if r.status/100 == 2 {
			for _, x := range list(r.body["memories"]) {
				ids[str(x["id"])] = true
			}
		}
	}
	if len(ids) > 1 {
		c.l.violation("Idempotency-Key race %s: %d different ids", "idem-"+seq, len(ids))
	}
	for id := range ids {
		m.id = id
		c.mems = append(c.mems, m)
	}
}

func (c *client) pick() *tracked {
	if len(c.live) == 0 {
		return nil
	}
	return c.live[c.rng.IntN(len(c.live))]
}

// patch reads a memory's version and patches it conditionally.
func (c *client) patch(ctx context.Context) {
	m := c.pick()
	if m == nil {
		return
	}
	g := c.l.call(ctx, opGet, "GET", "/v1/memories/"+m.id, c.key, nil)
	if g.status != 200 {
		return
	}
	v := etag(g.header)
	rev := int(v) + 1
	text := c.text(m.token, rev)
	r := c.l.call(ctx, opPatch, "PATCH", "/v1/memories/"+m.id, c.key, map[string]any{"content": map[string]any{"text": text}},
		"If-Match", strconv.Quote(strconv.FormatInt(v, 10)))
	if r.status == 200 {
		m.text, m.version = text, etag(r.header)
	}
}

// patchRace sends two patches of the same version at once: at most one
// may win, and the memory must then hold the winner's content.
func (c *client) patchRace(ctx context.Context) {
	m := c.pick()
	if m == nil {
		return
	}
	v := m.version
	texts := []string{c.text(m.token, int(v)*10+1), c.text(m.token, int(v)*10+2)}
	rs := parallel(2, func(i int) response {
		return c.l.call(ctx, opPatchRace, "PATCH", "/v1/memories/"+m.id, c.key, map[string]any{"content": map[string]any{"text": texts[i]}},
			"If-Match", strconv.Quote(strconv.FormatInt(v, 10)))
	})
	won := 0
	for i, r := range rs {
		if r.status == 200 {
			won++
			m.text, m.version = texts[i], etag(r.header)
		}
	}
	if won > 1 {
		c.l.violation("lost update: two patches of %s at version %d both succeeded", m.id, v)
	}
}

func (c *client) delete(ctx context.Context) {
	m := c.pick()
	if m == nil {
		return
	}
	r := c.l.call(ctx, opDelete, "DELETE", "/v1/memories/"+m.id, c.key, nil)
	if r.status == 204 {
		m.deleted = true
		c.live = slices.DeleteFunc(c.live, func(x *tracked) bool { return x == m })
	}
}

func (c *client) search(ctx context.Context) {
	m := c.pick()
	q := "quarterly planning"
	if m != nil {
		q = m.token
	}
	c.l.call(ctx, opSearch, "POST", "/v1/search", c.key, map[string]any{"query": q, "k": 5})
}

// work runs the mix until until ends. Requests run on ctx, so that the
// operation under way when the time is up finishes: a request cut short
// would leave its outcome unknown, and the check could not tell a loss.
func (c *client) work(ctx, until context.Context) {
	for until.Err() == nil && ctx.Err() == nil {
		switch p := c.rng.IntN(100); {
		case p < 30 || len(c.live) < 3:
			c.create(ctx)
		case p < 38:
			c.dupRace(ctx)
		case p < 43 && c.l.msgs.Load():
			c.msgRace(ctx)
		case p < 60:
			c.patch(ctx)
		case p < 66:
			c.patchRace(ctx)
		case p < 74:
			c.delete(ctx)
		default:
			c.search(ctx)
		}
	}
}

// run drives the clients for the duration, then checks.
func (l *load) run(ctx context.Context) (*report, error) {
	clients := make([]*client, l.o.clients)
	for i := range clients {
		clients[i] = &client{l: l, n: i, key: l.o.keys[i%len(l.o.keys)], room: fmt.Sprintf("load-%s-c%d", l.prefix, i),
			rng: rand.New(rand.NewPCG(uint64(l.o.seed), uint64(i)))}
	}
	wctx, cancel := context.WithTimeout(ctx, l.o.duration)
	start := time.Now()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); c.work(ctx, wctx) }()
	}
	wg.Wait()
	cancel()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	checked := l.check(ctx, clients)
	return l.report(elapsed, checked), nil
}

// check verifies what every client was told, with a few workers.
func (l *load) check(ctx context.Context, clients []*client) int {
	var checked atomic.Int64
	work := make(chan *client)
	var wg sync.WaitGroup
	for range min(8, len(clients)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				checked.Add(int64(l.checkClient(ctx, c)))
			}
		}()
	}
	for _, c := range clients {
		work <- c
	}
	close(work)
	wg.Wait()
	return int(checked.Load())
}

func (l *load) checkClient(ctx context.Context, c *client) int {
	// The room as the store lists it.
	listed := map[string]map[string]any{}
	byExternal := map[string]int{}
	cursor := ""
	for {
		q := url.Values{"roomId": {c.room}, "limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := l.call(ctx, opCheck, "GET", "/v1/memories?"+q.Encode(), c.key, nil)
		if r.status != 200 {
			l.violation("client %d: listing room %s answered %d", c.n, c.room, r.status)
			break
		}
		for _, m := range list(r.body["memories"]) {
			listed[str(m["id"])] = m
			if e := str(m["externalId"]); e != "" {
				byExternal[e]++
			}
		}
		if cursor = str(r.body["nextCursor"]); cursor == "" {
			break
		}
	}
	for e, n := range byExternal {
		if n > 1 {
			l.violation("duplicate copies: externalId %s is stored %d times in room %s", e, n, c.room)
		}
	}
	n := 0
	for _, m := range c.mems {
		n++
		g := l.call(ctx, opCheck, "GET", "/v1/memories/"+m.id, m.key, nil)
		if m.deleted {
			if g.status != 404 {
				l.violation("deleted memory %s answers %d", m.id, g.status)
			}
			if _, ok := listed[m.id]; ok {
				l.violation("deleted memory %s is still listed", m.id)
			}
			continue
		}
		if g.status != 200 {
			l.violation("lost: memory %s (externalId %s, accepted) answers %d", m.id, m.externalID, g.status)
			continue
		}
		content, _ := g.body["content"].(map[string]any)
		if got := str(content["text"]); got != m.text {
			l.violation("lost update: memory %s holds %q, its last successful patch wrote %q", m.id, got, m.text)
		}
		if v := etag(g.header); !m.message && v != m.version {
			l.violation("lost update: memory %s is at version %d, its last successful patch made %d", m.id, v, m.version)
		}
		if _, ok := listed[m.id]; !ok {
			l.violation("store and list disagree: memory %s is readable but not listed in room %s", m.id, c.room)
		}
		s := l.call(ctx, opCheck, "POST", "/v1/search", m.key, map[string]any{"query": m.token, "mode": "keyword", "k": 5,
			"filters": map[string]any{"roomId": c.room}})
		found := false
		for _, r := range list(s.body["results"]) {
			mem, _ := r["memory"].(map[string]any)
			found = found || str(mem["id"]) == m.id
		}
		if !found {
			l.violation("store and search disagree: memory %s is not found by a search for its token %s (status %d)", m.id, m.token, s.status)
		}
		if len(l.o.keys) > 1 {
			other := l.o.keys[(slices.Index(l.o.keys, m.key)+1)%len(l.o.keys)]
			if x := l.call(ctx, opCheck, "GET", "/v1/memories/"+m.id, other, nil); x.status != 404 {
				l.violation("isolation: memory %s is readable with another org's key (%d)", m.id, x.status)
			}
		}
	}
	return n
}

func parallel(n int, f func(i int) response) []response {
	out := make([]response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); <-start; out[i] = f(i) }()
	}
	close(start)
	wg.Wait()
	return out
}

func str(v any) string { s, _ := v.(string); return s }

func list(v any) []map[string]any {
	xs, _ := v.([]any)
	out := make([]map[string]any, 0, len(xs))
	for _, x := range xs {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func etag(h http.Header) int64 {
	v, _ := strconv.ParseInt(strings.Trim(strings.TrimPrefix(h.Get("ETag"), "W/"), `"`), 10, 64)
	return v
}

// report is the result of a run.
type report struct {
	Clients          int       `json:"clients"`
	Keys             int       `json:"keys"`
	Seconds          float64   `json:"seconds"`
	Requests         int       `json:"requests"`
	Throughput       float64   `json:"requestsPerSecond"`
	Operations       []opStats `json:"operations"`
	UnexpectedErrors int       `json:"unexpectedErrors"`
	Checked          int       `json:"memoriesChecked"`
	ViolationCount   int       `json:"violationCount"`
	Violations       []string  `json:"violations"`
}

type opStats struct {
	Name     string         `json:"name"`
	Requests int            `json:"requests"`
	PerSec   float64        `json:"perSecond"`
	P50      float64        `json:"p50Ms"`
	P95      float64        `json:"p95Ms"`
	P99      float64        `json:"p99Ms"`
	Statuses map[string]int `json:"statuses"`
}

func (l *load) report(elapsed time.Duration, checked int) *report {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := &report{Clients: l.o.clients, Keys: len(l.o.keys), Seconds: elapsed.Seconds(), Checked: checked,
		ViolationCount: l.nviol, Violations: append([]string{}, l.viol...)}
	for _, op := range []string{opCreate, opDupRace, opMsgRace, opGet, opPatch, opPatchRace, opDelete, opSearch, opCheck} {
		st := l.status[op]
		if st == nil {
			continue
		}
		ds := l.lat[op]
		slices.Sort(ds)
		s := opStats{Name: op, Statuses: st, P50: pct(ds, 50), P95: pct(ds, 95), P99: pct(ds, 99)}
		for label, n := range st {
			s.Requests += n
			code, _ := strconv.Atoi(label)
			if label == "error" || (!expected(code) && !(op == opCheck && code == 404)) { // the check expects 404s: deleted, other orgs
				r.UnexpectedErrors += n
			}
		}
		if op != opCheck {
			s.PerSec = float64(s.Requests) / elapsed.Seconds()
			r.Requests += s.Requests
		}
		r.Operations = append(r.Operations, s)
	}
	r.Throughput = float64(r.Requests) / elapsed.Seconds()
	return r
}

func pct(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	i := (len(ds)*p + 99) / 100
	return float64(ds[max(i-1, 0)].Microseconds()) / 1000
}

// markdown prints the table and the violations.
func (r *report) markdown(w io.Writer) {
	fmt.Fprintf(w, "\n%d clients, %d key(s), %.0f s: %d requests, %.0f requests/s\n\n", r.Clients, r.Keys, r.Seconds, r.Requests, r.Throughput)
	fmt.Fprintln(w, "| operation | requests | per s | p50 ms | p95 ms | p99 ms | statuses |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|")
	for _, s := range r.Operations {
		labels := make([]string, 0, len(s.Statuses))
		for l := range s.Statuses {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		var parts []string
		for _, l := range labels {
			parts = append(parts, fmt.Sprintf("%s: %d", l, s.Statuses[l]))
		}
		per := fmt.Sprintf("%.1f", s.PerSec)
		if s.Name == opCheck {
			per = "-"
		}
		fmt.Fprintf(w, "| %s | %d | %s | %.1f | %.1f | %.1f | %s |\n", s.Name, s.Requests, per, s.P50, s.P95, s.P99, strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "\nUnexpected errors (5xx, transport, 4xx other than 409/412/429): %d\n", r.UnexpectedErrors)
	fmt.Fprintf(w, "Consistency: %d memories checked, %d violation(s)\n", r.Checked, r.ViolationCount)
	for _, v := range r.Violations {
		fmt.Fprintln(w, "- "+v)
	}
}
