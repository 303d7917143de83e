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
type Foreground struct{ n atomic.Int64 }

// YieldPoll is how often Yield looks whether the searches are done.
const YieldPoll = 200 * time.Microsecond

// Enter records a search in flight until the returned func is called.
func (f *Foreground) Enter() (leave func()) {
	if f == nil {
		return func() {}
	}
	f.n.Add(1)
	return func() { f.n.Add(-1) }
}

// Busy reports whether a search is in flight.
func (f *Foreground) Busy() bool { return f != nil && f.n.Load() > 0 }

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
