// Package openai adapts OpenAI-compatible chat completion servers to
// memory.LLM: self-hosted Ollama, vLLM, llama.cpp's llama-server and
// llama-cpp-python's server, and hosted APIs that speak the same protocol.
//
// The client speaks plain net/http rather than an SDK: the surface it needs
// is one endpoint (POST {BaseURL}/chat/completions) and a few fields, and the
// servers differ exactly where an SDK would hide the difference (which
// tool_choice forms they honour, whether they fence JSON content, how they
// shape error bodies). Owning the few types keeps those differences visible
// and tested, and adds no dependency.
//
// Structured output comes one of two ways, chosen by Options.Mode:
//
//   - ModeTools (default): the tool is sent in "tools" and forced with
//     tool_choice {"type":"function","function":{"name":...}}; the answer is
//     choices[0].message.tool_calls[].function.arguments, a JSON string.
//     Hosted OpenAI, vLLM (named function calling needs no server flag) and
//     llama-cpp-python's server (which turns the named tool's schema into a
//     grammar) honour it.
//   - ModeJSONSchema: the tool's schema is sent as response_format
//     {"type":"json_schema","json_schema":{"name","schema","strict":true}}
//     and the answer is choices[0].message.content, with ```json fences or a
//     leading <think> block removed. Ollama (0.5 or later; it ignores
//     tool_choice, so tools mode lets the model decline), llama-server (it
//     reads tool_choice only as "auto", "none" or "required" and treats the
//     named form as "auto"; json_schema becomes a grammar) and vLLM
//     constrain decoding to the schema; llama-cpp-python's server rejects
//     it (it knows only "text" and "json_object", and answers 500, which is
//     retried before the call fails). Hosted OpenAI with strict:true
//     accepts only schemas whose properties are all required and that set
//     additionalProperties false; use tools mode there otherwise.
//
// Either way the result must be a JSON object, or the call fails with
// ErrNoStructuredOutput. The client retries throttling (429, honouring
// Retry-After), 500, 502, 503, 504 and connection failures with full-jitter
// exponential backoff, within MaxAttempts and never past the call's
// deadline; other 4xx answers are returned at once as *APIError.
//
// It is tested at the wire level against a local HTTP server that checks
// the real request and answers in the documented response format, and
// against a real server when OPENAI_TEST_BASE_URL is set (TestLiveServer).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Mode is how the client obtains structured output from the server.
type Mode string

// The structured-output modes.
const (
	// ModeTools forces a call of the tool with a named tool_choice and reads
	// the call's arguments.
	ModeTools Mode = "tools"
	// ModeJSONSchema constrains the answer with response_format json_schema
	// and reads the message content.
	ModeJSONSchema Mode = "json_schema"
)

// MaxResponseBytes bounds the body of a chat completion read from the
// server; a larger answer fails without being retried.
const MaxResponseBytes = 8 << 20

// maxErrorBytes bounds the part of an error body read for its message.
const maxErrorBytes = 64 << 10

// Options configures a Client. BaseURL and Model are required; every other
// zero value takes the default named beside it.
type Options struct {
	// BaseURL is the API root that /chat/completions is appended to, for
	// example "http://127.0.0.1:11434/v1" (Ollama), "http://127.0.0.1:8080/v1"
	// (llama-server), "http://127.0.0.1:8000/v1" (vLLM).
	BaseURL string
	// Model is the model name the server knows, for example "qwen2.5:3b".
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <APIKey>".
	APIKey string
	// Mode selects tool calling (ModeTools, the default) or JSON-schema
	// output (ModeJSONSchema).
	Mode Mode
	// MaxTokens bounds the answer (max_tokens; default 2,048).
	MaxTokens int
	// Timeout bounds one Call, retries and backoff included (default 60 s).
	Timeout time.Duration
	// MaxAttempts per Call, the first included (default 5).
	MaxAttempts int
	// Backoff is the ceiling of the first retry's random wait (default
	// 500 ms); it doubles each retry up to MaxBackoff (default 10 s).
	Backoff    time.Duration
	MaxBackoff time.Duration
	// HTTPClient sends the requests (default: a client without its own
	// timeout, since Timeout governs through the context).
	HTTPClient *http.Client
	// Log receives a debug record per retry (default slog.Default()). No
	// prompt, answer or key is logged.
	Log *slog.Logger
}

// Client calls an OpenAI-compatible chat completions endpoint and returns
// structured output. It implements memory.LLM and is safe for concurrent
// use.
type Client struct {
	endpoint    string
	model       string
	apiKey      string
	mode        Mode
	maxTokens   int
	timeout     time.Duration
	maxAttempts int
	backoff     time.Duration
	maxBackoff  time.Duration
	hc          *http.Client
	log         *slog.Logger

	in, out, calls atomic.Int64
}

var _ memory.LLM = (*Client)(nil)

// ErrNoStructuredOutput is returned, wrapped with the model and the reason,
// when the server answered but not with the structured output: the tool was
// not called, the arguments or content are not JSON, or not a JSON object.
// It carries no memory error code, so memory.ErrorCode reports EINTERNAL.
var ErrNoStructuredOutput = errors.New("the model answered without the structured output")

// APIError is an error answer of the server: its HTTP status and the
// message and type from its error body.
type APIError struct {
	StatusCode int
	Type       string
	Message    string
}

// Error implements error.
func (e *APIError) Error() string {
	s := "HTTP " + strconv.Itoa(e.StatusCode)
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// New returns a Client for o, or an EINVALID error naming the first bad
// field.
func New(o Options) (*Client, error) {
	invalid := func(format string, args ...any) error {
		return memory.Errorf(memory.EINVALID, "openai: "+format, args...)
	}
	base := strings.TrimRight(strings.TrimSpace(o.BaseURL), "/")
	if base == "" {
		return nil, invalid("Options.BaseURL is required (for example http://127.0.0.1:11434/v1)")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, invalid("Options.BaseURL %q is not an http(s) URL without query (for example http://127.0.0.1:11434/v1)", o.BaseURL)
	}
	if strings.HasSuffix(u.Path, "/chat/completions") {
		return nil, invalid("Options.BaseURL %q names the endpoint; give the API root it is under (for example http://127.0.0.1:11434/v1)", o.BaseURL)
	}
	if strings.TrimSpace(o.Model) == "" {
		return nil, invalid("Options.Model is required")
	}
	switch o.Mode {
	case "":
		o.Mode = ModeTools
	case ModeTools, ModeJSONSchema:
	default:
		return nil, invalid("Options.Mode %q is not %q or %q", o.Mode, ModeTools, ModeJSONSchema)
	}
	if strings.ContainsAny(o.APIKey, "\r\n") {
		return nil, invalid("Options.APIKey contains a line break")
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"MaxTokens", int64(o.MaxTokens)}, {"Timeout", int64(o.Timeout)}, {"MaxAttempts", int64(o.MaxAttempts)},
		{"Backoff", int64(o.Backoff)}, {"MaxBackoff", int64(o.MaxBackoff)}} {
		if f.v < 0 {
			return nil, invalid("Options.%s is negative", f.name)
		}
	}
	c := &Client{endpoint: base + "/chat/completions", model: o.Model, apiKey: o.APIKey, mode: o.Mode,
		maxTokens: o.MaxTokens, timeout: o.Timeout, maxAttempts: o.MaxAttempts, backoff: o.Backoff,
		maxBackoff: o.MaxBackoff, hc: o.HTTPClient, log: o.Log}
	if c.maxTokens == 0 {
		c.maxTokens = 2048
	}
	if c.timeout == 0 {
		c.timeout = 60 * time.Second
	}
	if c.maxAttempts == 0 {
		c.maxAttempts = 5
	}
	if c.backoff == 0 {
		c.backoff = 500 * time.Millisecond
	}
	if c.maxBackoff == 0 {
		c.maxBackoff = 10 * time.Second
	}
	if c.maxBackoff < c.backoff {
		c.maxBackoff = c.backoff
	}
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// Usage returns the tokens used by every call so far, as the servers
// reported them. Calls counts the completions the server answered,
// including those whose output was then rejected.
func (c *Client) Usage() memory.Usage {
	return memory.Usage{InputTokens: c.in.Load(), OutputTokens: c.out.Load(), Calls: c.calls.Load()}
}

// toolName is the function-name rule of the OpenAI API, which the other
// servers share or are looser than.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Call sends the system prompt and the user text at temperature 0, requires
// the model to answer with tool, and returns the tool's input (a JSON
// object) with this call's usage. Errors: EINVALID for a bad tool;
// EUNAVAILABLE when the server cannot be reached, keeps throttling or does
// not answer within Timeout; *APIError (EINTERNAL) when it refuses the
// request; ErrNoStructuredOutput (EINTERNAL) when it answers without the
// structured output; the context's error when the caller cancels (a
// deadline of the caller's context that passes is EUNAVAILABLE, as is
// Timeout).
func (c *Client) Call(ctx context.Context, system, user string, tool memory.Tool) (json.RawMessage, memory.Usage, error) {
	if !toolName.MatchString(tool.Name) {
		return nil, memory.Usage{}, c.errorf("%w", memory.Errorf(memory.EINVALID,
			"openai: tool.Name %q must be 1 to 64 letters, digits, '_' or '-'", tool.Name))
	}
	if tool.Schema == nil {
		return nil, memory.Usage{}, c.errorf("%w", memory.Errorf(memory.EINVALID, "openai: tool.Schema of %q is required", tool.Name))
	}
	body, err := json.Marshal(c.request(system, user, tool))
	if err != nil {
		return nil, memory.Usage{}, c.errorf("%w: %w", memory.Errorf(memory.EINVALID,
			"openai: tool.Schema of %q is not JSON-encodable", tool.Name), err)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		res, err := c.post(ctx, body)
		if err == nil {
			return c.decode(res, tool)
		}
		if errors.Is(parent.Err(), context.Canceled) {
			return nil, memory.Usage{}, c.errorf("%w", context.Cause(parent))
		}
		if ctx.Err() != nil {
			return nil, memory.Usage{}, c.unavailable(err, "no answer within %s (%d attempts)", c.timeout, attempt)
		}
		var re *retryable
		if !errors.As(err, &re) {
			return nil, memory.Usage{}, c.errorf("%w", err)
		}
		if attempt >= c.maxAttempts {
			return nil, memory.Usage{}, c.unavailable(re.err, "%d attempts", attempt)
		}
		wait := c.jitter(attempt)
		if re.after > wait {
			wait = re.after
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
			return nil, memory.Usage{}, c.unavailable(re.err, "a retry in %s would pass the deadline (%d attempts)", wait.Round(time.Millisecond), attempt)
		}
		c.log.Debug("openai: retrying", "model", c.model, "attempt", attempt, "wait", wait, "err", re.err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			if errors.Is(parent.Err(), context.Canceled) {
				return nil, memory.Usage{}, c.errorf("%w", context.Cause(parent))
			}
			return nil, memory.Usage{}, c.unavailable(re.err, "no answer within %s (%d attempts)", c.timeout, attempt)
		case <-t.C:
		}
	}
}

// errorf prefixes the operation to an error.
func (c *Client) errorf(format string, args ...any) error {
	return fmt.Errorf("openai: chat %s: "+format, append([]any{c.model}, args...)...)
}

// unavailable is the EUNAVAILABLE error after attempts, wrapping the last
// failure so that errors.Is and errors.As still see it.
func (c *Client) unavailable(last error, format string, args ...any) error {
	return c.errorf("%w: "+format+": %w", append(append([]any{memory.Errorf(memory.EUNAVAILABLE,
		"the language model is unavailable or throttling")}, args...), last)...)
}

// jitter is the full-jitter wait before retry number attempt: uniform in
// [0, min(MaxBackoff, Backoff·2^(attempt-1))).
func (c *Client) jitter(attempt int) time.Duration {
	ceil := c.maxBackoff
	if attempt-1 < 32 {
		if d := c.backoff << (attempt - 1); d > 0 && d < ceil {
			ceil = d
		}
	}
	return time.Duration(rand.Int64N(int64(ceil)))
}

// retryable marks a failure worth another attempt, with the wait the server
// asked for (Retry-After), if any.
type retryable struct {
	err   error
	after time.Duration
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// post sends one request and returns the body of a 2xx answer.
func (c *Client) post(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, &retryable{err: err}
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBytes))
		e := apiError(res.StatusCode, b)
		switch res.StatusCode {
		case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return nil, &retryable{err: e, after: retryAfter(res.Header.Get("Retry-After"))}
		}
		return nil, e
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, &retryable{err: fmt.Errorf("reading the response: %w", err)}
	}
	if len(b) > MaxResponseBytes {
		return nil, fmt.Errorf("the response exceeds %d bytes", MaxResponseBytes)
	}
	return b, nil
}

// retryAfter parses a Retry-After header: delay seconds or an HTTP date.
func retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil {
		if s <= 0 || s > 86400 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
