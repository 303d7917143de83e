package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// keysSchema holds the API keys and the per-org usage counters.
//
// api_keys is keyed by the hash of the secret (the authenticator's lookup,
// across orgs) with a unique (org_id, id) index for the admin API's list
// and revoke. grants is memory.Grants' bit set.
//
// org_usage is kept by triggers on memories in the same transaction as
// every insert, delete and update, so it is exact under any concurrency and
// reads in one row: memories, bytes of content text (UTF-8), and memories
// of type document. initUsage fills it once for a database made before it
// existed.
const keysSchema = `
CREATE TABLE IF NOT EXISTS api_keys (
	hash       TEXT    NOT NULL PRIMARY KEY,
	org_id     TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	agent_id   TEXT    NOT NULL,
	name       TEXT    NOT NULL,
	grants     INTEGER NOT NULL,
	prefix     TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_org ON api_keys (org_id, id);
`

var usageSchema = `
CREATE TABLE IF NOT EXISTS org_usage (
	org_id    TEXT    NOT NULL PRIMARY KEY,
	memories  INTEGER NOT NULL,
	bytes     INTEGER NOT NULL,
	documents INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS org_usage_insert AFTER INSERT ON memories BEGIN
	INSERT INTO org_usage (org_id, memories, bytes, documents)
	VALUES (NEW.org_id, 1, ` + textBytes("NEW") + `, NEW.type = 'document')
	ON CONFLICT (org_id) DO UPDATE SET memories = memories + 1, bytes = bytes + excluded.bytes,
		documents = documents + excluded.documents;
END;
CREATE TRIGGER IF NOT EXISTS org_usage_delete AFTER DELETE ON memories BEGIN
	UPDATE org_usage SET memories = memories - 1, bytes = bytes - ` + textBytes("OLD") + `,
		documents = documents - (OLD.type = 'document') WHERE org_id = OLD.org_id;
END;
CREATE TRIGGER IF NOT EXISTS org_usage_update AFTER UPDATE OF body, type ON memories BEGIN
	UPDATE org_usage SET bytes = bytes + ` + textBytes("NEW") + ` - ` + textBytes("OLD") + `,
		documents = documents + (NEW.type = 'document') - (OLD.type = 'document') WHERE org_id = NEW.org_id;
END;
`

// textBytes is the SQL for the UTF-8 length of a memory row's content text
// (the body is JSON stored as a blob; json_extract reads text).
func textBytes(row string) string {
	return `coalesce(length(CAST(json_extract(CAST(` + row + `.body AS TEXT), '$.content.text') AS BLOB)), 0)`
}

// initUsage creates the usage table and its triggers, and, when the table
// is new, counts what the database already holds, in one write
// transaction so that no write falls between the count and the triggers.
func initUsage(db *sql.DB) (err error) {
	defer wrap(&err, "usage schema")
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'org_usage'`).Scan(&n); err != nil {
		return err
	}
	if _, err := tx.Exec(usageSchema); err != nil {
		return err
	}
	if n == 0 {
		if _, err := tx.Exec(`INSERT INTO org_usage (org_id, memories, bytes, documents)
			SELECT org_id, count(*), coalesce(sum(` + strings.ReplaceAll(textBytes("m"), "m.body", "body") + `), 0),
				coalesce(sum(type = 'document'), 0)
			FROM memories m GROUP BY org_id`); err != nil {
			return err
		}
	}
	return tx.Commit()
}

var (
	_ memory.KeyStore     = (*Store)(nil)
	_ memory.UsageCounter = (*Store)(nil)
)

// Usage implements memory.UsageCounter: one row read.
func (s *Store) Usage(ctx context.Context, org string) (_ memory.OrgUsage, err error) {
	defer wrap(&err, "usage of %s", org)
	var u memory.OrgUsage
	err = s.queryRow(ctx, `SELECT memories, bytes, documents FROM org_usage WHERE org_id = ?`, org).
		Scan(&u.Memories, &u.Bytes, &u.Documents)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.OrgUsage{}, nil
	}
	return u, err
}

// CreateKey implements memory.KeyStore.
func (s *Store) CreateKey(ctx context.Context, k memory.APIKey) (err error) {
	defer wrap(&err, "create key %s", k.ID)
	if err := k.Validate(); err != nil {
		return err
	}
	_, err = s.w.ExecContext(ctx, `INSERT INTO api_keys (hash, org_id, id, agent_id, name, grants, prefix, created_at, revoked_at)
		VALUES (?,?,?,?,?,?,?,?,?)`, k.Hash, k.OrgID, k.ID, k.AgentID, k.Name, int64(k.Grants), k.Prefix,
		k.CreatedAt.UnixMilli(), millis(k.RevokedAt))
	if isUnique(err) {
		return memory.Errorf(memory.ECONFLICT, "the key exists already")
	}
	return err
}

const keyColumns = `hash, org_id, id, agent_id, name, grants, prefix, created_at, revoked_at`

func scanKey(r scanner) (memory.APIKey, error) {
	var k memory.APIKey
	var grants, created int64
	var revoked sql.NullInt64
	if err := r.Scan(&k.Hash, &k.OrgID, &k.ID, &k.AgentID, &k.Name, &grants, &k.Prefix, &created, &revoked); err != nil {
		return k, err
	}
	k.Grants, k.CreatedAt = memory.Grants(grants), time.UnixMilli(created).UTC()
	if revoked.Valid {
		t := time.UnixMilli(revoked.Int64).UTC()
		k.RevokedAt = &t
	}
	return k, nil
}

func millis(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

// KeyByHash implements memory.KeyStore.
func (s *Store) KeyByHash(ctx context.Context, hash string) (_ memory.APIKey, err error) {
	defer wrap(&err, "key by hash")
	k, err := scanKey(s.queryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return k, memory.Errorf(memory.ENOTFOUND, "no such key")
	}
	return k, err
}

// ListKeys implements memory.KeyStore.
func (s *Store) ListKeys(ctx context.Context, org string) (_ []memory.APIKey, err error) {
	defer wrap(&err, "list keys of %s", org)
	rows, err := s.query(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE org_id = ? ORDER BY id`, org)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []memory.APIKey{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeKey implements memory.KeyStore.
func (s *Store) RevokeKey(ctx context.Context, org, id string, at time.Time) (_ memory.APIKey, err error) {
	defer wrap(&err, "revoke key %s", id)
	k, err := scanKey(s.queryRow(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?)
		WHERE org_id = ? AND id = ? RETURNING `+keyColumns, at.UnixMilli(), org, id))
	if errors.Is(err, sql.ErrNoRows) {
		return k, memory.Errorf(memory.ENOTFOUND, "key %q not found", id)
	}
	return k, err
}
