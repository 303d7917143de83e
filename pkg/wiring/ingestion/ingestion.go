// Package ingestion builds the document ingestion pipeline from its
// configuration. Only the binaries that ingest documents import it: the
// pipeline links the loaders, among them the PDF parser.
package ingestion

import (
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/aws/aws-lambda-go/events"
	"log/slog"
	"time"

	"github.com/agentmem/agentmem/pkg/knowledge"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring"
)

// Consumer names the pipeline in capability errors.
const Consumer = "document ingestion"

// New returns the ingestion pipeline over svc, with the limits and fragment
// sizes of cfg. It keeps each document's status in the store's records: a
// store without them fails here, at start.
func New(svc *service.Service, caps wiring.Capabilities, cfg config.Ingest, log *slog.Logger) (*ingest.Pipeline, error) {
	if err := caps.Require(Consumer, wiring.Records); err != nil {
		return nil, err
	}
	p := &ingest.Pipeline{Service: svc.Pipelines(), Records: caps.Records, Log: log, MaxBytes: cfg.MaxBytes,
		Splitter: ingest.Splitter{Size: cfg.ChunkSize, Overlap: cfg.ChunkOverlap}}
	if cs, ok := caps.Records.(ingest.CommitSettler); ok { // DynamoDB: commits keyed off a marker
		p.Commits = cs
	}
	return p, nil
}

// Maintenance returns the scheduled recovery pass over docs, which the
// ingest function runs on its EventBridge rule: every org the store lists,
// ingestions left pending for longer than grace, then the pending
// knowledge of k (nil: none). A store that cannot list its orgs fails
// here, at start.
func Maintenance(docs *ingest.Pipeline, caps wiring.Capabilities, k *knowledge.Service, grace time.Duration) (*ingest.Maintenance, error) {
	if err := caps.Require("scheduled maintenance", wiring.OrgListing); err != nil {
		return nil, err
	}
	m := &ingest.Maintenance{Documents: docs, Orgs: caps.Orgs, Grace: grace}
	if k != nil {
		m.Knowledge = k
	}
	return m, nil
}

// Outcomes counts what an S3 notification did for telemetry.Handler: each
// object indexed, removed or skipped is ok, failed is failed, rejected
// (outside the key layout) is rejected; an invocation that failed whole
// (to be delivered again) counts each record failed.
func Outcomes(ev events.S3Event, outs []ingest.Outcome, err error) map[string]int {
	if err != nil {
		return map[string]int{telemetry.OutcomeFailed: len(ev.Records)}
	}
	m := map[string]int{}
	for _, o := range outs {
		switch o.Action {
		case "failed":
			m[telemetry.OutcomeFailed]++
		case "rejected":
			m[telemetry.OutcomeRejected]++
		default:
			m[telemetry.OutcomeOK]++
		}
	}
	return m
}

// InvocationOutcomes counts an invocation of the ingest function: an S3
// notification as Outcomes does. A maintenance pass counts only its
// failures, one per org a step failed for (so the ingest failure alarm
// sees them), and no successes, which would inflate the documents counted.
func InvocationOutcomes(in ingest.Invocation, res ingest.InvocationResult, err error) map[string]int {
	if in.S3 != nil {
		return Outcomes(*in.S3, res.Outcomes, err)
	}
	m := map[string]int{}
	if rep := res.Maintenance; rep != nil {
		m[telemetry.OutcomeFailed] = len(rep.Failed)
	} else if err != nil {
		m[telemetry.OutcomeFailed] = 1
	}
	return m
}
