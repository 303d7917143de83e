package query

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
)

type e2eMessage struct {
	id, speaker, listener, text string
	day                         int // of March 2024
}

// e2eMessages are a short conversation between Ana and Bo.
var e2eMessages = []e2eMessage{
	{"c1", "Ana", "Bo", "I finally tried fencing last weekend and I loved it!", 1},
	{"c2", "Bo", "Ana", "My sister moved to Lisbon in May 2023.", 2},
	{"c3", "Ana", "Bo", "We adopted a puppy named Biscuit yesterday.", 4},
	{"c4", "Bo", "Ana", "I started climbing at the gym near my office.", 6},
	{"c5", "Ana", "Bo", "I'm reading a novel about sailors.", 7},
	{"c6", "Bo", "Ana", "The weather was terrible today, so I stayed home.", 9},
	{"c7", "Ana", "Bo", "Biscuit chewed my favorite shoes this morning.", 11},
	{"c8", "Bo", "Ana", "My sister says Lisbon is sunny and she loves her new job.", 12},
}

// TestEndToEnd extracts the conversation offline, indexes it, translates
// questions offline and evaluates them.
func TestEndToEnd(t *testing.T) {
	idx := newFakeIndex()
	x := offline.New(offline.Options{})
	for _, m := range e2eMessages {
		k := x.ExtractOne(memory.KnowledgeSource{MemoryID: m.id, Type: memory.TypeMessage, Speaker: m.speaker,
			Listeners: []string{m.listener}, Text: m.text, RoomID: "r"})
		idx.put(m.id, memory.Attrs{OrgID: org, Type: memory.TypeMessage, RoomID: "r", EntityID: m.speaker,
			CreatedAt: time.Date(2024, time.March, m.day, 10, 0, 0, 0, time.UTC).UnixMilli()}, k)
	}
	asked := time.Date(2024, time.March, 5, 12, 0, 0, 0, time.UTC)
	ev := &Evaluator{Index: idx, Now: func() time.Time { return asked }}
	tests := []struct {
		q     string
		first string   // the best memory
		only  []string // when set, exactly these memories, in order
	}{
		{q: "What sports has Ana tried?", first: "c1"},
		{q: "When did Bo's sister move to Lisbon?", first: "c2"},
		{q: "Which book is Ana reading?", first: "c5"},
		{q: "Where did Bo start climbing?", first: "c4"},
		{q: "What pets does Ana have?", first: "c3"},
		{q: "What did Ana adopt yesterday?", only: []string{"c3"}},
		// Bo is in every message (speaker or listener): the anchor keeps those after the first mention of fencing.
		{q: "What did Bo say after the fencing?", only: []string{"c8", "c7", "c6", "c5", "c4", "c3", "c2"}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			expr, err := Translate(tt.q, asked)
			if err != nil {
				t.Fatal(err)
			}
			res, err := ev.Evaluate(ctx, memory.Filter{OrgID: org}, expr)
			if err != nil {
				t.Fatal(err)
			}
			got := ids(res)
			switch {
			case tt.only != nil && !slicesEqual(got, tt.only):
				t.Fatalf("%s\ngot %v, want %v", expr, got, tt.only)
			case tt.first != "" && (len(got) == 0 || got[0] != tt.first):
				t.Fatalf("%s\ngot %v (%+v), want %s first", expr, got, res.Memories, tt.first)
			}
			checkResult(t, res)
		})
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
