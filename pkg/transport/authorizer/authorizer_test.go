package authorizer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/transport/authorizer"
	"github.com/aws/aws-lambda-go/events"
)

func TestHandle(t *testing.T) {
	keys, err := auth.ParseKeys("key-acme-0123456789ab=acme,key-bot-0123456789abc=acme/bot")
	if err != nil {
		t.Fatal(err)
	}
	h := authorizer.Handler{Keys: keys}
	arn := "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/POST/v1/search"
	tests := []struct {
		name, header string
		org, agent   string
		unauthorized bool
	}{
		{"org key", "Bearer key-acme-0123456789ab", "acme", "", false},
		{"agent key, lower-case scheme", "bearer key-bot-0123456789abc", "acme", "bot", false},
		{"unknown key", "Bearer key-nope-0123456789ab", "", "", true},
		{"no scheme", "key-acme-0123456789ab", "", "", true},
		{"other scheme", "Basic key-acme-0123456789ab", "", "", true},
		{"scheme only", "Bearer ", "", "", true},
		{"missing", "", "", "", true},
	}
	for _, tc := range tests {
		req := events.APIGatewayCustomAuthorizerRequestTypeRequest{MethodArn: arn, Headers: map[string]string{}}
		if tc.header != "" {
			req.Headers["authorization"] = tc.header
		}
		res, err := h.Handle(context.Background(), req)
		if tc.unauthorized {
			if !errors.Is(err, authorizer.ErrUnauthorized) {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err != nil || res.Context[auth.ContextOrgKey] != tc.org || res.Context[auth.ContextAgentKey] != tc.agent ||
			res.PolicyDocument.Statement[0].Effect != "Allow" ||
			res.PolicyDocument.Statement[0].Resource[0] != "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*" {
			t.Errorf("%s: %+v %v", tc.name, res, err)
		}
	}
}
