package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/contract"
)

// TestLimiterRate: a key past its burst gets 429 rate_limited with
// Retry-After; another key, and the same key once its tokens come back
// (on a fake clock), pass.
func TestLimiterRate(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }),
		config.Limits{Rate: 1, Burst: 2}, nil)
	l.now = func() time.Time { return now }
	send := func(key string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/v1/memories", nil)
		r.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		l.ServeHTTP(w, r)
		return w
	}
	tests := []struct {
		key     string
		advance time.Duration
		status  int
	}{
		{"a", 0, 204}, {"a", 0, 204}, {"a", 0, 429},
		{"b", 0, 204},
		{"a", time.Second, 204}, {"a", 0, 429},
	}
	for i, tc := range tests {
		now = now.Add(tc.advance)
		w := send(tc.key)
		if w.Code != tc.status {
			t.Fatalf("request %d (key %s): %d, want %d", i, tc.key, w.Code, tc.status)
		}
		if w.Code == 429 {
			var body contract.Problem
			json.NewDecoder(w.Body).Decode(&body)
			if w.Header().Get("Retry-After") != "1" || body.Code != memory.ERATELIMIT || body.Detail == "" || body.Status != 429 ||
				w.Header().Get("Content-Type") != contract.ProblemContentType {
				t.Fatalf("429: Retry-After %q, body %+v", w.Header().Get("Retry-After"), body)
			}
		}
	}
}

// TestLimiterConcurrency: a key with its limit of requests in flight gets
// 429 until one answers; other keys are not held up. Every request gets a
// context deadline.
func TestLimiterConcurrency(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	l := Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Deadline(); !ok {
			w.WriteHeader(500)
			return
		}
		if r.URL.Path == "/block" {
			entered <- struct{}{}
			<-release
		}
		w.WriteHeader(204)
	}), config.Limits{Concurrency: 1, Timeout: time.Minute}, nil)
	send := func(path, key string) int {
		r := httptest.NewRequest("GET", path, nil).WithContext(context.Background())
		r.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		l.ServeHTTP(w, r)
		return w.Code
	}
	done := make(chan int)
	go func() { done <- send("/block", "a") }()
	<-entered
	if got := send("/", "a"); got != 429 {
		t.Fatalf("second request of key a in flight: %d", got)
	}
	if got := send("/", "b"); got != 204 {
		t.Fatalf("key b: %d", got)
	}
	close(release)
	if got := <-done; got != 204 {
		t.Fatalf("the blocked request: %d", got)
	}
	if got := send("/", "a"); got != 204 {
		t.Fatalf("key a after its request answered: %d", got)
	}
}
