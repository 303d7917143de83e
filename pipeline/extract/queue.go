package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/agentmem/agentmem/memory"
	"github.com/aws/aws-lambda-go/events"
)

// Job asks for the extraction of facts from some messages of one org. It is
// produced by the API from the caller's own writes, never from a request
// body, and carries message ids, not text: the worker reads the turns from
// the store within the job's org.
type Job struct {
	OrgID      string   `json:"orgId"`
	AgentID    string   `json:"agentId,omitempty"`
	MessageIDs []string `json:"messageIds"`
}

// Queue takes extraction jobs: SQS in AWS, LocalQueue in the local server.
type Queue interface {
	Enqueue(ctx context.Context, j Job) error
}

// MaxJobMessages bounds the turns of one job.
const MaxJobMessages = 100

// Run loads the job's messages and processes them.
func (p *Pipeline) Run(ctx context.Context, j Job) ([]Outcome, error) {
	if j.OrgID == "" || len(j.MessageIDs) == 0 || len(j.MessageIDs) > MaxJobMessages {
		return nil, memory.Errorf(memory.EINVALID, "job: an org and 1 to %d message ids are required", MaxJobMessages)
	}
	c := memory.Caller{OrgID: j.OrgID, AgentID: j.AgentID}
	var turns []Turn
	for _, id := range j.MessageIDs {
		m, err := p.Service.Get(ctx, c, id)
		if memory.IsNotFound(err) {
			continue // deleted since: nothing to extract
		} else if err != nil {
			return nil, err
		}
		if m.Type == memory.TypeMessage {
			turns = append(turns, Turn{ID: m.ID, Speaker: m.EntityID, Text: m.Content.Text})
		}
	}
	return p.Process(ctx, c, turns)
}

// HandleSQS processes an SQS batch of jobs and reports the messages that
// failed (BatchItemFailures), so only those are delivered again and, after
// the queue's maximum receives, moved to its dead-letter queue. Reprocessing
// a job writes no duplicate facts.
func (p *Pipeline) HandleSQS(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var res events.SQSEventResponse
	for _, m := range ev.Records {
		var j Job
		err := json.Unmarshal([]byte(m.Body), &j)
		if err == nil {
			_, err = p.Run(ctx, j)
		}
		if err != nil {
			p.log().ErrorContext(ctx, "extraction job failed", "message_id", m.MessageId, "org", j.OrgID,
				"receives", m.Attributes["ApproximateReceiveCount"], "err", err)
			res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
		}
	}
	return res, nil
}

// LocalQueue runs jobs in the background of the local server, one at a
// time, retrying a failed job up to three times.
type LocalQueue struct {
	p    *Pipeline
	jobs chan Job
	wg   sync.WaitGroup
}

// NewLocalQueue starts a queue of capacity jobs over p.
func NewLocalQueue(p *Pipeline, capacity int) *LocalQueue {
	q := &LocalQueue{p: p, jobs: make(chan Job, capacity)}
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		for j := range q.jobs {
			for attempt := 1; attempt <= 3; attempt++ {
				_, err := p.Run(context.Background(), j)
				if err == nil || memory.ErrorCode(err) == memory.EINVALID {
					break
				}
				p.log().Warn("local extraction job failed", "org", j.OrgID, "attempt", attempt, "err", err)
			}
		}
	}()
	return q
}

// ErrQueueFull is returned when the local queue cannot take more jobs.
var ErrQueueFull = errors.New("extract: the local queue is full")

// Enqueue implements Queue; it never blocks.
func (q *LocalQueue) Enqueue(_ context.Context, j Job) error {
	select {
	case q.jobs <- j:
		return nil
	default:
		return fmt.Errorf("%w (%d jobs waiting)", ErrQueueFull, cap(q.jobs))
	}
}

// Close stops taking jobs and waits for the queued ones.
func (q *LocalQueue) Close() {
	close(q.jobs)
	q.wg.Wait()
}
