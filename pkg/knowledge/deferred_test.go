package knowledge_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge"
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
