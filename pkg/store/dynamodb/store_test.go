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
	c, _ := connect(t, nil)
	return c
}

// meteredClient is client with the capacity every call consumes counted
// in the returned meter.
func meteredClient(t testing.TB) (*awsdynamodb.Client, *dynamodb.Capacity) {
	t.Helper()
	return connect(t, &dynamodb.Capacity{})
}

func connect(t testing.TB, meter *dynamodb.Capacity) (*awsdynamodb.Client, *dynamodb.Capacity) {
	t.Helper()
	ep := testenv.Get(t, "DYNAMODB_ENDPOINT")
	c, err := dynamodb.NewClient(ctx, dynamodb.ClientOptions{Endpoint: ep, AccessKey: "local", SecretKey: "local", Capacity: meter})
	if err != nil {
		t.Fatal(err)
	}
	return c, meter
}

// newTable creates a fresh table named prefix-<random> on c, removed at
// cleanup, and returns its name.
func newTable(t testing.TB, c *awsdynamodb.Client, prefix string) string {
	t.Helper()
	var b [4]byte
	rand.Read(b[:])
	name := prefix + "-" + hex.EncodeToString(b[:])
	if err := dynamodb.CreateTable(ctx, c, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dynamodb.DeleteTable(context.Background(), c, name) })
	return name
}

// newStore creates a fresh table, removed at cleanup.
func newStore(t *testing.T) *dynamodb.Store { return newStoreB(t) }

func newStoreB(t testing.TB) *dynamodb.Store {
	t.Helper()
	c := client(t)
	return dynamodb.New(c, newTable(t, c, "test"))
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
