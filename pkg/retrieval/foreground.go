package retrieval

import (
	"context"
	"sync/atomic"
	"time"
)

// Foreground counts the searches in flight, so that background work that
// can wait (the related terms of new query words) yields the cores to
// them: on two cores, a background expansion running beside a search
// added more to its p95 than the knowledge list itself. The zero value is
// ready, and a nil *Foreground is never busy.
type Foreground struct {
	n    atomic.Int64
	last atomic.Int64 // when the last search ended (UnixNano)
}

const (
	// YieldPoll is how often Yield looks whether the searches are done.
	YieldPoll = 200 * time.Microsecond
	// Quiet is how long after a search ends the foreground still counts
	// as busy: back-to-back searches leave gaps of some microseconds, in
	// which background work that looked idle started a step beside the
	// next search (two thirds of the background's steps, measured).
	Quiet = time.Millisecond
)

// Enter records a search in flight until the returned func is called.
func (f *Foreground) Enter() (leave func()) {
	if f == nil {
		return func() {}
	}
	f.n.Add(1)
	return func() {
		f.last.Store(time.Now().UnixNano())
		f.n.Add(-1)
	}
}

// Busy reports whether a search is in flight or ended less than Quiet ago.
func (f *Foreground) Busy() bool {
	return f != nil && (f.n.Load() > 0 || time.Now().UnixNano()-f.last.Load() < int64(Quiet))
}

// Yield waits while searches are in flight, for at most max, or until ctx
// ends. Background work calls it between steps of about a millisecond:
// idle, it does not wait; under a steady stream of searches it still gets
// about step/(step+max) of a core, so it is slowed, never starved.
func (f *Foreground) Yield(ctx context.Context, max time.Duration) {
	if !f.Busy() {
		return
	}
	deadline := time.Now().Add(max)
	t := time.NewTicker(YieldPoll)
	defer t.Stop()
	for f.Busy() && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
