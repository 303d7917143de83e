package knowledge_test

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// topicExtractor gives each memory the topic its name says, or fails.
type topicExtractor struct {
	name string
	fail bool
}

func (x topicExtractor) Name() string { return x.name }

func (x topicExtractor) Extract(_ context.Context, srcs []memory.KnowledgeSource) ([]memory.Knowledge, error) {
	if x.fail {
		return nil, errors.New("model down")
	}
	out := make([]memory.Knowledge, len(srcs))
	for i := range out {
		out[i] = memory.Knowledge{Topics: []string{x.name + " topic"}}
	}
	return out, nil
}

// TestDeferredExtraction: with Deferred, the write path (Index) writes
// the Fallback's knowledge and leaves the memory pending, waking
// OnPending; ExtractPending replaces it with the Extractor's, or keeps the
// Fallback's (done) when the Extractor fails; a memory deleted before
// ExtractPending runs gets nothing back.
func TestDeferredExtraction(t *testing.T) {
	tests := []struct {
		name          string
		extractor     topicExtractor
		wantExtractor string
	}{
		{"the model answers", topicExtractor{name: "model"}, "model"},
		{"the model fails", topicExtractor{name: "model", fail: true}, "quick"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t)
			ms := []*memory.Memory{memorytest.New("o", "", memory.TypeMessage, "I tried fencing", memorytest.Base),
				memorytest.New("o", "", memory.TypeMessage, "I tried archery", memorytest.Base+1000)}
			if _, err := b.Store.Create(ctx, ms); err != nil {
				t.Fatal(err)
			}
			var woken []string
			k := &knowledge.Service{Store: b.Store, Terms: b.Store, Extractor: tc.extractor, Fallback: topicExtractor{name: "quick"},
				Deferred: true, OnPending: func(org string) { woken = append(woken, org) }}
			if err := k.Index(ctx, "o", ms); err != nil {
				t.Fatal(err)
			}
			ids := []string{ms[0].ID, ms[1].ID}
			st, err := b.Store.KnowledgeStatus(ctx, "o", ids)
			if err != nil || st[ids[0]].State != memory.KnowledgePending || st[ids[0]].Extractor != "quick" || st[ids[0]].Refs == 0 {
				t.Fatalf("after the write: %+v %v, want pending with the quick refs", st, err)
			}
			if len(woken) != 1 || woken[0] != "o" {
				t.Errorf("OnPending called with %q, want [o]", woken)
			}
			if !termMemories(t, b.Store, "o", "quick topic")[ids[0]] {
				t.Error("the quick knowledge is not searchable after the write")
			}
			if err := b.Store.Delete(ctx, "o", ids[1]); err != nil {
				t.Fatal(err)
			}
			if n, err := k.ExtractPending(ctx, "o", 0); err != nil || n != 1 {
				t.Fatalf("ExtractPending: %d %v, want 1", n, err)
			}
			st, err = b.Store.KnowledgeStatus(ctx, "o", ids)
			if err != nil || st[ids[0]].State != memory.KnowledgeDone || st[ids[0]].Extractor != tc.wantExtractor {
				t.Errorf("after ExtractPending: %+v %v, want done by %s", st, err, tc.wantExtractor)
			}
			if _, ok := st[ids[1]]; ok {
				t.Errorf("the deleted memory has a status: %+v", st[ids[1]])
			}
			if got := termMemories(t, b.Store, "o", tc.wantExtractor+" topic"); !got[ids[0]] || got[ids[1]] {
				t.Errorf("indexed under %q: %v, want only %s", tc.wantExtractor+" topic", got, ids[0])
			}
			if tc.wantExtractor == "model" && termMemories(t, b.Store, "o", "quick topic")[ids[0]] {
				t.Error("the quick refs were kept beside the model's")
			}
		})
	}
}

// TestBulkWritesDeferred: with DeferFrom and a worker (OnPending), a write
// of at least DeferFrom memories is only marked pending, and the worker's
// ExtractPending extracts it from the memories as they are then (a memory
// deleted meanwhile gets nothing back, one patched meanwhile its new
// text); a smaller write, a write with no worker listening, and a write
// with Deferred (a model, whose Fallback extracts at once) are not left
// to the worker.
func TestBulkWritesDeferred(t *testing.T) {
	tests := []struct {
		name      string
		memories  int
		worker    bool
		model     bool
		wantState memory.KnowledgeState // right after the write
	}{
		{"a bulk write is left to the worker", 3, true, false, memory.KnowledgePending},
		{"a single create is extracted at once", 1, true, false, memory.KnowledgeDone},
		{"no worker listens: at once", 3, false, false, memory.KnowledgeDone},
		{"with a model, its fallback at once", 3, true, true, memory.KnowledgePending},
	}
	texts := []string{"I tried fencing last weekend", "My sister adopted a puppy", "We cooked pasta for dinner"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t)
			var ms []*memory.Memory
			for i := range tc.memories {
				ms = append(ms, memorytest.New("o", "", memory.TypeMessage, texts[i], memorytest.Base+int64(i)*1000))
			}
			if _, err := b.Store.Create(ctx, ms); err != nil {
				t.Fatal(err)
			}
			woken := 0
			k := &knowledge.Service{Store: b.Store, Terms: b.Store, Extractor: offline.New(offline.Options{}), DeferFrom: 2}
			if tc.worker {
				k.OnPending = func(string) { woken++ }
			}
			if tc.model {
				k.Fallback, k.Extractor, k.Deferred = k.Extractor, topicExtractor{name: "model"}, true
			}
			if err := k.Index(ctx, "o", ms); err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(ms))
			for i, m := range ms {
				ids[i] = m.ID
			}
			st, err := b.Store.KnowledgeStatus(ctx, "o", ids)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if st[id].State != tc.wantState {
					t.Fatalf("after the write: %s is %q, want %q", id, st[id].State, tc.wantState)
				}
			}
			// What search finds of the first memory at once: the bulk
			// write's knowledge only after the worker.
			atOnce := tc.wantState == memory.KnowledgeDone || tc.model
			if got := termMemories(t, b.Store, "o", "fencing")[ids[0]]; got != atOnce {
				t.Fatalf("indexed under fencing right after the write: %v, want %v", got, atOnce)
			}
			if wantWoken := map[bool]int{true: 1}[tc.wantState == memory.KnowledgePending]; woken != wantWoken {
				t.Fatalf("the worker was woken %d times, want %d", woken, wantWoken)
			}
			if tc.wantState != memory.KnowledgePending || tc.model {
				return
			}
			// Before the worker runs: one memory deleted, one patched.
			if err := b.Store.Delete(ctx, "o", ids[1]); err != nil {
				t.Fatal(err)
			}
			patched := *ms[2]
			patched.Content.Text = "We cooked risotto for dinner"
			patched.ContentHash = memory.ContentHash(patched.Content.Text)
			if err := b.Store.Update(ctx, &patched); err != nil {
				t.Fatal(err)
			}
			if n, err := k.ExtractPending(ctx, "o", 0); err != nil || n != 2 {
				t.Fatalf("ExtractPending: %d, %v; want the 2 memories left", n, err)
			}
			st, err = b.Store.KnowledgeStatus(ctx, "o", ids)
			if err != nil {
				t.Fatal(err)
			}
			if st[ids[0]].State != memory.KnowledgeDone || st[ids[2]].State != memory.KnowledgeDone {
				t.Errorf("after the worker: %+v, want both left done", st)
			}
			if _, ok := st[ids[1]]; ok {
				t.Errorf("the deleted memory has a status: %+v", st[ids[1]])
			}
			for term, want := range map[string]map[string]bool{"fencing": {ids[0]: true}, "puppy": {}, "pasta": {}, "risotto": {ids[2]: true}} {
				if got := termMemories(t, b.Store, "o", term); !maps.Equal(got, want) {
					t.Errorf("indexed under %q after the worker: %v, want %v", term, got, want)
				}
			}
		})
	}
}
