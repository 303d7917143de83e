package service

import (
	"context"
	"sync"
	"time"
)

// accessQueue records search accesses off the request path: searches hand
// their hits to a bounded queue and one goroutine writes them, gathering
// what arrives within window of the first into one store call per org. A
// full queue makes the search record its access itself (back-pressure,
// nothing is dropped); Close writes what is queued before it returns.
//
// The window is what makes recording cheap. Written per search, every
// search was a write transaction: at a million memories on SQLite, 0.95 ms
// of CPU per search for the commit, and each commit emptied the readers'
// page caches, so the next search read its rows back through system calls.
// Gathered for a window (config.Service.AccessWindow), a busy org's
// searches share one transaction, however often they found a memory. The
// items written are the same: DynamoDB's write units per search do not
// change.
type accessQueue struct {
	ch     chan accessBatch
	stop   chan struct{}
	done   chan struct{}
	window time.Duration

	mu     sync.RWMutex // held for reading while queueing, for writing to close
	closed bool
}

type accessBatch struct {
	org string
	ids []string
	at  int64
}

// WithAsyncAccess makes searches record accesses in the background through
// a queue of size batches, written at most once per window (0: as soon as
// the writer is free). It is a long-running server's choice; a Lambda,
// which may be frozen after its response, records them before answering.
// Call Close to flush it.
func WithAsyncAccess(size int, window time.Duration) Option {
	return func(s *Service) {
		s.access = &accessQueue{ch: make(chan accessBatch, max(size, 1)), stop: make(chan struct{}), done: make(chan struct{}),
			window: max(window, 0)}
		go s.access.run(s)
	}
}

// maxGathered bounds the memory ids one write of the queue gathers: past
// it, the write starts before its window ends.
const maxGathered = 50_000

// record queues b, or writes it now when the queue is full or closed.
func (s *Service) record(ctx context.Context, b accessBatch) {
	if q := s.access; q != nil {
		q.mu.RLock()
		queued := false
		if !q.closed {
			select {
			case q.ch <- b:
				queued = true
			default:
			}
		}
		q.mu.RUnlock()
		if queued {
			return
		}
	}
	if err := s.store.Touch(ctx, b.org, b.ids, b.at); err != nil {
		s.log.WarnContext(ctx, "recording access failed", "org", b.org, "err", err)
	}
}

func (q *accessQueue) run(s *Service) {
	defer close(q.done)
	for {
		select {
		case b := <-q.ch:
			q.write(s, b)
		case <-q.stop:
			for {
				select {
				case b := <-q.ch:
					q.write(s, b)
				default:
					return
				}
			}
		}
	}
}

// write stores first and whatever else is queued, merged: per org, one
// Touch whose ids are every access of the org's batches (an id searched
// three times is listed three times, three accesses), at the latest access
// time of the org's batches: one commit in SQLite, however often a memory
// was searched.
func (q *accessQueue) write(s *Service, first accessBatch) {
	ids := map[string][]string{}
	at := map[string]int64{}
	add := func(b accessBatch) {
		ids[b.org] = append(ids[b.org], b.ids...)
		at[b.org] = max(at[b.org], b.at)
	}
	add(first)
	gathered := len(first.ids)
	if q.window > 0 {
		timer := time.NewTimer(q.window)
	gather:
		for gathered < maxGathered {
			select {
			case b := <-q.ch:
				add(b)
				gathered += len(b.ids)
			case <-timer.C:
				break gather
			case <-q.stop: // Close: what is queued now is written at once
				break gather
			}
		}
		timer.Stop()
	}
	for more := true; more; {
		select {
		case b := <-q.ch:
			add(b)
		default:
			more = false
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for org, ids := range ids {
		if err := s.store.Touch(ctx, org, ids, at[org]); err != nil {
			s.log.Warn("recording access failed", "org", org, "err", err)
		}
	}
}

// Close writes the queued accesses of a WithAsyncAccess service and stops
// its goroutine; later searches record their accesses themselves. It is a
// no-op otherwise, and safe to call more than once.
func (s *Service) Close() error {
	if q := s.access; q != nil {
		q.mu.Lock()
		if !q.closed {
			q.closed = true
			close(q.stop)
		}
		q.mu.Unlock()
		<-q.done
	}
	return nil
}
