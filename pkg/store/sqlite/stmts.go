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
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for _, st := range s.stmts.m {
		st.Close()
	}
	s.stmts.m = nil
}
