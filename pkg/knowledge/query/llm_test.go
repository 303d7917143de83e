package query_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/memory"
)

const model = "anthropic.claude-3-5-haiku-20241022-v1:0"

var asked = time.Date(2024, time.March, 13, 15, 4, 5, 0, time.UTC)

// fakeConverse is the translator's model behind the shared fake Bedrock:
// it checks the request the translator makes (the model, the forced tool
// and its schema, the prompt and the question) and answers with a toolUse
// block whose input is answer, or as the mode says.
type fakeConverse struct {
	t        *testing.T
	question string
	answer   string // JSON of the tool input
	mode     string // "", "text" (no tool use), "error" (a 424)
	bedrock  *testenv.Bedrock
	bad      atomic.Value // string: what was wrong with a request
}

func (f *fakeConverse) fail(w http.ResponseWriter, status int, kind, msg string) {
	f.bad.Store(msg)
	testenv.BedrockFail(w, status, kind, msg)
}

// requests is how many requests the fake Bedrock received.
func (f *fakeConverse) requests() int32 { return f.bedrock.Requests.Load() }

func (f *fakeConverse) converse(w http.ResponseWriter, m string, req testenv.ConverseRequest) {
	if m != model {
		f.fail(w, 404, "ResourceNotFoundException", "model "+m)
		return
	}
	tool, schema := req.ForcedTool()
	var got any
	json.Unmarshal(schema, &got)
	user, ok := req.OneUserMessage()
	switch {
	case tool != query.ToolName:
		f.fail(w, 400, "ValidationException", "the search_query tool is not the one forced: "+string(req.Body))
		return
	case !reflect.DeepEqual(got, jsonValue(f.t, query.SearchQueryTool().Schema)):
		f.fail(w, 400, "ValidationException", "the tool's schema is not the expression's")
		return
	case len(req.System) != 1 || !strings.Contains(req.System[0].Text, "search_query"):
		f.fail(w, 400, "ValidationException", "no system prompt")
		return
	case !ok || !strings.Contains(user, "Question: "+f.question) || !strings.Contains(user, asked.Format(time.RFC3339)):
		f.fail(w, 400, "ValidationException", "the user message lacks the question or the date: "+string(req.Body))
		return
	}
	if f.mode == "error" {
		testenv.BedrockFail(w, 424, "ModelErrorException", "the model failed")
		return
	}
	var input any
	if err := json.Unmarshal([]byte(f.answer), &input); err != nil {
		f.t.Errorf("bad test answer %s: %v", f.answer, err)
	}
	if f.mode == "text" {
		testenv.ConverseText(w, "Ana probably likes sports.")
		return
	}
	testenv.ConverseToolUse(w, query.ToolName, input)
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
	f.bedrock = testenv.StartBedrock(t, &testenv.Bedrock{Converse: f.converse})
	c, err := bedrock.NewClient(context.Background(), bedrock.ClientOptions{Endpoint: f.bedrock.URL, AccessKey: "local", SecretKey: "local",
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
			if f.requests() != 1 {
				t.Fatalf("%d requests", f.requests())
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
	if f.requests() != 0 {
		t.Fatalf("the model was asked %d times about bad text", f.requests())
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
