package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// idempotencySchema holds the idempotency keys, one row per (org, scope,
// key). Expired rows are purged a few at a time by each reservation; reads
// ignore them until then.
const idempotencySchema = `
CREATE TABLE IF NOT EXISTS idempotency (
	org_id      TEXT    NOT NULL,
	scope       TEXT    NOT NULL,
	key         TEXT    NOT NULL,
	fingerprint TEXT    NOT NULL,
	done        INTEGER NOT NULL,
	status      INTEGER NOT NULL,
	header      BLOB    NOT NULL,
	body        BLOB    NOT NULL,
	lease_until INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL,
	PRIMARY KEY (org_id, scope, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at);
`

// purgeBatch bounds the expired rows one reservation deletes.
const purgeBatch = 64

// IdempotencyStore is the SQLite memory.IdempotencyStore, in the store's
// database.
type IdempotencyStore struct {
	db *sql.DB // reads
	w  *sql.DB // the store's single writer
}

var _ memory.IdempotencyStore = (*IdempotencyStore)(nil)

// Idempotency returns the idempotency keys of s, creating their table if
// needed.
func (s *Store) Idempotency(ctx context.Context) (_ *IdempotencyStore, err error) {
	defer wrap(&err, "idempotency schema")
	if _, err := s.w.ExecContext(ctx, idempotencySchema); err != nil {
		return nil, err
	}
	return &IdempotencyStore{db: s.db, w: s.w}, nil
}

const idempotencyColumns = `fingerprint, done, status, header, body, lease_until, expires_at`

func scanIdempotency(row interface{ Scan(...any) error }, org, scope, key string) (*memory.IdempotencyRecord, error) {
	r := &memory.IdempotencyRecord{OrgID: org, Scope: scope, Key: key}
	var header []byte
	if err := row.Scan(&r.Fingerprint, &r.Done, &r.Status, &header, &r.Body, &r.LeaseUntil, &r.ExpiresAt); err != nil {
		return nil, err
	}
	if len(header) > 0 {
		if err := json.Unmarshal(header, &r.Header); err != nil {
			return nil, fmt.Errorf("header: %w", err)
		}
	}
	if !r.Done {
		r.Body, r.Header = nil, nil
	}
	return r, nil
}

// live reports whether r still holds its key at now (ms).
func live(r *memory.IdempotencyRecord, now int64) bool {
	return r.ExpiresAt > now && (r.Done || r.LeaseUntil > now)
}

// Reserve implements memory.IdempotencyStore.
func (s *IdempotencyStore) Reserve(ctx context.Context, r memory.IdempotencyRecord, now time.Time) (_ *memory.IdempotencyRecord, err error) {
	defer wrap(&err, "reserve idempotency key")
	at := now.UnixMilli()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	cur, err := scanIdempotency(tx.QueryRowContext(ctx, `SELECT `+idempotencyColumns+` FROM idempotency
		WHERE org_id = ? AND scope = ? AND key = ?`, r.OrgID, r.Scope, r.Key), r.OrgID, r.Scope, r.Key)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	case live(cur, at):
		return cur, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO idempotency (org_id, scope, key, `+idempotencyColumns+`)
		VALUES (?, ?, ?, ?, 0, 0, x'', x'', ?, ?)`, r.OrgID, r.Scope, r.Key, r.Fingerprint, r.LeaseUntil, r.ExpiresAt); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM idempotency WHERE (org_id, scope, key) IN
		(SELECT org_id, scope, key FROM idempotency WHERE expires_at <= ? LIMIT ?)`, at, purgeBatch); err != nil {
		return nil, err
	}
	return nil, tx.Commit()
}

// Complete implements memory.IdempotencyStore.
func (s *IdempotencyStore) Complete(ctx context.Context, r memory.IdempotencyRecord) (err error) {
	if len(r.Body) > memory.MaxIdempotentResponse {
		return memory.Errorf(memory.ETOOLARGE, "idempotent response: %d bytes exceed the limit of %d", len(r.Body), memory.MaxIdempotentResponse)
	}
	defer wrap(&err, "complete idempotency key")
	header, err := json.Marshal(r.Header)
	if err != nil {
		return err
	}
	body := r.Body
	if body == nil {
		body = []byte{}
	}
	res, err := s.w.ExecContext(ctx, `UPDATE idempotency SET done = 1, status = ?, header = ?, body = ?
		WHERE org_id = ? AND scope = ? AND key = ? AND fingerprint = ? AND done = 0`,
		r.Status, header, body, r.OrgID, r.Scope, r.Key, r.Fingerprint)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return memory.Errorf(memory.ENOTFOUND, "idempotency key %q is not reserved by this request", r.Key)
	}
	return nil
}

// Release implements memory.IdempotencyStore.
func (s *IdempotencyStore) Release(ctx context.Context, orgID, scope, key, fingerprint string) (err error) {
	defer wrap(&err, "release idempotency key")
	_, err = s.w.ExecContext(ctx, `DELETE FROM idempotency
		WHERE org_id = ? AND scope = ? AND key = ? AND fingerprint = ? AND done = 0`, orgID, scope, key, fingerprint)
	return err
}

// Get implements memory.IdempotencyStore.
func (s *IdempotencyStore) Get(ctx context.Context, orgID, scope, key string, now time.Time) (_ *memory.IdempotencyRecord, err error) {
	r, err := scanIdempotency(s.db.QueryRowContext(ctx, `SELECT `+idempotencyColumns+` FROM idempotency
		WHERE org_id = ? AND scope = ? AND key = ? AND expires_at > ?`, orgID, scope, key, now.UnixMilli()), orgID, scope, key)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, memory.Errorf(memory.ENOTFOUND, "idempotency key %q not found", key)
	}
	defer wrap(&err, "get idempotency key")
	return r, err
}
