package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

func TestIdempotencyContract(t *testing.T) {
	memorytest.IdempotencySuite(t, func(t *testing.T) memory.IdempotencyStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		is, err := s.Idempotency(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return is
	})
}

func TestDedupLookupContract(t *testing.T) {
	memorytest.DedupLookupSuite(t, func(t *testing.T) memorytest.DedupLookupStore {
		return open(t, filepath.Join(t.TempDir(), "memories.db"))
	})
}
