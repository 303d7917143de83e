package wiring_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// TestKnowledgeWorkerTakesBulkWrites: the knowledge a bulk write leaves
// pending (knowledge.Service.DeferFrom) is extracted by StartKnowledge's
// worker: what a process stopped before extracting (at the worker's
// start: the pending status is the queue), what is written while it runs
// (woken by the write), and what is written just before it stops (the
// stop waits for it, as memctl's import needs).
func TestKnowledgeWorkerTakesBulkWrites(t *testing.T) {
	ctx := context.Background()
	defer func(d time.Duration) { wiring.KnowledgeSettle = d }(wiring.KnowledgeSettle)
	wiring.KnowledgeSettle = time.Millisecond
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	batch := func(from int) []*memory.Memory {
		ms := make([]*memory.Memory, wiring.DeferKnowledgeFrom)
		for i := range ms {
			ms[i] = memorytest.New("o", "", memory.TypeMessage, fmt.Sprintf("I tried fencing in lesson %d", from+i),
				memorytest.Base+int64(from+i)*1000)
		}
		if _, err := b.Store.Create(ctx, ms); err != nil {
			t.Fatal(err)
		}
		return ms
	}
	log := slog.New(slog.DiscardHandler)
	k := wiring.NewKnowledge(b.Store, hashing.New(64), log)
	// A bulk write whose process stopped before its worker ran.
	before := batch(0)
	k.OnPending = func(string) {}
	if err := k.Index(ctx, "o", before); err != nil {
		t.Fatal(err)
	}
	k.OnPending = nil
	stop := wiring.StartKnowledge(ctx, k, b.Store, log)
	waitExtracted(t, b.Store, before)
	during := batch(len(before))
	if err := k.Index(ctx, "o", during); err != nil {
		t.Fatal(err)
	}
	waitExtracted(t, b.Store, during)
	last := batch(len(before) + len(during))
	if err := k.Index(ctx, "o", last); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range slices.Concat(before, during, last) {
		ids = append(ids, m.ID)
	}
	st, err := b.Store.KnowledgeStatus(ctx, "o", ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if st[id].State != memory.KnowledgeDone {
			t.Errorf("%s is %q after the worker stopped, want done", id, st[id].State)
		}
	}
	ps, err := b.Store.LookupTerms(ctx, memory.TermLookup{Filter: memory.Filter{OrgID: "o"}, Terms: []string{"fencing"}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, p := range ps {
		found[p.Ref.MemoryID] = true
	}
	for _, id := range ids {
		if !found[id] {
			t.Errorf("%s is not indexed under fencing after the worker", id)
		}
	}
}

// waitExtracted waits until the worker beside the test has extracted ms
// (the bound only ends a test whose worker never does).
func waitExtracted(t *testing.T, ti memory.TermStatus, ms []*memory.Memory) {
	t.Helper()
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		st, err := ti.KnowledgeStatus(context.Background(), "o", ids)
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, s := range st {
			if s.State == memory.KnowledgeDone {
				done++
			}
		}
		if done == len(ids) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d memories extracted by the worker; statuses %+v", done, len(ids), st)
		}
	}
}
