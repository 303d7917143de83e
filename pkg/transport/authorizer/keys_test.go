package authorizer_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
	"github.com/agentmem/agentmem/pkg/transport/authorizer"
	"github.com/aws/aws-lambda-go/events"
)

// TestHandleStoredKeys: keys of a real key store reach the API with their
// grants; a revoked key is refused from the next call (API Gateway's own
// result cache is the one delay).
func TestHandleStoredKeys(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := authorizer.Handler{Keys: auth.StoreKeys{Store: s}}
	req := func(secret string) events.APIGatewayCustomAuthorizerRequestTypeRequest {
		return events.APIGatewayCustomAuthorizerRequestTypeRequest{MethodArn: "arn:aws:execute-api:r:1:api/prod/GET/v1/memories",
			Headers: map[string]string{"Authorization": "Bearer " + secret}}
	}
	tests := []struct {
		agent  string
		grants memory.Grants
		want   string
	}{
		{"", memory.AllGrants, "read,write,delete,delete:org,admin,write:org"},
		{"bot", memory.GrantRead, "read"},
		{"bot", memory.GrantRead | memory.GrantDeleteOrg, "read,delete,delete:org"},
	}
	for _, tc := range tests {
		secret, k, err := auth.NewKey("acme", tc.agent, "", tc.grants, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		res, err := h.Handle(ctx, req(secret))
		if err != nil || res.Context[auth.ContextGrantsKey] != tc.want || res.Context[auth.ContextAgentKey] != tc.agent {
			t.Fatalf("%v: %+v %v", tc.grants, res.Context, err)
		}
		if _, err := s.RevokeKey(ctx, "acme", k.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Handle(ctx, req(secret)); !errors.Is(err, authorizer.ErrUnauthorized) {
			t.Fatalf("revoked: %v", err)
		}
	}
}
