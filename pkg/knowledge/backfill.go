package knowledge

import (
	"context"
	"fmt"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Backfill: memories written before knowledge extraction existed (or by a
// process without it) have no extraction status, so neither the write path
// nor RetryPending ever extracts them. Backfill walks an org's memories,
// newest first, a bounded number per pass, and extracts those without a
// status; its position is kept in a record (BackfillKind) when the store
// keeps records, so that a pass resumes where the previous one stopped,
// across restarts, and an org that is done costs one read.

// BackfillKind is the record kind of an org's backfill position.
const BackfillKind = "knowledge-backfill"

// DefaultBackfillPass is the most memories one Backfill call examines when
// its limit is 0.
const DefaultBackfillPass = 500

// backfillPage is the most memories listed at once, and backfillKeyPage
// the most keys (memory.MemoryKeyLister): the position is saved after
// each page, and a page of keys costs less than the save.
const (
	backfillPage    = 100
	backfillKeyPage = 1000
)

// backfillState is the record of an org's backfill.
type backfillState struct {
	Done      bool           `json:"done"`
	Cursor    *memory.Cursor `json:"cursor,omitempty"`
	Indexed   int            `json:"indexed"`
	UpdatedAt int64          `json:"updatedAt"`
}

// BackfillResult is what one Backfill pass did.
type BackfillResult struct {
	Examined int  `json:"examined"`
	Indexed  int  `json:"indexed"`
	Done     bool `json:"done"` // every memory of the org has a status
}

// Backfill examines up to limit memories of the org (0: DefaultBackfillPass)
// from where the last pass stopped and extracts the knowledge of those
// with no extraction status. A failed extraction leaves them pending (see
// Index), for RetryPending; the pass goes on. Without k.Records, each pass
// starts from the newest memory (correct, only slower).
func (k *Service) Backfill(ctx context.Context, orgID string, limit int) (BackfillResult, error) {
	var res BackfillResult
	if orgID == "" {
		return res, memory.Errorf(memory.EINTERNAL, "knowledge: backfill without org")
	}
	if limit <= 0 {
		limit = DefaultBackfillPass
	}
	var st backfillState
	var ver int64
	if k.Records != nil {
		v, err := k.Records.GetRecord(ctx, orgID, BackfillKind, "state", &st)
		if err != nil && !memory.IsNotFound(err) {
			return res, fmt.Errorf("knowledge: backfill: read position: %w", err)
		}
		ver = v
		if st.Done {
			res.Done = true
			return res, nil
		}
	}
	for res.Examined < limit {
		todo, examined, next, err := k.unindexed(ctx, orgID, st.Cursor, limit-res.Examined)
		if err != nil {
			return res, err
		}
		res.Examined += examined
		if len(todo) > 0 {
			if err := k.index(ctx, orgID, todo, k.Extractor, k.Fallback, nil); err != nil {
				// Marked pending by Index: RetryPending takes them over.
				k.log().WarnContext(ctx, "knowledge: backfill extraction failed: marked pending", "org", orgID, "count", len(todo), "err", err)
			} else {
				res.Indexed += len(todo)
				st.Indexed += len(todo)
			}
		}
		st.Cursor = next
		st.Done = next == nil
		if k.Records != nil {
			st.UpdatedAt = time.Now().UnixMilli()
			v, err := k.Records.PutRecord(ctx, orgID, BackfillKind, "state", st, ver)
			if memory.IsNotFound(err) && ver != 0 || memory.IsConflict(err) {
				return res, nil // another process walks this org; it keeps the position
			}
			if err != nil {
				return res, fmt.Errorf("knowledge: backfill: save position: %w", err)
			}
			ver = v
		}
		if st.Done {
			res.Done = true
			return res, nil
		}
	}
	return res, nil
}

// unindexed returns the extractable memories without an extraction status
// among the org's next page of memories after cursor (newest first,
// archived included, staged ones left out; a page of at most budget), how
// many it examined, and the cursor after them (nil at the end). A Store that lists keys
// (memory.MemoryKeyLister) is read only for the memories without a status: an
// org written with the knowledge on costs a walk of an index, not a read
// of every memory (at a million memories, 39% of a restarted server's CPU
// while it ran; docs/benchmarks.md). Other stores are listed whole.
func (k *Service) unindexed(ctx context.Context, orgID string, cursor *memory.Cursor, budget int) (todo []*memory.Memory, examined int, next *memory.Cursor, err error) {
	if kl, ok := k.Store.(memory.MemoryKeyLister); ok {
		keys, next, err := kl.ListMemoryKeys(ctx, orgID, cursor, min(backfillKeyPage, budget))
		if err != nil {
			return nil, 0, nil, fmt.Errorf("knowledge: backfill: list keys: %w", err)
		}
		ids := make([]string, len(keys))
		for i, key := range keys {
			ids[i] = key.ID
		}
		missing, err := k.withoutStatus(ctx, orgID, ids)
		if err != nil || len(missing) == 0 {
			return nil, len(keys), next, err
		}
		got, err := k.Store.GetMany(ctx, orgID, missing)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("knowledge: backfill: read: %w", err)
		}
		for _, id := range missing { // in the walk's order; a memory deleted since is gone
			if m := got[id]; m != nil && !m.Pending && Extractable(m.Type) {
				todo = append(todo, m)
			}
		}
		return todo, len(keys), next, nil
	}
	page, err := k.Store.List(ctx, memory.ListQuery{Filter: memory.Filter{OrgID: orgID, IncludeArchived: true},
		Limit: min(backfillPage, budget), Cursor: cursor})
	if err != nil {
		return nil, 0, nil, fmt.Errorf("knowledge: backfill: list: %w", err)
	}
	var ids []string
	byID := map[string]*memory.Memory{}
	for _, m := range page.Memories {
		if Extractable(m.Type) {
			ids = append(ids, m.ID)
			byID[m.ID] = m
		}
	}
	missing, err := k.withoutStatus(ctx, orgID, ids)
	if err != nil {
		return nil, 0, nil, err
	}
	for _, id := range missing {
		todo = append(todo, byID[id])
	}
	return todo, len(page.Memories), page.Next, nil
}

// withoutStatus returns the ids, in their order, that have no extraction
// status.
func (k *Service) withoutStatus(ctx context.Context, orgID string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	have, err := k.Terms.KnowledgeStatus(ctx, orgID, ids)
	if err != nil {
		return nil, fmt.Errorf("knowledge: backfill: status: %w", err)
	}
	var missing []string
	for _, id := range ids {
		if _, ok := have[id]; !ok {
			missing = append(missing, id)
		}
	}
	return missing, nil
}
