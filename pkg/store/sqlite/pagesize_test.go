package sqlite_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestPageSize: a new database is created with 16 KiB pages, so that a
// memory's row with its vector is kept whole on its page; a database that
// exists keeps the page size it was created with. Either way the log is
// checkpointed at 128 MiB, counted in the database's own pages, the
// database is in WAL mode with every commit synced (synchronous FULL, 2),
// and a memory with a 384-dimension vector reads back whole.
func TestPageSize(t *testing.T) {
	tests := []struct {
		name      string
		existing  int // page size of a database made before Open; 0 for none
		wantPage  int
		wantCheck int
	}{
		{"a new database", 0, 16384, 8192},
		{"an existing database of 4 KiB pages", 4096, 4096, 32768},
		{"an existing database of 64 KiB pages", 65536, 65536, 2048},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "memories.db")
			if tc.existing != 0 {
				makeDatabase(t, path, tc.existing)
			}
			ctx := context.Background()
			s := open(t, path)
			defer s.Close()
			for name, want := range map[string]string{"page_size": strconv.Itoa(tc.wantPage),
				"wal_autocheckpoint": strconv.Itoa(tc.wantCheck), "journal_mode": "wal", "synchronous": "2"} {
				if got, err := s.Pragma(name); err != nil || got != want {
					t.Fatalf("%s %s (%v), want %s", name, got, err, want)
				}
			}
			m := &memory.Memory{OrgID: "o", ID: "m1", AgentID: "a", Type: memory.TypeMessage, EntityID: "ana",
				Content:        memory.Content{Text: strings.Repeat("a long turn about pottery ", 40)},
				EmbeddingModel: "test", Embedding: make([]float32, 384), CreatedAt: 1}
			for i := range m.Embedding {
				m.Embedding[i] = float32(i) / 384
			}
			if _, err := s.Create(ctx, []*memory.Memory{m}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(ctx, "o", "m1")
			if err != nil || got.Content.Text != m.Content.Text || len(got.Embedding) != 384 || got.Embedding[383] != m.Embedding[383] {
				t.Fatalf("read back %+v (%v)", got, err)
			}
		})
	}
}
