package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	_ "modernc.org/sqlite"
)

// A database made before the usage counters existed is counted once when
// it is opened.
func TestUsageBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.db")
	s := open(t, path)
	ms := []*memory.Memory{
		memorytest.New(memorytest.OrgA, "", memory.TypeCustom, "four", memorytest.Base),
		memorytest.New(memorytest.OrgA, "", memory.TypeDocument, "doc", memorytest.Base+1),
		memorytest.New(memorytest.OrgB, "", memory.TypeCustom, "b", memorytest.Base+2),
	}
	if _, err := s.Create(ctx, ms); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DROP TRIGGER org_usage_insert", "DROP TRIGGER org_usage_delete", "DROP TRIGGER org_usage_update", "DROP TABLE org_usage"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s = open(t, path)
	defer s.Close()
	for org, want := range map[string]memory.OrgUsage{
		memorytest.OrgA: {Memories: 2, Bytes: 7, Documents: 1},
		memorytest.OrgB: {Memories: 1, Bytes: 1},
	} {
		if got, err := s.Usage(ctx, org); err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", org, got, err, want)
		}
	}
}
