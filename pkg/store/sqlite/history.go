package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentmem/agentmem/pkg/memory"
)

// putMeta replaces the filterable metadata pairs of m (memory_meta, the
// side table that metadata filters probe).
func putMeta(ctx context.Context, tx *sql.Tx, m *memory.Memory) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_meta WHERE org_id = ? AND memory_id = ?`, m.OrgID, m.ID); err != nil {
		return err
	}
	for _, p := range memory.MetadataPairs(m.Metadata) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_meta (org_id, memory_id, pair) VALUES (?,?,?)`, m.OrgID, m.ID, p); err != nil {
			return err
		}
	}
	return nil
}

// putRevision records the version of m whose body is body in its history;
// op is used when m carries no Change.
func putRevision(ctx context.Context, tx *sql.Tx, m *memory.Memory, body []byte, op string) error {
	var by memory.Actor
	if m.Change != nil {
		op, by = m.Change.Op, m.Change.By
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO memory_history (org_id, memory_id, version, op, at, key_id, agent_id, body)
		VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (org_id, memory_id, version) DO UPDATE SET op = excluded.op, at = excluded.at,
		key_id = excluded.key_id, agent_id = excluded.agent_id, body = excluded.body`,
		m.OrgID, m.ID, m.Version, op, m.UpdatedAt, by.KeyID, by.AgentID, body)
	if err != nil || op != memory.OpRedact {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM memory_history WHERE org_id = ? AND memory_id = ? AND version < ?`, m.OrgID, m.ID, m.Version)
	return err
}

// dropDerived deletes what is kept beside deleted memories: their metadata
// pairs, their history, which holds every earlier version's content,
// their entries in the extraction log, and their access rows.
func dropDerived(ctx context.Context, tx *sql.Tx, orgID string, ids []string) error {
	args := inArgs(ids, orgID)
	for _, table := range []string{"memory_meta", "memory_history", "extraction_pending"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE org_id = ? AND memory_id IN (`+placeholders(len(ids))+`)`, args...); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM acc.accesses WHERE acc_org = ? AND acc_memory IN (`+placeholders(len(ids))+`)`, args...)
	return err
}

// History implements memory.HistoryStore.
func (s *Store) History(ctx context.Context, orgID, id string) (_ []memory.Revision, err error) {
	defer wrap(&err, "history of %s", id)
	var one int
	if err := s.queryRow(ctx, `SELECT 1 FROM memories WHERE org_id = ? AND id = ?`, orgID, id).Scan(&one); errors.Is(err, sql.ErrNoRows) {
		return nil, memory.ErrNotFound(id)
	} else if err != nil {
		return nil, err
	}
	rows, err := s.query(ctx, `SELECT version, op, at, key_id, agent_id, body FROM memory_history
		WHERE org_id = ? AND memory_id = ? ORDER BY version`, orgID, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memory.Revision
	for rows.Next() {
		var r memory.Revision
		var body []byte
		if err := rows.Scan(&r.Version, &r.Op, &r.At, &r.By.KeyID, &r.By.AgentID, &body); err != nil {
			return nil, err
		}
		r.Memory = new(memory.Memory)
		if err := json.Unmarshal(body, r.Memory); err != nil {
			return nil, fmt.Errorf("decode version %d: %w", r.Version, err)
		}
		r.Memory.Version = r.Version
		out = append(out, r)
	}
	return out, rows.Err()
}

// metaVersion is the PRAGMA user_version from which memory_meta is filled
// for every memory; databases of earlier versions are backfilled on open.
const metaVersion = 1

// backfillMeta fills memory_meta from the memories of a database written
// before it existed.
func backfillMeta(db *sql.DB) error {
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v >= metaVersion {
		return nil
	}
	type row struct {
		org, id string
		meta    json.RawMessage
	}
	var todo []row
	rows, err := db.Query(`SELECT org_id, id, json_extract(body, '$.metadata') FROM memories
		WHERE json_type(body, '$.metadata') = 'object'`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var r row
		var meta sql.NullString
		if err := rows.Scan(&r.org, &r.id, &meta); err != nil {
			rows.Close()
			return err
		}
		r.meta = json.RawMessage(meta.String)
		todo = append(todo, r)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, r := range todo {
		for _, p := range memory.MetadataPairs(r.meta) {
			if _, err := tx.Exec(`INSERT OR IGNORE INTO memory_meta (org_id, memory_id, pair) VALUES (?,?,?)`, r.org, r.id, p); err != nil {
				return err
			}
		}
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, metaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}
