// Package sqlite is the embedded Store: memories in one SQLite database file
// (modernc.org/sqlite, pure Go, no cgo) in WAL mode.
//
// One table holds every org's memories, keyed (org_id, id). The filterable
// attributes are columns with indexes for the list orders; the whole memory
// is kept as JSON beside them, and the embedding as little-endian float32s.
// A unique index on (org_id, dedup_key) makes deduplication atomic: two
// concurrent writers of the same content produce one row. Access counts
// are kept in a second file beside it (access.go), so that recording them
// leaves the readers' caches of the first whole.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"
)

const schema = `
CREATE TABLE IF NOT EXISTS memories (
	org_id           TEXT    NOT NULL,
	id               TEXT    NOT NULL,
	agent_id         TEXT    NOT NULL,
	type             TEXT    NOT NULL,
	kind             TEXT    NOT NULL,
	room_id          TEXT    NOT NULL,
	entity_id        TEXT    NOT NULL,
	session_id       TEXT    NOT NULL,
	document_id      TEXT    NOT NULL,
	durability       TEXT    NOT NULL,
	dedup_key        TEXT    NOT NULL,
	created_at       INTEGER NOT NULL,
	archived         INTEGER NOT NULL,
	version          INTEGER NOT NULL,
	access_count     INTEGER NOT NULL DEFAULT 0,
	last_accessed_at INTEGER NOT NULL DEFAULT 0,
	body             BLOB    NOT NULL,
	embedding_model  TEXT    NOT NULL,
	embedding        BLOB,
	PRIMARY KEY (org_id, id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS memories_dedup   ON memories (org_id, dedup_key);
CREATE INDEX IF NOT EXISTS memories_created ON memories (org_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_room    ON memories (org_id, room_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_entity  ON memories (org_id, entity_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_session ON memories (org_id, session_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_room_type    ON memories (org_id, room_id, type, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_session_type ON memories (org_id, session_id, type, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_entity_type  ON memories (org_id, entity_id, type, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_type    ON memories (org_id, type, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_doc     ON memories (org_id, document_id);
CREATE TABLE IF NOT EXISTS relations (
	org_id  TEXT NOT NULL,
	from_id TEXT NOT NULL,
	type    TEXT NOT NULL,
	to_id   TEXT NOT NULL,
	body    BLOB NOT NULL,
	PRIMARY KEY (org_id, from_id, type, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS relations_to ON relations (org_id, to_id);
CREATE TABLE IF NOT EXISTS memory_meta (
	org_id    TEXT NOT NULL,
	memory_id TEXT NOT NULL,
	pair      TEXT NOT NULL,
	PRIMARY KEY (org_id, memory_id, pair)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memory_meta_pair ON memory_meta (org_id, pair);
CREATE TABLE IF NOT EXISTS memory_history (
	org_id    TEXT    NOT NULL,
	memory_id TEXT    NOT NULL,
	version   INTEGER NOT NULL,
	op        TEXT    NOT NULL,
	at        INTEGER NOT NULL,
	key_id    TEXT    NOT NULL,
	agent_id  TEXT    NOT NULL,
	body      BLOB    NOT NULL,
	PRIMARY KEY (org_id, memory_id, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
	org_id  TEXT    NOT NULL,
	kind    TEXT    NOT NULL,
	id      TEXT    NOT NULL,
	version INTEGER NOT NULL,
	value   BLOB    NOT NULL,
	PRIMARY KEY (org_id, kind, id)
) WITHOUT ROWID;
` + knowledgeSchema + keysSchema + extractionSchema

// Store is the SQLite Store. It is safe for concurrent use.
type Store struct {
	db *sql.DB // reads
	// w is the single writer: one connection, so that write transactions
	// queue in the process, in order and for as long as their context
	// allows, instead of polling SQLite's lock against busy_timeout, which
	// starved some of them past it under many concurrent writers (20
	// clients posting 1 MiB batches: a 503 now and then). busy_timeout
	// still bounds the wait on another process (memctl).
	w     *sql.DB
	stmts stmts
	// writes are the writer's prepared statements (writeStmt).
	writes stmts
}

var (
	_ memory.Store             = (*Store)(nil)
	_ memory.HistoryStore      = (*Store)(nil)
	_ memory.RelationStore     = (*Store)(nil)
	_ memory.RecordStore       = (*Store)(nil)
	_ memory.DocumentCommitter = (*Store)(nil)
	_ memory.ExtractionLog     = (*Store)(nil)
)

// walCheckpointBytes is the size of the write-ahead log past which a
// commit copies it into the database (SQLite's default is 1,000 pages,
// 4 MiB at 4 KiB pages). An ingest batch rewrites the same B-tree pages of
// the term index many times over; each checkpoint writes a page once
// however many times the log holds it, so a longer log writes far less.
// At 128 MiB of log at most (replayed at open after a crash) ingest went
// from 514-519 to 740-797 memories/s at 100,000 memories and from 417-421
// to 556-581 at 1,000,000, with every commit still synced (synchronous
// FULL). SQLite counts the bound in pages (walCheckpointPages).
const walCheckpointBytes = 128 << 20

// pageSize is the page size of a new database. A memory's row, with its
// 384-dimension vector, is about 2.3 KB, and a 4 KiB page keeps at most
// about 1,000 bytes of a row of a WITHOUT ROWID table: the rest went to an
// overflow page of its own, mostly empty. At a million memories the
// memories table took 4.4 GB of pages for 2.3 GB of rows, and the history
// 1.5 GB for 0.8. A 16 KiB page keeps rows of up to about 4,000 bytes
// whole: 2.5 and 0.8 GB, and the whole file 12.8 → 10.0 GB
// (docs/benchmarks.md, issue 41). A database keeps the page size it was
// created with; VACUUM rewrites it at the size the connection asks for.
const pageSize = 16384

// walCheckpointPages is walCheckpointBytes in pages of the database at
// path: pageSize for a new one, else the size its header records.
func walCheckpointPages(path string) int {
	return walCheckpointBytes / existingPageSize(path)
}

// existingPageSize reads the page size from the header of the database
// file at path (bytes 16-17, big-endian, 1 meaning 65,536); pageSize when
// there is no database there yet, which Open then creates at pageSize.
func existingPageSize(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return pageSize
	}
	defer f.Close()
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:16]) != "SQLite format 3\x00" {
		return pageSize // empty, or not written yet
	}
	if n := int(binary.BigEndian.Uint16(h[16:18])); n != 1 {
		return n
	}
	return 65536
}

// readers is how many connections read at once. Each keeps its own page
// cache (cache_size), so all of them stay open when idle: database/sql
// keeps two by default, and closed the others after every burst of
// concurrent reads (a search's lists read at once), so that the next
// burst opened connections with empty caches, each page of the term index
// read again through a system call. At a million memories, 67 connections
// were reopened in a thousand searches.
const readers = 8

// Open opens (creating if needed) the database at path.
func Open(path string) (_ *Store, err error) {
	defer wrap(&err, "open %s", path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	// synchronous(FULL): in WAL mode, NORMAL syncs the log only at
	// checkpoints, so a transaction that was committed, and answered, may
	// be lost with the machine (power, kernel, a VM stopped). FULL syncs
	// the log at every commit: an answered write survives anything short
	// of losing the disk, for one fsync per write transaction.
	//
	// temp_store(MEMORY): a multi-row statement inside a transaction keeps
	// a statement journal to undo itself alone; on disk, each was a
	// temporary file opened, written and closed, 16% of the CPU of an
	// ingest that indexes knowledge. cache_size(-32768): 32 MiB of pages
	// per connection (the default is 2 MiB), so the term index's B-trees are
	// read from memory rather than through a system call per page.
	// page_size: see pageSize. It must precede the switch to the log,
	// which writes a new database's first page, so the log is asked for
	// with _journal_mode, which the driver applies after the _pragma list
	// (that list it sorts by name). A database that exists keeps its page
	// size. wal_autocheckpoint: see walCheckpointBytes.
	dsn := "file:" + path + "?_txlock=immediate&_journal_mode=WAL&_pragma=page_size(" + strconv.Itoa(pageSize) + ")" +
		"&_pragma=synchronous(FULL)" +
		"&_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-32768)" +
		"&_pragma=wal_autocheckpoint(" + strconv.Itoa(walCheckpointPages(path)) + ")"
	conns := connector{dsn: dsn, access: AccessPath(path)}
	db := sql.OpenDB(conns)
	db.SetMaxOpenConns(readers)
	db.SetMaxIdleConns(readers)
	for _, q := range []string{schema, `PRAGMA acc.journal_mode = WAL`, accessSchema} {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, fmt.Errorf("schema: %w", err)
		}
	}
	if err := migrate(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("schema: %w", err)
	}
	if err := initUsage(db); err != nil {
		db.Close()
		return nil, err
	}
	w := sql.OpenDB(conns)
	w.SetMaxOpenConns(1)
	return &Store{db: db, w: w}, nil
}

// migrate adds the columns that databases created by earlier versions lack:
// pending (staged memories of uncommitted documents, memory.Memory.Pending),
// and world_id and audience (memory.Memory.Audience) on the memories and
// on every knowledge row. Rows written before visibilities existed have
// no audience, so they read as shared or agent memories, as they did; their
// world, which no filter selected before, is copied from the memory's body.
func migrate(db *sql.DB) error {
	if _, err := addColumn(db, "memories", "pending", "INTEGER NOT NULL DEFAULT 0"); err != nil {
		return err
	}
	if _, err := db.Exec(`CREATE INDEX IF NOT EXISTS memories_pending ON memories (org_id, document_id) WHERE pending = 1`); err != nil {
		return err
	}
	added, err := addColumn(db, "memories", "world_id", "TEXT NOT NULL DEFAULT ''")
	if err != nil {
		return err
	}
	if added {
		if _, err := db.Exec(`UPDATE memories SET world_id = json_extract(body, '$.worldId')
			WHERE json_type(body, '$.worldId') = 'text'`); err != nil {
			return err
		}
	}
	if _, err := addColumn(db, "memories", "audience", "TEXT NOT NULL DEFAULT ''"); err != nil {
		return err
	}
	if _, err := db.Exec(`CREATE INDEX IF NOT EXISTS memories_world ON memories (org_id, world_id, created_at DESC, id DESC)`); err != nil {
		return err
	}
	for _, table := range []string{"knowledge_refs", "knowledge_terms", "knowledge_props"} {
		added, err := addColumn(db, table, "world_id", "TEXT NOT NULL DEFAULT ''")
		if err != nil {
			return err
		}
		if added {
			if _, err := db.Exec(`UPDATE ` + table + ` SET world_id = (SELECT m.world_id FROM memories m
				WHERE m.org_id = ` + table + `.org_id AND m.id = ` + table + `.memory_id)
				WHERE EXISTS (SELECT 1 FROM memories m WHERE m.org_id = ` + table + `.org_id AND m.id = ` + table + `.memory_id
				AND m.world_id <> '')`); err != nil {
				return err
			}
		}
		if _, err := addColumn(db, table, "audience", "TEXT NOT NULL DEFAULT ''"); err != nil {
			return err
		}
	}
	return backfillMeta(db)
}

// addColumn adds column (of type decl) to table unless it has it, and
// reports whether it did.
func addColumn(db *sql.DB, table, column, decl string) (bool, error) {
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?`, table, column).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if _, err := db.Exec(`ALTER TABLE ` + table + ` ADD COLUMN ` + column + ` ` + decl); err != nil {
		return false, fmt.Errorf("add %s.%s: %w", table, column, err)
	}
	return true, nil
}

// Close closes the database.
func (s *Store) Close() (err error) {
	defer wrap(&err, "close")
	s.closeStmts()
	return errors.Join(s.w.Close(), s.db.Close())
}

type scanner interface{ Scan(dest ...any) error }

// scanMemory reads the columns of `columns`, then any extra destinations.
func scanMemory(r scanner, extra ...any) (*memory.Memory, error) {
	var body, emb []byte
	var m memory.Memory
	var model string
	var access, last, version int64
	var pending bool
	if err := r.Scan(append([]any{&body, &access, &last, &version, &model, &emb, &pending}, extra...)...); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("decode memory: %w", err)
	}
	// The column is the truth: a commit flips it without rewriting bodies.
	m.AccessCount, m.LastAccessedAt, m.Version, m.Pending = access, last, version, pending
	m.EmbeddingModel, m.Embedding = model, memory.DecodeVector(emb)
	return &m, nil
}

// wrap prefixes the error of a failed operation with the adapter and the
// operation, keeping it in the chain (%w): memory.ErrorCode still finds
// ENOTFOUND, ECONFLICT and the other codes through it.
func wrap(err *error, format string, args ...any) {
	if *err != nil {
		*err = fmt.Errorf("sqlite: "+format+": %w", append(args, busy(*err))...)
	}
}

// busy turns the database's SQLITE_BUSY and SQLITE_LOCKED (the single
// writer still held after busy_timeout) into EUNAVAILABLE, which callers
// retry (503 with Retry-After) rather than an internal error; other
// errors pass through.
func busy(err error) error {
	var me *memory.Error
	if errors.As(err, &me) {
		return err
	}
	if isBusy(err) {
		return fmt.Errorf("%w (%v)", memory.Errorf(memory.EUNAVAILABLE, "the database is busy; retry"), err)
	}
	return err
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED.
func isBusy(err error) bool {
	var se *sqlite3.Error
	return errors.As(err, &se) && (se.Code()&0xff == sqlite3lib.SQLITE_BUSY || se.Code()&0xff == sqlite3lib.SQLITE_LOCKED)
}

func isUnique(err error) bool {
	var e *sqlite3.Error
	return errors.As(err, &e) && (e.Code() == sqlite3lib.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3lib.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// Create implements memory.Store.
func (s *Store) Create(ctx context.Context, ms []*memory.Memory) (_ []memory.CreateResult, err error) {
	defer wrap(&err, "create %d memories", len(ms))
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	out := make([]memory.CreateResult, len(ms))
	for i, m := range ms {
		key := memory.DedupKey(m)
		var existing string
		err := tx.QueryRowContext(ctx, `SELECT id FROM memories WHERE org_id = ? AND dedup_key = ?`, m.OrgID, key).Scan(&existing)
		if err == nil {
			out[i] = memory.CreateResult{ID: existing, Duplicate: true}
			continue
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if err := insert(ctx, tx, m, key); err != nil {
			return nil, err
		}
		out[i] = memory.CreateResult{ID: m.ID}
	}
	return out, tx.Commit()
}

func insert(ctx context.Context, tx *sql.Tx, m *memory.Memory, key string) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO memories (org_id, id, agent_id, type, kind, room_id, entity_id, session_id,
		document_id, durability, dedup_key, created_at, archived, version, access_count, last_accessed_at, body,
		embedding_model, embedding, pending, world_id, audience) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		m.OrgID, m.ID, m.AgentID, m.Type, m.Kind, m.RoomID, m.EntityID, m.SessionID, m.DocumentID, m.Durability,
		key, m.CreatedAt, m.Archived, m.Version, m.AccessCount, m.LastAccessedAt, body, m.EmbeddingModel, memory.EncodeVector(m.Embedding),
		m.Pending, m.WorldID, m.Audience())
	if isUnique(err) {
		return memory.Errorf(memory.ECONFLICT, "memory %q already exists", m.ID)
	}
	if err != nil {
		return err
	}
	if err := putMeta(ctx, tx, m); err != nil {
		return err
	}
	if err := awaitExtraction(ctx, tx, m); err != nil {
		return err
	}
	return putRevision(ctx, tx, m, body, memory.OpCreate)
}

// Get implements memory.Store.
func (s *Store) Get(ctx context.Context, orgID, id string) (_ *memory.Memory, err error) {
	defer wrap(&err, "get %s", id)
	m, err := scanMemory(s.queryRow(ctx, `SELECT `+columns+fromMemories+` WHERE org_id = ? AND id = ?`, orgID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, memory.ErrNotFound(id)
	}
	return m, err
}

// GetMany implements memory.Store.
func (s *Store) GetMany(ctx context.Context, orgID string, ids []string) (_ map[string]*memory.Memory, err error) {
	defer wrap(&err, "get %d memories", len(ids))
	out := make(map[string]*memory.Memory, len(ids))
	for chunk := range slices.Chunk(ids, idsPerStatement) {
		rows, err := s.query(ctx, `SELECT `+columns+fromMemories+` WHERE org_id = ? AND id IN (`+placeholders(len(chunk))+`)`, inArgs(chunk, orgID)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			m, err := scanMemory(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[m.ID] = m
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// idsPerStatement is how many ids one statement binds at most, in an
// "id IN (...)" list. SQLite refuses a statement of more than 32,766
// variables, and a call may name more ids than that (the access writer
// gathers up to 50,000); shorter lists also keep each statement's plan a
// handful of seeks.
const idsPerStatement = 500

// inArgs returns lead followed by ids: the arguments of a statement whose
// last variables are "IN (" + placeholders(len(ids)) + ")".
func inArgs(ids []string, lead ...any) []any {
	args := make([]any, 0, len(lead)+len(ids))
	args = append(args, lead...)
	for _, id := range ids {
		args = append(args, id)
	}
	return args
}

// Update implements memory.Store.
func (s *Store) Update(ctx context.Context, m *memory.Memory) (err error) {
	defer wrap(&err, "update %s", m.ID)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int64
	err = tx.QueryRowContext(ctx, `SELECT version FROM memories WHERE org_id = ? AND id = ?`, m.OrgID, m.ID).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.ErrNotFound(m.ID)
	} else if err != nil {
		return err
	}
	if version != m.Version {
		return memory.Errorf(memory.ECONFLICT, "memory %q was changed concurrently (version %d, expected %d)", m.ID, version, m.Version)
	}
	key := memory.DedupKey(m)
	var other string
	err = tx.QueryRowContext(ctx, `SELECT id FROM memories WHERE org_id = ? AND dedup_key = ? AND id <> ?`, m.OrgID, key, m.ID).Scan(&other)
	if err == nil {
		return &memory.DuplicateError{ExistingID: other}
	} else if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	next := *m
	next.Version++
	body, err := json.Marshal(&next)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE memories SET agent_id=?, type=?, kind=?, room_id=?, entity_id=?, session_id=?,
		document_id=?, durability=?, dedup_key=?, created_at=?, archived=?, version=?, body=?, embedding_model=?, embedding=?,
		pending=?, world_id=?, audience=? WHERE org_id = ? AND id = ?`,
		m.AgentID, m.Type, m.Kind, m.RoomID, m.EntityID, m.SessionID, m.DocumentID, m.Durability, key, m.CreatedAt,
		m.Archived, next.Version, body, m.EmbeddingModel, memory.EncodeVector(m.Embedding), m.Pending, m.WorldID, m.Audience(),
		m.OrgID, m.ID)
	if err != nil {
		return err
	}
	if err := putMeta(ctx, tx, &next); err != nil {
		return err
	}
	if err := putRevision(ctx, tx, &next, body, memory.OpUpdate); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	m.Version = next.Version
	return nil
}

// Delete implements memory.Store; the memory's relations go with it.
func (s *Store) Delete(ctx context.Context, orgID, id string) (err error) {
	defer wrap(&err, "delete %s", id)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE org_id = ? AND id = ?`, orgID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return memory.ErrNotFound(id)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM relations WHERE org_id = ? AND (from_id = ? OR to_id = ?)`, orgID, id, id); err != nil {
		return err
	}
	if err := dropDerived(ctx, tx, orgID, []string{id}); err != nil {
		return err
	}
	return tx.Commit()
}

// PutRelations implements memory.RelationStore.
func (s *Store) PutRelations(ctx context.Context, rs []memory.Relation) (err error) {
	defer wrap(&err, "put %d relations", len(rs))
	for _, r := range rs {
		if err := r.Validate(); err != nil {
			return err
		}
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, r := range rs {
		body, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO relations (org_id, from_id, type, to_id, body) VALUES (?,?,?,?,?)
			ON CONFLICT (org_id, from_id, type, to_id) DO UPDATE SET body = excluded.body`,
			r.OrgID, r.FromID, r.Type, r.ToID, body); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Relations implements memory.RelationStore.
func (s *Store) Relations(ctx context.Context, orgID, memoryID string) (_ []memory.Relation, err error) {
	defer wrap(&err, "relations of %s", memoryID)
	rows, err := s.query(ctx, `SELECT body FROM relations WHERE org_id = ? AND (from_id = ? OR to_id = ?)
		ORDER BY type, CASE WHEN from_id = ? THEN to_id ELSE from_id END`, orgID, memoryID, memoryID, memoryID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memory.Relation
	for rows.Next() {
		var body []byte
		var r memory.Relation
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteRelation implements memory.RelationStore.
func (s *Store) DeleteRelation(ctx context.Context, orgID, fromID string, t memory.RelationType, toID string) (err error) {
	defer wrap(&err, "delete relation %s %s %s", fromID, t, toID)
	_, err = s.db.ExecContext(ctx, `DELETE FROM relations WHERE org_id = ? AND from_id = ? AND type = ? AND to_id = ?`, orgID, fromID, t, toID)
	return err
}

// memoriesWhere is where for the memories table, which also holds staged
// memories: they match only a filter that asks for them (Filter.Pending).
// The term index never holds them (knowledge is derived on commit).
func memoriesWhere(f memory.Filter) (string, []any) {
	cond, args := where(f)
	cond, args = cond+" AND pending = ?", append(args, f.Pending)
	// Each metadata key is one probe of the (org, memory, pair) key.
	for _, k := range f.Metadata.Keys() {
		pairs := f.Metadata.Pairs(k)
		cond += " AND EXISTS (SELECT 1 FROM memory_meta mm WHERE mm.org_id = memories.org_id AND mm.memory_id = memories.id" +
			" AND mm.pair IN (" + placeholders(len(pairs)) + "))"
		for _, p := range pairs {
			args = append(args, p)
		}
	}
	return cond, args
}

// listSQL is List's query: the memories q.Filter selects, from the cursor
// on, newest (or oldest) first, one more than the limit.
func listSQL(q memory.ListQuery) (string, []any) {
	cond, args := memoriesWhere(q.Filter)
	if q.Cursor != nil {
		// A row value, which SQLite turns into a range of the
		// (org_id, created_at, id) index; the equivalent OR made it scan
		// every newer memory first, so paging an org was quadratic (0.35 s
		// per page half-way through 100,000 memories, 2 ms now).
		if q.Ascending {
			cond += " AND (created_at, id) > (?, ?)"
		} else {
			cond += " AND (created_at, id) < (?, ?)"
		}
		args = append(args, q.Cursor.CreatedAt, q.Cursor.ID)
	}
	args = append(args, q.Limit+1)
	order := " ORDER BY created_at DESC, id DESC LIMIT ?"
	if q.Ascending {
		order = " ORDER BY created_at ASC, id ASC LIMIT ?"
	}
	return `SELECT ` + columns + fromMemories + ` WHERE ` + cond + order, args
}

// where renders f as a SQL condition; the org is always the first term.
func where(f memory.Filter) (string, []any) {
	conds := []string{"org_id = ?"}
	args := []any{f.OrgID}
	eq := func(col, v string) {
		if v != "" {
			conds = append(conds, col+" = ?")
			args = append(args, v)
		}
	}
	if f.Viewer != "" {
		conds = append(conds, "(agent_id = '' OR agent_id = ?)")
		args = append(args, f.Viewer)
	}
	switch f.AgentID {
	case "":
	case memory.OrgScope:
		conds = append(conds, "agent_id = ''")
	default:
		eq("agent_id", f.AgentID)
	}
	if len(f.Types) > 0 {
		conds = append(conds, "type IN ("+placeholders(len(f.Types))+")")
		for _, t := range f.Types {
			args = append(args, string(t))
		}
	}
	if len(f.Kinds) > 0 {
		conds = append(conds, "kind IN ("+placeholders(len(f.Kinds))+")")
		for _, k := range f.Kinds {
			args = append(args, string(k))
		}
	}
	eq("durability", string(f.Durability))
	eq("room_id", f.RoomID)
	eq("world_id", f.WorldID)
	eq("entity_id", f.EntityID)
	eq("session_id", f.SessionID)
	eq("document_id", f.DocumentID)
	if f.Start != 0 {
		conds = append(conds, "created_at >= ?")
		args = append(args, f.Start)
	}
	if f.End != 0 {
		conds = append(conds, "created_at < ?")
		args = append(args, f.End)
	}
	if f.Audiences != nil {
		cond, auds := audienceCond(f.Audiences)
		conds, args = append(conds, cond), append(args, auds...)
	}
	if !f.IncludeArchived {
		conds = append(conds, "archived = 0")
	}
	return strings.Join(conds, " AND "), args
}

// audienceCond renders a reader's audience set (Filter.Audiences, not nil)
// on the audience column: a row without an audience (shared, agent, or
// stored before visibilities) always passes, one with an audience passes
// when it is in the set. The IN list is padded to a power of two with its
// last key again, so that the statement cache keeps a few shapes rather
// than one per size of a reader's set.
func audienceCond(auds []string) (string, []any) {
	if len(auds) == 0 {
		return "audience = ''", nil
	}
	n := 1
	for n < len(auds) {
		n *= 2
	}
	args := make([]any, n)
	for i := range args {
		args[i] = auds[min(i, len(auds)-1)]
	}
	return "(audience = '' OR audience IN (" + placeholders(n) + "))", args
}

// List implements memory.Store.
func (s *Store) List(ctx context.Context, q memory.ListQuery) (_ memory.Page, err error) {
	defer wrap(&err, "list")
	if q.Filter.OrgID == "" {
		return memory.Page{}, errors.New("no org")
	}
	query, args := listSQL(q)
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return memory.Page{}, err
	}
	defer rows.Close()
	var page memory.Page
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return memory.Page{}, err
		}
		page.Memories = append(page.Memories, m)
	}
	if err := rows.Err(); err != nil {
		return memory.Page{}, err
	}
	if len(page.Memories) > q.Limit {
		page.Memories = page.Memories[:q.Limit]
		last := page.Memories[q.Limit-1]
		page.Next = &memory.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}

// ListMemoryKeys implements memory.MemoryKeyLister: a range of the (org_id,
// created_at, id) index, which holds every column it returns, so no row
// is read.
func (s *Store) ListMemoryKeys(ctx context.Context, orgID string, after *memory.Cursor, limit int) (_ []memory.Cursor, _ *memory.Cursor, err error) {
	defer wrap(&err, "list memory keys")
	if orgID == "" {
		return nil, nil, errors.New("no org")
	}
	if limit <= 0 {
		return nil, nil, memory.Errorf(memory.EINVALID, "limit %d: must be positive", limit)
	}
	query, args := `SELECT created_at, id FROM memories INDEXED BY memories_created WHERE org_id = ?`, []any{orgID}
	if after != nil {
		query += ` AND (created_at, id) < (?, ?)`
		args = append(args, after.CreatedAt, after.ID)
	}
	rows, err := s.query(ctx, query+` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var keys []memory.Cursor
	for rows.Next() {
		var k memory.Cursor
		if err := rows.Scan(&k.CreatedAt, &k.ID); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(keys) <= limit {
		return keys, nil, nil
	}
	keys = keys[:limit]
	next := keys[limit-1]
	return keys, &next, nil
}

// Count implements memory.Store.
func (s *Store) Count(ctx context.Context, f memory.Filter) (_ int, err error) {
	defer wrap(&err, "count")
	if f.OrgID == "" {
		return 0, errors.New("no org")
	}
	cond, args := memoriesWhere(f)
	var n int
	err = s.queryRow(ctx, `SELECT COUNT(*) FROM memories WHERE `+cond, args...).Scan(&n)
	return n, err
}

// DeleteWhere implements memory.Store.
func (s *Store) DeleteWhere(ctx context.Context, f memory.Filter) (_ []string, err error) {
	defer wrap(&err, "delete where")
	if f.OrgID == "" {
		return nil, errors.New("no org")
	}
	cond, args := memoriesWhere(f)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `DELETE FROM memories WHERE `+cond+` RETURNING id`, args...)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	// Each id twice per statement: half as many ids as elsewhere.
	for chunk := range slices.Chunk(ids, idsPerStatement/2) {
		a := inArgs(chunk, f.OrgID)
		a = append(a, a[1:]...)
		ph := placeholders(len(chunk))
		if _, err := tx.ExecContext(ctx, `DELETE FROM relations WHERE org_id = ? AND (from_id IN (`+ph+`) OR to_id IN (`+ph+`))`, a...); err != nil {
			return nil, err
		}
		if err := dropDerived(ctx, tx, f.OrgID, chunk); err != nil {
			return nil, err
		}
	}
	return ids, tx.Commit()
}

var (
	_ memory.VersionScanner  = (*Store)(nil)
	_ memory.MemoryKeyLister = (*Store)(nil)
)

// ScanVersions implements memory.VersionScanner: the key, version, pending
// flag, model and vector length of every memory, without decoding bodies
// or vectors, 5,000 rows per read.
//
// The pending flags are read first, from the partial index of pending
// memories (staged documents: few), rather than from the rows: pending is
// the rows' last column (added after the first release), and a row with a
// 384-dimension vector spills past what a WITHOUT ROWID page keeps inline
// (about 1,000 bytes), so reading it walked every row's overflow pages:
// 6.6 of the 11.8 s that the start-up check spent at a million memories.
// length(embedding) reads the length from the row's header. A memory
// staged or committed between the two reads is reported as it was in the
// first: its commit indexes it, and a caller reading it whole sees its
// flag then.
func (s *Store) ScanVersions(ctx context.Context, fn func(memory.MemoryVersion) error) error {
	type key struct{ org, id string }
	pending := map[key]bool{}
	rows, err := s.query(ctx, `SELECT org_id, id FROM memories INDEXED BY memories_pending WHERE pending = 1`)
	if err != nil {
		return fmt.Errorf("sqlite: scan versions: pending: %w", err)
	}
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.org, &k.id); err != nil {
			rows.Close()
			return fmt.Errorf("sqlite: scan versions: pending: %w", err)
		}
		pending[k] = true
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("sqlite: scan versions: pending: %w", err)
	}
	return byKey(ctx, s, "scan versions", `SELECT org_id, id, version, embedding_model, COALESCE(length(embedding), 0) FROM memories`, 5000,
		func(r *sql.Rows, org, id *string) (memory.MemoryVersion, error) {
			var v memory.MemoryVersion
			var bytes int
			err := r.Scan(org, id, &v.Version, &v.EmbeddingModel, &bytes)
			v.OrgID, v.ID, v.Dimensions = *org, *id, bytes/4 // little-endian float32s
			v.Pending = pending[key{v.OrgID, v.ID}]
			return v, err
		}, fn)
}

// Scan implements memory.Store, 1,000 memories per read.
func (s *Store) Scan(ctx context.Context, fn func(*memory.Memory) error) error {
	return byKey(ctx, s, "scan", `SELECT `+columns+`, org_id, id`+fromMemories, 1000,
		func(r *sql.Rows, org, id *string) (*memory.Memory, error) { return scanMemory(r, org, id) }, fn)
}

// byKey reads every memory along the primary key, limit rows per read, so
// that no read transaction is held while fn runs: sel is the SELECT list
// and its FROM clause,
// scan reads a row and sets its org and id. Each page starts after the
// last key with a row value, which SQLite turns into a range of the
// primary key (the equivalent OR made each page scan the table from its
// start: quadratic, 3.5 minutes of the start-up check at a million
// memories).
func byKey[T any](ctx context.Context, s *Store, op, sel string, limit int, scan func(r *sql.Rows, org, id *string) (T, error), fn func(T) error) error {
	lastOrg, lastID := "", ""
	for {
		rows, err := s.query(ctx, sel+` WHERE (org_id, id) > (?, ?) ORDER BY org_id, id LIMIT ?`, lastOrg, lastID, limit)
		if err != nil {
			return fmt.Errorf("sqlite: %s after %s/%s: %w", op, lastOrg, lastID, err)
		}
		var batch []T
		for rows.Next() {
			x, err := scan(rows, &lastOrg, &lastID)
			if err != nil {
				rows.Close()
				return fmt.Errorf("sqlite: %s after %s/%s: %w", op, lastOrg, lastID, err)
			}
			batch = append(batch, x)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("sqlite: %s after %s/%s: %w", op, lastOrg, lastID, err)
		}
		if len(batch) == 0 {
			return nil
		}
		for _, x := range batch {
			if err := fn(x); err != nil {
				return err
			}
		}
	}
}

// Total counts every memory of every org, archived included.
func (s *Store) Total(ctx context.Context) (_ int, err error) {
	defer wrap(&err, "total")
	var n int
	err = s.queryRow(ctx, `SELECT COUNT(*) FROM memories`).Scan(&n)
	return n, err
}

// CommitDocument implements memory.DocumentCommitter: one transaction
// flips the document's pending memories to visible, the retired ones to
// pending, and puts the status record.
func (s *Store) CommitDocument(ctx context.Context, dc memory.DocumentCommit) (_ []string, err error) {
	defer wrap(&err, "commit document %s", dc.DocumentID)
	if dc.OrgID == "" || dc.DocumentID == "" {
		return nil, errors.New("no org or document")
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `UPDATE memories SET pending = 0 WHERE org_id = ? AND document_id = ? AND pending = 1
		RETURNING id`, dc.OrgID, dc.DocumentID)
	if err != nil {
		return nil, err
	}
	var shown []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		shown = append(shown, id)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	for chunk := range slices.Chunk(dc.Retire, idsPerStatement) {
		if _, err := tx.ExecContext(ctx, `UPDATE memories SET pending = 1 WHERE org_id = ? AND document_id = ? AND id IN (`+
			placeholders(len(chunk))+`)`, inArgs(chunk, dc.OrgID, dc.DocumentID)...); err != nil {
			return nil, err
		}
	}
	if dc.RecordKind != "" {
		if _, err := putRecord(ctx, tx, dc.OrgID, dc.RecordKind, dc.RecordID, dc.Record, 0); err != nil {
			return nil, err
		}
	}
	return shown, tx.Commit()
}

// PutRecord implements memory.RecordStore.
func (s *Store) PutRecord(ctx context.Context, org, kind, id string, value any, ifVersion int64) (_ int64, err error) {
	defer wrap(&err, "put record %s/%s", kind, id)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	v, err := putRecord(ctx, tx, org, kind, id, value, ifVersion)
	if err != nil {
		return 0, err
	}
	return v, tx.Commit()
}

var _ memory.RecordBatcher = (*Store)(nil)

// PutRecords implements memory.RecordBatcher in one transaction.
func (s *Store) PutRecords(ctx context.Context, org, kind string, recs []memory.RecordPut) (err error) {
	defer wrap(&err, "put %d records %s", len(recs), kind)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, r := range recs {
		js, err := json.Marshal(r.Value)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO records (org_id, kind, id, version, value) VALUES (?,?,?,1,?)
			ON CONFLICT (org_id, kind, id) DO UPDATE SET version = records.version + 1, value = excluded.value`,
			org, kind, r.ID, js); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// putRecord is PutRecord within tx.
func putRecord(ctx context.Context, tx *sql.Tx, org, kind, id string, value any, ifVersion int64) (int64, error) {
	js, err := json.Marshal(value)
	if err != nil {
		return 0, err
	}
	var cur int64
	err = tx.QueryRowContext(ctx, `SELECT version FROM records WHERE org_id = ? AND kind = ? AND id = ?`, org, kind, id).Scan(&cur)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if ifVersion == memory.RecordCreateOnly && cur != 0 {
		return 0, memory.Errorf(memory.ECONFLICT, "%s %q exists already", strings.ToLower(kind), id)
	}
	if ifVersion > 0 && cur != ifVersion {
		return 0, memory.Errorf(memory.ECONFLICT, "%s %q changed concurrently", strings.ToLower(kind), id)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO records (org_id, kind, id, version, value) VALUES (?,?,?,?,?)
		ON CONFLICT (org_id, kind, id) DO UPDATE SET version = excluded.version, value = excluded.value`,
		org, kind, id, cur+1, js); err != nil {
		return 0, err
	}
	return cur + 1, nil
}

// GetRecord implements memory.RecordStore.
func (s *Store) GetRecord(ctx context.Context, org, kind, id string, out any) (_ int64, err error) {
	defer wrap(&err, "get record %s/%s", kind, id)
	var v int64
	var js []byte
	err = s.queryRow(ctx, `SELECT version, value FROM records WHERE org_id = ? AND kind = ? AND id = ?`, org, kind, id).Scan(&v, &js)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, memory.Errorf(memory.ENOTFOUND, "%s %q not found", strings.ToLower(kind), id)
	} else if err != nil {
		return 0, err
	}
	return v, json.Unmarshal(js, out)
}

// ListRecords implements memory.RecordStore.
func (s *Store) ListRecords(ctx context.Context, org, kind, after string, limit int) (_ []memory.Record, _ string, err error) {
	defer wrap(&err, "list records %s", kind)
	rows, err := s.query(ctx, `SELECT id, version, value FROM records WHERE org_id = ? AND kind = ? AND id > ?
		ORDER BY id LIMIT ?`, org, kind, after, limit+1)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var out []memory.Record
	for rows.Next() {
		r := memory.Record{Kind: kind}
		var js []byte
		if err := rows.Scan(&r.ID, &r.Version, &js); err != nil {
			return nil, "", err
		}
		r.Value = js
		out = append(out, r)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, rows.Err()
}

// DeleteRecord implements memory.RecordStore.
func (s *Store) DeleteRecord(ctx context.Context, org, kind, id string) (err error) {
	defer wrap(&err, "delete record %s/%s", kind, id)
	_, err = s.w.ExecContext(ctx, `DELETE FROM records WHERE org_id = ? AND kind = ? AND id = ?`, org, kind, id)
	return err
}

// orgsSQL lists the orgs of memories and records. Each table is
// skip-scanned along the index that leads with org_id, one seek per org:
// a plain DISTINCT or UNION reads every row (2 s of CPU at a million
// memories, on every start).
const orgsSQL = `
WITH RECURSIVE
  m(org) AS (SELECT MIN(org_id) FROM memories
             UNION ALL SELECT (SELECT MIN(org_id) FROM memories WHERE org_id > m.org) FROM m WHERE m.org IS NOT NULL),
  r(org) AS (SELECT MIN(org_id) FROM records
             UNION ALL SELECT (SELECT MIN(org_id) FROM records WHERE org_id > r.org) FROM r WHERE r.org IS NOT NULL)
SELECT org FROM m WHERE org IS NOT NULL UNION SELECT org FROM r WHERE org IS NOT NULL ORDER BY 1`

// Orgs lists every org that has memories or records (memory.OrgLister):
// records too, since a document being ingested may be all an org has yet.
func (s *Store) Orgs(ctx context.Context) (_ []string, err error) {
	defer wrap(&err, "orgs")
	rows, err := s.query(ctx, orgsSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
