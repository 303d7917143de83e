package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// TestErrorsCarryTheOperation: a failed call says which store operation
// failed on what, and keeps the memory error code for the caller.
func TestErrorsCarryTheOperation(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "memories.db"))
	a := memorytest.New("acme", "", memory.TypeFact, "the printer is on floor two", 1)
	b := memorytest.New("acme", "", memory.TypeFact, "the kettle is broken", 2)
	if _, err := s.Create(ctx, []*memory.Memory{a, b}); err != nil {
		t.Fatal(err)
	}
	stale := *a
	stale.Version = 7
	clash := *b
	clash.Content, clash.ContentHash = a.Content, a.ContentHash
	// The duplicate's holder is still found through the wrapping.
	var dup *memory.DuplicateError
	if err := s.Update(ctx, &clash); !errors.As(err, &dup) || dup.ExistingID != a.ID {
		t.Errorf("duplicate: %v", err)
	}

	tests := []struct {
		name, prefix, code string
		err                func() error
	}{
		{"absent memory", "sqlite: get nope: ", memory.ENOTFOUND, func() error { _, err := s.Get(ctx, "acme", "nope"); return err }},
		{"other org", "sqlite: delete " + a.ID + ": ", memory.ENOTFOUND, func() error { return s.Delete(ctx, "globex", a.ID) }},
		{"stale version", "sqlite: update " + a.ID + ": ", memory.ECONFLICT, func() error { return s.Update(ctx, &stale) }},
		{"duplicate content", "sqlite: update " + b.ID + ": ", memory.ECONFLICT, func() error { return s.Update(ctx, &clash) }},
		{"absent record", "sqlite: get record JOB/x: ", memory.ENOTFOUND, func() error {
			_, err := s.GetRecord(ctx, "acme", "JOB", "x", &struct{}{})
			return err
		}},
		{"list without org", "sqlite: list: ", memory.EINTERNAL, func() error {
			_, err := s.List(ctx, memory.ListQuery{Limit: 1})
			return err
		}},
		{"closed database (last)", "sqlite: count: ", memory.EINTERNAL, func() error {
			s.Close()
			_, err := s.Count(ctx, memory.Filter{OrgID: "acme"})
			return err
		}},
	}
	for _, tc := range tests {
		err := tc.err()
		if err == nil || !strings.HasPrefix(err.Error(), tc.prefix) || memory.ErrorCode(err) != tc.code {
			t.Errorf("%s: %v (code %s), want %q... with %s", tc.name, err, memory.ErrorCode(err), tc.prefix, tc.code)
		}
	}
}

// TestBusyDatabaseIsUnavailable: a write that finds the single writer
// held by another connection past the busy timeout fails with
// EUNAVAILABLE (503, retried by clients), never an internal error, and
// still names the operation.
func TestBusyDatabaseIsUnavailable(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the busy timeout")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.db")
	s := open(t, path)
	defer s.Close()
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	m := memorytest.New("acme", "", memory.TypeFact, "written while the writer is held", 1)
	_, err = s.Create(ctx, []*memory.Memory{m})
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.HasPrefix(err.Error(), "sqlite: create 1 memories: ") {
		t.Fatalf("create while busy: %v (code %s), want EUNAVAILABLE naming the operation", err, memory.ErrorCode(err))
	}
}
