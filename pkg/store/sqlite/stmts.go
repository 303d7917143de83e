package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// maxStmts bounds the prepared statements kept: the reads' SQL varies
// only with the shape of a filter and the length of an IN list, so a busy
// store settles on a few hundred; past the bound a query is prepared each
// time, as without the cache.
const maxStmts = 1024

// stmts keeps the store's read statements prepared, by their SQL text.
// Preparing (parsing and planning) was a quarter of the CPU of a knowledge
// search at 100,000 memories: the term lookups run one short query per
// term, dozens per search.
type stmts struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// prepared returns the statement for q, prepared once; nil when the cache
// is full.
func (s *Store) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if st, ok := s.stmts.m[q]; ok {
		return st, nil
	}
	if len(s.stmts.m) >= maxStmts {
		return nil, nil
	}
	st, err := s.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if s.stmts.m == nil {
		s.stmts.m = map[string]*sql.Stmt{}
	}
	s.stmts.m[q] = st
	return st, nil
}

// query runs a read through its prepared statement.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := s.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return s.db.QueryContext(ctx, q, args...)
	}
	return st.QueryContext(ctx, args...)
}

// queryRow runs a one-row read through its prepared statement; an error
// preparing it comes back from Scan.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := s.prepared(ctx, q)
	if err != nil || st == nil {
		return s.db.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// closeStmts closes the prepared statements.
func (s *Store) closeStmts() {
	for _, c := range []*stmts{&s.stmts, &s.writes} {
		c.mu.Lock()
		for _, st := range c.m {
			st.Close()
		}
		c.m = nil
		c.mu.Unlock()
	}
}

// preparer returns the writer's prepared statement for q, or nil: the
// statement is then run from its text.
type preparer func(q string) *sql.Stmt

// prepareWrites prepares, once, on the writer, the full multi-row
// statements of a knowledge write (bulk), whose SQL is one text per table:
// parsed for every 256 rows, they cost an eighth of the CPU of the
// knowledge writes. It runs outside a transaction (the writer's one
// connection is the transaction's inside it); the transaction runs them
// through Tx.StmtContext, on that connection, where they are prepared.
func (s *Store) prepareWrites(ctx context.Context) error {
	s.writes.mu.Lock()
	defer s.writes.mu.Unlock()
	if s.writes.m != nil {
		return nil
	}
	m := map[string]*sql.Stmt{}
	for _, b := range knowledgeBulks() {
		q := b.sql(bulkRows)
		st, err := s.w.PrepareContext(ctx, q)
		if err != nil {
			for _, st := range m {
				st.Close()
			}
			return err
		}
		m[q] = st
	}
	s.writes.m = m
	return nil
}

// writeStmt is the preparer of the statements prepareWrites prepared.
func (s *Store) writeStmt(q string) *sql.Stmt {
	s.writes.mu.Lock()
	defer s.writes.mu.Unlock()
	return s.writes.m[q]
}
