package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentmem/agentmem/internal/retry"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-lambda-go/events"
)

// Job is the domain's extraction job (memory.ExtractionJob), named here
// for the pipeline's callers.
type Job = memory.ExtractionJob

// Queue is the domain's extraction queue port (memory.ExtractionQueue):
// SQS in AWS, LocalQueue in the local server.
type Queue = memory.ExtractionQueue

// MaxJobMessages bounds the turns of one job (memory.MaxJobMessages).
const MaxJobMessages = memory.MaxJobMessages

// Permanent reports whether a job's failure will recur however often it is
// retried: a job that is not JSON or fails validation (EINVALID), or that
// the caller it names may not run (EFORBIDDEN, EUNAUTHORIZED).
// Unavailable dependencies and anything unexpected are worth a retry.
func Permanent(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return true
	}
	switch memory.ErrorCode(err) {
	case memory.EINVALID, memory.EFORBIDDEN, memory.EUNAUTHORIZED:
		return true
	}
	return false
}

// Run loads the job's messages and processes them.
func (p *Pipeline) Run(ctx context.Context, j Job) ([]Outcome, error) {
	if err := j.Validate(); err != nil {
		return nil, err
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
			turns = append(turns, Turn{ID: m.ID, Speaker: m.EntityID, Text: m.Content.Text, AgentID: m.AgentID, From: m})
		}
	}
	return p.Process(ctx, c, turns)
}

// HandleSQS processes an SQS batch of jobs and reports the messages that
// failed for a reason that may pass (BatchItemFailures), so only those are
// delivered again and, after the queue's maximum receives, moved to its
// dead-letter queue. A job that can never succeed (see Permanent: not
// JSON, invalid) is logged once and dropped, not retried into the
// dead-letter queue. Reprocessing a job writes no duplicate facts.
func (p *Pipeline) HandleSQS(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var res events.SQSEventResponse
	for _, m := range ev.Records {
		var j Job
		err := json.Unmarshal([]byte(m.Body), &j)
		if err == nil {
			_, err = p.Run(ctx, j)
		}
		if err != nil && Permanent(err) {
			p.log().ErrorContext(ctx, "extraction job rejected: it can never succeed, not retried", "message_id", m.MessageId,
				"org", j.OrgID, "receives", m.Attributes["ApproximateReceiveCount"], "err", err)
			continue
		}
		if err != nil {
			p.log().ErrorContext(ctx, "extraction job failed, to be retried", "message_id", m.MessageId, "org", j.OrgID,
				"receives", m.Attributes["ApproximateReceiveCount"], "code", memory.ErrorCode(err), "err", err)
			res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
		}
	}
	return res, nil
}

// LocalQueue runs jobs in the background of the local server, one at a
// time, retrying a failed job up to three times. With an extraction log
// (NewDurableQueue), a job that ran, or can never run, is removed from
// the log, and Replay queues again what the log holds at start.
type LocalQueue struct {
	p    *Pipeline
	jobs chan Job
	wg   sync.WaitGroup
	log  memory.ExtractionLog // nil: the queue lives in memory only
	stop chan struct{}        // closed by Close, ends a replay
	feed sync.WaitGroup       // the replay's feeder

	mu      sync.Mutex
	idle    *sync.Cond
	pending int  // jobs taken and not finished
	closed  bool // Close was called: Enqueue refuses
}

// NewLocalQueue starts a queue of capacity jobs over p.
func NewLocalQueue(p *Pipeline, capacity int) *LocalQueue {
	return NewDurableQueue(p, capacity, nil)
}

// NewDurableQueue starts a queue of capacity jobs over p that marks the
// jobs it finishes done in log (nil: none). The messages must have been
// recorded in log when they were stored (memory.AwaitExtraction).
func NewDurableQueue(p *Pipeline, capacity int, log memory.ExtractionLog) *LocalQueue {
	q := &LocalQueue{p: p, jobs: make(chan Job, capacity), log: log, stop: make(chan struct{})}
	q.idle = sync.NewCond(&q.mu)
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		for j := range q.jobs {
			q.run(j)
		}
	}()
	return q
}

// MaxReplay bounds the messages one Replay reads from the log.
const MaxReplay = 1_000_000

// Replay queues the jobs the log holds (the messages stored and not
// extracted when the process stopped, killed or not) and returns how many
// messages it queues. It reads the log at once and feeds the queue in the
// background, waiting for room, until every job is in or Close is called.
func (q *LocalQueue) Replay(ctx context.Context) (int, error) {
	if q.log == nil {
		return 0, nil
	}
	jobs, err := q.log.PendingExtraction(ctx, MaxReplay)
	if err != nil {
		return 0, fmt.Errorf("extract: replay: %w", err)
	}
	n := 0
	for _, j := range jobs {
		n += len(j.MessageIDs)
	}
	q.mu.Lock()
	q.pending += len(jobs)
	q.mu.Unlock()
	q.feed.Add(1)
	go func() {
		defer q.feed.Done()
		for i, j := range jobs {
			select {
			case q.jobs <- j:
				continue
			case <-q.stop:
			case <-ctx.Done():
			}
			q.finished(len(jobs) - i) // not queued: left in the log for the next start
			return
		}
	}()
	return n, nil
}

// finished marks n taken jobs finished.
func (q *LocalQueue) finished(n int) {
	q.mu.Lock()
	q.pending -= n
	q.mu.Unlock()
	q.idle.Broadcast()
}

// run runs one job with its retries and marks it finished, and done in
// the log when it ran or can never run.
func (q *LocalQueue) run(j Job) {
	defer q.finished(1)
	attempt := 0
	err := retry.Do(context.Background(), 3, 100*time.Millisecond, 2*time.Second, func(err error) bool { return !Permanent(err) }, func() error {
		attempt++
		_, err := q.p.Run(context.Background(), j)
		if err != nil {
			q.p.log().Warn("local extraction job failed", "org", j.OrgID, "attempt", attempt, "err", err)
		}
		return err
	})
	if q.log == nil || (err != nil && !Permanent(err)) {
		return // a job that may yet pass stays in the log, replayed at the next start
	}
	if err := q.log.ExtractionDone(context.Background(), j.OrgID, j.MessageIDs); err != nil {
		q.p.log().Warn("marking an extraction job done failed: it runs again at the next start", "org", j.OrgID, "err", err)
	}
}

// ErrQueueFull is returned when the local queue cannot take more jobs.
var ErrQueueFull = errors.New("extract: the local queue is full")

// Enqueue implements Queue; it never blocks.
func (q *LocalQueue) Enqueue(_ context.Context, j Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return errors.New("extract: the local queue is closed")
	}
	select {
	case q.jobs <- j:
		q.pending++
		return nil
	default:
		return fmt.Errorf("%w (%d jobs waiting)", ErrQueueFull, cap(q.jobs))
	}
}

// Len is how many jobs wait (the metrics' queue depth).
func (q *LocalQueue) Len() int { return len(q.jobs) }

// Drain waits until every job enqueued before it was called has run (with
// its retries), so that a test or a command reads the facts they wrote.
// Jobs enqueued meanwhile may make it wait for them too.
func (q *LocalQueue) Drain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.pending > 0 {
		q.idle.Wait()
	}
}

// Close stops taking jobs and a replay, and waits for the queued jobs.
func (q *LocalQueue) Close() {
	close(q.stop)
	q.feed.Wait()
	q.mu.Lock()
	q.closed = true
	close(q.jobs)
	q.mu.Unlock()
	q.wg.Wait()
}
