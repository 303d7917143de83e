package service

import (
	"context"

	"github.com/agentmem/agentmem/pkg/memory"
)

// MaxUniqueScan bounds the memories one unique listing (ListUnique) reads
// from the store: those newer than its cursor and those it skips to fill
// its page.
const MaxUniqueScan = 20_000

// ListUnique is List keeping one memory per content (ElizaOS's
// getMemories({unique})): of the memories c can see that match f, only
// those that are the newest of their content (ContentHash), newest first.
//
// Whether a memory is listed is a property of the memory, not of the page:
// it is listed when no newer memory that matches has its content, at the
// time its page is read. So the pages of one cursor chain never repeat a
// content: each content is listed once, on the page of its newest memory.
// To know that, a page reads every matching memory newer than its cursor
// (the contents of the pages before it) and then skips the duplicates
// after it, at most MaxUniqueScan memories in all. A page that reaches the
// bound while filling is returned short with a cursor to go on from; a
// cursor with MaxUniqueScan memories or more before it is EINVALID
// naming unique (narrow the listing with start, end or another filter).
// A full page keeps its cursor unless the batch it read reached the end,
// so the last page of a chain may be empty.
// As with any cursor, a memory written after the first page is not listed
// by the chain, and its content is then skipped on later pages (the
// memory listed for it is the new one, before the cursor); a memory
// deleted during the chain no longer hides its content's older copies.
func (s *Service) ListUnique(ctx context.Context, c memory.Caller, f memory.Filter, limit int, cursor string) (memory.Page, error) {
	q, err := listQuery(c, f, limit, cursor)
	if err != nil {
		return memory.Page{}, err
	}
	seen := map[string]bool{}
	budget := MaxUniqueScan
	// The contents of the pages before: the memory at the cursor, if it
	// is still there and matches, and every match newer than it.
	if cur := q.Cursor; cur != nil {
		m, err := s.store.Get(ctx, q.Filter.OrgID, cur.ID)
		switch {
		case err == nil && m.CreatedAt == cur.CreatedAt && q.Filter.Match(m.Attrs()):
			seen[m.ContentHash] = true
		case err != nil && !memory.IsNotFound(err):
			return memory.Page{}, err
		}
	}
	for at := q.Cursor; at != nil; {
		p, err := s.store.List(ctx, memory.ListQuery{Filter: q.Filter, Limit: memory.MaxListLimit, Cursor: at, Ascending: true})
		if err != nil {
			return memory.Page{}, err
		}
		if budget -= len(p.Memories); budget <= 0 {
			return memory.Page{}, memory.Errorf(memory.EINVALID,
				"unique: %d memories or more come before this cursor; narrow the listing (start, end or another filter)", MaxUniqueScan)
		}
		for _, m := range p.Memories {
			seen[m.ContentHash] = true
		}
		at = p.Next
	}
	// This page: the matches after the cursor whose content is new. Once
	// it is full, the rest of the batch read tells whether another page
	// has anything; past the batch, the page keeps its cursor (and the
	// next page may be empty).
	var out memory.Page
	at := q.Cursor
	batch := min(memory.MaxListLimit, max(2*q.Limit, 100))
	for budget > 0 {
		p, err := s.store.List(ctx, memory.ListQuery{Filter: q.Filter, Limit: min(batch, budget), Cursor: at})
		if err != nil {
			return memory.Page{}, err
		}
		for _, m := range p.Memories {
			if seen[m.ContentHash] {
				budget--
				at = &memory.Cursor{CreatedAt: m.CreatedAt, ID: m.ID}
				continue
			}
			if len(out.Memories) == q.Limit {
				return out, nil // more to come after out.Next, the last listed
			}
			budget--
			at = &memory.Cursor{CreatedAt: m.CreatedAt, ID: m.ID}
			seen[m.ContentHash] = true
			out.Memories = append(out.Memories, m)
			out.Next = at
		}
		if p.Next == nil {
			out.Next = nil // the last match: no page after
			return out, nil
		}
		if len(out.Memories) == q.Limit {
			return out, nil // full: whether more content comes is the next page's to find
		}
		at = p.Next
	}
	out.Next = at // the bound reached: go on from the last memory read
	return out, nil
}
