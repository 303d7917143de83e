// Package rerank builds the reranker the configuration names (RERANKER):
// the one place where a reranker adapter is chosen, so a new one is one
// case here. Only the binaries that search import it.
package rerank

import (
	"context"
	"fmt"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	bedrockrerank "github.com/agentmem/agentmem/pkg/rerank/bedrock"
	httprerank "github.com/agentmem/agentmem/pkg/rerank/http"
	llmrerank "github.com/agentmem/agentmem/pkg/rerank/llm"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/llm"
)

// New returns the reranker of cfg, or nil with RERANKER=none. model is the
// language model LLM_PROVIDER configures (wiring/llm), which the llm
// rerankers call; a's region and Bedrock endpoint serve the Bedrock
// reranker.
func New(ctx context.Context, cfg config.Rerank, model memory.LLM, a config.AWS) (memory.Reranker, error) {
	switch cfg.Kind {
	case config.RerankNone, "":
		return nil, nil
	case config.RerankBedrock:
		region := cfg.Region
		if region == "" {
			region = a.Region
		}
		c, err := bedrockrerank.NewClient(ctx, bedrockrerank.ClientOptions{Endpoint: a.BedrockEndpoint, Region: region})
		if err != nil {
			return nil, err
		}
		r, err := bedrockrerank.New(c, bedrockrerank.Options{Model: cfg.Model, Timeout: cfg.Timeout})
		if err != nil {
			return nil, err // an untyped nil: no half-made reranker
		}
		return r, nil
	case config.RerankLLM, config.RerankBedrockLLM:
		if model == nil {
			return nil, fmt.Errorf("RERANKER: %s needs a language model (LLM_PROVIDER)", cfg.Kind)
		}
		r, err := llmrerank.New(model, llmrerank.Options{Model: cfg.Model, Timeout: cfg.Timeout})
		if err != nil {
			return nil, err
		}
		return r, nil
	case config.RerankHTTP:
		r, err := httprerank.New(httprerank.Options{BaseURL: cfg.URL, Flavor: httprerank.Flavor(cfg.Flavor),
			Model: cfg.Model, APIKey: cfg.APIKey, Timeout: cfg.Timeout})
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	return nil, fmt.Errorf("RERANKER: %q has no adapter", cfg.Kind)
}

// Options returns the service option that adds the rerank stage of cfg
// with r, or none when r is nil.
func Options(cfg config.Rerank, r memory.Reranker) []service.Option {
	if r == nil {
		return nil
	}
	return []service.Option{service.WithReranker(r, cfg.Candidates, cfg.Timeout)}
}

// FromConfig builds the rerank stage that cfg.Rerank names, with the
// language model of cfg.LLM for the llm rerankers, as service options
// (none with RERANKER=none). It has the shape of aws.Extra, so the API
// Lambda adds reranking with aws.Setup(ctx, rerank.FromConfig).
func FromConfig(ctx context.Context, cfg config.Config) ([]service.Option, error) {
	if cfg.Rerank.Kind == config.RerankNone || cfg.Rerank.Kind == "" {
		return nil, nil
	}
	var model memory.LLM
	if cfg.Rerank.Kind == config.RerankLLM || cfg.Rerank.Kind == config.RerankBedrockLLM {
		m, err := llm.New(ctx, cfg.LLM, cfg.AWS)
		if err != nil {
			return nil, err
		}
		model = m
	}
	r, err := New(ctx, cfg.Rerank, model, cfg.AWS)
	if err != nil {
		return nil, err
	}
	return Options(cfg.Rerank, r), nil
}
