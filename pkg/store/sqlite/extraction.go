package sqlite

import (
	"context"
	"database/sql"
	"slices"

	"github.com/agentmem/agentmem/pkg/memory"
)

// extractionSchema is the extraction log (memory.ExtractionLog): one row
// per stored message whose facts are not extracted yet, written in the
// transaction of the message and deleted with it (dropDerived).
const extractionSchema = `
CREATE TABLE IF NOT EXISTS extraction_pending (
	org_id    TEXT NOT NULL,
	memory_id TEXT NOT NULL,
	agent_id  TEXT NOT NULL,
	PRIMARY KEY (org_id, memory_id)
) WITHOUT ROWID;
`

// awaitExtraction records m in the extraction log when ctx asks for it
// (memory.AwaitExtraction) and m is a message that is not staged.
func awaitExtraction(ctx context.Context, tx *sql.Tx, m *memory.Memory) error {
	if !memory.AwaitsExtraction(ctx) || m.Type != memory.TypeMessage || m.Pending {
		return nil
	}
	agent := ""
	if m.Change != nil {
		agent = m.Change.By.AgentID
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO extraction_pending (org_id, memory_id, agent_id) VALUES (?,?,?)
		ON CONFLICT (org_id, memory_id) DO NOTHING`, m.OrgID, m.ID, agent)
	return err
}

// PendingExtraction implements memory.ExtractionLog: the oldest messages
// first (ids sort by time), grouped by org and agent.
func (s *Store) PendingExtraction(ctx context.Context, limit int) (_ []memory.ExtractionJob, err error) {
	defer wrap(&err, "pending extraction")
	rows, err := s.query(ctx, `SELECT org_id, agent_id, memory_id FROM extraction_pending ORDER BY org_id, agent_id, memory_id LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memory.ExtractionJob
	for rows.Next() {
		var org, agent, id string
		if err := rows.Scan(&org, &agent, &id); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].OrgID != org || out[n-1].AgentID != agent || len(out[n-1].MessageIDs) == memory.MaxJobMessages {
			out = append(out, memory.ExtractionJob{OrgID: org, AgentID: agent})
		}
		j := &out[len(out)-1]
		j.MessageIDs = append(j.MessageIDs, id)
	}
	return out, rows.Err()
}

// ExtractionDone implements memory.ExtractionLog.
func (s *Store) ExtractionDone(ctx context.Context, orgID string, ids []string) (err error) {
	defer wrap(&err, "extraction done")
	for chunk := range slices.Chunk(ids, idsPerStatement) {
		if _, err := s.w.ExecContext(ctx, `DELETE FROM extraction_pending WHERE org_id = ? AND memory_id IN (`+placeholders(len(chunk))+`)`, inArgs(chunk, orgID)...); err != nil {
			return err
		}
	}
	return nil
}
