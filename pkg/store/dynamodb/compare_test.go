package dynamodb_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

func TestTermCompareContract(t *testing.T) {
	memorytest.TermCompareSuite(t, func(t *testing.T) memorytest.TermIndexStore { return newStore(t) })
}
