package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/memory/memorytest"
)

func TestTermIndexContract(t *testing.T) {
	paths := map[memorytest.TermIndexStore]string{}
	memorytest.TermIndexSuite(t, func(t *testing.T) memorytest.TermIndexStore {
		path := filepath.Join(t.TempDir(), "memories.db")
		s := open(t, path)
		t.Cleanup(func() { s.Close() })
		paths[s] = path
		return s
	}, func(t *testing.T, s memorytest.TermIndexStore, ordinal int) memory.SemanticRef {
		// A trigger aborts the insert of the ref named "poison pill", so
		// that the Put fails after it has written the refs before it.
		db, err := sql.Open("sqlite", "file:"+paths[s]+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TRIGGER poison BEFORE INSERT ON knowledge_refs
			WHEN NEW.name = 'poison pill' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`); err != nil {
			t.Fatal(err)
		}
		return memory.SemanticRef{Ordinal: ordinal, Kind: memory.KnowledgeTopic, Topic: "Poison Pill"}
	})
}
