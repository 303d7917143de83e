package auth

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The keys of an end-user token's caller in the API Gateway authorizer
// context, beside ContextOrgKey, ContextAgentKey and ContextGrantsKey.
const (
	// ContextKeyIDKey is the caller's KeyID (an API key's id, or
	// "token:<kid>").
	ContextKeyIDKey = "keyId"
	// ContextUserKey, ContextRoomKey and ContextWorldKey are a token's
	// binding (memory.Caller.Binding); absent for API keys.
	ContextUserKey  = "userId"
	ContextRoomKey  = "roomId"
	ContextWorldKey = "worldId"
	// ContextExpiresKey is a token's expiry, in Unix seconds. API Gateway
	// caches an authorizer's answer per Authorization header for the
	// result TTL; the API checks the expiry again, so that a cached answer
	// never outlives its token.
	ContextExpiresKey = "expiresAt"
)

// Context is the authorizer context of c, authenticated by a credential
// that expires at exp (zero: an API key, which does not). CallerOfContext
// reads it back.
func Context(c memory.Caller, exp time.Time) map[string]any {
	m := map[string]any{ContextOrgKey: c.OrgID, ContextAgentKey: c.AgentID, ContextGrantsKey: c.Grants.String()}
	if c.KeyID != "" {
		m[ContextKeyIDKey] = c.KeyID
	}
	if b := c.Binding; b != nil {
		m[ContextUserKey], m[ContextRoomKey], m[ContextWorldKey] = b.UserID, b.RoomID, b.WorldID
	}
	if !exp.IsZero() {
		m[ContextExpiresKey] = exp.Unix()
	}
	return m
}

// CallerOfContext returns the caller of an authorizer context (see
// Context) at now: no org is a caller that fails Valid; an expiry passed
// (by more than TokenLeeway) is EUNAUTHORIZED. A context with a token's
// KeyID and no user is refused too, so that a token's binding is never
// dropped on the way.
func CallerOfContext(m map[string]any, now time.Time) (memory.Caller, error) {
	org := contextString(m, ContextOrgKey)
	if org == "" {
		return memory.Caller{}, nil
	}
	agent := contextString(m, ContextAgentKey)
	_, present := m[ContextGrantsKey]
	c := memory.Caller{OrgID: org, AgentID: agent, Grants: ContextGrants(contextString(m, ContextGrantsKey), present, agent),
		KeyID: contextString(m, ContextKeyIDKey)}
	if user := contextString(m, ContextUserKey); user != "" {
		c.Binding = &memory.Acting{UserID: user, RoomID: contextString(m, ContextRoomKey), WorldID: contextString(m, ContextWorldKey)}
		c.Grants &= TokenGrants
	} else if strings.HasPrefix(c.KeyID, TokenKeyPrefix) {
		return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "invalid token: no user in the authorizer context")
	}
	if exp := contextString(m, ContextExpiresKey); exp != "" {
		sec, err := strconv.ParseInt(exp, 10, 64)
		if err != nil {
			return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "invalid token: expiry %q", exp)
		}
		if now.After(time.Unix(sec, 0).Add(TokenLeeway)) {
			return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "the token has expired")
		}
	}
	return c, nil
}

// contextString is the trimmed string of an authorizer context value
// (API Gateway passes strings, numbers and booleans).
func contextString(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case string:
		return strings.TrimSpace(v)
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}
