// Package retry is the one retry helper: exponential backoff with full
// jitter (a random wait between 0 and base×2^attempt, capped), bounded by
// the context. The service's optimistic-update loops and the local
// extraction queue use it; the AWS SDK clients use the SDK's own retryer,
// configured the same way (internal/awsconf).
package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// Wait sleeps before retry number attempt (1 for the first retry): a random
// duration in [0, min(max, base×2^(attempt-1))). It returns ctx's error if
// the context ends first.
func Wait(ctx context.Context, attempt int, base, max time.Duration) error {
	ceil := base << min(max0(attempt-1), 30)
	if ceil <= 0 || ceil > max {
		ceil = max
	}
	d := time.Duration(rand.Int64N(int64(ceil) + 1))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// Do calls fn up to attempts times, waiting between calls (see Wait), until
// fn returns nil or an error that retryable rejects. It returns fn's last
// error, or the context's if it ended while waiting.
func Do(ctx context.Context, attempts int, base, max time.Duration, retryable func(error) bool, fn func() error) error {
	var err error
	for attempt := 1; attempt <= attempts; attempt++ {
		if err = fn(); err == nil || !retryable(err) || attempt == attempts {
			return err
		}
		if werr := Wait(ctx, attempt, base, max); werr != nil {
			return werr
		}
	}
	return err
}
