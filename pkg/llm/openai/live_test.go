package openai_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/llm/openai"
	"github.com/agentmem/agentmem/pkg/memory"
)

// TestLiveServer calls a real OpenAI-compatible server when
// OPENAI_TEST_BASE_URL is set (for example http://127.0.0.1:8080/v1), with
// OPENAI_TEST_MODEL, and OPENAI_TEST_MODE and OPENAI_TEST_API_KEY if needed.
// A small model may answer badly; the test checks only what the protocol
// guarantees: a JSON object whose required field has the schema's type.
func TestLiveServer(t *testing.T) {
	base := testenv.Get(t, "OPENAI_TEST_BASE_URL")
	c, err := openai.New(openai.Options{BaseURL: base, Model: os.Getenv("OPENAI_TEST_MODEL"),
		APIKey: os.Getenv("OPENAI_TEST_API_KEY"), Mode: openai.Mode(os.Getenv("OPENAI_TEST_MODE")),
		MaxTokens: 128, Timeout: 5 * time.Minute, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tool := memory.Tool{
		Name:        "record_city",
		Description: "Record the city the user lives in.",
		Schema: map[string]any{
			"type":       "object",
			"required":   []string{"city"},
			"properties": map[string]any{"city": map[string]any{"type": "string"}},
		},
	}
	out, usage, err := c.Call(context.Background(), "Answer by recording the city.", "I live in Lisbon.", tool)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		City *string `json:"city"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.City == nil {
		t.Fatalf("output %s lacks the string field city: %v", out, err)
	}
	t.Logf("output %s, usage %+v", out, usage)
	if usage.Calls != 1 || c.Usage() != usage {
		t.Errorf("usage %+v, cumulative %+v", usage, c.Usage())
	}
}
