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

// backfillPage is the most memories listed at once.
const backfillPage = 100

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
		page, err := k.Store.List(ctx, memory.ListQuery{Filter: memory.Filter{OrgID: orgID, IncludeArchived: true},
			Limit: min(backfillPage, limit-res.Examined), Cursor: st.Cursor})
		if err != nil {
			return res, fmt.Errorf("knowledge: backfill: list: %w", err)
		}
		res.Examined += len(page.Memories)
		var ids []string
		for _, m := range page.Memories {
			if Extractable(m.Type) {
				ids = append(ids, m.ID)
			}
		}
		var todo []*memory.Memory
		if len(ids) > 0 {
			have, err := k.Terms.KnowledgeStatus(ctx, orgID, ids)
			if err != nil {
				return res, fmt.Errorf("knowledge: backfill: status: %w", err)
			}
			for _, m := range page.Memories {
				if _, ok := have[m.ID]; !ok && Extractable(m.Type) {
					todo = append(todo, m)
				}
			}
		}
		if len(todo) > 0 {
			if err := k.index(ctx, orgID, todo, k.Extractor, k.Fallback, nil); err != nil {
				// Marked pending by Index: RetryPending takes them over.
				k.log().WarnContext(ctx, "knowledge: backfill extraction failed: marked pending", "org", orgID, "count", len(todo), "err", err)
			} else {
				res.Indexed += len(todo)
				st.Indexed += len(todo)
			}
		}
		st.Cursor = page.Next
		st.Done = page.Next == nil
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
