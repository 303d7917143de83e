// Package extraction builds the fact extraction pipeline. Only the
// binaries that extract facts import it.
package extraction

import (
	"log/slog"

	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/pipeline/extract"
	"github.com/agentmem/agentmem/service"
)

// New returns the extraction pipeline over svc. With a model (see
// wiring/llm) facts are extracted by it; without one, by the local pattern
// extractor.
func New(svc *service.Service, model memory.LLM, log *slog.Logger) *extract.Pipeline {
	var ex extract.Extractor = extract.Local{}
	if model != nil {
		ex = extract.Bedrock{LLM: model}
	}
	return &extract.Pipeline{Service: svc, Extractor: ex, Log: log}
}
