package retrieval

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Defaults of the time list.
const (
	// DefaultReportLag is how long after an event a memory may still be
	// the one that tells of it: people say "two weekends ago" or "last
	// month", so a question about June is answered by turns of June and of
	// the month after.
	DefaultReportLag = 31 * 24 * time.Hour
	// DefaultMaxSpan is the longest range the list narrows to: a day, a
	// week, a month or a season. A year, or an open range ("before May"),
	// rarely singles out an event, and keyword and semantic rank it already.
	DefaultMaxSpan = 93 * 24 * time.Hour
)

// Resolver finds the time a query names, its relative expressions
// ("yesterday", "in June", "last week") resolved against now; ok is false
// when the query names none. knowledge/query's FindTime is one.
type Resolver func(text string, now time.Time) (start, end time.Time, ok bool)

// TimeList is the time list: when a query names a time ("When did Ana go
// camping in June?", "What did Bo paint on 13 October 2023?"), the memories
// of that time that the keyword and semantic lists find, fused by RRF. The
// words of such a question say little about when, and the memories that
// answer it seldom carry the date in their text: their CreatedAt does.
//
// The query's relative expressions are resolved against the newest memory
// the filter sees (the conversation's present, which is the wall clock's
// for live data and the last session's for imported history). The range
// is widened by ReportLag after its end, and a query whose range is open
// or longer than MaxSpan gets an empty list.
type TimeList struct {
	Index   memory.Index
	Store   memory.Store
	Resolve Resolver
	// ReportLag and MaxSpan default to DefaultReportLag and
	// DefaultMaxSpan.
	ReportLag, MaxSpan time.Duration
}

// Lists implements Retriever.
func (TimeList) Lists() []string { return []string{ListTime} }

// Retrieve implements Retriever.
func (t TimeList) Retrieve(ctx context.Context, q *Query, _ []string) (map[string][]memory.Hit, error) {
	none := map[string][]memory.Hit{ListTime: nil}
	if _, _, ok := t.Resolve(q.Text, time.Now()); !ok {
		return none, nil // no time named: no store read
	}
	page, err := t.Store.List(ctx, memory.ListQuery{Filter: q.Filter, Limit: 1})
	if err != nil || len(page.Memories) == 0 {
		return none, err
	}
	now := time.UnixMilli(page.Memories[0].CreatedAt).UTC()
	start, end, ok := t.Resolve(q.Text, now)
	lag, span := t.ReportLag, t.MaxSpan
	if lag == 0 {
		lag = DefaultReportLag
	}
	if span == 0 {
		span = DefaultMaxSpan
	}
	if !ok || start.IsZero() || end.IsZero() || end.Sub(start) > span {
		return none, nil
	}
	f := q.Filter
	f.Start, f.End = max(f.Start, start.UnixMilli()), end.Add(lag).UnixMilli()
	if q.Filter.End != 0 {
		f.End = min(f.End, q.Filter.End)
	}
	if f.End <= f.Start {
		return none, nil
	}
	hits, err := hybridWithin(ctx, t.Index, t.Store, q, f, nil)
	if err != nil {
		return nil, err
	}
	return map[string][]memory.Hit{ListTime: hits}, nil
}
