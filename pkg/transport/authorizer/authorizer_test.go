package authorizer_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
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

// TestHandleTokens: an end-user token passes with its org, agent, grants,
// key id, binding and expiry in the context; an expired, tampered or
// foreign-signed token, or any token where no verifier is set, is
// Unauthorized.
func TestHandleTokens(t *testing.T) {
	ctx := context.Background()
	keys, err := auth.ParseKeys("key-acme-0123456789ab=acme")
	if err != nil {
		t.Fatal(err)
	}
	signing := auth.StaticKeys{{ID: "sk_1", Secret: []byte("0123456789abcdef0123456789abcdef")}}
	tokens := auth.NewTokens(signing)
	bot := memory.Caller{OrgID: "acme", AgentID: "bot", Grants: memory.AgentGrants}
	tok, err := tokens.Mint(ctx, bot, auth.TokenRequest{UserID: "bob", RoomID: "r1", Grants: memory.GrantRead | memory.GrantWrite})
	if err != nil {
		t.Fatal(err)
	}
	expired, err := tokens.WithClock(func() time.Time { return time.Now().Add(-time.Hour) }).Mint(ctx, bot,
		auth.TokenRequest{UserID: "bob", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := auth.NewTokens(auth.StaticKeys{{ID: "sk_1", Secret: []byte("another secret of thirty-two byt")}}).Mint(ctx, bot,
		auth.TokenRequest{UserID: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tok.Token, ".")
	tests := []struct {
		name   string
		h      authorizer.Handler
		bearer string
		want   map[string]any
	}{
		{name: "token", h: authorizer.Handler{Keys: keys, Tokens: tokens}, bearer: tok.Token, want: map[string]any{
			auth.ContextOrgKey: "acme", auth.ContextAgentKey: "bot", auth.ContextGrantsKey: "read,write", auth.ContextKeyIDKey: "token:sk_1",
			auth.ContextUserKey: "bob", auth.ContextRoomKey: "r1", auth.ContextWorldKey: "", auth.ContextExpiresKey: tok.ExpiresAt.Unix()}},
		{name: "key beside tokens", h: authorizer.Handler{Keys: keys, Tokens: tokens}, bearer: "key-acme-0123456789ab", want: map[string]any{
			auth.ContextOrgKey: "acme", auth.ContextAgentKey: "", auth.ContextGrantsKey: memory.AllGrants.String()}},
		{name: "expired", h: authorizer.Handler{Keys: keys, Tokens: tokens}, bearer: expired.Token},
		{name: "tampered payload", h: authorizer.Handler{Keys: keys, Tokens: tokens}, bearer: parts[0] + "." + parts[1] + "x." + parts[2]},
		{name: "signed with another secret", h: authorizer.Handler{Keys: keys, Tokens: tokens}, bearer: foreign.Token},
		{name: "no verifier", h: authorizer.Handler{Keys: keys}, bearer: tok.Token},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.h.Handle(ctx, events.APIGatewayCustomAuthorizerRequestTypeRequest{
				MethodArn: "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/GET/v1/memories",
				Headers:   map[string]string{"Authorization": "Bearer " + tc.bearer}})
			if tc.want == nil {
				if !errors.Is(err, authorizer.ErrUnauthorized) {
					t.Fatalf("%+v %v, want Unauthorized", res, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(res.Context, tc.want) || res.PrincipalID != "acme" {
				t.Fatalf("context %v %v, want %v", res.Context, err, tc.want)
			}
		})
	}
}
