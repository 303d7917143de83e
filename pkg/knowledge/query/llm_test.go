package query_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/memory"
)

const model = "anthropic.claude-3-5-haiku-20241022-v1:0"

var asked = time.Date(2024, time.March, 13, 15, 4, 5, 0, time.UTC)

// fakeConverse is a local stand-in for Bedrock's Converse endpoint. It
// checks the request the translator makes (path, SigV4, the forced tool and
// its schema, the prompt and the question) and answers with a toolUse block
// whose input is answer, or as the mode says.
type fakeConverse struct {
	t        *testing.T
	question string
	answer   string // JSON of the tool input
	mode     string // "", "text" (no tool use), "error" (a 400)
	requests atomic.Int32
	bad      atomic.Value // string: what was wrong with a request
}

func (f *fakeConverse) fail(w http.ResponseWriter, status int, kind, msg string) {
	f.bad.Store(msg)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", kind)
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"message":%q}`, msg)
}

func (f *fakeConverse) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=local/") || !strings.Contains(auth, "/bedrock/aws4_request") ||
		!strings.Contains(auth, "Signature=") || r.Header.Get("X-Amz-Date") == "" {
		f.fail(w, 403, "AccessDeniedException", "missing or malformed SigV4 signature")
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/model/"+model+"/converse" {
		f.fail(w, 404, "ResourceNotFoundException", r.Method+" "+r.URL.Path)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
		ToolConfig struct {
			Tools []struct {
				ToolSpec struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					InputSchema struct {
						JSON any `json:"json"`
					} `json:"inputSchema"`
				} `json:"toolSpec"`
			} `json:"tools"`
			ToolChoice struct {
				Tool struct {
					Name string `json:"name"`
				} `json:"tool"`
			} `json:"toolChoice"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		f.fail(w, 400, "ValidationException", err.Error())
		return
	}
	tc := req.ToolConfig
	switch {
	case len(tc.Tools) != 1 || tc.Tools[0].ToolSpec.Name != query.ToolName || tc.ToolChoice.Tool.Name != query.ToolName:
		f.fail(w, 400, "ValidationException", "the search_query tool is not the one forced: "+string(body))
		return
	case !reflect.DeepEqual(tc.Tools[0].ToolSpec.InputSchema.JSON, jsonValue(f.t, query.SearchQueryTool().Schema)):
		f.fail(w, 400, "ValidationException", "the tool's schema is not the expression's")
		return
	case len(req.System) != 1 || !strings.Contains(req.System[0].Text, "search_query"):
		f.fail(w, 400, "ValidationException", "no system prompt")
		return
	case len(req.Messages) != 1 || req.Messages[0].Role != "user" || len(req.Messages[0].Content) != 1 ||
		!strings.Contains(req.Messages[0].Content[0].Text, "Question: "+f.question) ||
		!strings.Contains(req.Messages[0].Content[0].Text, asked.Format(time.RFC3339)):
		f.fail(w, 400, "ValidationException", "the user message lacks the question or the date: "+string(body))
		return
	}
	if f.mode == "error" {
		w.Header().Set("X-Amzn-ErrorType", "ModelErrorException")
		w.WriteHeader(424)
		fmt.Fprint(w, `{"message":"the model failed"}`)
		return
	}
	var input any
	if err := json.Unmarshal([]byte(f.answer), &input); err != nil {
		f.t.Errorf("bad test answer %s: %v", f.answer, err)
	}
	content := []any{map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_1", "name": query.ToolName, "input": input}}}
	stop := "tool_use"
	if f.mode == "text" {
		content, stop = []any{map[string]any{"text": "Ana probably likes sports."}}, "end_turn"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": stop,
		"usage":      map[string]any{"inputTokens": 900, "outputTokens": 60, "totalTokens": 960},
		"metrics":    map[string]any{"latencyMs": 200},
	})
}

// jsonValue is v as encoding/json decodes it.
func jsonValue(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

func translator(t *testing.T, f *fakeConverse, log *bytes.Buffer) *query.LLMTranslator {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := bedrock.NewClient(context.Background(), bedrock.ClientOptions{Endpoint: srv.URL, AccessKey: "local", SecretKey: "local",
		MaxAttempts: 1, MaxBackoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cv, err := bedrock.NewConverser(c, bedrock.ConverserOptions{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return &query.LLMTranslator{LLM: cv, Logger: slog.New(slog.NewJSONHandler(log, nil))}
}

func TestLLMTranslator(t *testing.T) {
	const q = "What sports has Ana tried since last year?"
	offline, err := query.Translate(q, asked)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer, mode string
		want               string // the expression, as JSON; "" for the offline translation
	}{
		{name: "the model's expression",
			answer: `{"select": {"or": [{"entity": {"name": "Ana"}}, {"entity": {"types": ["Sports"]}},
				{"action": {"verbs": ["tried"], "subject": "Ana"}}]}, "terms": ["sport"],
				"time": {"start": "2023-01-01T00:00:00Z"}, "scope": {"roomId": "elsewhere"}, "limit": 3}`,
			want: `{"select": {"or": [{"entity": {"name": "ana"}}, {"entity": {"types": ["sport"]}},
				{"action": {"verbs": ["try"], "subject": "ana"}}]}, "terms": ["sport"], "time": {"start": "2023-01-01T00:00:00Z"}}`},
		{name: "an invalid expression", answer: `{"select": {"entity": {}}, "terms": ["sport"]}`},
		{name: "an unknown field", answer: `{"terms": ["sport"], "sort": "newest"}`},
		{name: "an empty query", answer: `{}`},
		{name: "no tool use", answer: `{}`, mode: "text"},
		{name: "a model error", answer: `{}`, mode: "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeConverse{t: t, question: q, answer: tt.answer, mode: tt.mode}
			var log bytes.Buffer
			got, err := translator(t, f, &log).Translate(context.Background(), q, asked)
			if err != nil {
				t.Fatal(err)
			}
			if bad, _ := f.bad.Load().(string); bad != "" {
				t.Fatalf("bad request: %s", bad)
			}
			if f.requests.Load() != 1 {
				t.Fatalf("%d requests", f.requests.Load())
			}
			want := offline
			if tt.want != "" {
				if want, err = query.Parse([]byte(tt.want)); err != nil {
					t.Fatal(err)
				}
				if log.Len() != 0 {
					t.Fatalf("logged %s", log.String())
				}
			} else if !strings.Contains(log.String(), "translating offline") {
				t.Fatalf("the fallback was not logged: %q", log.String())
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestLLMTranslatorBadText(t *testing.T) {
	f := &fakeConverse{t: t}
	var log bytes.Buffer
	tr := translator(t, f, &log)
	for _, text := range []string{"", "  ", strings.Repeat("x", memory.MaxQueryBytes+1)} {
		if _, err := tr.Translate(context.Background(), text, asked); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%.20q: %v", text, err)
		}
	}
	if f.requests.Load() != 0 {
		t.Fatalf("the model was asked %d times about bad text", f.requests.Load())
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.Translate(cctx, "What sports has Ana tried?", asked); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("canceled: %v", err)
	}
}

func TestLLMTranslatorWithoutModel(t *testing.T) {
	got, err := (&query.LLMTranslator{}).Translate(context.Background(), "Which books did Marco recommend?", asked)
	want, _ := query.Translate("Which books did Marco recommend?", asked)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %s %v, want the offline %s", got, err, want)
	}
}
