package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

func TestTermCompareContract(t *testing.T) {
	memorytest.TermCompareSuite(t, func(t *testing.T) memorytest.TermIndexStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}
