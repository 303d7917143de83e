package dynamodb_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/agentmem/agentmem/pkg/dynamodb"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

var ctx = context.Background()

// client connects to DynamoDB Local (DYNAMODB_ENDPOINT). Without it the
// tests skip, unless REQUIRE_DYNAMODB=1 (make test sets it).
func client(t *testing.T) *awsdynamodb.Client {
	t.Helper()
	ep := os.Getenv("DYNAMODB_ENDPOINT")
	if ep == "" {
		if os.Getenv("REQUIRE_DYNAMODB") == "1" {
			t.Fatal("REQUIRE_DYNAMODB=1 but DYNAMODB_ENDPOINT is not set")
		}
		t.Skip("DYNAMODB_ENDPOINT not set; make test starts DynamoDB Local (scripts/dynamodb.sh)")
	}
	c, err := dynamodb.NewClient(ctx, dynamodb.ClientOptions{Endpoint: ep, AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newStore creates a fresh table, removed at cleanup.
func newStore(t *testing.T) *dynamodb.Store {
	t.Helper()
	c := client(t)
	var b [4]byte
	rand.Read(b[:])
	name := "test-" + hex.EncodeToString(b[:])
	if err := dynamodb.CreateTable(ctx, c, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dynamodb.DeleteTable(context.Background(), c, name) })
	return dynamodb.New(c, name)
}

func TestStoreContract(t *testing.T) {
	memorytest.StoreSuite(t, func(t *testing.T) memory.Store { return newStore(t) })
}
