package extract_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/llm/bedrock"
	"github.com/agentmem/agentmem/pipeline/extract"
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
		convo := req.Messages[0].Content[0].Text
		id := regexp.MustCompile(`\[([0-9a-f]+)\] Ana:`).FindStringSubmatch(convo)
		var facts []map[string]any
		switch {
		case strings.Contains(convo, "green tea"):
			facts = append(facts, map[string]any{"text": "Ana loves green tea in the morning", "kind": "preference", "confidence": 0.9, "entity": "Ana", "sources": []string{id[1]}})
		case strings.Contains(convo, "coffee now"):
			facts = append(facts, map[string]any{"text": "Ana prefers coffee now", "kind": "preference", "confidence": 0.9, "entity": "Ana", "change": true, "sources": []string{id[1]}},
				map[string]any{"text": "An ungrounded claim", "kind": "fact", "confidence": 0.9, "entity": "Ana", "sources": []string{"not-a-turn"}})
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

func TestBedrockExtractionSupersedes(t *testing.T) {
	c, err := bedrock.NewClient(ctx, bedrock.ClientOptions{Endpoint: fakeModel(t), AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	llm, err := bedrock.NewConverser(c, bedrock.ConverserOptions{Model: "anthropic.claude-3-5-haiku-20241022-v1:0"})
	if err != nil {
		t.Fatal(err)
	}
	p, svc := setup(t, extract.Bedrock{LLM: llm})
	checkSupersede(t, p, svc)
	if u := llm.Usage(); u.Calls < 2 || u.InputTokens != 200*u.Calls {
		t.Fatalf("token accounting %+v", u)
	}
}
