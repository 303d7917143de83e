package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestParseError(t *testing.T) {
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		body   string
		want   Error
	}{
		{"earlier shape", 404, h("X-Request-Id", "r1"), `{"error":{"code":"not_found","message":"memory \"x\" not found"}}`,
			Error{Status: 404, Code: "not_found", Message: `memory "x" not found`, RequestID: "r1"}},
		{"problem with code", 412, h("X-Request-Id", "hdr"),
			`{"type":"urn:agentmem:problem:precondition_failed","title":"Precondition failed","status":412,"detail":"If-Match: version 3 is stale","instance":"/v1/memories/m1","code":"precondition_failed","requestId":"r2"}`,
			Error{Status: 412, Code: "precondition_failed", Message: "If-Match: version 3 is stale", Type: "urn:agentmem:problem:precondition_failed",
				Title: "Precondition failed", Instance: "/v1/memories/m1", RequestID: "r2"}},
		{"problem, code from the type", 400, nil, `{"type":"urn:agentmem:problem:invalid","title":"Invalid request","status":400,"detail":"k: at most 100"}`,
			Error{Status: 400, Code: "invalid", Message: "k: at most 100", Type: "urn:agentmem:problem:invalid", Title: "Invalid request"}},
		{"problem without detail", 403, nil, `{"type":"about:blank","title":"Forbidden","status":403}`,
			Error{Status: 403, Code: "forbidden", Message: "Forbidden", Type: "about:blank", Title: "Forbidden"}},
		{"rate limited", 429, h("Retry-After", "2"), `{"error":{"code":"rate_limited","message":"slow down"}}`,
			Error{Status: 429, Code: "rate_limited", Message: "slow down", RetryAfter: 2 * time.Second}},
		{"a proxy's text", 502, nil, "Bad Gateway", Error{Status: 502, Code: "internal", Message: "Bad Gateway"}},
		{"empty 503", 503, nil, "", Error{Status: 503, Code: "unavailable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.header == nil {
				tc.header = http.Header{}
			}
			got := parseError("op", tc.status, tc.header, []byte(tc.body))
			tc.want.Op = "op"
			if *got != tc.want {
				t.Fatalf("got %+v\nwant %+v", *got, tc.want)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0}, {"3", 3 * time.Second}, {"0.5", 500 * time.Millisecond}, {"-1", 0}, {"soon", 0},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second},
		{now.Add(-10 * time.Second).Format(http.TimeFormat), 0},
	} {
		if got := parseRetryAfter(tc.v, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// fakeAPI answers each request with the next of replies (status, and a
// Retry-After when after is set), then 200 {}; it records what it saw.
type fakeAPI struct {
	mu      sync.Mutex
	replies []reply
	seen    []*http.Request
	bodies  []string
}

type reply struct {
	status int
	after  string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, _ := io.ReadAll(r.Body)
	f.seen, f.bodies = append(f.seen, r), append(f.bodies, string(b))
	if len(f.replies) == 0 {
		w.Write([]byte(`{"id":"m1","duplicate":false}`))
		return
	}
	rp := f.replies[0]
	f.replies = f.replies[1:]
	if rp.after != "" {
		w.Header().Set("Retry-After", rp.after)
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(rp.status)
	w.Write([]byte(`{"type":"about:blank","title":"x","status":` + strconv.Itoa(rp.status) + `}`))
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replies  []reply
		method   string
		retries  int
		wantErr  string // the code, "" for success
		wantSent int
	}{
		{"503 then success", []reply{{503, ""}, {503, ""}}, http.MethodPost, 3, "", 3},
		{"429 with Retry-After then success", []reply{{429, "0.01"}}, http.MethodPost, 3, "", 2},
		{"retries exhausted", []reply{{503, ""}, {503, ""}, {503, ""}}, http.MethodPost, 2, "unavailable", 3},
		{"400 is not retried", []reply{{400, ""}}, http.MethodPost, 3, "invalid", 1},
		{"500 is not retried", []reply{{500, ""}}, http.MethodGet, 3, "internal", 1},
		{"a Retry-After past the cap fails at once", []reply{{429, "3600"}}, http.MethodGet, 3, "rate_limited", 1},
		{"retries off", []reply{{429, "0.01"}}, http.MethodGet, 0, "rate_limited", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{replies: tc.replies}
			ts := httptest.NewServer(f)
			defer ts.Close()
			c, err := New(ts.URL, "key", WithRetries(tc.retries, time.Millisecond, 5*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			var out CreateResult
			_, err = c.do(context.Background(), call{op: "op", method: tc.method, path: "/v1/memories", body: map[string]string{"a": "b"}, write: tc.method == http.MethodPost}, &out)
			if ErrorCode(err) != tc.wantErr || (tc.wantErr == "" && out.ID != "m1") {
				t.Fatalf("err %v out %+v, want code %q", err, out, tc.wantErr)
			}
			if len(f.seen) != tc.wantSent {
				t.Fatalf("sent %d requests, want %d", len(f.seen), tc.wantSent)
			}
			key := f.seen[0].Header.Get("Idempotency-Key")
			if (tc.method == http.MethodPost) != (key != "") {
				t.Fatalf("%s Idempotency-Key %q", tc.method, key)
			}
			for i, r := range f.seen {
				if r.Header.Get("Idempotency-Key") != key || f.bodies[i] != `{"a":"b"}` || r.Header.Get("Authorization") != "Bearer key" {
					t.Fatalf("attempt %d differs: key %q body %q", i, r.Header.Get("Idempotency-Key"), f.bodies[i])
				}
			}
		})
	}
}

func TestIdempotencyKeyPerCall(t *testing.T) {
	f := &fakeAPI{}
	ts := httptest.NewServer(f)
	defer ts.Close()
	c, _ := New(ts.URL, "key")
	ctx := context.Background()
	c.Create(ctx, NewMemory{Content: Content{Text: "a"}})
	c.Create(ctx, NewMemory{Content: Content{Text: "a"}})
	c.Create(ctx, NewMemory{Content: Content{Text: "a"}}, RequestOptions{IdempotencyKey: "mine"})
	c.Update(ctx, "m1", Patch{}, RequestOptions{IfMatch: 7})
	c.Search(ctx, SearchRequest{Query: "q"})
	c.AddMessages(ctx, []NewMemory{{EntityID: "a", Content: Content{Text: "a"}}})
	c.UploadDocument(ctx, DocumentUpload{Name: "a.md", Content: "a"})
	k := func(i int) string { return f.seen[i].Header.Get("Idempotency-Key") }
	if k(4) != "" || k(5) == "" || k(6) == "" {
		t.Fatalf("search key %q (want none: it stores nothing), messages %q, document %q", k(4), k(5), k(6))
	}
	if k(0) == "" || k(0) == k(1) || k(2) != "mine" {
		t.Fatalf("keys %q %q %q: want two distinct generated keys, then the caller's", k(0), k(1), k(2))
	}
	if got := f.seen[3].Header.Get("If-Match"); got != `"7"` || k(3) != "" {
		t.Fatalf("PATCH If-Match %q Idempotency-Key %q", got, k(3))
	}
}

func TestRetryWaitEndsWithContext(t *testing.T) {
	f := &fakeAPI{replies: []reply{{503, "20"}}}
	ts := httptest.NewServer(f)
	defer ts.Close()
	c, _ := New(ts.URL, "key")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			f.mu.Lock()
			n := len(f.seen)
			f.mu.Unlock()
			if n > 0 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := c.Count(ctx, Filter{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled while waiting to retry: %v", err)
	}
}

func TestDecodePut(t *testing.T) {
	for _, tc := range []struct {
		name        string
		body        string
		status      int
		wantID      string
		wantCreated bool
	}{
		{"bare memory, 201", `{"id":"m1","content":{"text":"a"},"contentHash":"h"}`, 201, "m1", true},
		{"bare memory, 200", `{"id":"m1","content":{"text":"a"},"contentHash":"h"}`, 200, "m1", false},
		{"wrapped, created in the body", `{"memory":{"id":"m2","content":{"text":"a"}},"created":true}`, 200, "m2", true},
		{"a create result", `{"id":"m3","duplicate":true}`, 200, "m3", false},
	} {
		m, created, err := decodePut([]byte(tc.body), tc.status)
		if err != nil || m.ID != tc.wantID || created != tc.wantCreated {
			t.Errorf("%s: %+v %v %v", tc.name, m, created, err)
		}
	}
}
