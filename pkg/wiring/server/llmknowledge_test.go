package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/knowledge"
	kllm "github.com/agentmem/agentmem/pkg/knowledge/extractor/llm"
	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// modelCall is what the model was asked to extract: the system prompt,
// the user message, the forced tool and its schema.
type modelCall struct {
	system, user, tool string
	schema             json.RawMessage
}

// knowledgeModel answers record_knowledge requests like a model: the
// message naming the book gets a person, the book (with the related terms
// the model offers), an action and a topic; a message saying "model down"
// is answered with a failure.
type knowledgeModel struct {
	mu    sync.Mutex
	calls []modelCall
}

// answer records c and returns the tool input, or false to fail.
func (m *knowledgeModel) answer(c modelCall) (any, bool) {
	m.mu.Lock()
	m.calls = append(m.calls, c)
	m.mu.Unlock()
	if strings.Contains(c.user, "model down") {
		return nil, false
	}
	return map[string]any{"messages": []any{map[string]any{
		"id": 1,
		"entities": []any{
			map[string]any{"name": "I", "types": []any{"person"}},
			map[string]any{"name": "The Innovator's Dilemma", "types": []any{"book"},
				"relatedTerms": []any{"disruption classic", "Christensen's book"}},
		},
		"actions": []any{map[string]any{"verbs": []any{"read"}, "tense": "past", "subject": "I",
			"object": "The Innovator's Dilemma", "indirectObject": "none"}},
		"topics": []any{"business books"},
	}}}, true
}

// TestLLMKnowledgeExtraction runs the real wiring (server.Open) with an
// LLM configured, against the fake Bedrock runtime and a fake
// OpenAI-compatible server speaking the chat completions wire format, and
// checks, through the service: the request the model gets (the forced
// record_knowledge tool, its schema asking for related terms, the numbered
// message with its speaker), the entities, actions, topics and related
// terms stored from its answer, and the offline extractor taking over
// when the model fails.
func TestLLMKnowledgeExtraction(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	providers := []struct {
		name  string
		start func(t *testing.T, m *knowledgeModel) map[string]string
	}{
		{"bedrock", func(t *testing.T, m *knowledgeModel) map[string]string {
			f := testenv.StartBedrock(t, &testenv.Bedrock{Region: "us-east-1", Converse: func(w http.ResponseWriter, _ string, req testenv.ConverseRequest) {
				user, _ := req.OneUserMessage()
				tool, schema := req.ForcedTool()
				var system string
				if len(req.System) == 1 {
					system = req.System[0].Text
				}
				in, ok := m.answer(modelCall{system: system, user: user, tool: tool, schema: schema})
				if !ok {
					testenv.BedrockFail(w, 400, "ValidationException", "model down")
					return
				}
				testenv.ConverseToolUse(w, tool, in)
			}})
			return map[string]string{"LLM_PROVIDER": "bedrock", "LLM_MODEL": "anthropic.claude-3-5-haiku-20241022-v1:0",
				"BEDROCK_ENDPOINT": f.URL, "AWS_REGION": "us-east-1"}
		}},
		{"openai", func(t *testing.T, m *knowledgeModel) map[string]string {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					Model    string `json:"model"`
					Messages []struct {
						Role    string `json:"role"`
						Content string `json:"content"`
					} `json:"messages"`
					Tools []struct {
						Type     string `json:"type"`
						Function struct {
							Name       string          `json:"name"`
							Parameters json.RawMessage `json:"parameters"`
						} `json:"function"`
					} `json:"tools"`
					ToolChoice struct {
						Function struct {
							Name string `json:"name"`
						} `json:"function"`
					} `json:"tool_choice"`
				}
				body, _ := io.ReadAll(r.Body)
				if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || json.Unmarshal(body, &req) != nil ||
					req.Model != "qwen2.5:3b" || len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" ||
					len(req.Tools) != 1 || req.Tools[0].Type != "function" || req.ToolChoice.Function.Name != req.Tools[0].Function.Name {
					http.Error(w, `{"error":{"message":"bad request: `+r.URL.Path+`"}}`, 400)
					return
				}
				tool := req.Tools[0].Function
				in, ok := m.answer(modelCall{system: req.Messages[0].Content, user: req.Messages[1].Content, tool: tool.Name, schema: tool.Parameters})
				if !ok {
					http.Error(w, `{"error":{"message":"model down"}}`, 400)
					return
				}
				args, _ := json.Marshal(in)
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
					"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{
						"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
							"function": map[string]any{"name": tool.Name, "arguments": string(args)}}}}}},
					"usage": map[string]any{"prompt_tokens": 300, "completion_tokens": 40, "total_tokens": 340}})
			}))
			t.Cleanup(srv.Close)
			return map[string]string{"LLM_PROVIDER": "openai", "LLM_MODEL": "qwen2.5:3b", "LLM_BASE_URL": srv.URL + "/v1"}
		}},
	}
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			ctx := context.Background()
			m := &knowledgeModel{}
			env := p.start(t, m)
			env["DATA_DIR"], env["EMBEDDER"] = t.TempDir(), "hash"
			cfg, err := config.Load(func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			b, err := server.Open(ctx, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			caller := memory.Caller{OrgID: "acme"}
			res, err := b.Service.Create(ctx, caller, []service.NewMemory{{Type: memory.TypeMessage, EntityID: "Maya", RoomID: "podcast",
				Content: memory.Content{Text: "I finally read The Innovator's Dilemma on the flight."}}})
			if err != nil {
				t.Fatal(err)
			}
			id := res[0].ID
			waitStatus(t, b, "acme", id, "llm-knowpro-v1")
			checkModelCall(t, m, "speaker: Maya;", "I finally read The Innovator's Dilemma on the flight.")
			checkStored(t, b, caller, id)

			// The model fails: the offline extractor's knowledge is kept.
			res, err = b.Service.Create(ctx, caller, []service.NewMemory{{Type: memory.TypeMessage, EntityID: "Maya", RoomID: "podcast",
				Content: memory.Content{Text: "The model down day, we hiked to the lighthouse."}}})
			if err != nil {
				t.Fatal(err)
			}
			if st := waitStatus(t, b, "acme", res[0].ID, "offline-v1"); st.Refs == 0 {
				t.Errorf("after a model failure: status %+v, want the offline refs", st)
			}
			if n := b.Extraction.Fallbacks(); n < 1 || n > 2 {
				t.Errorf("%d fallbacks counted, want 1 (2 with the backfill)", n)
			}
		})
	}
}

// checkModelCall checks that the model got record_knowledge requests
// asking for related terms, with the message numbered and its speaker:
// one from the write, and possibly one from the backfill that server.Open
// starts, if it lists the org before the write's extraction is recorded.
func checkModelCall(t *testing.T, m *knowledgeModel, speaker, text string) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.calls) == 0 || len(m.calls) > 2 {
		t.Fatalf("%d model calls, want 1 (2 with the backfill)", len(m.calls))
	}
	for _, c := range m.calls {
		checkCall(t, c, speaker, text)
	}
}

// checkCall checks one request of checkModelCall.
func checkCall(t *testing.T, c modelCall, speaker, text string) {
	t.Helper()
	var schema struct {
		Properties struct {
			Messages struct {
				Items struct {
					Properties struct {
						Entities struct {
							Items struct {
								Properties map[string]json.RawMessage `json:"properties"`
							} `json:"items"`
						} `json:"entities"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"messages"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(c.schema, &schema); err != nil {
		t.Fatalf("tool schema: %v: %s", err, c.schema)
	}
	if c.tool != kllm.ToolName || schema.Properties.Messages.Items.Properties.Entities.Items.Properties["relatedTerms"] == nil {
		t.Errorf("tool %q, schema %s: want %s asking for relatedTerms", c.tool, c.schema, kllm.ToolName)
	}
	if !strings.Contains(c.system, "relatedTerms") || !strings.Contains(c.user, "[1] "+speaker) || !strings.Contains(c.user, "\n"+text+"\n") {
		t.Errorf("system %q\nuser %q: want the message numbered with its speaker", c.system, c.user)
	}
}

// checkStored checks what the model's answer left in the org's knowledge:
// the book typed book with its related terms, the speaker's action, the
// topic, and the related terms the related-terms index expands.
func checkStored(t *testing.T, b *server.Backend, caller memory.Caller, id string) {
	t.Helper()
	ctx := context.Background()
	st, err := b.Store.(memory.TermIndex).KnowledgeStatus(ctx, caller.OrgID, []string{id})
	if err != nil || st[id].State != memory.KnowledgeDone || st[id].Extractor != "llm-knowpro-v1" {
		t.Fatalf("status %+v %v, want done by llm-knowpro-v1", st, err)
	}
	search := func(q string) *knowledge.SearchResult {
		t.Helper()
		res, err := b.Knowledge.Search(ctx, caller, knowledge.SearchRequest{Query: json.RawMessage(q)})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(res.Memories) != 1 || res.Memories[0].Memory.ID != id {
			t.Errorf("%s: memories %+v, want %s", q, res.Memories, id)
		}
		return res
	}
	book := search(`{"select": {"entity": {"name": "The Innovator's Dilemma", "types": ["book"]}}}`)
	var related []string
	for _, e := range book.Entities {
		for _, f := range e.Facets {
			if f.Name == memory.FacetRelatedTerm {
				related = append(related, f.Value)
			}
		}
	}
	if slices.Sort(related); !slices.Equal(related, []string{"Christensen's book", "disruption classic"}) {
		t.Errorf("the book's related terms %q, want those the model offered", related)
	}
	read := search(`{"select": {"action": {"verbs": ["read"], "subject": "Maya", "object": "The Innovator's Dilemma"}}}`)
	if len(read.Actions) == 0 || read.Actions[0].Tense != memory.TensePast {
		t.Errorf("the action: %+v, want Maya read the book, past", read.Actions)
	}
	search(`{"select": {"topic": "business books"}}`)
	search(`{"select": {"entity": {"name": "Maya", "types": ["person"]}}}`)
	exp, err := b.Extraction.Related.Expand(ctx, caller.OrgID, []string{"disruption classic"})
	if err != nil {
		t.Fatal(err)
	}
	name := memory.NormalizeTerm("The Innovator's Dilemma")
	if !slices.ContainsFunc(exp[memory.NormalizeTerm("disruption classic")], func(r query.Related) bool { return r.Term == name }) {
		t.Errorf("related terms of disruption classic: %+v, want %q", exp, name)
	}
}

// waitStatus waits until the knowledge of the memory id is done by
// extractor, and returns its status.
func waitStatus(t *testing.T, b *server.Backend, org, id, extractor string) memory.KnowledgeStatus {
	t.Helper()
	var st map[string]memory.KnowledgeStatus
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		st, err = b.Store.(memory.TermIndex).KnowledgeStatus(context.Background(), org, []string{id})
		if err == nil && st[id].State == memory.KnowledgeDone && st[id].Extractor == extractor {
			return st[id]
		}
	}
	t.Fatalf("status of %s: %+v %v, want done by %s", id, st[id], err, extractor)
	return memory.KnowledgeStatus{}
}

// gatedModel is a knowledgeModel whose answers wait: each call is
// announced on started with the channel that releases it.
type gatedModel struct {
	knowledgeModel
	started chan chan struct{}
}

// TestLLMKnowledgeOffTheWritePath runs the real wiring with a Bedrock
// model that answers only when the test releases it, and checks that a
// write does not wait for the model: the create returns while the model
// is still asked, with the offline knowledge searchable at once and the
// memory pending; the model's knowledge replaces it when it answers. A
// memory deleted while the model extracts it gets no knowledge back.
func TestLLMKnowledgeOffTheWritePath(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	ctx := context.Background()
	m := &gatedModel{started: make(chan chan struct{}, 8)}
	f := testenv.StartBedrock(t, &testenv.Bedrock{Region: "us-east-1", Converse: func(w http.ResponseWriter, _ string, req testenv.ConverseRequest) {
		release := make(chan struct{})
		m.started <- release
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
		user, _ := req.OneUserMessage()
		tool, schema := req.ForcedTool()
		in, _ := m.answer(modelCall{user: user, tool: tool, schema: schema})
		testenv.ConverseToolUse(w, tool, in)
	}})
	env := map[string]string{"LLM_PROVIDER": "bedrock", "LLM_MODEL": "anthropic.claude-3-5-haiku-20241022-v1:0",
		"BEDROCK_ENDPOINT": f.URL, "AWS_REGION": "us-east-1", "DATA_DIR": t.TempDir(), "EMBEDDER": "hash"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	b, err := server.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	caller := memory.Caller{OrgID: "acme"}
	terms := b.Store.(memory.TermIndex)
	create := func(text string) string {
		t.Helper()
		res, err := b.Service.Create(ctx, caller, []service.NewMemory{{Type: memory.TypeMessage, EntityID: "Maya", RoomID: "podcast",
			Content: memory.Content{Text: text}}})
		if err != nil {
			t.Fatal(err)
		}
		return res[0].ID
	}
	indexed := func(term string) map[string]bool {
		t.Helper()
		ps, err := terms.LookupTerms(ctx, memory.TermLookup{Filter: memory.Filter{OrgID: "acme"}, Terms: []string{memory.NormalizeTerm(term)}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, p := range ps {
			out[p.Ref.MemoryID] = true
		}
		return out
	}
	called := func() chan struct{} {
		t.Helper()
		select {
		case r := <-m.started:
			return r
		case <-time.After(20 * time.Second):
			t.Fatal("the model was never asked")
		}
		return nil
	}

	// The create returns while the model has not answered (it could not
	// answer before the test releases it), with the offline knowledge.
	id := create("I finally read The Innovator's Dilemma on the flight.")
	st, err := terms.KnowledgeStatus(ctx, "acme", []string{id})
	if err != nil || st[id].State != memory.KnowledgePending || st[id].Extractor != "offline-v1" || st[id].Refs == 0 {
		t.Fatalf("right after the write: status %+v %v, want pending with the offline refs", st[id], err)
	}
	if !indexed("flight")[id] {
		t.Error("the offline knowledge is not searchable right after the write")
	}
	release := called()
	if st, _ := terms.KnowledgeStatus(ctx, "acme", []string{id}); st[id].State != memory.KnowledgePending {
		t.Errorf("while the model extracts: status %+v, want pending", st[id])
	}
	close(release)
	waitStatus(t, b, "acme", id, "llm-knowpro-v1")
	if indexed("flight")[id] {
		t.Error("the offline refs were kept beside the model's")
	}
	checkStored(t, b, caller, id)

	// Deleted while the model extracts it: no knowledge comes back.
	gone := create("We hiked to the lighthouse at dawn.")
	release = called()
	if _, err := b.Service.Delete(ctx, caller, gone, service.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	close(release)
	// The worker takes one org's memories at a time: once a memory
	// written after is extracted, the deleted one's answer was handled.
	after := create("Then we read on the beach.")
	close(called())
	waitStatus(t, b, "acme", after, "llm-knowpro-v1")
	if st, err := terms.KnowledgeStatus(ctx, "acme", []string{gone}); err != nil || len(st) != 0 {
		t.Errorf("the deleted memory's status: %+v %v, want none", st, err)
	}
	for _, term := range []string{"lighthouse", "The Innovator's Dilemma", "business books"} {
		if indexed(term)[gone] {
			t.Errorf("the deleted memory is indexed under %q", term)
		}
	}
}
