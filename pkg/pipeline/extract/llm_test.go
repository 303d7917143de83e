package extract_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
)

// fakeModel plays Bedrock's Converse endpoint over HTTP: it checks the real
// request (path, SigV4, the forced record_facts tool with its schema) and
// answers, in the documented response format, with the facts a model would
// find in the scripted conversation.
func fakeModel(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasSuffix(r.URL.Path, "/converse") || !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256") {
			http.Error(w, `{"message":"bad request"}`, 400)
			return
		}
		var req struct {
			Messages []struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"messages"`
			ToolConfig struct {
				ToolChoice struct {
					Tool struct{ Name string } `json:"tool"`
				} `json:"toolChoice"`
				Tools []struct {
					ToolSpec struct {
						InputSchema struct {
							JSON map[string]any `json:"json"`
						} `json:"inputSchema"`
					} `json:"toolSpec"`
				} `json:"tools"`
			} `json:"toolConfig"`
		}
		json.Unmarshal(body, &req)
		if req.ToolConfig.ToolChoice.Tool.Name != "record_facts" || req.ToolConfig.Tools[0].ToolSpec.InputSchema.JSON["type"] != "object" {
			w.Header().Set("X-Amzn-ErrorType", "ValidationException")
			http.Error(w, `{"message":"tool not forced"}`, 400)
			return
		}
		// The tool asks for each fact's subject, slot and importance.
		items, _ := json.Marshal(req.ToolConfig.Tools[0].ToolSpec.InputSchema.JSON["properties"])
		for _, field := range []string{`"subject"`, `"slot"`, `"value"`, `"importance"`, `"durability"`, `"negated"`, `"change"`} {
			if !strings.Contains(string(items), field) {
				w.Header().Set("X-Amzn-ErrorType", "ValidationException")
				http.Error(w, `{"message":"schema without `+field+`"}`, 400)
				return
			}
		}
		convo := req.Messages[0].Content[0].Text
		id := regexp.MustCompile(`\[([0-9a-f]+)\] Ana:`).FindStringSubmatch(convo)
		var facts []map[string]any
		switch {
		case strings.Contains(convo, "green tea"):
			// "entity" is the first version's name of the subject.
			facts = append(facts, map[string]any{"text": "Ana loves green tea in the morning", "kind": "preference", "confidence": 0.9, "entity": "Ana",
				"slot": "preference:green tea", "value": "green tea", "importance": 0.6, "durability": "standard", "sources": []string{id[1]}})
		case strings.Contains(convo, "coffee now"):
			facts = append(facts, map[string]any{"text": "Ana prefers coffee now", "kind": "preference", "confidence": 0.9, "subject": "Ana",
				"slot": "preference:coffee", "value": "coffee", "importance": 0.6, "durability": "standard", "change": true,
				"quote": "Actually I prefer coffee now, tea keeps me awake", "sources": []string{id[1]}},
				map[string]any{"text": "An ungrounded claim", "kind": "fact", "confidence": 0.9, "subject": "Ana", "slot": "", "importance": 0.5, "durability": "standard", "sources": []string{"not-a-turn"}})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"toolUse": map[string]any{"toolUseId": "t1", "name": "record_facts", "input": map[string]any{"facts": facts}}}}}},
			"stopReason": "tool_use", "usage": map[string]any{"inputTokens": 200, "outputTokens": 50, "totalTokens": 250},
		})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestLLMExtractionSupersedes(t *testing.T) {
	c, err := bedrock.NewClient(ctx, bedrock.ClientOptions{Endpoint: fakeModel(t), AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	llm, err := bedrock.NewConverser(c, bedrock.ConverserOptions{Model: "anthropic.claude-3-5-haiku-20241022-v1:0"})
	if err != nil {
		t.Fatal(err)
	}
	p, svc := setup(t, extract.LLM{LLM: llm})
	checkSupersede(t, p, svc)
	if u := llm.Usage(); u.Calls < 2 || u.InputTokens != 200*u.Calls {
		t.Fatalf("token accounting %+v", u)
	}
}

// TestLLMFactsAreChecked: what the model gets wrong is corrected from the
// slot table or dropped, never stored as given.
func TestLLMFactsAreChecked(t *testing.T) {
	long := strings.Repeat("x", 200)
	model := scripted{"penicillin": {
		{"text": "Ana is allergic to penicillin", "kind": "nonsense", "confidence": 7, "entity": "Ana", "slot": "Allergy:Penicillin", "value": "penicillin", "importance": -1, "durability": "forever"},
		{"text": "Ana likes odd things", "kind": "preference", "confidence": 0.8, "subject": "Ana", "slot": "vibe:odd", "importance": 0.6, "durability": "standard"},
		{"text": "A fact about nobody in particular", "kind": "fact", "confidence": 0.8, "subject": long, "slot": "", "importance": 0.5, "durability": "standard"},
		{"text": "  ", "kind": "fact", "confidence": 0.8, "subject": "Ana", "slot": "", "importance": 0.5, "durability": "standard"},
	}}
	facts, err := extract.LLM{LLM: model}.Extract(ctx, []extract.Turn{{ID: "t1", Speaker: "Ana", Text: "I'm allergic to penicillin."}})
	if err != nil || len(facts) != 2 {
		t.Fatalf("%+v %v", facts, err)
	}
	a, b := facts[0], facts[1]
	if a.Subject != "Ana" || a.Slot != "allergy:penicillin" || a.Kind != memory.KindFact || a.Importance != 0.9 || a.Durability != memory.DurabilityCore || a.Confidence != 0.7 {
		t.Errorf("allergy corrected from the slot table: %+v", a)
	}
	if b.Slot != "" || b.Kind != memory.KindPreference || b.Importance != 0.6 {
		t.Errorf("a slot outside the vocabulary is dropped: %+v", b)
	}
}
