package retrieval

import (
	"context"
	"testing"
	"time"
)

func TestForegroundYield(t *testing.T) {
	var nilGauge *Foreground
	nilGauge.Enter()()
	if nilGauge.Busy() {
		t.Fatal("a nil gauge is busy")
	}
	// A search that just ended keeps the foreground busy for Quiet: the
	// gap before the next one is no time for background work.
	f := &Foreground{}
	f.Enter()()
	if !f.Busy() {
		t.Fatal("not busy right after a search")
	}
	start := time.Now()
	f.Yield(context.Background(), time.Second)
	if d := time.Since(start); d > Quiet+200*time.Millisecond {
		t.Fatalf("yielded %v after a search ended: want about Quiet (%v)", d, Quiet)
	}
	if f.Busy() {
		t.Fatalf("busy %v after the last search", Quiet)
	}
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name     string
		searches int           // in flight during the yield
		leaveAt  time.Duration // when they end (0: never)
		ctx      context.Context
		min, max time.Duration // the yield's duration
	}{
		{"idle: no wait", 0, 0, ctx, 0, 200 * time.Millisecond},
		{"busy: waits until max", 1, 0, ctx, 50 * time.Millisecond, time.Second},
		{"busy: returns once the searches end", 2, 30 * time.Millisecond, ctx, 30 * time.Millisecond, 900 * time.Millisecond},
		{"busy: returns when the context ends", 1, 0, cancelled, 0, 200 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &Foreground{}
			var leaves []func()
			for range tc.searches {
				leaves = append(leaves, f.Enter())
			}
			if f.Busy() != (tc.searches > 0) {
				t.Fatalf("busy %v with %d searches", f.Busy(), tc.searches)
			}
			if tc.leaveAt > 0 {
				time.AfterFunc(tc.leaveAt, func() {
					for _, l := range leaves {
						l()
					}
				})
			}
			start := time.Now()
			f.Yield(tc.ctx, 50*time.Millisecond+tc.leaveAt*20)
			if d := time.Since(start); d < tc.min || d > tc.max {
				t.Fatalf("yielded %v, want between %v and %v", d, tc.min, tc.max)
			}
		})
	}
}
