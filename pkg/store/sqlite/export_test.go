package sqlite

import (
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
