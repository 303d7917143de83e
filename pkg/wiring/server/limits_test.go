package server

import (
	"context"
	"encoding/json"
	"fmt"
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

// TestLimiterOrgBucket: the keys of one org draw from one bucket above
// their own, so ten keys together pass no more than the org's rate;
// another org has its own bucket.
func TestLimiterOrgBucket(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := Limit(nil, config.Limits{Rate: 10, Burst: 10, OrgRate: 15, OrgBurst: 15}, nil)
	l.now = func() time.Time { return now }
	admitted := func(org string, keys, perKey int) int {
		n := 0
		for k := 0; k < keys; k++ {
			for i := 0; i < perKey; i++ {
				if _, err := l.Admit(context.Background(), memory.Caller{OrgID: org, KeyID: fmt.Sprint("k", k)}); err == nil {
					n++
				} else if memory.ErrorCode(err) != memory.ERATELIMIT {
					t.Fatalf("admit: %v", err)
				}
			}
		}
		return n
	}
	for _, tc := range []struct {
		name         string
		org          string
		keys, perKey int
		advance      time.Duration
		want         int
	}{
		{"ten keys share the burst", "org-a", 10, 10, 0, 15},
		{"another org is not held up", "org-b", 1, 5, 0, 5},
		{"a second later, the rate", "org-a", 10, 10, time.Second, 15},
		{"nothing left at once", "org-a", 10, 1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now = now.Add(tc.advance)
			if got := admitted(tc.org, tc.keys, tc.perKey); got != tc.want {
				t.Fatalf("admitted %d, want %d", got, tc.want)
			}
		})
	}
	if wait, err := l.Admit(context.Background(), memory.Caller{OrgID: "org-a"}); err == nil || wait <= 0 {
		t.Fatalf("over the org's rate: wait %v, err %v", wait, err)
	}
	off := Limit(nil, config.Limits{Rate: 10, Burst: 10}, nil)
	for i := 0; i < 100; i++ {
		if _, err := off.Admit(context.Background(), memory.Caller{OrgID: "org-a"}); err != nil {
			t.Fatalf("OrgRate 0 limits nothing: %v", err)
		}
	}
}
