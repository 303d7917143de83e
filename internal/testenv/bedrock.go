package testenv

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Bedrock is the one local stand-in for the Bedrock runtime endpoint that
// every test talking to Bedrock starts (StartBedrock). It checks what any
// Bedrock request must carry (a SigV4 signature of the bedrock service for
// the access key "local", POST), counts requests, throttles on demand,
// and hands each route to the test's own model: Converse and Invoke for
// /model/{id}/converse and /model/{id}/invoke, Other for any other path
// (/rerank).
type Bedrock struct {
	// URL is the endpoint, set by StartBedrock.
	URL string
	// Region, when set, must be the signature's region.
	Region string
	// Delay is how long every request waits before its answer.
	Delay time.Duration
	// Throttle answers this many requests with 429 ThrottlingException
	// before any model sees them.
	Throttle atomic.Int32
	// Requests counts the requests; InFlight and MaxFlight how many run at
	// once now and at most.
	Requests, InFlight, MaxFlight atomic.Int32

	// Converse answers POST /model/{model}/converse, its JSON body
	// (Content-Type application/json, else 400) decoded (nil: 400
	// ValidationException).
	Converse func(w http.ResponseWriter, model string, req ConverseRequest)
	// Invoke answers POST /model/{model}/invoke (nil: 400).
	Invoke func(w http.ResponseWriter, r *http.Request, model string, body []byte)
	// Other answers any other path (nil: 404 ResourceNotFoundException).
	Other func(w http.ResponseWriter, r *http.Request, body []byte)
}

// StartBedrock serves b on loopback until the test ends and returns it,
// its URL set.
func StartBedrock(t testing.TB, b *Bedrock) *Bedrock {
	t.Helper()
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	b.URL = srv.URL
	return b
}

// BedrockFail answers as Bedrock answers an error: the status, the error
// type in X-Amzn-ErrorType and {"message": msg}.
func BedrockFail(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", kind)
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"message":%q}`, msg)
}

// ServeHTTP checks the signature, the method and the throttle, then routes.
func (b *Bedrock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.Requests.Add(1)
	n := b.InFlight.Add(1)
	defer b.InFlight.Add(-1)
	for {
		m := b.MaxFlight.Load()
		if n <= m || b.MaxFlight.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(b.Delay)
	auth := r.Header.Get("Authorization")
	scope := "/bedrock/aws4_request"
	if b.Region != "" {
		scope = "/" + b.Region + scope
	}
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=local/") || !strings.Contains(auth, scope) ||
		!strings.Contains(auth, "SignedHeaders=") || !strings.Contains(auth, "Signature=") || r.Header.Get("X-Amz-Date") == "" {
		BedrockFail(w, 403, "AccessDeniedException", "missing or malformed SigV4 signature: "+auth)
		return
	}
	if r.Method != http.MethodPost {
		BedrockFail(w, 405, "ValidationException", "method "+r.Method)
		return
	}
	if b.Throttle.Load() > 0 {
		b.Throttle.Add(-1)
		BedrockFail(w, 429, "ThrottlingException", "Too many requests, please wait before trying again.")
		return
	}
	body, _ := io.ReadAll(r.Body)
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch {
	case len(parts) == 3 && parts[0] == "model" && parts[2] == "converse" && b.Converse != nil:
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			BedrockFail(w, 400, "ValidationException", "content type "+ct)
			return
		}
		var req ConverseRequest
		if err := json.Unmarshal(body, &req); err != nil {
			BedrockFail(w, 400, "ValidationException", err.Error())
			return
		}
		req.Body = body
		b.Converse(w, parts[1], req)
	case len(parts) == 3 && parts[0] == "model" && parts[2] == "invoke" && b.Invoke != nil:
		b.Invoke(w, r, parts[1], body)
	case len(parts) == 3 && parts[0] == "model":
		BedrockFail(w, 400, "ValidationException", "unsupported "+parts[2]+" on "+parts[1])
	case b.Other != nil:
		b.Other(w, r, body)
	default:
		BedrockFail(w, 404, "ResourceNotFoundException", "no route "+r.Method+" "+r.URL.Path)
	}
}

// ConverseRequest is the body of a Converse request, as the SDK sends it.
type ConverseRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"messages"`
	System []struct {
		Text string `json:"text"`
	} `json:"system"`
	InferenceConfig struct {
		MaxTokens   int      `json:"maxTokens"`
		Temperature *float64 `json:"temperature"`
	} `json:"inferenceConfig"`
	ToolConfig struct {
		Tools []struct {
			ToolSpec struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				InputSchema struct {
					// JSON is the tool's input schema, for the test to decode
					// into the shape it checks.
					JSON json.RawMessage `json:"json"`
				} `json:"inputSchema"`
			} `json:"toolSpec"`
		} `json:"tools"`
		ToolChoice struct {
			Tool struct {
				Name string `json:"name"`
			} `json:"tool"`
		} `json:"toolChoice"`
	} `json:"toolConfig"`
	// Body is the request as sent.
	Body []byte `json:"-"`
}

// OneUserMessage is the text of the request's one user message, and
// whether it has exactly one, of one block, and one system prompt.
func (r ConverseRequest) OneUserMessage() (string, bool) {
	if len(r.Messages) != 1 || r.Messages[0].Role != "user" || len(r.Messages[0].Content) != 1 || len(r.System) != 1 {
		return "", false
	}
	return r.Messages[0].Content[0].Text, true
}

// ForcedTool is the name of the request's one tool and its schema, when
// the request forces that tool; "" otherwise.
func (r ConverseRequest) ForcedTool() (string, json.RawMessage) {
	tc := r.ToolConfig
	if len(tc.Tools) != 1 || tc.ToolChoice.Tool.Name != tc.Tools[0].ToolSpec.Name {
		return "", nil
	}
	return tc.Tools[0].ToolSpec.Name, tc.Tools[0].ToolSpec.InputSchema.JSON
}

// ConverseToolUse answers a Converse request with the model calling tool
// with input.
func ConverseToolUse(w http.ResponseWriter, tool string, input any) {
	converseAnswer(w, []any{map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_1", "name": tool, "input": input}}}, "tool_use")
}

// ConverseText answers a Converse request with text, no tool called.
func ConverseText(w http.ResponseWriter, text string) {
	converseAnswer(w, []any{map[string]any{"text": text}}, "end_turn")
}

// The token counts every Converse answer reports.
const (
	ConverseInputTokens  = 300
	ConverseOutputTokens = 40
)

func converseAnswer(w http.ResponseWriter, content []any, stop string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": stop,
		"usage": map[string]any{"inputTokens": ConverseInputTokens, "outputTokens": ConverseOutputTokens,
			"totalTokens": ConverseInputTokens + ConverseOutputTokens},
		"metrics": map[string]any{"latencyMs": 200},
	})
}
