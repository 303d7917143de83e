package dynamodb_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

func TestIdempotencyContract(t *testing.T) {
	memorytest.IdempotencySuite(t, func(t *testing.T) memory.IdempotencyStore { return newStore(t).Idempotency() })
}

func TestDedupLookupContract(t *testing.T) {
	memorytest.DedupLookupSuite(t, func(t *testing.T) memorytest.DedupLookupStore { return newStore(t) })
}
