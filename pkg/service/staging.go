package service

import (
	"context"
	"fmt"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Staging is the part of the Worker face for pipelines that publish many memories as
// one unit, a document and its fragments: Stage stores them pending
// (invisible to get, list, search and context), CommitDocument makes them
// visible at once, and DiscardStaged drops what a failed or interrupted run
// staged. Callers' requests never reach it.

// Stage is Create for memories that stay invisible until CommitDocument
// publishes their document. They are stored with their embeddings but not
// indexed. A staged memory whose content duplicates a visible one of its
// scope is not stored again: its result carries the visible memory's id.
func (s *Worker) Stage(ctx context.Context, c memory.Caller, in []NewMemory) ([]memory.CreateResult, error) {
	return s.create(ctx, c, in, true)
}

// CommitDocument publishes document docID of c's org: its staged memories
// become visible, and its visible memories whose ids are not in keep (the
// previous version's) are retired, in one step of the store when it is a
// memory.DocumentCommitter, together with the status record (kind, id,
// value; none when kind is empty). Then the new memories are indexed in one
// batch and the retired ones forgotten. A crash after the store step leaves
// retired memories pending, which DiscardStaged removes on recovery, and
// new memories missing from the index, which the start-up index check adds.
func (s *Worker) CommitDocument(ctx context.Context, c memory.Caller, docID string, keep map[string]bool, kind, id string, value any) (memory.CommitResult, error) {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	var res memory.CommitResult
	if err := c.Valid(); err != nil {
		return res, err
	}
	if docID == "" {
		return res, memory.Errorf(memory.EINVALID, "documentId: required")
	}
	var retire []string
	f := memory.Filter{OrgID: c.OrgID, DocumentID: docID, IncludeArchived: true}
	var cur *memory.Cursor
	for {
		p, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: memory.MaxListLimit, Cursor: cur})
		if err != nil {
			return res, fmt.Errorf("commit %s: list: %w", docID, err)
		}
		for _, m := range p.Memories {
			if !keep[m.ID] && !m.Pending {
				retire = append(retire, m.ID)
			}
		}
		if p.Next == nil {
			break
		}
		cur = p.Next
	}
	dc := memory.DocumentCommit{OrgID: c.OrgID, DocumentID: docID, Retire: retire, RecordKind: kind, RecordID: id, Record: value}
	shown, err := s.commitStore(ctx, dc)
	if err != nil {
		return res, fmt.Errorf("commit %s: %w", docID, err)
	}
	res.Committed = len(shown)
	// Index the published memories in one batch: the embedded index applies
	// it as one transaction, so search shows the whole document at once.
	var pub []*memory.Memory
	for start := 0; start < len(shown); start += 500 {
		got, err := s.store.GetMany(ctx, c.OrgID, shown[start:min(len(shown), start+500)])
		if err != nil {
			return res, fmt.Errorf("commit %s: load: %w", docID, err)
		}
		for _, m := range got {
			if !m.Pending {
				pub = append(pub, m)
			}
		}
	}
	if err := s.index.Upsert(ctx, pub); err != nil {
		// Committed in the store, the truth: the start-up check indexes them.
		s.log.ErrorContext(ctx, "index after commit failed", "op", "commit", "org", c.OrgID, "document", docID,
			"count", len(pub), "err", err)
	}
	s.deriveKnowledge(ctx, c.OrgID, pub)
	n, err := s.DiscardStaged(ctx, c, docID)
	res.Retired = n
	return res, err
}

// commitStore applies dc atomically when the store can, else memory by
// memory: publish first, then retire, so readers never see neither.
func (s *Service) commitStore(ctx context.Context, dc memory.DocumentCommit) ([]string, error) {
	if cm, ok := s.store.(memory.DocumentCommitter); ok {
		return cm.CommitDocument(ctx, dc)
	}
	var shown []string
	flip := func(f memory.Filter, only map[string]bool, pending bool) error {
		var cur *memory.Cursor
		for {
			p, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: memory.MaxListLimit, Cursor: cur})
			if err != nil {
				return err
			}
			n := 0
			for _, m := range p.Memories {
				if m.Pending == pending || (only != nil && !only[m.ID]) {
					continue
				}
				m.Pending = pending
				if err := s.store.Update(ctx, m); err != nil && !memory.IsNotFound(err) {
					return err
				}
				n++
				if !pending {
					shown = append(shown, m.ID)
				}
			}
			switch {
			case n > 0:
				cur = nil // the flipped ones left the selection: read it again
			case p.Next == nil:
				return nil
			default:
				cur = p.Next
			}
		}
	}
	base := memory.Filter{OrgID: dc.OrgID, DocumentID: dc.DocumentID, IncludeArchived: true}
	staged := base
	staged.Pending = true
	if err := flip(staged, nil, false); err != nil {
		return nil, err
	}
	if len(dc.Retire) > 0 {
		only := map[string]bool{}
		for _, id := range dc.Retire {
			only[id] = true
		}
		if err := flip(base, only, true); err != nil {
			return nil, err
		}
	}
	if dc.RecordKind != "" {
		rs, ok := s.store.(memory.RecordStore)
		if !ok {
			return nil, fmt.Errorf("the store keeps no records")
		}
		if _, err := rs.PutRecord(ctx, dc.OrgID, dc.RecordKind, dc.RecordID, dc.Record, 0); err != nil {
			return nil, err
		}
	}
	return shown, nil
}

// DiscardStaged forgets the pending memories of document docID in c's org
// (every document's when docID is empty): what a failed or interrupted run
// staged, or what a commit retired. It reports how many it removed.
func (s *Worker) DiscardStaged(ctx context.Context, c memory.Caller, docID string) (int, error) {
	defer s.Invalidate(c.OrgID) // composed contexts are stale
	if err := c.Valid(); err != nil {
		return 0, err
	}
	f := memory.Filter{OrgID: c.OrgID, DocumentID: docID, IncludeArchived: true, Pending: true}
	if _, ok := s.store.(memory.DocumentCommitter); ok && docID != "" {
		// One transaction for the whole document: staged memories are
		// documents and fragments, which nothing derives facts from and
		// no turn follows, so the store and the derived copies (index,
		// knowledge refs) are all there is to remove.
		ids, err := s.store.DeleteWhere(ctx, f)
		if err != nil {
			return 0, fmt.Errorf("discard staged: %w", err)
		}
		if len(ids) == 0 {
			return 0, nil
		}
		if err := s.index.Delete(ctx, c.OrgID, ids); err != nil {
			s.log.ErrorContext(ctx, "index delete failed", "op", "discard", "org", c.OrgID, "count", len(ids), "err", err)
		}
		for _, fg := range s.forgetters {
			if err := fg.Forget(ctx, c.OrgID, ids); err != nil {
				return len(ids), fmt.Errorf("discard staged: derived data: %w", err)
			}
		}
		return len(ids), nil
	}
	removed := 0
	var cur *memory.Cursor
	for {
		p, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: memory.MaxListLimit, Cursor: cur})
		if err != nil {
			return removed, fmt.Errorf("discard staged: list: %w", err)
		}
		var ms []*memory.Memory
		for _, m := range p.Memories {
			if m.Pending && (docID == "" || m.DocumentID == docID) { // a store may ignore the flag
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			if p.Next == nil {
				return removed, nil
			}
			cur = p.Next
			continue
		}
		cur = nil
		got, err := s.forget(ctx, memory.Caller{OrgID: c.OrgID}, ms)
		removed += got.Memories
		if err != nil {
			return removed, fmt.Errorf("discard staged: %w", err)
		}
	}
}

// ListStaged returns a page of the staged memories of f.OrgID that match f
// (Pending is implied), for a pipeline's recovery.
func (s *Worker) ListStaged(ctx context.Context, f memory.Filter, cursor string) (memory.Page, error) {
	if f.OrgID == "" {
		return memory.Page{}, memory.Errorf(memory.EINTERNAL, "list staged: no org")
	}
	cur, err := memory.DecodeCursor(cursor)
	if err != nil {
		return memory.Page{}, err
	}
	f.Pending = true
	return s.store.List(ctx, memory.ListQuery{Filter: f, Limit: memory.MaxListLimit, Cursor: cur})
}
