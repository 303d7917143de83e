// Package authorizer is the API Gateway Lambda request authorizer: it
// resolves the bearer key of a request to the org (and agent) it belongs
// to and hands them to the API in the authorizer context, which is the
// only place the API reads the caller from. It shares the header parser
// and the context keys with the HTTP API through package auth, and links
// nothing of the API itself.
package authorizer

import (
	"context"
	"errors"
	"strings"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-lambda-go/events"
)

// ErrUnauthorized makes API Gateway answer 401 (the exact message it
// expects from an authorizer).
var ErrUnauthorized = errors.New("Unauthorized")

// Handler authorizes requests with keys (auth.StoreKeys over the
// DynamoDB key table in the Lambda).
type Handler struct {
	Keys auth.Authenticator
}

// Handle returns an Allow policy for the whole API stage, so that the
// result can be cached per key across methods, with orgId, agentId and
// grants in the context (the API checks each route's grant from there); a
// missing, unknown or revoked key is ErrUnauthorized.
//
// API Gateway caches the answer per Authorization header for the
// authorizer's result TTL (five minutes in the CDK app): a revoked key
// keeps working until its cached answer expires, and no longer.
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
	c, err := h.Keys.Authenticate(ctx, key)
	if memory.ErrorCode(err) == memory.EUNAUTHORIZED {
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	} else if err != nil {
		return events.APIGatewayCustomAuthorizerResponse{}, err // 500: the key store failed
	}
	return events.APIGatewayCustomAuthorizerResponse{
		PrincipalID: c.OrgID,
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{Version: "2012-10-17", Statement: []events.IAMPolicyStatement{{
			Action: []string{"execute-api:Invoke"}, Effect: "Allow", Resource: []string{stageARN(req.MethodArn)},
		}}},
		Context: map[string]any{auth.ContextOrgKey: c.OrgID, auth.ContextAgentKey: c.AgentID, auth.ContextGrantsKey: c.Grants.String()},
	}, nil
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
