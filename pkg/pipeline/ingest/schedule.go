package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-lambda-go/events"
)

// PendingRetrier extracts again the knowledge left pending by failed or
// interrupted extractions of an org, at most limit memories (see
// knowledge.Service.RetryPending).
type PendingRetrier interface {
	RetryPending(ctx context.Context, orgID string, limit int) (int, error)
}

// Maintenance is the scheduled recovery pass of a shared store (the AWS
// deployment, where no process start runs it): for every org, interrupted
// document ingestions are settled or rolled back (Pipeline.Recover, leaving
// runs younger than Grace alone), then pending knowledge is extracted
// again.
type Maintenance struct {
	Documents *Pipeline
	Orgs      memory.OrgLister
	// Grace must exceed the longest run of an ingestion (the ingest
	// function's timeout), so that no run in flight is rolled back.
	Grace time.Duration
	// Knowledge, if set, retries pending extractions, at most RetryLimit
	// memories per org and pass (0: memory.DefaultKnowledgePage).
	Knowledge  PendingRetrier
	RetryLimit int
}

// MaintenanceReport is what one pass did.
type MaintenanceReport struct {
	Orgs      int       `json:"orgs"`
	Recovered Recovered `json:"recovered"`
	// KnowledgeRetried counts the memories whose knowledge was extracted again.
	KnowledgeRetried int `json:"knowledgeRetried"`
	// Failed lists the orgs a step failed for (the others were still run).
	Failed []string `json:"failed,omitempty"`
}

// Run runs one pass over every org. A failure in one org does not stop the
// others; the errors are joined and the report names the orgs.
func (m *Maintenance) Run(ctx context.Context) (MaintenanceReport, error) {
	var rep MaintenanceReport
	orgs, err := m.Orgs.Orgs(ctx)
	if err != nil {
		return rep, fmt.Errorf("maintenance: orgs: %w", err)
	}
	var errs []error
	for _, org := range orgs {
		rep.Orgs++
		r, err := m.Documents.Recover(ctx, org, m.Grace)
		rep.Recovered.Documents += r.Documents
		rep.Recovered.Memories += r.Memories
		rep.Recovered.Settled += r.Settled
		if err == nil && m.Knowledge != nil {
			var n int
			n, err = m.Knowledge.RetryPending(ctx, org, m.RetryLimit)
			rep.KnowledgeRetried += n
			if err != nil {
				err = fmt.Errorf("maintenance %s: retry pending knowledge: %w", org, err)
			}
		}
		if err != nil {
			rep.Failed = append(rep.Failed, org)
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
		}
	}
	m.Documents.log().InfoContext(ctx, "maintenance pass", "orgs", rep.Orgs, "documents_rolled_back", rep.Recovered.Documents,
		"staged_discarded", rep.Recovered.Memories, "commits_settled", rep.Recovered.Settled,
		"knowledge_retried", rep.KnowledgeRetried, "failed", len(rep.Failed))
	return rep, errors.Join(errs...)
}

// Invocation is one invocation of the ingest function, which serves two
// rules: the bucket's S3 notifications and the scheduled maintenance
// rule's EventBridge events. Exactly one field is set.
type Invocation struct {
	S3        *events.S3Event
	Scheduled *events.EventBridgeEvent
}

// UnmarshalJSON tells the two events apart: an EventBridge event has a
// "detail-type"; an S3 notification has "Records". Anything else is an
// error (the invocation fails rather than being taken for an empty batch).
func (in *Invocation) UnmarshalJSON(b []byte) error {
	var probe struct {
		DetailType *string          `json:"detail-type"`
		Records    *json.RawMessage `json:"Records"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return memory.Errorf(memory.EINVALID, "ingest invocation: %v", err)
	}
	dec := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(b))
		return d.Decode(v)
	}
	switch {
	case probe.DetailType != nil && probe.Records == nil:
		in.Scheduled, in.S3 = &events.EventBridgeEvent{}, nil
		return dec(in.Scheduled)
	case probe.Records != nil && probe.DetailType == nil:
		in.S3, in.Scheduled = &events.S3Event{}, nil
		return dec(in.S3)
	}
	return memory.Errorf(memory.EINVALID, "ingest invocation: neither an S3 notification (Records) nor an EventBridge event (detail-type)")
}

// InvocationResult is the answer to an Invocation: the S3 outcomes or the
// maintenance report.
type InvocationResult struct {
	Outcomes    []Outcome          `json:"outcomes,omitempty"`
	Maintenance *MaintenanceReport `json:"maintenance,omitempty"`
}

// Handler routes the invocations of the ingest function: S3 notifications
// to p.HandleS3 with fetch, scheduled events to m.Run.
func Handler(p *Pipeline, fetch Fetch, m *Maintenance) func(context.Context, Invocation) (InvocationResult, error) {
	return func(ctx context.Context, in Invocation) (InvocationResult, error) {
		switch {
		case in.S3 != nil:
			outs, err := p.HandleS3(ctx, *in.S3, fetch)
			return InvocationResult{Outcomes: outs}, err
		case in.Scheduled != nil:
			p.log().InfoContext(ctx, "scheduled maintenance", "event_id", in.Scheduled.ID, "rule", in.Scheduled.Resources)
			rep, err := m.Run(ctx)
			return InvocationResult{Maintenance: &rep}, err
		}
		return InvocationResult{}, memory.Errorf(memory.EINVALID, "ingest invocation: empty")
	}
}
