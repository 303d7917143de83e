// Package extraction builds the fact extraction pipeline. Only the
// binaries that extract facts import it.
package extraction

import (
	"log/slog"

	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/pipeline/extract"
	"github.com/agentmem/agentmem/service"
	"github.com/agentmem/agentmem/wiring"
)

// Consumer names the pipeline in capability errors.
const Consumer = "fact extraction"

// New returns the extraction pipeline over svc. With a model (see
// wiring/llm) facts are extracted by it; without one, by the local pattern
// extractor. Facts are related to the facts they support, supersede or
// contradict: a store without relations fails here, at start.
func New(svc *service.Service, caps wiring.Capabilities, model memory.LLM, log *slog.Logger) (*extract.Pipeline, error) {
	if err := caps.Require(Consumer, wiring.Relations); err != nil {
		return nil, err
	}
	var ex extract.Extractor = extract.Local{}
	if model != nil {
		ex = extract.LLM{LLM: model}
	}
	return &extract.Pipeline{Service: svc, Extractor: ex, Log: log}, nil
}
