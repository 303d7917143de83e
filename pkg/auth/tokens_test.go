package auth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
	"github.com/golang-jwt/jwt/v5"
)

var (
	key1 = auth.SigningKey{ID: "sk_one", Secret: []byte("0123456789abcdef0123456789abcdef")}
	key2 = auth.SigningKey{ID: "sk_two", Secret: []byte("fedcba9876543210fedcba9876543210")}
)

// fixed is a clock standing at t.
func fixed(t time.Time) func() time.Time { return func() time.Time { return t } }

// segments splits a token into its three decoded-or-raw parts.
func segments(t *testing.T, tok string) (header, payload map[string]any, sig string) {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q has %d parts", tok, len(parts))
	}
	for i, out := range []*map[string]any{&header, &payload} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	return header, payload, parts[2]
}

// encode is the base64url JSON of v, a token segment.
func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// resign signs claims with secret itself (not an org's derived key) under
// the header given.
func resign(t *testing.T, header map[string]any, claims jwt.MapClaims, secret []byte) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTokenMintVerify(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	tokens := auth.NewTokens(auth.StaticKeys{key1, key2}).WithClock(fixed(now))
	orgKey := memory.Caller{OrgID: "acme", Grants: memory.AllGrants, KeyID: "key_1"}
	minted, err := tokens.Mint(ctx, orgKey, auth.TokenRequest{UserID: "bob", RoomID: "r1", WorldID: "w1",
		Grants: memory.GrantRead | memory.GrantWrite})
	if err != nil {
		t.Fatal(err)
	}
	if !auth.IsToken(minted.Token) || !minted.ExpiresAt.Equal(now.Add(auth.DefaultTokenTTL)) {
		t.Fatalf("minted %q expiring %v", minted.Token, minted.ExpiresAt)
	}
	header, payload, sig := segments(t, minted.Token)
	if header["alg"] != "HS256" || header["kid"] != key1.ID {
		t.Fatalf("header %v", header)
	}
	want := memory.Caller{OrgID: "acme", Grants: memory.GrantRead | memory.GrantWrite, KeyID: "token:sk_one",
		Binding: &memory.Acting{UserID: "bob", RoomID: "r1", WorldID: "w1"}}

	parts := strings.Split(minted.Token, ".")
	tamperedPayload := func() string {
		p := map[string]any{}
		for k, v := range payload {
			p[k] = v
		}
		p["user"] = "alice"
		return parts[0] + "." + encode(t, p) + "." + parts[2]
	}()
	tamperedSig := func() string {
		b := []byte(sig)
		if b[0] == 'A' {
			b[0] = 'B'
		} else {
			b[0] = 'A'
		}
		return parts[0] + "." + parts[1] + "." + string(b)
	}()
	claims := jwt.MapClaims{}
	for k, v := range payload {
		claims[k] = v
	}
	withClaim := func(k string, v any) jwt.MapClaims {
		c := jwt.MapClaims{}
		for k, v := range claims {
			c[k] = v
		}
		c[k] = v
		return c
	}
	noneAlg := encode(t, map[string]any{"alg": "none", "typ": "JWT", "kid": key1.ID}) + "." + parts[1] + "."
	hs512 := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS512, claims)
		tok.Header["kid"] = key1.ID
		s, err := tok.SignedString(key1.Secret)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}()

	tests := []struct {
		name  string
		token string
		at    time.Time
		want  *memory.Caller
		msg   string
	}{
		{name: "valid", token: minted.Token, at: now, want: &want},
		{name: "valid within the skew before iat", token: minted.Token, at: now.Add(-auth.TokenLeeway / 2), want: &want},
		{name: "valid within the skew after exp", token: minted.Token, at: now.Add(auth.DefaultTokenTTL + auth.TokenLeeway/2), want: &want},
		{name: "expired", token: minted.Token, at: now.Add(auth.DefaultTokenTTL + auth.TokenLeeway + time.Second), msg: "the token has expired"},
		{name: "issued in the future", token: minted.Token, at: now.Add(-auth.TokenLeeway - time.Minute), msg: "invalid token"},
		{name: "tampered payload", token: tamperedPayload, at: now, msg: "invalid token"},
		{name: "tampered signature", token: tamperedSig, at: now, msg: "invalid token"},
		{name: "alg none", token: noneAlg, at: now, msg: "invalid token"},
		{name: "alg HS512", token: hs512, at: now, msg: "invalid token"},
		{name: "unknown kid", token: resign(t, map[string]any{"kid": "sk_gone"}, claims, key1.Secret), at: now, msg: "invalid token"},
		{name: "no kid", token: resign(t, nil, claims, key1.Secret), at: now, msg: "invalid token"},
		// The raw signing secret, not the org's derived key: what a token
		// signed by another deployment's scheme would carry.
		{name: "signed with the raw secret", token: resign(t, map[string]any{"kid": key1.ID}, claims, key1.Secret), at: now, msg: "invalid token"},
		// acme's token rewritten to name globex and signed with acme's
		// derived key: the org is bound to the key.
		{name: "wrong org", token: forgeOrg(t, tokens, orgKey, "globex"), at: now, msg: "invalid token"},
		{name: "not a JWT", token: "eyJ.x.y", at: now, msg: "invalid token"},
		{name: "wrong issuer", token: mintWith(t, withClaim("iss", "someone")), at: now, msg: "invalid token"},
		{name: "admin grant", token: mintWith(t, withClaim("grants", []string{"read", "admin"})), at: now, msg: "invalid token: grants"},
		{name: "no exp", token: mintWith(t, withClaim("exp", nil)), at: now, msg: "invalid token"},
		{name: "lifetime beyond the maximum", token: mintWith(t, withClaim("exp", now.Add(auth.MaxTokenTTL+time.Hour).Unix())), at: now, msg: "invalid token: lifetime"},
		{name: "no user", token: mintWith(t, withClaim("user", "")), at: now, msg: "invalid token: user, room or world"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, exp, err := tokens.WithClock(fixed(tc.at)).Verify(ctx, tc.token)
			if tc.want != nil {
				if err != nil || c.OrgID != tc.want.OrgID || c.AgentID != tc.want.AgentID || c.Grants != tc.want.Grants ||
					c.KeyID != tc.want.KeyID || !sameBinding(c.Binding, tc.want.Binding) || !exp.Equal(minted.ExpiresAt) {
					t.Fatalf("got %+v (binding %+v) exp %v, %v; want %+v", c, c.Binding, exp, err, tc.want)
				}
				return
			}
			if memory.ErrorCode(err) != memory.EUNAUTHORIZED || memory.ErrorMessage(err) != tc.msg {
				t.Fatalf("got %+v %v, want EUNAUTHORIZED %q", c, err, tc.msg)
			}
		})
	}
}

// mintWith signs claims as Mint does for acme (its derived key under
// key1), so that only the claims are wrong.
func mintWith(t *testing.T, claims jwt.MapClaims) string {
	t.Helper()
	s, err := auth.SignForTest(key1, "acme", claims)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// forgeOrg is a token of c's minted by tokens whose org claim is then
// changed to org and signed again with the key derived for c's org.
func forgeOrg(t *testing.T, tokens *auth.Tokens, c memory.Caller, org string) string {
	t.Helper()
	m, err := tokens.Mint(context.Background(), c, auth.TokenRequest{UserID: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	_, payload, _ := segments(t, m.Token)
	claims := jwt.MapClaims{}
	for k, v := range payload {
		claims[k] = v
	}
	claims["org"] = org
	return mintWith(t, claims)
}

func TestTokenMintRules(t *testing.T) {
	ctx := context.Background()
	tokens := auth.NewTokens(auth.StaticKeys{key1})
	org := memory.Caller{OrgID: "acme", Grants: memory.AllGrants}
	agent := memory.Caller{OrgID: "acme", AgentID: "bot", Grants: memory.GrantRead}
	tok, err := tokens.Mint(ctx, org, auth.TokenRequest{UserID: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	tokenCaller, err := tokens.Authenticate(ctx, tok.Token)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		caller memory.Caller
		req    auth.TokenRequest
		code   string
		grants memory.Grants
		ttl    time.Duration
	}{
		{name: "defaults: read, 15 minutes", caller: org, req: auth.TokenRequest{UserID: "bob"}, grants: memory.GrantRead, ttl: auth.DefaultTokenTTL},
		{name: "an agent key binds its agent", caller: agent, req: auth.TokenRequest{UserID: "bob", TTL: time.Hour}, grants: memory.GrantRead, ttl: time.Hour},
		{name: "the maximum lifetime", caller: org, req: auth.TokenRequest{UserID: "bob", TTL: auth.MaxTokenTTL}, grants: memory.GrantRead, ttl: auth.MaxTokenTTL},
		{name: "userId required", caller: org, req: auth.TokenRequest{RoomID: "r"}, code: memory.EINVALID},
		{name: "bad roomId", caller: org, req: auth.TokenRequest{UserID: "bob", RoomID: "a\x00b"}, code: memory.EINVALID},
		{name: "too long", caller: org, req: auth.TokenRequest{UserID: "bob", TTL: auth.MaxTokenTTL + time.Second}, code: memory.EINVALID},
		{name: "negative lifetime", caller: org, req: auth.TokenRequest{UserID: "bob", TTL: -time.Second}, code: memory.EINVALID},
		{name: "admin is for keys", caller: org, req: auth.TokenRequest{UserID: "bob", Grants: memory.GrantAdmin}, code: memory.EINVALID},
		{name: "delete:org is for keys", caller: org, req: auth.TokenRequest{UserID: "bob", Grants: memory.GrantDeleteOrg | memory.GrantDelete}, code: memory.EINVALID},
		{name: "no grant the key lacks", caller: agent, req: auth.TokenRequest{UserID: "bob", Grants: memory.GrantWrite}, code: memory.EFORBIDDEN},
		{name: "a token cannot mint", caller: tokenCaller, req: auth.TokenRequest{UserID: "bob"}, code: memory.EFORBIDDEN},
		{name: "no org", caller: memory.Caller{Grants: memory.AllGrants}, req: auth.TokenRequest{UserID: "bob"}, code: memory.EUNAUTHORIZED},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tokens.Mint(ctx, tc.caller, tc.req)
			if memory.ErrorCode(err) != tc.code {
				t.Fatalf("err %v, want %q", err, tc.code)
			}
			if tc.code != "" {
				return
			}
			c, exp, err := tokens.Verify(ctx, m.Token)
			if err != nil || c.Grants != tc.grants || c.AgentID != tc.caller.AgentID || c.OrgID != tc.caller.OrgID ||
				time.Until(exp) > tc.ttl || time.Until(exp) < tc.ttl-time.Minute || c.Binding.UserID != tc.req.UserID {
				t.Fatalf("verified %+v exp %v %v", c, exp, err)
			}
		})
	}
}

// TestWithTokens checks that bearers are told apart by shape: a token goes
// to the verifier, anything else to the keys.
func TestWithTokens(t *testing.T) {
	ctx := context.Background()
	keys, err := auth.ParseKeys("key-acme-0123456789ab=acme")
	if err != nil {
		t.Fatal(err)
	}
	tokens := auth.NewTokens(auth.StaticKeys{key1})
	a := auth.WithTokens(keys, tokens)
	tok, err := tokens.Mint(ctx, memory.Caller{OrgID: "acme", Grants: memory.AllGrants}, auth.TokenRequest{UserID: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		bearer, org, user, code string
	}{
		{bearer: "key-acme-0123456789ab", org: "acme"},
		{bearer: tok.Token, org: "acme", user: "bob"},
		{bearer: tok.Token + "x", code: memory.EUNAUTHORIZED},
		{bearer: "key-nope-0123456789ab", code: memory.EUNAUTHORIZED},
	}
	for _, tc := range tests {
		c, err := a.Authenticate(ctx, tc.bearer)
		user := ""
		if c.Binding != nil {
			user = c.Binding.UserID
		}
		if memory.ErrorCode(err) != tc.code || c.OrgID != tc.org || user != tc.user {
			t.Errorf("%.20s…: %+v %v, want org %q user %q code %q", tc.bearer, c, err, tc.org, tc.user, tc.code)
		}
	}
}

// TestRecordKeys checks the store-kept signing keys: created at first use,
// kept across restarts, rotated with the old key still verifying.
func TestRecordKeys(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(filepath.Join(dir, "mem.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	keys := auth.NewRecordKeys(st)
	if _, err := keys.Lookup(ctx, "sk_none"); !memory.IsNotFound(err) {
		t.Fatalf("lookup on an empty store: %v", err)
	}
	first, err := keys.Current(ctx)
	if err != nil || !strings.HasPrefix(first.ID, "sk_") || len(first.Secret) != 32 {
		t.Fatalf("first key: %+v %v", first, err)
	}
	caller := memory.Caller{OrgID: "acme", Grants: memory.AllGrants}
	old, err := auth.NewTokens(keys).Mint(ctx, caller, auth.TokenRequest{UserID: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	// Another process over the same store finds the same key.
	again, err := auth.NewRecordKeys(st).Current(ctx)
	if err != nil || again.ID != first.ID || string(again.Secret) != string(first.Secret) {
		t.Fatalf("second reader: %+v %v, want %s", again.ID, err, first.ID)
	}
	rotated, err := keys.Rotate(ctx)
	if err != nil || rotated.ID == first.ID {
		t.Fatalf("rotate: %+v %v", rotated.ID, err)
	}
	fresh := auth.NewTokens(auth.NewRecordKeys(st))
	if _, err := fresh.Authenticate(ctx, old.Token); err != nil {
		t.Fatalf("a token of the old key after rotation: %v", err)
	}
	m, err := fresh.Mint(ctx, caller, auth.TokenRequest{UserID: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if h, _, _ := segments(t, m.Token); h["kid"] != rotated.ID {
		t.Fatalf("new tokens are signed with %v, want the rotated %s", h["kid"], rotated.ID)
	}
	if err := st.DeleteRecord(ctx, auth.SystemOrg, auth.SigningKeyKind, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.NewTokens(auth.NewRecordKeys(st)).Authenticate(ctx, old.Token); memory.ErrorCode(err) != memory.EUNAUTHORIZED {
		t.Fatalf("a token of a deleted key: %v, want EUNAUTHORIZED", err)
	}
}

// sameBinding compares the ids of two bindings.
func sameBinding(a, b *memory.Acting) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UserID == b.UserID && a.RoomID == b.RoomID && a.WorldID == b.WorldID
}
