package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Idempotency-Key on POST (the IETF httpapi draft's header): the first
// request with a key runs and its response is kept for
// memory.IdempotencyTTL, per org and what the credentials bind the caller
// to (memory.IdempotencyScope: the agent, an end user's token); a retry
// with the same key and the same request (method, path, query and body)
// gets that response again, marked Idempotent-Replayed: true, and changes
// nothing. The same
// key with another request is 422; a retry while the first is still
// running is 409 with Retry-After.

// IdempotencyLease is how long a request in flight holds its key before a
// retry may take it over (the first one's process died).
const IdempotencyLease = 5 * time.Minute

// replayedHeaders are the response headers kept for a replay.
var replayedHeaders = []string{"Content-Type", "Location", "ETag"}

// WithIdempotency honours Idempotency-Key on POST requests, keeping the
// keys in st.
func WithIdempotency(st memory.IdempotencyStore) Option {
	return func(s *Server) { s.idempotency = st }
}

// idempotent reports whether requests to pattern take Idempotency-Key:
// every POST, except creating an API key, whose response holds a secret
// that is never stored.
func idempotent(pattern string) bool {
	return strings.HasPrefix(pattern, "POST ") && pattern != "POST /v1/admin/keys"
}

// fingerprint identifies a request for its key: its method, path, query
// and body.
func fingerprint(r *http.Request, body []byte) string {
	h := sha256.New()
	io.WriteString(h, r.Method+" "+r.URL.EscapedPath()+"?"+r.URL.RawQuery+"\n")
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// serveIdempotent runs h for r under its Idempotency-Key: reserve the key,
// run, and keep the response; or replay the kept one.
func (s *Server) serveIdempotent(w http.ResponseWriter, r *http.Request, c memory.Caller, key string, h handlerFunc) error {
	if err := memory.ValidIdempotencyKey(key); err != nil {
		return err
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return memory.Errorf(memory.ETOOLARGE, "body: exceeds the limit of %d bytes", MaxBodyBytes)
	} else if err != nil {
		return memory.Errorf(memory.EINVALID, "body: could not be read")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	now := time.Now()
	rec := memory.IdempotencyRecord{OrgID: c.OrgID, Scope: memory.IdempotencyScope(c), Key: key, Fingerprint: fingerprint(r, body),
		LeaseUntil: now.Add(IdempotencyLease).UnixMilli(), ExpiresAt: now.Add(memory.IdempotencyTTL).UnixMilli()}
	cur, err := s.idempotency.Reserve(r.Context(), rec, now)
	if err != nil {
		return err
	}
	if cur != nil {
		return replay(w, cur, rec.Fingerprint)
	}
	// The key is ours: run the request, capturing its response, and keep
	// it whatever happens to the client's connection meanwhile.
	ctx := context.WithoutCancel(r.Context())
	cw := &captureWriter{ResponseWriter: w}
	completed := false
	defer func() {
		if !completed { // a panic: let a retry run
			s.releaseKey(ctx, rec)
		}
	}()
	if err := h(cw, r, c); err != nil {
		s.writeError(cw, r, err)
	}
	completed = true
	if !keepResponse(cw.status) {
		s.releaseKey(ctx, rec)
		return nil
	}
	rec.Done, rec.Status, rec.Body = true, cw.status, cw.body.Bytes()
	rec.Header = map[string]string{}
	for _, name := range replayedHeaders {
		if v := w.Header().Get(name); v != "" {
			rec.Header[name] = v
		}
	}
	if err := s.idempotency.Complete(ctx, rec); err != nil {
		// Not kept (too large, or the store failed): a retry runs again.
		s.log.WarnContext(ctx, "idempotent response not kept", "org", c.OrgID, "status", rec.Status, "bytes", len(rec.Body), "err", err)
		s.releaseKey(ctx, rec)
	}
	return nil
}

// keepResponse reports whether a response is final for its key: a retry
// of a request rejected for its content gets the same rejection, while one
// that failed for a passing reason (a concurrent change, a rate limit,
// a server error) may run again.
func keepResponse(status int) bool {
	switch {
	case status == 0, status >= 500, status == http.StatusTooManyRequests, status == http.StatusConflict:
		return false
	}
	return true
}

func (s *Server) releaseKey(ctx context.Context, rec memory.IdempotencyRecord) {
	if err := s.idempotency.Release(ctx, rec.OrgID, rec.Scope, rec.Key, rec.Fingerprint); err != nil {
		s.log.WarnContext(ctx, "releasing an idempotency key", "org", rec.OrgID, "err", err)
	}
}

// replay answers with the kept response of cur, or with why it cannot.
func replay(w http.ResponseWriter, cur *memory.IdempotencyRecord, fp string) error {
	switch {
	case cur.Fingerprint != fp:
		return memory.Errorf(memory.EUNPROCESSABLE, "Idempotency-Key: this key was used in the last 24 hours for a different request (method, path or body); send a new key for a new request")
	case !cur.Done:
		w.Header().Set("Retry-After", "1")
		return memory.Errorf(memory.ECONFLICT, "Idempotency-Key: the first request with this key is still in flight; retry when it has answered")
	}
	for name, v := range cur.Header {
		w.Header().Set(name, v)
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.WriteHeader(cur.Status)
	w.Write(cur.Body)
	return nil
}

// captureWriter passes a response through, keeping its status and body.
type captureWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *captureWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *captureWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.body.Len() <= memory.MaxIdempotentResponse {
		w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}
