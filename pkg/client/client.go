// Package client is the Go client of the agentmem HTTP API: typed requests
// and responses, errors that carry the API's error code, retries with
// backoff on 429 and 503 (honouring Retry-After), an Idempotency-Key on
// every POST that stores something (the same on each retry), and context
// cancellation on every call.
//
//	c, err := client.New("http://127.0.0.1:8080", os.Getenv("AGENTMEM_API_KEY"))
//	res, err := c.Create(ctx, client.NewMemory{Type: "fact", Content: client.Content{Text: "Dana prefers jasmine tea"}})
//	hits, err := c.Search(ctx, client.SearchRequest{Query: "what does Dana drink?", K: 5})
//
// The org is the API key's; a key bound to an agent sees the org scope and
// its own agent's memories, never another agent's. To serve one end user
// among many, name them on each read (Filter.UserID, RoomID, WorldID;
// ContextRequest.UserID), or mint a token bound to them (CreateToken) and
// read with a client made from it (NewWithToken).
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentmem/agentmem/internal/retry"
)

// Defaults of a Client's retry policy.
const (
	DefaultMaxRetries    = 3
	DefaultRetryBase     = 200 * time.Millisecond
	DefaultRetryMax      = 5 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

// Client calls one agentmem server with one API key. Its methods are safe
// for concurrent use. The zero value is not usable; call New.
type Client struct {
	base      *url.URL
	key       string
	hc        *http.Client
	userAgent string
	// maxRetries is how many times a request answered 429 or 503 is sent
	// again; retryBase and retryMax bound the jittered exponential backoff
	// used when the answer has no Retry-After; maxRetryAfter caps a
	// Retry-After the client will wait for (longer ones fail at once).
	maxRetries                         int
	retryBase, retryMax, maxRetryAfter time.Duration
	newKey                             func() string
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests with hc (default: a client with a 60 s
// timeout). Use a context deadline for per-call timeouts.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithRetries sets how many times a request answered 429 or 503 is retried
// (0 turns retries off) and the backoff's base and ceiling, used when the
// server sends no Retry-After.
func WithRetries(max int, base, ceiling time.Duration) Option {
	return func(c *Client) { c.maxRetries, c.retryBase, c.retryMax = max, base, ceiling }
}

// WithMaxRetryAfter caps the Retry-After the client waits for; a longer
// one ends the call with the 429 or 503 error.
func WithMaxRetryAfter(d time.Duration) Option { return func(c *Client) { c.maxRetryAfter = d } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client of the server at baseURL ("http://127.0.0.1:8080")
// authenticating with apiKey.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: baseURL %q: an http or https URL is required", baseURL)
	}
	if apiKey == "" {
		return nil, fmt.Errorf("client: apiKey: required")
	}
	c := &Client{
		base: u, key: apiKey, hc: &http.Client{Timeout: 60 * time.Second}, userAgent: "agentmem-go",
		maxRetries: DefaultMaxRetries, retryBase: DefaultRetryBase, retryMax: DefaultRetryMax,
		maxRetryAfter: DefaultMaxRetryAfter, newKey: newIdempotencyKey,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// RequestOptions are per-call options: an Idempotency-Key of the caller's
// choice (default, on the POSTs that store something: a random one per
// call, kept across its retries), and an If-Match version for a
// conditional update.
type RequestOptions struct {
	// IdempotencyKey replaces the key generated for a POST.
	IdempotencyKey string
	// IfMatch, when non-zero, makes an update apply only over that version
	// (Memory.Version, the ETag).
	IfMatch int64
}

// call is one API request.
type call struct {
	op     string // the operation, for errors: "client.Get"
	method string
	path   string
	query  url.Values
	body   any
	// ndjson, when set, is sent as the body as it is, with the type
	// application/x-ndjson (an import), instead of body encoded as JSON.
	ndjson []byte
	opts   RequestOptions
	// write marks a POST that stores something: it carries an
	// Idempotency-Key (generated unless opts has one), so that a retry
	// cannot store it twice. Read-only POSTs (search, context) carry one
	// only when the caller gives it.
	write bool
}

// response is what do read back.
type response struct {
	status int
	header http.Header
}

// do sends cl, retrying 429 and 503, and decodes a 2xx body into out (when
// out is non-nil and the body is not empty).
func (c *Client) do(ctx context.Context, cl call, out any) (*response, error) {
	var payload []byte
	if cl.body != nil {
		var err error
		if payload, err = json.Marshal(cl.body); err != nil {
			return nil, fmt.Errorf("%s: encoding the request: %w", cl.op, err)
		}
	}
	if cl.ndjson != nil {
		payload = cl.ndjson
	}
	// cl.path has its variable segments escaped (url.PathEscape).
	target := c.base.String() + cl.path
	if len(cl.query) > 0 {
		target += "?" + cl.query.Encode()
	}
	idem := cl.opts.IdempotencyKey
	if cl.write && idem == "" {
		idem = c.newKey()
	}
	for attempt := 0; ; attempt++ {
		res, err := c.send(ctx, cl, target, payload, idem)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
		res.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: reading the response: %w", cl.op, err)
		}
		if res.StatusCode >= 400 {
			if err := c.retryAfterError(ctx, cl.op, attempt, parseError(cl.op, res.StatusCode, res.Header, body)); err != nil {
				return nil, err
			}
			continue
		}
		if out != nil && len(bytes.TrimSpace(body)) > 0 {
			if err := json.Unmarshal(body, out); err != nil {
				return nil, fmt.Errorf("%s: decoding the response (status %d): %w", cl.op, res.StatusCode, err)
			}
		}
		return &response{status: res.StatusCode, header: res.Header}, nil
	}
}

// send sends one attempt of cl to target.
func (c *Client) send(ctx context.Context, cl call, target string, payload []byte, idem string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, cl.method, target, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cl.op, err)
	}
	if payload == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	} else if cl.ndjson != nil {
		req.Header.Set("Content-Type", "application/x-ndjson")
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", "application/json, application/problem+json")
	req.Header.Set("User-Agent", c.userAgent)
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	if cl.opts.IfMatch != 0 {
		req.Header.Set("If-Match", fmt.Sprintf("%q", fmt.Sprint(cl.opts.IfMatch)))
	}
	res, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", cl.op, ctx.Err())
		}
		return nil, fmt.Errorf("%s: %w", cl.op, err)
	}
	return res, nil
}

// retryAfterError returns nil once it has waited to send again a request
// answered apiErr at attempt (0 the first), else the error to end the
// call with.
func (c *Client) retryAfterError(ctx context.Context, op string, attempt int, apiErr *Error) error {
	if !retryable(apiErr.Status) || attempt >= c.maxRetries {
		return apiErr
	}
	if err := c.wait(ctx, attempt+1, apiErr.RetryAfter); err != nil {
		if err == errRetryAfterTooLong {
			return apiErr
		}
		return fmt.Errorf("%s: %w (while waiting to retry after %v)", op, err, apiErr)
	}
	return nil
}

// retryable reports whether a request answered status may be sent again:
// 429 (rate limited) and 503 (unavailable, nothing written).
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

var errRetryAfterTooLong = fmt.Errorf("Retry-After exceeds the client's limit")

// wait sleeps before retry number attempt: the server's Retry-After when
// it sent one, else a jittered exponential backoff.
func (c *Client) wait(ctx context.Context, attempt int, after time.Duration) error {
	if after <= 0 {
		return retry.Wait(ctx, attempt, c.retryBase, c.retryMax)
	}
	if after > c.maxRetryAfter {
		return errRetryAfterTooLong
	}
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// newIdempotencyKey returns 16 random bytes in hex.
func newIdempotencyKey() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Healthz returns the server's health report (no key needed, but the
// client's is sent).
func (c *Client) Healthz(ctx context.Context) (map[string]any, error) {
	var out map[string]any
	_, err := c.do(ctx, call{op: "client.Healthz", method: http.MethodGet, path: "/v1/healthz"}, &out)
	return out, err
}
