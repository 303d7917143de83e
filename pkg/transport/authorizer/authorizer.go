// Package authorizer is the API Gateway Lambda request authorizer: it
// resolves the bearer key or end-user token of a request to the org (and
// agent, and end user) it belongs to and hands them to the API in the
// authorizer context, which is the only place the API reads the caller
// from. It shares the header parser, the token verifier and the context
// keys with the HTTP API through package auth, and links nothing of the
// API itself.
package authorizer

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-lambda-go/events"
)

// ErrUnauthorized makes API Gateway answer 401 (the exact message it
// expects from an authorizer).
var ErrUnauthorized = errors.New("Unauthorized")

// Handler authorizes requests with keys (auth.StoreKeys over the
// DynamoDB key table in the Lambda) and end-user tokens.
type Handler struct {
	Keys auth.Authenticator
	// Tokens verifies end-user tokens (bearers shaped as auth.IsToken);
	// nil refuses them.
	Tokens *auth.Tokens
	// Usage, when set, enrols each org in the API's usage plan, and the
	// answer names the org's usage identifier (UsageKey): API Gateway
	// throttles all the keys and tokens of an org together, by the plan.
	Usage Enroller
}

// Handle returns an Allow policy for the whole API stage, so that the
// result can be cached per key across methods, with orgId, agentId, grants
// and keyId in the context (the API checks each route's grant from there),
// and for an end-user token its binding (userId, roomId, worldId) and
// expiry (auth.Context), and with Usage the org's usage identifier; a missing, unknown or revoked key, or an expired,
// tampered or unknown token, is ErrUnauthorized.
//
// API Gateway caches the answer per Authorization header for the
// authorizer's result TTL (five minutes in the CDK app): a revoked key
// keeps working until its cached answer expires, and no longer. A token's
// cached answer ends with the token: the API checks the expiry again.
func (h Handler) Handle(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	header := ""
	for k, v := range req.Headers {
		if strings.EqualFold(k, "Authorization") {
			header = v
		}
	}
	key, err := auth.Bearer(header)
	if err != nil {
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	}
	c, exp, err := h.authenticate(ctx, key)
	if memory.ErrorCode(err) == memory.EUNAUTHORIZED {
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	} else if err != nil {
		return events.APIGatewayCustomAuthorizerResponse{}, err // 500: the key store failed
	}
	usage := ""
	if h.Usage != nil {
		usage = UsageKey(c.OrgID)
		if err := h.Usage.Enrol(ctx, usage); err != nil {
			return events.APIGatewayCustomAuthorizerResponse{}, err // 500: API Gateway would refuse an unknown usage key
		}
	}
	return events.APIGatewayCustomAuthorizerResponse{
		UsageIdentifierKey: usage,
		PrincipalID:        c.OrgID,
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{Version: "2012-10-17", Statement: []events.IAMPolicyStatement{{
			Action: []string{"execute-api:Invoke"}, Effect: "Allow", Resource: []string{stageARN(req.MethodArn)},
		}}},
		Context: auth.Context(c, exp),
	}, nil
}

// authenticate resolves a bearer: a token (by its shape) with Tokens, with
// its expiry; anything else with Keys.
func (h Handler) authenticate(ctx context.Context, bearer string) (memory.Caller, time.Time, error) {
	if auth.IsToken(bearer) {
		if h.Tokens == nil {
			return memory.Caller{}, time.Time{}, memory.Errorf(memory.EUNAUTHORIZED, "tokens are not accepted here")
		}
		return h.Tokens.Verify(ctx, bearer)
	}
	c, err := h.Keys.Authenticate(ctx, bearer)
	return c, time.Time{}, err
}

// stageARN turns arn:aws:execute-api:region:account:api/stage/METHOD/path
// into arn:aws:execute-api:region:account:api/stage/*.
func stageARN(methodARN string) string {
	parts := strings.SplitN(methodARN, "/", 3)
	if len(parts) < 2 {
		return methodARN
	}
	return parts[0] + "/" + parts[1] + "/*"
}
