package httpapi

import "github.com/agentmem/agentmem/pkg/auth"

// Authenticator resolves bearer keys to callers for New: the port of
// package auth (auth.KeyMap for API_KEYS, the DynamoDB store for keys
// created with memctl).
type Authenticator = auth.Authenticator

// Authorizer context keys set by the request authorizer Lambda (see
// package auth).
const (
	AuthorizerOrgKey   = auth.ContextOrgKey
	AuthorizerAgentKey = auth.ContextAgentKey
)
