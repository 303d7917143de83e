// Package extraction builds the fact extraction pipeline. Only the
// binaries that extract facts import it.
package extraction

import (
	"context"
	"github.com/aws/aws-lambda-go/events"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/registry"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/wiring"
)

// Consumer names the pipeline in capability errors.
const Consumer = "fact extraction"

// New returns the extraction pipeline over svc. With a model (see
// wiring/llm) facts are extracted by it; without one, by the local pattern
// extractor. Facts are related to the facts they support, supersede or
// contradict: a store without relations fails here, at start. When the
// store keeps records (SQLite and DynamoDB both do), each job follows its
// org's extraction settings, read through an *service.SettingsStore over
// them (the pipeline's Settings), which the API's settings endpoint
// should share in a process that runs both.
func New(svc *service.Service, caps wiring.Capabilities, model memory.LLM, log *slog.Logger) (*extract.Pipeline, error) {
	if err := caps.Require(Consumer, wiring.Relations); err != nil {
		return nil, err
	}
	var ex extract.Extractor = extract.Local{}
	if model != nil {
		ex = extract.LLM{LLM: model}
	}
	p := &extract.Pipeline{Service: svc.Pipelines(), Extractor: ex, Log: log}
	if caps.Has(wiring.Records) {
		p.Settings = service.NewSettingsStore(caps.Records)
		// Speakers and subjects resolved by the entity registry kept in
		// the same records (its changes seen within registry.NamesTTL).
		p.Entities = registry.New(caps.Records)
	}
	return p, nil
}

// SettingsOf returns the settings store of a pipeline built by New, nil
// when its store keeps no records.
func SettingsOf(p *extract.Pipeline) *service.SettingsStore {
	st, _ := p.Settings.(*service.SettingsStore)
	return st
}

// Observed returns ex with a span around each extraction and its outcome
// counted in m (pipeline extract: ok or failed). memoryd wraps its local
// queue's extractor with it; the extract Lambda counts whole jobs instead
// (telemetry.Handler).
func Observed(ex extract.Extractor, m telemetry.Metrics) extract.Extractor {
	return observed{Extractor: ex, m: m}
}

type observed struct {
	extract.Extractor
	m telemetry.Metrics
}

func (o observed) Extract(ctx context.Context, turns []extract.Turn) (_ []extract.Fact, err error) {
	ctx, span := telemetry.Start(ctx, "extract.Extract", telemetry.AttrCount.Int(len(turns)),
		attribute.String("agentmem.extractor", o.Name()))
	defer func() {
		telemetry.End(span, err)
		if err != nil {
			o.m.Pipeline(telemetry.Extract, telemetry.OutcomeFailed, 1)
		} else {
			o.m.Pipeline(telemetry.Extract, telemetry.OutcomeOK, 1)
		}
	}()
	return o.Extractor.Extract(ctx, turns)
}

// Steer implements extract.Steerable, so that the wrapper hides no org
// setting: a steerable extractor is steered and observed again; another
// is returned as it is.
func (o observed) Steer(s memory.ExtractionSettings) extract.Extractor {
	if st, ok := o.Extractor.(extract.Steerable); ok {
		return observed{Extractor: st.Steer(s), m: o.m}
	}
	return o
}

// Outcomes counts an SQS batch of extraction jobs for telemetry.Handler:
// the jobs reported as failed (to be retried), the others ok (done, or
// rejected for good and logged); a batch that failed whole counts every
// job failed.
func Outcomes(ev events.SQSEvent, res events.SQSEventResponse, err error) map[string]int {
	n := len(ev.Records)
	if err != nil {
		return map[string]int{telemetry.OutcomeFailed: n}
	}
	return map[string]int{telemetry.OutcomeOK: n - len(res.BatchItemFailures), telemetry.OutcomeFailed: len(res.BatchItemFailures)}
}
