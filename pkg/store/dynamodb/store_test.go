package dynamodb_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"github.com/agentmem/agentmem/internal/testenv"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

var ctx = context.Background()

// client connects to DynamoDB Local (DYNAMODB_ENDPOINT). Without it the
// tests skip, unless REQUIRE_DYNAMODB=1 (make test sets it).
func client(t testing.TB) *awsdynamodb.Client {
	t.Helper()
	ep := testenv.Get(t, "DYNAMODB_ENDPOINT")
	c, err := dynamodb.NewClient(ctx, dynamodb.ClientOptions{Endpoint: ep, AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newStore creates a fresh table, removed at cleanup.
func newStore(t *testing.T) *dynamodb.Store { return newStoreB(t) }

func newStoreB(t testing.TB) *dynamodb.Store {
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

func TestRelationContract(t *testing.T) {
	memorytest.RelationSuite(t, func(t *testing.T) memorytest.RelationStore { return newStore(t) })
}

func TestRecordContract(t *testing.T) {
	memorytest.RecordSuite(t, func(t *testing.T) memory.RecordStore { return newStore(t) })
}

func TestDocumentContract(t *testing.T) {
	memorytest.DocumentSuite(t, func(t *testing.T) memorytest.DocumentStore { return newStore(t) })
}
