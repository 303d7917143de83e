package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/memory/memorytest"
	"github.com/agentmem/agentmem/store/sqlite"
)

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStoreContract(t *testing.T) {
	memorytest.StoreSuite(t, func(t *testing.T) memory.Store {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestRelationContract(t *testing.T) {
	memorytest.RelationSuite(t, func(t *testing.T) memorytest.RelationStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestRecordContract(t *testing.T) {
	memorytest.RecordSuite(t, func(t *testing.T) memory.RecordStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestRestartKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.db")
	s := open(t, path)
	corpus := memorytest.Corpus(memorytest.OrgA, 50)
	if _, err := s.Create(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	if err := s.Touch(ctx, memorytest.OrgA, []string{corpus[3].ID}, memorytest.Base+5); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path)
	defer s.Close()
	n, err := s.Count(ctx, memory.Filter{OrgID: memorytest.OrgA, IncludeArchived: true})
	if err != nil || n != 50 {
		t.Fatalf("after restart: count %d (%v), want 50", n, err)
	}
	m, err := s.Get(ctx, memorytest.OrgA, corpus[3].ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.AccessCount != 1 || m.Content.Text != corpus[3].Content.Text || len(m.Embedding) != len(corpus[3].Embedding) {
		t.Fatalf("after restart: %+v", m)
	}
	again := *corpus[1] // a fact: deduplicated by content
	again.ID = "another-id"
	res, err := s.Create(ctx, []*memory.Memory{&again})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].Duplicate || res[0].ID != corpus[1].ID {
		t.Fatalf("dedup index lost across restart: %+v", res[0])
	}
}

func TestKeyContract(t *testing.T) {
	memorytest.KeySuite(t, func(t *testing.T) memory.KeyStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestUsageContract(t *testing.T) {
	memorytest.UsageSuite(t, func(t *testing.T) memorytest.UsageStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}
