package llm_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/wiring/llm"
)

// TestNew checks that each provider maps to its adapter: none to no model,
// bedrock to the Converse client (built, not called: the endpoint is a
// closed loopback port), and that what cannot be built fails at start
// naming the variable.
func TestNew(t *testing.T) {
	aws := config.AWS{Region: "us-east-1", BedrockEndpoint: "http://127.0.0.1:1"}
	tests := []struct {
		name    string
		cfg     config.LLM
		bedrock bool
		wantErr string
	}{
		{"none", config.LLM{Provider: config.LLMNone}, false, ""},
		{"bedrock", config.LLM{Provider: config.LLMBedrock, Model: "amazon.nova-lite-v1:0", Mode: config.LLMModeTools, Timeout: time.Second}, true, ""},
		{"bedrock without tools", config.LLM{Provider: config.LLMBedrock, Model: "m", Mode: config.LLMModeJSONSchema}, false, "LLM_MODE"},
		{"bedrock without model", config.LLM{Provider: config.LLMBedrock, Mode: config.LLMModeTools}, false, "model id is required"},
		{"openai", config.LLM{Provider: config.LLMOpenAI, BaseURL: "http://127.0.0.1:8000/v1", Model: "m", Mode: config.LLMModeTools, Timeout: time.Second}, false, ""},
		{"openai without a base URL", config.LLM{Provider: config.LLMOpenAI, Model: "m", Mode: config.LLMModeTools}, false, "BaseURL"},
		{"unknown", config.LLM{Provider: "mistral"}, false, "LLM_PROVIDER"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := llm.New(context.Background(), tc.cfg, aws)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || m != nil {
					t.Fatalf("got %v, %v; want an error naming %s", m, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := m.(*bedrock.Converser); ok != tc.bedrock || (tc.cfg.Provider == config.LLMNone && m != nil) ||
				(tc.cfg.Provider == config.LLMOpenAI && fmt.Sprintf("%T", m) != "*openai.Client") {
				t.Fatalf("got %T, want bedrock %v", m, tc.bedrock)
			}
		})
	}
}
