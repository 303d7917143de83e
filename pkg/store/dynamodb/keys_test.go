package dynamodb_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestKeyContract(t *testing.T) {
	memorytest.KeySuite(t, func(t *testing.T) memory.KeyStore { return newStore(t) })
}

func TestUsageContract(t *testing.T) {
	memorytest.UsageSuite(t, func(t *testing.T) memorytest.UsageStore { return newStore(t) })
}

// The secret is stored nowhere, and the authenticator honours a
// revocation at the next request.
func TestKeySecretNotStored(t *testing.T) {
	s := newStore(t)
	secret, k, err := auth.NewKey("acme", "bot", "support bot", memory.GrantRead|memory.GrantWrite, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	a := auth.StoreKeys{Store: s}
	c, err := a.Authenticate(ctx, secret)
	if err != nil || c != (memory.Caller{OrgID: "acme", AgentID: "bot", Grants: memory.GrantRead | memory.GrantWrite, KeyID: k.ID}) {
		t.Fatalf("authenticate: %+v %v", c, err)
	}
	out, err := s.Client().Scan(ctx, &awsdynamodb.ScanInput{TableName: aws.String(s.Table())})
	if err != nil {
		t.Fatal(err)
	}
	if raw := fmt.Sprint(out.Items); strings.Contains(raw, secret[len(k.Prefix):]) {
		t.Fatal("the secret is in the table")
	}
	if _, err := s.RevokeKey(ctx, "acme", k.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authenticate(ctx, secret); memory.ErrorCode(err) != memory.EUNAUTHORIZED {
		t.Fatalf("revoked key: %v", err)
	}
}
