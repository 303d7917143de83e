package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
)

// TestRepage: Repage rewrites a 4 KiB database at 16 KiB pages with every
// memory, those still in the write-ahead log of a process that stopped
// without closing included; it leaves a 16 KiB database as it is; and it
// refuses, changing nothing, a database another connection has open.
func TestRepage(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		page     int  // page size the database is made with
		crashed  bool // the writer stopped without closing: its log is beside the file
		open     bool // a store still has the database open during Repage
		wantCode string
		want     int // page size after
	}{
		{"a closed 4 KiB database", 4096, false, false, "", 16384},
		{"a 4 KiB database with its log", 4096, true, false, "", 16384},
		{"a 16 KiB database", 16384, false, false, "", 16384},
		{"a database in use", 4096, false, true, memory.EUNAVAILABLE, 4096},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "memories.db")
			if tc.page != 16384 { // sqlite.Open makes 16 KiB; an older version made tc.page
				makeDatabase(t, path, tc.page)
			}
			s := open(t, path)
			want := memories(40)
			if _, err := s.Create(ctx, want); err != nil {
				t.Fatal(err)
			}
			if tc.crashed { // what a killed process leaves: the file and its log
				crashed := filepath.Join(t.TempDir(), "memories.db")
				copyFile(t, path, crashed)
				copyFile(t, path+"-wal", crashed+"-wal")
				if fi, err := os.Stat(crashed + "-wal"); err != nil || fi.Size() == 0 {
					t.Fatalf("no log to carry over: %v", err)
				}
				path = crashed
			}
			if !tc.open {
				s.Close()
			} else {
				defer s.Close()
			}
			res, err := sqlite.Repage(ctx, path)
			if code := memory.ErrorCode(err); code != tc.wantCode || tc.wantCode == "" && err != nil {
				t.Fatalf("Repage: %v (code %q), want code %q", err, code, tc.wantCode)
			}
			if err == nil && (res.PageBefore != tc.page || res.PageAfter != tc.want || res.BytesAfter <= 0) {
				t.Fatalf("result %+v, want %d → %d", res, tc.page, tc.want)
			}
			if tc.open {
				s.Close()
			}
			after := open(t, path)
			defer after.Close()
			if got, err := after.Pragma("page_size"); err != nil || got != fmt.Sprint(tc.want) {
				t.Fatalf("page size %s (%v), want %d", got, err, tc.want)
			}
			ids := make([]string, len(want))
			for i, m := range want {
				ids[i] = m.ID
			}
			got, err := after.GetMany(ctx, "o", ids)
			if err != nil || len(got) != len(want) {
				t.Fatalf("read back %d of %d memories: %v", len(got), len(want), err)
			}
			for _, m := range want {
				g := got[m.ID]
				if g.Content.Text != m.Content.Text || !slices.Equal(g.Embedding, m.Embedding) {
					t.Fatalf("memory %s changed: %q", m.ID, g.Content.Text)
				}
			}
		})
	}
}

// makeDatabase makes an empty WAL database of the given page size at path,
// as an earlier version of the store did.
func makeDatabase(t *testing.T, path string, page int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{fmt.Sprintf("PRAGMA page_size = %d", page), "PRAGMA journal_mode = WAL", "CREATE TABLE before (x)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// memories are n messages of about 2.3 KB with their 384-dimension
// vectors, as a memory's row is in production.
func memories(n int) []*memory.Memory {
	out := make([]*memory.Memory, n)
	for i := range out {
		v := make([]float32, 384)
		for j := range v {
			v[j] = float32(i*j%97) / 97
		}
		out[i] = &memory.Memory{OrgID: "o", ID: fmt.Sprintf("m%03d", i), AgentID: "a", Type: memory.TypeMessage,
			EntityID: "ana", CreatedAt: int64(i + 1), EmbeddingModel: "test", Embedding: v,
			Content: memory.Content{Text: fmt.Sprintf("turn %d: ", i) + string(slices.Repeat([]byte("we talked about pottery and the lake. "), 16))}}
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
