package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"
)

var nowTime = time.Now

// result is one operation's average per call.
type result struct {
	name       string
	rcu, wcu   float64
	calls      float64        // DynamoDB calls per API call
	byAPI      map[string]int // DynamoDB calls by operation, over every API call
	unreported int
}

// run seeds the org, measures every operation o.calls times and writes the
// table to w.
func run(ctx context.Context, o options, w io.Writer) error {
	if o.calls > importOrgs {
		return fmt.Errorf("-n: at most %d calls per operation (one fresh org per import)", importOrgs)
	}
	h, err := open(ctx, o)
	if err != nil {
		return err
	}
	defer h.close()
	f := &fixture{h: h}
	if err := f.seed(ctx, o.seed); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	h.settle(200 * time.Millisecond)
	header(w, o)
	unreported := 0
	for _, op := range f.operations() {
		if o.only != "" && !strings.Contains(op.name, o.only) {
			continue
		}
		start := time.Now()
		r, err := measure(ctx, h, op, o.calls)
		if err != nil {
			return fmt.Errorf("%s: %w", op.name, err)
		}
		row(w, o, r)
		unreported += r.unreported
		fmt.Fprintf(os.Stderr, "capacity: %s: %d calls in %s\n", op.name, o.calls, time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintf(w, "\nDynamoDB calls whose response carried no consumed capacity: %d\n", unreported)
	return nil
}

// measure makes op's n calls, each prepared first and settled after, and
// averages what DynamoDB reported for them.
func measure(ctx context.Context, h *harness, op operation, n int) (result, error) {
	r := result{name: op.name, byAPI: map[string]int{}}
	for i := 0; i < n; i++ {
		if err := op.prepare(ctx, i); err != nil {
			return r, fmt.Errorf("prepare: %w", err)
		}
		h.settle(30 * time.Millisecond)
		h.meter.Reset()
		if err := op.call(ctx, i); err != nil {
			return r, err
		}
		h.settle(50 * time.Millisecond)
		u, _ := h.meter.Used()
		r.rcu += u.RCU
		r.wcu += u.WCU
		r.unreported += u.Unreported
		for api, c := range u.Calls {
			r.byAPI[api] += c
			r.calls += float64(c)
		}
	}
	r.rcu, r.wcu, r.calls = r.rcu/float64(n), r.wcu/float64(n), r.calls/float64(n)
	return r, nil
}

// header writes the table's title and head.
func header(w io.Writer, o options) {
	fmt.Fprintf(w, "# bench-capacity: the API function's composition (DynamoDB Local, OpenSearch, %d-dimension vectors), %d memories seeded\n",
		o.dims, o.seed)
	fmt.Fprintf(w, "# %s, %s, %s; %d calls per operation, averaged; prices %.3f USD per million read units, %.3f per million write units\n\n",
		nowTime().UTC().Format("2006-01-02"), runtime.Version(), runtime.GOARCH, o.calls, o.rruPrice, o.wruPrice)
	fmt.Fprintln(w, "| operation | RCU per call | WCU per call | DynamoDB calls per call | calls by DynamoDB operation (per call) | USD per million calls |")
	fmt.Fprintln(w, "|---|--:|--:|--:|---|--:|")
}

// row writes r: units and DynamoDB calls per API call, and the on-demand
// cost of a million such calls.
func row(w io.Writer, o options, r result) {
	fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f | %s | %.2f |\n", r.name, r.rcu, r.wcu, r.calls, byAPI(r.byAPI, o.calls),
		r.rcu*o.rruPrice+r.wcu*o.wruPrice)
}

func byAPI(m map[string]int, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.3g", k, float64(m[k])/float64(n))
	}
	return strings.Join(parts, ", ")
}
