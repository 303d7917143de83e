package retrieval

import (
	"context"

	"github.com/agentmem/agentmem/pkg/memory"
)

// ListWhen is the when list's name.
const ListWhen = "when"

// WhenList is the when list: when a query asks when ("When did Ana move to
// Lisbon?", "How long has Bo known his friends?"), the memories that the
// keyword and semantic lists find and whose text states a time or a
// duration ("we moved last May", "for four years"), in fused order. A
// question about when is answered by the memory that says when: in
// conversations most turns state no time, and the turns that tell an event
// and say when it happened are a small part of those that share its words.
// On the development conversations 73% of the turns that answer a
// question about time state one, against 11% of all turns.
//
// The list reads the text of its candidates from the store (the source of
// truth), at most the query's K of them, and only for a query that asks
// when; any other query gets an empty list and no read.
type WhenList struct {
	Index memory.Index
	Store memory.Store
	// Asks tells a query that asks when; States a memory text that states a
	// time. knowledge/query's AsksWhen and StatesTime are the offline ones.
	Asks, States func(text string) bool
}

// Lists implements Retriever.
func (WhenList) Lists() []string { return []string{ListWhen} }

// Retrieve implements Retriever.
func (w WhenList) Retrieve(ctx context.Context, q *Query, _ []string) (map[string][]memory.Hit, error) {
	none := map[string][]memory.Hit{ListWhen: nil}
	if w.Asks == nil || w.States == nil || !w.Asks(q.Text) {
		return none, nil
	}
	hits, err := hybridWithin(ctx, w.Index, w.Store, q, q.Filter, func(m *memory.Memory) bool { return w.States(m.SearchText()) })
	if err != nil {
		return nil, err
	}
	return map[string][]memory.Hit{ListWhen: hits}, nil
}
