package dynamodb_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
)

// TestCapacityCountsWhatDynamoDBReports writes and reads memories through a
// client with a Capacity and checks the units against AWS's rules: a write
// is 1 WCU per started KB of the item, a strongly consistent read 1 RCU per
// started 4 KB (eventually consistent: half).
func TestCapacityCountsWhatDynamoDBReports(t *testing.T) {
	c, meter := meteredClient(t)
	s := dynamodb.New(c, newTable(t, c, "test-capacity"))

	now := time.Now().UnixMilli()
	cases := []struct {
		name   string
		body   string
		minWCU float64 // at least one unit per started KB of the body
	}{
		{"small", "a short memory", 1},
		{"3 KB", strings.Repeat("word ", 600), 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := memorytest.New("org-capacity", "a", memory.TypeFact, tc.body, now)
			meter.Reset()
			if _, err := s.Create(ctx, []*memory.Memory{m}); err != nil {
				t.Fatal(err)
			}
			w, inFlight := meter.Used()
			t.Logf("create: %.1f WCU in %v", w.WCU, w.Calls)
			if inFlight != 0 || w.Unreported != 0 {
				t.Fatalf("after create: %d in flight, %d calls without consumed capacity", inFlight, w.Unreported)
			}
			if w.WCU < tc.minWCU || w.RCU != 0 {
				t.Errorf("create: %.1f WCU %.1f RCU, want ≥ %.0f WCU and no RCU (calls %v)", w.WCU, w.RCU, tc.minWCU, w.Calls)
			}
			meter.Reset()
			if _, err := s.Get(ctx, m.OrgID, m.ID); err != nil {
				t.Fatal(err)
			}
			r, _ := meter.Used()
			if r.RCU <= 0 || r.WCU != 0 || r.Calls["GetItem"]+r.Calls["BatchGetItem"]+r.Calls["Query"] == 0 {
				t.Errorf("get: %.1f RCU %.1f WCU, calls %v; want reads only", r.RCU, r.WCU, r.Calls)
			}
		})
	}
}
