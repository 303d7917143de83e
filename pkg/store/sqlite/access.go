package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Accesses are counted in a database file of their own beside the store's
// (AccessPath), attached to every connection as schema acc: one small row
// per memory ever read, holding the accesses counted since it was created
// and the last access time.
//
// Why a file of its own: in WAL mode a commit to a database empties the
// page cache of every connection that reads it, and the access writer
// commits once per window (ACCESS_WINDOW) under any read load. With the
// counts on the memories' rows, each of those commits also wrote a 16 KiB
// page of the memories table per memory read, and then every reader read
// its hot pages of the term index and the memories table again through a
// system call. A commit that only writes the access file leaves the
// readers' cache of the store's file as it was (TestTouchLeavesTheStoreFile).
//
// A memory's AccessCount is its row's access_count plus its access row's
// acc_count, and its LastAccessedAt the later of the two (columns, the
// same rule as the DynamoDB store's access items): the row keeps what was
// counted on it before the access file existed, or what an import
// brought, and Update never writes those columns. Deleting a memory
// deletes its access row in the same transaction (dropDerived); Touch
// counts only memories that exist, so no access row outlives its memory to
// be inherited by one created later under its id. (In WAL mode SQLite
// commits a transaction over two files atomically in each, not across
// both: a power cut between the two files' syncs of a deletion can keep
// an access row, which holds no content and counts only if a memory is
// imported again under the same id.)
const accessSchema = `
CREATE TABLE IF NOT EXISTS acc.accesses (
	acc_org    TEXT    NOT NULL,
	acc_memory TEXT    NOT NULL,
	acc_count  INTEGER NOT NULL,
	acc_at     INTEGER NOT NULL,
	PRIMARY KEY (acc_org, acc_memory)
) WITHOUT ROWID;`

// fromMemories is the FROM clause of every read of whole memories: the
// memories table with each row's access row, if any. The access table's
// column names are its own, so that the conditions written for the
// memories table (where, listSQL) stay unambiguous in the join.
const fromMemories = ` FROM memories LEFT JOIN acc.accesses ON acc_org = org_id AND acc_memory = id`

// columns are what scanMemory reads, from fromMemories.
const columns = "body, access_count + IFNULL(acc_count, 0), MAX(last_accessed_at, IFNULL(acc_at, 0)), version, embedding_model, embedding, pending"

// AccessPath is the access file of the store at path: memories.db keeps
// its counts in memories.access.db. A copy of the store is both files.
func AccessPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".access" + ext
}

// accessCacheKiB is each connection's page cache for the access file: its
// rows are a few dozen bytes, so 8 MiB keeps the pages of about 150,000
// memories' counts.
const accessCacheKiB = 8192

// connector opens the store's connections: dsn, with the access file
// attached as acc.
type connector struct{ dsn, access string }

// Connect implements driver.Connector.
func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Driver().Open(c.dsn)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("the driver's connection cannot execute statements")
	}
	// synchronous(FULL), as the store's file: an access row deleted with
	// its memory survives what the memory's deletion survives.
	steps := []struct {
		q    string
		args []driver.NamedValue
	}{
		{`ATTACH DATABASE ? AS acc`, []driver.NamedValue{{Ordinal: 1, Value: c.access}}},
		{`PRAGMA acc.synchronous = FULL`, nil},
		{fmt.Sprintf(`PRAGMA acc.cache_size = -%d`, accessCacheKiB), nil},
	}
	for _, st := range steps {
		if _, err := ex.ExecContext(ctx, st.q, st.args); err != nil {
			conn.Close()
			return nil, fmt.Errorf("access file %s: %s: %w", c.access, st.q, err)
		}
	}
	return conn, nil
}

// Driver implements driver.Connector: the driver registered as "sqlite",
// with whatever functions and hooks are registered with it.
func (connector) Driver() driver.Driver { return registered }

var registered = func() driver.Driver {
	db, err := sql.Open("sqlite", "") // connects to nothing
	if err != nil {
		panic(err) // the driver's package is imported: it registered itself
	}
	defer db.Close()
	return db.Driver()
}()

// Touch implements memory.Store: one transaction, so one commit however
// many ids (the access writer gathers up to 50,000), with one statement
// per repeat count and idsPerStatement ids. It writes only the access file.
func (s *Store) Touch(ctx context.Context, orgID string, ids []string, at int64) (err error) {
	defer wrap(&err, "touch %d memories", len(ids))
	if len(ids) == 0 {
		return nil
	}
	distinct, counts := memory.CountAccesses(ids)
	byCount := map[int64][]string{}
	for _, id := range distinct {
		byCount[counts[id]] = append(byCount[counts[id]], id)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for n, ids := range byCount {
		for chunk := range slices.Chunk(ids, idsPerStatement) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO acc.accesses (acc_org, acc_memory, acc_count, acc_at)
				SELECT org_id, id, ?, ? FROM memories WHERE org_id = ? AND id IN (`+placeholders(len(chunk))+`)
				ON CONFLICT (acc_org, acc_memory) DO UPDATE SET acc_count = acc_count + excluded.acc_count,
				acc_at = MAX(acc_at, excluded.acc_at)`,
				inArgs(chunk, n, at, orgID)...); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}
