package retry

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDo(t *testing.T) {
	transient, permanent := errors.New("transient"), errors.New("permanent")
	isTransient := func(err error) bool { return errors.Is(err, transient) }
	tests := []struct {
		name      string
		results   []error
		wantCalls int
		want      error
	}{
		{"success at once", []error{nil}, 1, nil},
		{"transient then success", []error{transient, transient, nil}, 3, nil},
		{"a permanent error stops", []error{transient, permanent, nil}, 2, permanent},
		{"attempts run out", []error{transient, transient, transient, transient}, 3, transient},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := Do(context.Background(), 3, time.Microsecond, time.Millisecond, isTransient, func() error {
				calls++
				return tc.results[calls-1]
			})
			if calls != tc.wantCalls || !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
				t.Fatalf("%d calls, error %v; want %d, %v", calls, err, tc.wantCalls, tc.want)
			}
		})
	}
}

func TestWaitIsBoundedAndCancellable(t *testing.T) {
	for attempt := 1; attempt <= 40; attempt++ {
		start := time.Now()
		if err := Wait(context.Background(), attempt, time.Microsecond, 2*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("attempt %d waited %v past its cap", attempt, d)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Wait(ctx, 10, time.Hour, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
}
