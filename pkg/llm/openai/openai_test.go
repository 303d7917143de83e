package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/llm/openai"
	"github.com/agentmem/agentmem/pkg/memory"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

const (
	system = "You extract durable facts."
	user   = "[t1] alice: I moved to Lisbon last month."
)

var factsTool = memory.Tool{
	Name:        "record_facts",
	Description: "Record the durable facts found in the conversation.",
	Schema: map[string]any{
		"type":     "object",
		"required": []string{"facts"},
		"properties": map[string]any{"facts": map[string]any{
			"type": "array",
			"items": map[string]any{
				"type":       "object",
				"required":   []string{"text"},
				"properties": map[string]any{"text": map[string]any{"type": "string"}, "confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1}},
			},
		}},
	},
}

const facts = `{"facts":[{"text":"Alice lives in Lisbon.","confidence":0.9}]}`

// reply is one scripted answer of the fake server.
type reply struct {
	status int
	header map[string]string
	body   string
	sleep  time.Duration // before answering, or until the client gives up
	hangup bool          // close the connection without an answer
}

// fakeServer stands in for an OpenAI-compatible /v1/chat/completions. Every
// request is checked as a real server would read it; the replies are served
// in order, the last one repeating.
type fakeServer struct {
	t        *testing.T
	key      string // the API key the client must send; "" means none
	mode     openai.Mode
	tool     memory.Tool
	replies  []reply
	requests atomic.Int32

	mu    sync.Mutex
	times []time.Time // when each request arrived
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.times = append(f.times, time.Now())
	f.mu.Unlock()
	i := int(f.requests.Add(1)) - 1
	if problem := f.check(r); problem != "" {
		f.t.Errorf("request %d: %s", i, problem)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, problem)
		return
	}
	rep := f.replies[min(i, len(f.replies)-1)]
	if rep.sleep > 0 {
		select {
		case <-time.After(rep.sleep):
		case <-r.Context().Done():
			return
		}
	}
	if rep.hangup {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(cmp(rep.status, http.StatusOK))
	io.WriteString(w, rep.body)
}

func cmp(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// check returns what is wrong with the request, or "".
func (f *fakeServer) check(r *http.Request) string {
	if r.Method != http.MethodPost {
		return "method " + r.Method
	}
	if r.URL.Path != "/v1/chat/completions" {
		return "path " + r.URL.Path
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		return "Content-Type " + ct
	}
	auth, has := r.Header["Authorization"]
	switch {
	case f.key == "" && has:
		return fmt.Sprintf("Authorization %q sent without an API key", auth)
	case f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key:
		return fmt.Sprintf("Authorization %q, want the bearer key", r.Header.Get("Authorization"))
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return "body: " + err.Error()
	}
	if body["model"] != "test-model" {
		return fmt.Sprintf("model %v", body["model"])
	}
	if want := []any{map[string]any{"role": "system", "content": system}, map[string]any{"role": "user", "content": user}}; !reflect.DeepEqual(body["messages"], want) {
		return fmt.Sprintf("messages %v", body["messages"])
	}
	if t, ok := body["temperature"]; !ok || t != 0.0 {
		return fmt.Sprintf("temperature %v (present %v), want 0", t, ok)
	}
	if body["max_tokens"] != 256.0 {
		return fmt.Sprintf("max_tokens %v", body["max_tokens"])
	}
	if s, ok := body["stream"]; ok && s != false {
		return fmt.Sprintf("stream %v", s)
	}
	schema := normalize(f.tool.Schema)
	switch f.mode {
	case openai.ModeJSONSchema:
		want := map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": f.tool.Name, "description": f.tool.Description, "schema": schema, "strict": true}}
		if !reflect.DeepEqual(body["response_format"], want) {
			return fmt.Sprintf("response_format %v", body["response_format"])
		}
		if _, ok := body["tools"]; ok {
			return "tools sent in json_schema mode"
		}
		if _, ok := body["tool_choice"]; ok {
			return "tool_choice sent in json_schema mode"
		}
	default:
		want := []any{map[string]any{"type": "function", "function": map[string]any{
			"name": f.tool.Name, "description": f.tool.Description, "parameters": schema}}}
		if !reflect.DeepEqual(body["tools"], want) {
			return fmt.Sprintf("tools %v", body["tools"])
		}
		if want := map[string]any{"type": "function", "function": map[string]any{"name": f.tool.Name}}; !reflect.DeepEqual(body["tool_choice"], want) {
			return fmt.Sprintf("tool_choice %v", body["tool_choice"])
		}
		if _, ok := body["response_format"]; ok {
			return "response_format sent in tools mode"
		}
	}
	return ""
}

// normalize turns a Go value into what encoding/json decodes it back to.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// completion is a chat.completion body in the documented OpenAI format.
func completion(message map[string]any, finish string, in, out int) string {
	message["role"] = "assistant"
	if _, ok := message["content"]; !ok {
		message["content"] = nil
	}
	b, err := json.Marshal(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000, "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "message": message, "logprobs": nil, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// toolCall answers by calling name with arguments (a JSON value: the
// documented string, or an object as some servers send).
func toolCall(name string, arguments any) string {
	return completion(map[string]any{"tool_calls": []any{map[string]any{
		"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": arguments}}}},
		"tool_calls", 120, 30)
}

func content(text string) string {
	return completion(map[string]any{"content": text}, "stop", 100, 25)
}

func errorBody(message, kind string) string {
	return fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":null}}`, message, kind)
}

func TestCall(t *testing.T) {
	ok := reply{body: toolCall("record_facts", facts)}
	big := content(`{"facts":[{"text":"` + strings.Repeat("x", openai.MaxResponseBytes) + `"}]}`)
	cases := []struct {
		name     string
		mode     openai.Mode
		key      string
		timeout  time.Duration
		attempts int
		replies  []reply
		want     string        // the JSON object returned, when the call succeeds
		usage    memory.Usage  // this call's usage
		code     string        // memory.ErrorCode of the error
		is       error         // an error the chain must hold
		status   int           // the *APIError status the chain must hold
		mention  string        // text the error must contain
		requests int32         // requests the server must see
		waited   time.Duration // the least time between the first two requests
	}{
		{name: "tools mode with an API key", key: "sk-local", replies: []reply{ok},
			want: facts, usage: memory.Usage{InputTokens: 120, OutputTokens: 30, Calls: 1}, requests: 1},
		{name: "tools mode without a key", replies: []reply{ok},
			want: facts, usage: memory.Usage{InputTokens: 120, OutputTokens: 30, Calls: 1}, requests: 1},
		{name: "tools mode, arguments sent as an object", replies: []reply{{body: toolCall("record_facts", json.RawMessage(facts))}},
			want: facts, usage: memory.Usage{InputTokens: 120, OutputTokens: 30, Calls: 1}, requests: 1},
		{name: "json_schema mode, plain content", mode: openai.ModeJSONSchema, key: "k", replies: []reply{{body: content(facts)}},
			want: facts, usage: memory.Usage{InputTokens: 100, OutputTokens: 25, Calls: 1}, requests: 1},
		{name: "json_schema mode, fenced content", mode: openai.ModeJSONSchema, replies: []reply{{body: content("```json\n" + facts + "\n```\n")}},
			want: facts, usage: memory.Usage{InputTokens: 100, OutputTokens: 25, Calls: 1}, requests: 1},
		{name: "json_schema mode, bare fence after a think block", mode: openai.ModeJSONSchema,
			replies: []reply{{body: content("<think>the user moved</think>\n```\n" + facts + "\n```")}},
			want:    facts, usage: memory.Usage{InputTokens: 100, OutputTokens: 25, Calls: 1}, requests: 1},
		{name: "429 with Retry-After, then success",
			replies: []reply{{status: 429, header: map[string]string{"Retry-After": "1"}, body: errorBody("Rate limit reached", "requests")}, ok},
			want:    facts, usage: memory.Usage{InputTokens: 120, OutputTokens: 30, Calls: 1}, requests: 2, waited: time.Second},
		{name: "503 and 502 retried, then success",
			replies: []reply{{status: 503, body: errorBody("Loading model", "unavailable_error")}, {status: 502, body: "<html>bad gateway</html>"}, ok},
			want:    facts, usage: memory.Usage{InputTokens: 120, OutputTokens: 30, Calls: 1}, requests: 3},
		{name: "connection closed, then success", replies: []reply{{hangup: true}, ok},
			want: facts, usage: memory.Usage{InputTokens: 120, OutputTokens: 30, Calls: 1}, requests: 2},
		{name: "500 beyond the attempts", attempts: 3, replies: []reply{{status: 500, body: errorBody("boom", "server_error")}},
			code: memory.EUNAVAILABLE, status: 500, mention: "boom", requests: 3},
		{name: "Retry-After past the deadline fails at once", timeout: 5 * time.Second,
			replies: []reply{{status: 429, header: map[string]string{"Retry-After": "120"}, body: errorBody("slow down", "rate_limit_exceeded")}},
			code:    memory.EUNAVAILABLE, status: 429, mention: "pass the deadline", requests: 1},
		{name: "400 not retried", replies: []reply{{status: 400, body: errorBody("'record_facts' schema: invalid type", "invalid_request_error")}},
			code: memory.EINTERNAL, status: 400, mention: "'record_facts' schema: invalid type", requests: 1},
		{name: "404 in the vLLM error shape", replies: []reply{{status: 404, body: `{"object":"error","message":"The model test-model does not exist.","type":"NotFoundError","param":null,"code":404}`}},
			code: memory.EINTERNAL, status: 404, mention: "does not exist", requests: 1},
		{name: "401 with a plain-text body", key: "wrong", replies: []reply{{status: 401, body: "unauthorized"}},
			code: memory.EINTERNAL, status: 401, mention: "unauthorized", requests: 1},
		{name: "malformed JSON body", replies: []reply{{body: `{"id":"chatcmpl-1","choices":[`}},
			code: memory.EINTERNAL, mention: "not a chat completion", requests: 1},
		{name: "tool not called, content only", replies: []reply{{body: content("Alice lives in Lisbon.")}},
			usage: memory.Usage{InputTokens: 100, OutputTokens: 25, Calls: 1},
			code:  memory.EINTERNAL, is: openai.ErrNoStructuredOutput, mention: "did not call", requests: 1},
		{name: "another tool called", replies: []reply{{body: toolCall("get_weather", `{"city":"Lisbon"}`)}},
			usage: memory.Usage{InputTokens: 120, OutputTokens: 30, Calls: 1},
			code:  memory.EINTERNAL, is: openai.ErrNoStructuredOutput, mention: "did not call", requests: 1},
		{name: "arguments not JSON (truncated)", replies: []reply{{body: toolCall("record_facts", `{"facts":[{"text":"Alice`)}},
			usage: memory.Usage{InputTokens: 120, OutputTokens: 30, Calls: 1},
			code:  memory.EINTERNAL, is: openai.ErrNoStructuredOutput, mention: "not valid JSON", requests: 1},
		{name: "arguments JSON but not an object", replies: []reply{{body: toolCall("record_facts", `[1,2]`)}},
			usage: memory.Usage{InputTokens: 120, OutputTokens: 30, Calls: 1},
			code:  memory.EINTERNAL, is: openai.ErrNoStructuredOutput, mention: "not an object", requests: 1},
		{name: "json_schema content not JSON", mode: openai.ModeJSONSchema, replies: []reply{{body: content("Sure! Alice lives in Lisbon.")}},
			usage: memory.Usage{InputTokens: 100, OutputTokens: 25, Calls: 1},
			code:  memory.EINTERNAL, is: openai.ErrNoStructuredOutput, mention: "not valid JSON", requests: 1},
		{name: "json_schema content null", mode: openai.ModeJSONSchema, replies: []reply{{body: content("null")}},
			usage: memory.Usage{InputTokens: 100, OutputTokens: 25, Calls: 1},
			code:  memory.EINTERNAL, is: openai.ErrNoStructuredOutput, mention: "not an object", requests: 1},
		{name: "no choices", replies: []reply{{body: `{"id":"c","object":"chat.completion","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}}`}},
			usage: memory.Usage{InputTokens: 5, Calls: 1},
			code:  memory.EINTERNAL, is: openai.ErrNoStructuredOutput, mention: "no choices", requests: 1},
		{name: "oversize response", mode: openai.ModeJSONSchema, replies: []reply{{body: big}},
			code: memory.EINTERNAL, mention: "exceeds", requests: 1},
		{name: "timeout honoured", timeout: 100 * time.Millisecond, replies: []reply{{sleep: time.Minute, body: ok.body}},
			code: memory.EUNAVAILABLE, is: context.DeadlineExceeded, mention: "no answer within 100ms", requests: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mode := cmpMode(tc.mode)
			f := &fakeServer{t: t, key: tc.key, mode: mode, tool: factsTool, replies: tc.replies}
			srv := httptest.NewServer(f)
			defer srv.Close()
			c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1/", Model: "test-model", APIKey: tc.key, Mode: tc.mode,
				MaxTokens: 256, Timeout: tc.timeout, MaxAttempts: tc.attempts, Backoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond, Log: quiet})
			if err != nil {
				t.Fatal(err)
			}
			got, usage, err := c.Call(context.Background(), system, user, factsTool)
			if n := f.requests.Load(); n != tc.requests {
				t.Errorf("the server saw %d requests, want %d", n, tc.requests)
			}
			if tc.waited > 0 {
				if gap := f.times[1].Sub(f.times[0]); gap < tc.waited {
					t.Errorf("the retry came %s after the first request, before the %s the server asked for", gap, tc.waited)
				}
			}
			if usage != tc.usage {
				t.Errorf("usage %+v, want %+v", usage, tc.usage)
			}
			if tc.code == "" {
				if err != nil {
					t.Fatalf("Call: %v", err)
				}
				if !reflect.DeepEqual(normalize(got), normalize(json.RawMessage(tc.want))) {
					t.Errorf("got %s, want %s", got, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Call returned %s, want a %s error", got, tc.code)
			}
			if got != nil {
				t.Errorf("Call returned output %s with its error", got)
			}
			if code := memory.ErrorCode(err); code != tc.code {
				t.Errorf("error code %q, want %q: %v", code, tc.code, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
			if tc.status != 0 {
				var ae *openai.APIError
				if !errors.As(err, &ae) || ae.StatusCode != tc.status {
					t.Errorf("error %v does not hold an APIError with status %d", err, tc.status)
				}
			}
			if !strings.Contains(err.Error(), tc.mention) || !strings.HasPrefix(err.Error(), "openai: chat test-model: ") {
				t.Errorf("error %q lacks the operation prefix or %q", err, tc.mention)
			}
			if tc.key != "" && strings.Contains(err.Error(), tc.key) {
				t.Errorf("error %q shows the API key", err)
			}
		})
	}
}

func cmpMode(m openai.Mode) openai.Mode {
	if m == "" {
		return openai.ModeTools
	}
	return m
}

// TestUnreachable: a server that refuses connections is retried, then
// reported as unavailable.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := openai.New(openai.Options{BaseURL: "http://" + addr + "/v1", Model: "test-model", MaxAttempts: 3,
		Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Call(context.Background(), system, user, factsTool)
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(err.Error(), "3 attempts") {
		t.Fatalf("error %v, want EUNAVAILABLE after 3 attempts", err)
	}
	var op *net.OpError
	if !errors.As(err, &op) {
		t.Errorf("error %v does not hold the connection error", err)
	}
}

// TestCallerContext: the caller's cancellation ends a call in flight and is
// reported as such, not as an unavailable model; the caller's deadline is
// honoured like Timeout and reported as EUNAVAILABLE.
func TestCallerContext(t *testing.T) {
	cases := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		is   error
		code string
	}{
		{"cancel", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			context.Canceled, memory.EINTERNAL},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, context.DeadlineExceeded, memory.EUNAVAILABLE},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeServer{t: t, mode: openai.ModeTools, tool: factsTool, replies: []reply{{sleep: time.Minute}}}
			srv := httptest.NewServer(f)
			defer srv.Close()
			c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1", Model: "test-model", MaxTokens: 256, Log: quiet})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := tc.ctx()
			defer cancel()
			if tc.is == context.Canceled {
				go func() {
					for f.requests.Load() == 0 {
						time.Sleep(time.Millisecond)
					}
					cancel()
				}()
			}
			_, _, err = c.Call(ctx, system, user, factsTool)
			if !errors.Is(err, tc.is) || memory.ErrorCode(err) != tc.code {
				t.Fatalf("error %v (code %s), want %v with code %s", err, memory.ErrorCode(err), tc.is, tc.code)
			}
			if n := f.requests.Load(); n != 1 {
				t.Errorf("the server saw %d requests, want 1", n)
			}
		})
	}
}

// TestConcurrentUsage: concurrent calls are safe, and Usage adds up every
// call's tokens.
func TestConcurrentUsage(t *testing.T) {
	f := &fakeServer{t: t, mode: openai.ModeTools, tool: factsTool, replies: []reply{{body: toolCall("record_facts", facts)}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1", Model: "test-model", MaxTokens: 256, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if u := c.Usage(); u != (memory.Usage{}) {
		t.Fatalf("usage before any call %+v", u)
	}
	const workers, each = 8, 5
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		sum memory.Usage
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				out, u, err := c.Call(context.Background(), system, user, factsTool)
				if err != nil {
					t.Error(err)
					return
				}
				if !json.Valid(out) {
					t.Errorf("output %s", out)
				}
				mu.Lock()
				sum.InputTokens += u.InputTokens
				sum.OutputTokens += u.OutputTokens
				sum.Calls += u.Calls
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	want := memory.Usage{InputTokens: 120 * workers * each, OutputTokens: 30 * workers * each, Calls: workers * each}
	if sum != want {
		t.Errorf("the calls' usages add up to %+v, want %+v", sum, want)
	}
	if u := c.Usage(); u != want {
		t.Errorf("Usage() %+v, want %+v", u, want)
	}
}

func TestNewValidates(t *testing.T) {
	ok := openai.Options{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5:3b"}
	cases := []struct {
		name  string
		edit  func(*openai.Options)
		field string
	}{
		{"no base URL", func(o *openai.Options) { o.BaseURL = "" }, "BaseURL"},
		{"base URL without scheme", func(o *openai.Options) { o.BaseURL = "127.0.0.1:11434/v1" }, "BaseURL"},
		{"base URL with another scheme", func(o *openai.Options) { o.BaseURL = "ftp://127.0.0.1/v1" }, "BaseURL"},
		{"base URL naming the endpoint", func(o *openai.Options) { o.BaseURL = "http://127.0.0.1:8080/v1/chat/completions" }, "BaseURL"},
		{"no model", func(o *openai.Options) { o.Model = " " }, "Model"},
		{"unknown mode", func(o *openai.Options) { o.Mode = "json_object" }, "Mode"},
		{"negative max tokens", func(o *openai.Options) { o.MaxTokens = -1 }, "MaxTokens"},
		{"negative timeout", func(o *openai.Options) { o.Timeout = -time.Second }, "Timeout"},
		{"negative attempts", func(o *openai.Options) { o.MaxAttempts = -2 }, "MaxAttempts"},
		{"API key with a line break", func(o *openai.Options) { o.APIKey = "sk\r\nX-Evil: 1" }, "APIKey"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.edit(&o)
			c, err := openai.New(o)
			if err == nil {
				t.Fatalf("New accepted %+v", o)
			}
			if c != nil || memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "Options."+tc.field) {
				t.Errorf("error %v, want EINVALID naming Options.%s", err, tc.field)
			}
		})
	}
	if _, err := openai.New(ok); err != nil {
		t.Errorf("New rejected valid options: %v", err)
	}
}

func TestCallValidatesTool(t *testing.T) {
	f := &fakeServer{t: t, mode: openai.ModeTools, tool: factsTool, replies: []reply{{body: toolCall("record_facts", facts)}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1", Model: "test-model", Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []memory.Tool{
		{Name: "", Schema: factsTool.Schema},
		{Name: "record facts", Schema: factsTool.Schema},
		{Name: "record_facts"},
		{Name: "record_facts", Schema: map[string]any{"bad": func() {}}},
	} {
		_, _, err := c.Call(context.Background(), system, user, tool)
		if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "tool.") {
			t.Errorf("tool %q: error %v, want EINVALID naming the tool field", tool.Name, err)
		}
	}
	if n := f.requests.Load(); n != 0 {
		t.Errorf("invalid tools reached the server %d times", n)
	}
}
