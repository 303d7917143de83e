package dynamodb_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/agentmem/agentmem/internal/testenv"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/memory/memorytest"
	"github.com/agentmem/agentmem/store/dynamodb"
	"github.com/aws/aws-sdk-go-v2/aws"
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

func TestAPIKeys(t *testing.T) {
	s := newStore(t)
	const k = "amk_live_0123456789abcdef"
	if err := s.PutAPIKey(ctx, k, memory.Caller{OrgID: "acme", AgentID: "bot"}, "support bot"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAPIKey(ctx, k, memory.Caller{OrgID: "evil"}, "again"); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Fatalf("second put of the same key: %v", err)
	}
	c, err := s.Authenticate(ctx, k)
	if err != nil || c != (memory.Caller{OrgID: "acme", AgentID: "bot"}) {
		t.Fatalf("authenticate: %+v %v", c, err)
	}
	for _, bad := range []string{"", "amk_live_0123456789abcdeX", k + " "} {
		if _, err := s.Authenticate(ctx, bad); memory.ErrorCode(err) != memory.EUNAUTHORIZED {
			t.Fatalf("key %q: %v", bad, err)
		}
	}
	// The key itself is stored nowhere.
	out, err := s.Client().Scan(ctx, &awsdynamodb.ScanInput{TableName: aws.String(s.Table())})
	if err != nil {
		t.Fatal(err)
	}
	raw := fmt.Sprint(out.Items)
	if strings.Contains(raw, "0123456789abcdef") {
		t.Fatal("the plain key is in the table")
	}
	if err := s.RevokeAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, k); memory.ErrorCode(err) != memory.EUNAUTHORIZED {
		t.Fatalf("revoked key: %v", err)
	}
}

func TestRecordContract(t *testing.T) {
	memorytest.RecordSuite(t, func(t *testing.T) memory.RecordStore { return newStore(t) })
}
