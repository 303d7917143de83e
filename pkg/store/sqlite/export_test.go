package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// RefKeyChunk is refKeyChunk, for the tests of chunked reads.
const RefKeyChunk = refKeyChunk

// ListPlan is SQLite's plan of List's query for q, one line per step.
func (s *Store) ListPlan(q memory.ListQuery) (string, error) {
	query, args := listSQL(q)
	return s.plan(query, args...)
}

// OrgsPlan is SQLite's plan of Orgs' query.
func (s *Store) OrgsPlan() (string, error) { return s.plan(orgsSQL) }

func (s *Store) plan(query string, args ...any) (string, error) {
	rows, err := s.db.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return "", err
		}
		out = append(out, detail)
	}
	return strings.Join(out, "\n"), rows.Err()
}

// Pragma reads a pragma's value on the store's writer connection.
func (s *Store) Pragma(name string) (string, error) {
	var v string
	err := s.w.QueryRow("PRAGMA " + name).Scan(&v)
	return v, err
}

// Readers is the number of reader connections the store may open.
const Readers = readers

// HoldReaders checks n reader connections out of the pool at once, as a
// search's concurrent lists do, and returns a function handing them back.
func (s *Store) HoldReaders(ctx context.Context, n int) (release func(), err error) {
	conns := make([]*sql.Conn, 0, n)
	release = func() {
		for _, c := range conns {
			c.Close()
		}
	}
	for range n {
		c, err := s.db.Conn(ctx)
		if err != nil {
			release()
			return nil, err
		}
		if err := c.PingContext(ctx); err != nil {
			release()
			return nil, err
		}
		conns = append(conns, c)
	}
	return release, nil
}

// ReaderStats is the reader pool's statistics.
func (s *Store) ReaderStats() sql.DBStats { return s.db.Stats() }

// DataVersions reads PRAGMA data_version of the store's file and of its
// access file on c, a reader connection: each changes when another
// connection commits to that file, which is when c's cache of it empties.
func DataVersions(ctx context.Context, c *sql.Conn) (store, access int64, err error) {
	if err := c.QueryRowContext(ctx, "PRAGMA main.data_version").Scan(&store); err != nil {
		return 0, 0, err
	}
	err = c.QueryRowContext(ctx, "PRAGMA acc.data_version").Scan(&access)
	return store, access, err
}

// Reader checks one reader connection out of the pool.
func (s *Store) Reader(ctx context.Context) (*sql.Conn, error) { return s.db.Conn(ctx) }
