package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestReplay covers each answer to a key that is held already: the kept
// response, a request still in flight (409, retry after a second), and
// another request under the same key (422).
func TestReplay(t *testing.T) {
	done := &memory.IdempotencyRecord{Fingerprint: "fp", Done: true, Status: 201, Body: []byte(`{"id":"m1"}`),
		Header: map[string]string{"Location": "/v1/memories/m1", "Content-Type": "application/json"}}
	tests := []struct {
		name       string
		cur        *memory.IdempotencyRecord
		fp         string
		code       string
		status     int
		retryAfter string
	}{
		{"completed", done, "fp", "", 201, ""},
		{"in flight", &memory.IdempotencyRecord{Fingerprint: "fp"}, "fp", memory.ECONFLICT, 0, "1"},
		{"another request", done, "other", memory.EUNPROCESSABLE, 0, ""},
		{"another request in flight", &memory.IdempotencyRecord{Fingerprint: "fp"}, "other", memory.EUNPROCESSABLE, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			err := replay(w, tt.cur, tt.fp)
			if code := memory.ErrorCode(err); code != tt.code {
				t.Fatalf("code %q (%v), want %q", code, err, tt.code)
			}
			if w.Header().Get("Retry-After") != tt.retryAfter {
				t.Fatalf("Retry-After %q", w.Header().Get("Retry-After"))
			}
			if tt.status != 0 && (w.Code != tt.status || w.Body.String() != string(tt.cur.Body) ||
				w.Header().Get("Idempotent-Replayed") != "true" || w.Header().Get("Location") != "/v1/memories/m1") {
				t.Fatalf("replayed %d %q %v", w.Code, w.Body.String(), w.Header())
			}
		})
	}
}

// TestKeepResponse: final answers are kept, passing failures are not.
func TestKeepResponse(t *testing.T) {
	for status, want := range map[int]bool{
		http.StatusOK: true, http.StatusCreated: true, http.StatusBadRequest: true, http.StatusNotFound: true,
		http.StatusPreconditionFailed: true, http.StatusConflict: false, http.StatusTooManyRequests: false,
		http.StatusInternalServerError: false, http.StatusServiceUnavailable: false,
	} {
		if got := keepResponse(status); got != want {
			t.Errorf("keepResponse(%d) = %v, want %v", status, got, want)
		}
	}
}
