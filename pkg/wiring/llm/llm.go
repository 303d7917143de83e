// Package llm builds the language model the configuration names
// (LLM_PROVIDER): the one place where a provider's adapter is chosen, so a
// new provider is one case here. Fact extraction uses it today; knowledge
// extraction, the query translator and the reranker take the same
// memory.LLM.
package llm

import (
	"context"
	"fmt"
	"github.com/agentmem/agentmem/pkg/llm/openai"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/memory"
)

// New returns the model of cfg, or nil with provider none (the callers
// then use their non-LLM fallback, such as the local pattern extractor).
// Bedrock's credentials and endpoint come from a.
func New(ctx context.Context, cfg config.LLM, a config.AWS) (memory.LLM, error) {
	switch cfg.Provider {
	case config.LLMNone, "":
		return nil, nil
	case config.LLMBedrock:
		if cfg.Mode != config.LLMModeTools {
			return nil, fmt.Errorf("LLM_MODE: %q is not available with LLM_PROVIDER=bedrock (tools)", cfg.Mode)
		}
		c, err := bedrock.NewClient(ctx, bedrock.ClientOptions{Endpoint: a.BedrockEndpoint, Region: a.Region})
		if err != nil {
			return nil, fmt.Errorf("llm: bedrock client: %w", err)
		}
		m, err := bedrock.NewConverser(c, bedrock.ConverserOptions{Model: cfg.Model, Timeout: cfg.Timeout})
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return m, nil
	case config.LLMOpenAI:
		return openAI(cfg)
	}
	return nil, fmt.Errorf("LLM_PROVIDER: %q has no adapter", cfg.Provider)
}

// openAI builds the OpenAI-compatible adapter (llm/openai).
func openAI(cfg config.LLM) (memory.LLM, error) {
	c, err := openai.New(openai.Options{BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: cfg.APIKey, Mode: openai.Mode(cfg.Mode), Timeout: cfg.Timeout})
	if err != nil {
		return nil, err // an untyped nil: no half-made model
	}
	return c, nil
}
