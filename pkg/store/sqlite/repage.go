package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/agentmem/agentmem/pkg/memory"
)

// RepageResult is what Repage did: the page size and file size before and
// after (the same when the database already had pageSize pages).
type RepageResult struct {
	PageBefore, PageAfter   int
	BytesBefore, BytesAfter int64
}

// Repage rewrites the database at path with pageSize pages (a database
// made before pageSize was 16 KiB keeps its 4 KiB pages otherwise). It
// needs the database to itself: it takes the exclusive lock first, and a
// database another process has open (a running memoryd) makes it fail
// with EUNAVAILABLE, changing nothing.
//
// It rewrites the file in place, in SQLite's own transactions, rather
// than writing a copy and renaming it over the file: a process that
// opened the file meanwhile waits on its lock and then reads the new
// pages, where a rename would leave it writing to a file no longer there.
// It copies the write-ahead log into the database and leaves WAL mode
// (which fails while another connection is open), sets the page size,
// runs VACUUM (crash-safe through its rollback journal), and returns to
// WAL mode; a crash between the steps leaves a whole database that Open
// puts back in WAL mode. It needs free disk for about twice the file.
func Repage(ctx context.Context, path string) (res RepageResult, err error) {
	defer wrap(&err, "repage %s", path)
	st, err := os.Stat(path)
	if err != nil {
		return res, err
	}
	res.BytesBefore = st.Size()
	// locking_mode(EXCLUSIVE): the connection keeps every lock it takes
	// until it closes, so nothing else opens the database between steps.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=locking_mode(EXCLUSIVE)&_pragma=busy_timeout(0)")
	if err != nil {
		return res, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Close()
	inUse := func(err error) error {
		return memory.Errorf(memory.EUNAVAILABLE, "the database is open in another process (stop the service first): %v", err)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE; COMMIT`); err != nil {
		if isBusy(err) {
			return res, inUse(err)
		}
		return res, err
	}
	if err := conn.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&res.PageBefore); err != nil {
		return res, err
	}
	if res.PageBefore == pageSize {
		res.PageAfter, res.BytesAfter = res.PageBefore, res.BytesBefore
		return res, nil
	}
	var mode string
	if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = DELETE`).Scan(&mode); err != nil {
		if isBusy(err) {
			return res, inUse(err)
		}
		return res, err
	}
	if mode != "delete" { // SQLite answers the mode it stayed in
		return res, inUse(fmt.Errorf("journal mode stayed %s", mode))
	}
	for _, q := range []string{`PRAGMA page_size = ` + strconv.Itoa(pageSize), `VACUUM`, `PRAGMA journal_mode = WAL`} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return res, fmt.Errorf("%s: %w", q, err)
		}
	}
	var check string
	if err := conn.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&res.PageAfter); err != nil {
		return res, err
	}
	if err := conn.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&check); err != nil {
		return res, err
	}
	if res.PageAfter != pageSize || check != "ok" {
		return res, fmt.Errorf("after the rewrite: page size %d, quick_check %q", res.PageAfter, check)
	}
	if err := errors.Join(conn.Close(), db.Close()); err != nil {
		return res, err
	}
	if st, err = os.Stat(path); err != nil {
		return res, err
	}
	res.BytesAfter = st.Size()
	return res, nil
}
