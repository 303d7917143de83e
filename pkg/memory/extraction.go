package memory

import (
	"context"
	"fmt"
)

// ExtractionJob asks for the extraction of facts from some messages of one
// org. It is produced by the API from the caller's own writes, never from a
// request body, and carries message ids, not text: the worker reads the
// turns from the store within the job's org. It is the message an
// ExtractionQueue carries, so it lives here, where the queue adapters
// (SQS) and the extraction pipeline both see it.
type ExtractionJob struct {
	OrgID      string   `json:"orgId"`
	AgentID    string   `json:"agentId,omitempty"`
	MessageIDs []string `json:"messageIds"`
}

// ExtractionQueue takes extraction jobs: SQS in AWS, the extraction
// pipeline's local queue in the local server.
type ExtractionQueue interface {
	Enqueue(ctx context.Context, j ExtractionJob) error
}

// MaxJobMessages bounds the turns of one extraction job.
const MaxJobMessages = 100

// Validate checks a job's fields: EINVALID naming the field.
func (j ExtractionJob) Validate() error {
	switch {
	case j.OrgID == "":
		return Errorf(EINVALID, "orgId: required")
	case len(j.MessageIDs) == 0 || len(j.MessageIDs) > MaxJobMessages:
		return Errorf(EINVALID, "messageIds: 1 to %d message ids are required, got %d", MaxJobMessages, len(j.MessageIDs))
	}
	if err := ValidID("orgId", j.OrgID); err != nil {
		return err
	}
	if err := ValidID("agentId", j.AgentID); err != nil {
		return err
	}
	for i, id := range j.MessageIDs {
		if id == "" {
			return Errorf(EINVALID, "messageIds[%d]: empty", i)
		}
		if err := ValidID(fmt.Sprintf("messageIds[%d]", i), id); err != nil {
			return err
		}
	}
	return nil
}

// ExtractionLog is a store that records which messages await fact
// extraction in the transaction that stores them, so that a process killed
// before its queue ran loses no extraction: at start the queue reads the
// log back and runs it again (extraction is idempotent: a fact found again
// writes nothing). A store records the messages of a Create whose context
// was marked with AwaitExtraction, and forgets a message's entry with the
// message.
type ExtractionLog interface {
	// PendingExtraction returns the messages awaiting extraction as jobs
	// of at most MaxJobMessages turns, one org and one caller's agent
	// each, at most limit messages in all.
	PendingExtraction(ctx context.Context, limit int) ([]ExtractionJob, error)
	// ExtractionDone removes ids of orgID from the log; ids absent from it
	// are ignored.
	ExtractionDone(ctx context.Context, orgID string, ids []string) error
}

type awaitExtractionKey struct{}

// AwaitExtraction marks ctx so that a Store that is an ExtractionLog
// records the messages it creates under it as awaiting extraction, with
// the agent of the Change's caller (ExtractionJob.AgentID).
func AwaitExtraction(ctx context.Context) context.Context {
	return context.WithValue(ctx, awaitExtractionKey{}, true)
}

// AwaitsExtraction reports whether ctx was marked by AwaitExtraction.
func AwaitsExtraction(ctx context.Context) bool {
	v, _ := ctx.Value(awaitExtractionKey{}).(bool)
	return v
}
