package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agentmem/agentmem/pkg/memory"
)

var _ memory.DedupLookup = (*Store)(nil)

// GetByDedupKey implements memory.DedupLookup through the unique
// (org_id, dedup_key) index.
func (s *Store) GetByDedupKey(ctx context.Context, orgID, dedupKey string) (_ *memory.Memory, err error) {
	defer wrap(&err, "get by dedup key")
	m, err := scanMemory(s.queryRow(ctx, `SELECT `+columns+fromMemories+` WHERE org_id = ? AND dedup_key = ?`, orgID, dedupKey))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, memory.Errorf(memory.ENOTFOUND, "no memory holds that key")
	}
	return m, err
}
