package httpapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/authorizer"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/aws/aws-lambda-go/events"
)

// newTokenServer is the API on a real SQLite store that mints end-user
// tokens signed with keys kept in the store's records, and accepts them
// beside the static keys (keyA of org-a, keyB of org-b, keyX of org-a's
// agent x) and the keys of the store's key table, as memoryd wires it.
func newTokenServer(t *testing.T) (*httpapi.Server, *auth.Tokens) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), t.TempDir(), hashing.New(128), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	static, err := auth.ParseKeys(fmt.Sprintf("%s=org-a,%s=org-b,%s=org-a/x", keyA, keyB, keyX))
	if err != nil {
		t.Fatal(err)
	}
	tokens := auth.NewTokens(auth.NewRecordKeys(b.Store))
	keys := auth.WithTokens(auth.Chain{static, auth.StoreKeys{Store: b.Store}}, tokens)
	return httpapi.New(b.Service, keys, log, httpapi.WithKeys(b.Store), httpapi.WithTokens(tokens)), tokens
}

// mint asks POST /v1/tokens for a token with key.
func (c *client) mint(key string, body map[string]any) (string, map[string]any) {
	c.t.Helper()
	r := c.do("POST", "/v1/tokens", key, body)
	if r.Status != 201 {
		c.t.Fatalf("mint %v: %d %s", body, r.Status, r.Raw)
	}
	return r.Body["token"].(string), r.Body
}

// tamper changes the user claim of a token without signing it again.
func tamper(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatal(err)
	}
	claims["user"] = "mallory"
	raw, _ = json.Marshal(claims)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(raw) + "." + parts[2]
}

func TestTokens(t *testing.T) {
	s, tokens := newTokenServer(t)
	c := newClient(t, s)
	mine := c.create(keyA, map[string]any{"content": map[string]any{"text": "org a ships on fridays"}})
	theirs := c.create(keyB, map[string]any{"content": map[string]any{"text": "org b ships on mondays"}})

	tok, minted := c.mint(keyA, map[string]any{"userId": "bob", "roomId": "r1", "grants": []string{"read"}})
	exp, err := time.Parse(time.RFC3339, minted["expiresAt"].(string))
	if err != nil || time.Until(exp) > auth.DefaultTokenTTL || time.Until(exp) < auth.DefaultTokenTTL-time.Minute ||
		minted["orgId"] != "org-a" || minted["userId"] != "bob" || minted["roomId"] != "r1" || minted["agentId"] != nil {
		t.Fatalf("minted %v (%v)", minted, err)
	}
	agentTok, minted := c.mint(keyX, map[string]any{"userId": "bob", "ttlSeconds": 60})
	if minted["agentId"] != "x" {
		t.Fatalf("an agent key's token: %v", minted)
	}
	writer, _ := c.mint(keyA, map[string]any{"userId": "bob", "grants": []string{"read", "write"}})

	// A token that expired an hour ago, signed with the server's own key.
	past, err := tokens.WithClock(func() time.Time { return time.Now().Add(-2 * time.Hour) }).Mint(context.Background(),
		memory.Caller{OrgID: "org-a", Grants: memory.AllGrants}, auth.TokenRequest{UserID: "bob", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := c.newKey(keyA, map[string]any{"name": "reader", "grants": []string{"read"}})

	tests := []struct {
		name, method, path, bearer string
		body                       any
		status                     int
		contains                   string
	}{
		{name: "read with the token", method: "GET", path: "/v1/memories/" + mine, bearer: tok, status: 200, contains: "fridays"},
		{name: "list with the token", method: "GET", path: "/v1/memories", bearer: tok, status: 200, contains: "fridays"},
		{name: "whoami shows the binding", method: "GET", path: "/v1/whoami", bearer: tok, status: 200, contains: `"binding":{"userId":"bob","roomId":"r1"}`},
		{name: "an agent key's token is bound to its agent", method: "GET", path: "/v1/whoami", bearer: agentTok, status: 200, contains: `"agentId":"x"`},
		{name: "another org's memory", method: "GET", path: "/v1/memories/" + theirs, bearer: tok, status: 404},
		{name: "write with a read token", method: "POST", path: "/v1/memories", bearer: tok, body: map[string]any{"content": map[string]any{"text": "x"}}, status: 403},
		{name: "write with a write token", method: "POST", path: "/v1/memories", bearer: writer, body: map[string]any{"content": map[string]any{"text": "bob likes tea"}}, status: 201},
		{name: "expired", method: "GET", path: "/v1/memories/" + mine, bearer: past.Token, status: 401, contains: "expired"},
		{name: "tampered payload", method: "GET", path: "/v1/memories/" + mine, bearer: tamper(t, tok), status: 401},
		{name: "tampered signature", method: "GET", path: "/v1/memories/" + mine, bearer: tok[:len(tok)-2] + "AA", status: 401},
		{name: "a token cannot mint tokens", method: "POST", path: "/v1/tokens", bearer: writer, body: map[string]any{"userId": "bob"}, status: 403, contains: "cannot mint"},
		{name: "a token cannot create keys", method: "POST", path: "/v1/admin/keys", bearer: writer, body: map[string]any{"grants": []string{"read"}}, status: 403},
		{name: "a token cannot list keys", method: "GET", path: "/v1/admin/keys", bearer: writer, status: 403},
		{name: "userId required", method: "POST", path: "/v1/tokens", bearer: keyA, body: map[string]any{"roomId": "r1"}, status: 400, contains: "userId"},
		{name: "ttl beyond the maximum", method: "POST", path: "/v1/tokens", bearer: keyA, body: map[string]any{"userId": "bob", "ttlSeconds": 86401}, status: 400, contains: "ttlSeconds"},
		{name: "zero ttl", method: "POST", path: "/v1/tokens", bearer: keyA, body: map[string]any{"userId": "bob", "ttlSeconds": 0}, status: 400, contains: "ttlSeconds"},
		{name: "admin grant", method: "POST", path: "/v1/tokens", bearer: keyA, body: map[string]any{"userId": "bob", "grants": []string{"admin"}}, status: 400, contains: "grants"},
		{name: "a grant the key lacks", method: "POST", path: "/v1/tokens", bearer: secret, body: map[string]any{"userId": "bob", "grants": []string{"write"}}, status: 403, contains: "grants"},
		{name: "an unknown field", method: "POST", path: "/v1/tokens", bearer: keyA, body: map[string]any{"userId": "bob", "orgId": "org-b"}, status: 400},
		{name: "no credentials", method: "POST", path: "/v1/tokens", body: map[string]any{"userId": "bob"}, status: 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do(tc.method, tc.path, tc.bearer, tc.body)
			if r.Status != tc.status || !strings.Contains(r.Raw, tc.contains) {
				t.Fatalf("%d %s, want %d containing %q", r.Status, r.Raw, tc.status, tc.contains)
			}
			if tc.path == "/v1/tokens" && r.Status == 201 && r.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("Cache-Control %q", r.Header.Get("Cache-Control"))
			}
		})
	}
}

// TestTokensThroughAPIGateway: a token passes the request authorizer, whose
// context (as API Gateway hands it to the API function, every value a
// string) gives the API a caller with the token's binding; an expired
// token's cached authorizer answer is refused by the API.
func TestTokensThroughAPIGateway(t *testing.T) {
	s, tokens := newTokenServer(t)
	ctx := context.Background()
	keys, err := auth.ParseKeys(keyA + "=org-a")
	if err != nil {
		t.Fatal(err)
	}
	h := authorizer.Handler{Keys: keys, Tokens: tokens}
	org := memory.Caller{OrgID: "org-a", Grants: memory.AllGrants}
	fresh, err := tokens.Mint(ctx, org, auth.TokenRequest{UserID: "bob", RoomID: "r1", WorldID: "w1", Grants: memory.GrantRead | memory.GrantWrite})
	if err != nil {
		t.Fatal(err)
	}
	// Valid when the authorizer saw it, expired when the API serves it
	// (API Gateway cached the answer).
	stale, err := tokens.WithClock(func() time.Time { return time.Now().Add(-time.Hour) }).Mint(ctx, org,
		auth.TokenRequest{UserID: "bob", TTL: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	authorize := func(tokens *auth.Tokens, bearer string) map[string]any {
		t.Helper()
		h := authorizer.Handler{Keys: keys, Tokens: tokens}
		res, err := h.Handle(ctx, events.APIGatewayCustomAuthorizerRequestTypeRequest{
			MethodArn: "arn:aws:execute-api:us-east-1:123456789012:abc/prod/GET/v1/whoami",
			Headers:   map[string]string{"Authorization": "Bearer " + bearer}})
		if err != nil {
			t.Fatalf("authorizer: %v", err)
		}
		out := map[string]any{}
		for k, v := range res.Context {
			out[k] = fmt.Sprint(v) // API Gateway hands the API strings
		}
		return out
	}
	tests := []struct {
		name     string
		context  map[string]any
		path     string
		status   int
		contains string
	}{
		{name: "whoami with the binding", context: authorize(tokens, fresh.Token), path: "/v1/whoami", status: 200,
			contains: `"binding":{"userId":"bob","roomId":"r1","worldId":"w1"}`},
		{name: "the grants of the token", context: authorize(tokens, fresh.Token), path: "/v1/whoami", status: 200, contains: `"grants":["read","write"]`},
		{name: "an org key has no binding", context: authorize(tokens, keyA), path: "/v1/whoami", status: 200, contains: `"orgId":"org-a","grants"`},
		{name: "a token cannot mint", context: authorize(tokens, fresh.Token), path: "/v1/tokens", status: 403},
		{name: "a token cannot list keys", context: authorize(tokens, fresh.Token), path: "/v1/admin/keys", status: 403},
		{name: "expired after the authorizer's answer", context: authorize(tokens.WithClock(func() time.Time { return time.Now().Add(-45 * time.Minute) }), stale.Token),
			path: "/v1/whoami", status: 401, contains: "expired"},
		{name: "a token's key id without its user", context: map[string]any{auth.ContextOrgKey: "org-a", auth.ContextKeyIDKey: "token:sk_x", auth.ContextGrantsKey: "read"},
			path: "/v1/whoami", status: 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method, body := "GET", ""
			if tc.path == "/v1/tokens" {
				method, body = "POST", `{"userId":"eve"}`
			}
			ev := gatewayEvent(method, tc.path, "", "", body)
			ev.RequestContext.Authorizer = tc.context
			res, err := s.HandleAPIGateway(ctx, ev)
			if err != nil || res.StatusCode != tc.status || !strings.Contains(res.Body, tc.contains) {
				t.Fatalf("%d %s %v, want %d containing %q", res.StatusCode, res.Body, err, tc.status, tc.contains)
			}
		})
	}
	// The authorizer refuses what the API would: expired and tampered
	// tokens.
	for name, bearer := range map[string]string{"expired": stale.Token, "tampered": tamper(t, fresh.Token)} {
		_, err := h.Handle(ctx, events.APIGatewayCustomAuthorizerRequestTypeRequest{Headers: map[string]string{"Authorization": "Bearer " + bearer}})
		if err != authorizer.ErrUnauthorized {
			t.Errorf("%s token: %v, want Unauthorized", name, err)
		}
	}
}
