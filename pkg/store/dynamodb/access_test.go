package dynamodb_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
)

// TestAccessItems checks the access items of access.go: recording an access
// to a memory with a 1,024-dimension vector costs one write unit whatever
// the memory's size, and every read path adds the access item's counters
// to those the memory item carries (an import's, or a table written before
// access items existed).
func TestAccessItems(t *testing.T) {
	c, meter := meteredClient(t)
	s := dynamodb.New(c, newTable(t, c, "test-access"))

	org, base := "org-access", memorytest.Base
	m := memorytest.New(org, "", memory.TypeFact, "read by many searches", base)
	m.Embedding = make([]float32, 1024)
	for i := range m.Embedding {
		m.Embedding[i] = float32(i%7) / 7
	}
	m.AccessCount, m.LastAccessedAt = 5, base+500 // carried on the item, as an import writes it
	other := memorytest.New(org, "", memory.TypeFact, "never read", base)
	if _, err := s.Create(ctx, []*memory.Memory{m, other}); err != nil {
		t.Fatal(err)
	}

	meter.Reset()
	if err := s.Touch(ctx, org, []string{m.ID, m.ID}, base+100); err != nil { // older than the item's
		t.Fatal(err)
	}
	used, _ := meter.Used()
	if used.WCU != 1 || used.RCU != 0 || used.Calls["UpdateItem"] != 1 {
		t.Fatalf("2 accesses of a 5 KB memory in one call: %.1f WCU %.1f RCU, want one update of 1 WCU (calls %v)", used.WCU, used.RCU, used.Calls)
	}

	page, err := s.List(ctx, memory.ListQuery{Filter: memory.Filter{OrgID: org}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	many, err := s.GetMany(ctx, org, []string{m.ID, other.ID})
	if err != nil {
		t.Fatal(err)
	}
	var scanned *memory.Memory
	if err := s.Scan(ctx, func(x *memory.Memory) error {
		if x.ID == m.ID {
			scanned = x
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got := map[string]*memory.Memory{"get": mustGet(t, s, org, m.ID), "getmany": many[m.ID], "scan": scanned}
	for _, x := range page.Memories {
		if x.ID == m.ID {
			got["list"] = x
		}
	}
	for _, path := range []string{"get", "getmany", "list", "scan"} {
		x := got[path]
		if x == nil {
			t.Errorf("%s: memory missing", path)
			continue
		}
		if x.AccessCount != 7 || x.LastAccessedAt != base+500 {
			t.Errorf("%s: count %d last %d, want 7 (5 on the item, 2 recorded) at %d (the later)", path, x.AccessCount, x.LastAccessedAt, base+500)
		}
	}
	if x := many[other.ID]; x == nil || x.AccessCount != 0 || x.LastAccessedAt != 0 {
		t.Errorf("untouched memory read as %+v", x)
	}
}

func mustGet(t *testing.T, s memory.Store, org, id string) *memory.Memory {
	t.Helper()
	m, err := s.Get(ctx, org, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
