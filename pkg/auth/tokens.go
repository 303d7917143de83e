package auth

import (
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/golang-jwt/jwt/v5"
)

// End-user tokens. An org or agent key mints a short-lived token bound to
// one end user (and optionally a room and a world), so that a browser or an
// untrusted agent runtime holds a credential that sees only that user.
//
// A token is a JWT (RFC 7519) signed with HMAC-SHA256, verified without a
// store read: the signing secret is looked up by the header's kid (and
// cached, as keys never change once made). JWT because it is the standard
// every client and gateway can read, with a well-kept Go library
// (golang-jwt/jwt/v5) whose parser pins the accepted algorithms, so "none"
// and every algorithm other than HS256 are refused before any key is used;
// HMAC because the only parties that sign and verify are our own servers
// (memoryd, the API and the authorizer Lambdas), which share the secret
// anyway, so a public-key scheme would buy nothing but larger tokens.
//
// Each org's tokens are signed with a key derived from the signing secret
// and the org (HKDF-SHA256, the org in the info string): a token's org
// claim is bound to its signature twice, and no token signed for one org
// verifies for another.

// The token limits.
const (
	// DefaultTokenTTL is a token's lifetime when the request names none.
	DefaultTokenTTL = 15 * time.Minute
	// MaxTokenTTL is the longest lifetime a token may be given.
	MaxTokenTTL = 24 * time.Hour
	// TokenLeeway is the clock skew allowed when checking exp and iat.
	TokenLeeway = 30 * time.Second
	// TokenGrants are the grants a token may hold: an end user's reads,
	// writes and deletes. delete:org and admin stay with API keys.
	TokenGrants = memory.GrantRead | memory.GrantWrite | memory.GrantDelete
	// TokenKeyPrefix starts the Caller.KeyID of a token's caller, followed
	// by the signing key's id.
	TokenKeyPrefix = "token:"
	// tokenIssuer is the iss claim of every token.
	tokenIssuer = "agentmem"
	// tokenAlg is the one signing algorithm accepted.
	tokenAlg = "HS256"
	// minSecretLen is the shortest signing secret accepted (256 bits).
	minSecretLen = 32
)

// SigningKey and SigningKeys are the domain's (memory.SigningKey): the
// port that memoryd and the Lambdas share, so that an adapter such as
// pkg/auth/secretsmanager implements it without importing this package.
type (
	SigningKey  = memory.SigningKey
	SigningKeys = memory.SigningKeys
)

// validKey checks that k can sign: an id and a secret of at least 256 bits.
func validKey(k SigningKey) error {
	if k.ID == "" || len(k.Secret) < minSecretLen {
		return fmt.Errorf("auth: signing key %q: an id and a secret of at least %d bytes are required", k.ID, minSecretLen)
	}
	return nil
}

// StaticKeys is SigningKeys over a fixed list, the first one current.
type StaticKeys []SigningKey

// Current implements SigningKeys.
func (s StaticKeys) Current(context.Context) (SigningKey, error) {
	if len(s) == 0 {
		return SigningKey{}, errors.New("auth: no signing key")
	}
	return s[0], validKey(s[0])
}

// Lookup implements SigningKeys.
func (s StaticKeys) Lookup(_ context.Context, id string) (SigningKey, error) {
	for _, k := range s {
		if k.ID == id {
			return k, validKey(k)
		}
	}
	return SigningKey{}, memory.Errorf(memory.ENOTFOUND, "signing key %q not found", id)
}

// NewSigningKey makes a signing key with a random 256-bit secret.
func NewSigningKey() (SigningKey, error) {
	var id [8]byte
	secret := make([]byte, minSecretLen)
	if _, err := rand.Read(id[:]); err != nil {
		return SigningKey{}, fmt.Errorf("auth: new signing key: %w", err)
	}
	if _, err := rand.Read(secret); err != nil {
		return SigningKey{}, fmt.Errorf("auth: new signing key: %w", err)
	}
	return SigningKey{ID: "sk_" + hex.EncodeToString(id[:]), Secret: secret}, nil
}

// orgKey is the HMAC key of org's tokens under k.
func orgKey(k SigningKey, org string) ([]byte, error) {
	return hkdf.Key(sha256.New, k.Secret, nil, "agentmem end-user token v1\x00"+org, 32)
}

// TokenRequest is what a token is minted for.
type TokenRequest struct {
	// UserID is the end user the token is bound to; required.
	UserID string
	// RoomID and WorldID bind the token to a room and a world too.
	RoomID, WorldID string
	// Grants the token holds: a subset of TokenGrants and of the minting
	// key's grants; 0 is read only.
	Grants memory.Grants
	// TTL is the token's lifetime: 0 is DefaultTokenTTL, at most
	// MaxTokenTTL.
	TTL time.Duration
}

// Token is a minted token and what it authenticates as.
type Token struct {
	Token     string
	ExpiresAt time.Time
	Caller    memory.Caller
}

// Tokens mints and verifies end-user tokens with the keys of a
// SigningKeys. It is an Authenticator of tokens.
type Tokens struct {
	keys SigningKeys
	// now is the clock (tests).
	now func() time.Time
}

// NewTokens returns the tokens signed and verified with keys.
func NewTokens(keys SigningKeys) *Tokens { return &Tokens{keys: keys, now: time.Now} }

// WithClock returns t reading the time from now (tests).
func (t *Tokens) WithClock(now func() time.Time) *Tokens {
	return &Tokens{keys: t.keys, now: now}
}

// TokensOf is NewTokens, or nil (no tokens) for nil keys: a root that may
// have no signing keys configured.
func TokensOf(keys SigningKeys) *Tokens {
	if keys == nil {
		return nil
	}
	return NewTokens(keys)
}

// claims are a token's JWT claims.
type claims struct {
	Org    string   `json:"org"`
	Agent  string   `json:"agent,omitempty"`
	User   string   `json:"user"`
	Room   string   `json:"room,omitempty"`
	World  string   `json:"world,omitempty"`
	Grants []string `json:"grants"`
	jwt.RegisteredClaims
}

// IsToken reports whether a bearer credential has the shape of a token (a
// JWT: three base64url parts, the first a JSON object) rather than of an
// API key, which never holds a dot.
func IsToken(bearer string) bool {
	return strings.HasPrefix(bearer, "eyJ") && strings.Count(bearer, ".") == 2
}

// IsTokenCaller reports whether c was authenticated by a token.
func IsTokenCaller(c memory.Caller) bool {
	return c.Binding != nil || strings.HasPrefix(c.KeyID, TokenKeyPrefix)
}

// Mint makes a token for req on behalf of c, the minting key's caller:
// the token is in c's org, bound to c's agent, and holds no grant c does
// not hold. A token cannot mint tokens (EFORBIDDEN); an invalid request is
// EINVALID naming its field.
func (t *Tokens) Mint(ctx context.Context, c memory.Caller, req TokenRequest) (Token, error) {
	if IsTokenCaller(c) {
		return Token{}, memory.Errorf(memory.EFORBIDDEN, "a token cannot mint tokens: use an API key")
	}
	if err := c.Valid(); err != nil {
		return Token{}, err
	}
	if req.UserID == "" {
		return Token{}, memory.Errorf(memory.EINVALID, "userId: required, the end user the token is bound to")
	}
	bind := &memory.Acting{UserID: req.UserID, RoomID: req.RoomID, WorldID: req.WorldID}
	if err := bind.Validate(); err != nil {
		return Token{}, err
	}
	g := req.Grants
	if g == 0 {
		g = memory.GrantRead
	}
	if extra := g &^ TokenGrants; extra != 0 {
		return Token{}, memory.Errorf(memory.EINVALID, "grants: a token may hold %s only; %s is for API keys", TokenGrants, extra)
	}
	if extra := g &^ c.Grants; extra != 0 {
		return Token{}, memory.Errorf(memory.EFORBIDDEN, "grants: this key cannot grant %s, which it does not hold", extra)
	}
	ttl := req.TTL
	if ttl == 0 {
		ttl = DefaultTokenTTL
	}
	if ttl < time.Second || ttl > MaxTokenTTL {
		return Token{}, memory.Errorf(memory.EINVALID, "ttlSeconds: 1 to %d (%s)", int(MaxTokenTTL/time.Second), MaxTokenTTL)
	}
	k, err := t.keys.Current(ctx)
	if err != nil {
		return Token{}, fmt.Errorf("auth: mint token: %w", err)
	}
	if err := validKey(k); err != nil {
		return Token{}, err
	}
	now := t.now().UTC().Truncate(time.Second)
	exp := now.Add(ttl)
	cl := claims{Org: c.OrgID, Agent: c.AgentID, User: bind.UserID, Room: bind.RoomID, World: bind.WorldID, Grants: g.Names(),
		RegisteredClaims: jwt.RegisteredClaims{Issuer: tokenIssuer, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp)}}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, cl)
	tok.Header["kid"] = k.ID
	key, err := orgKey(k, c.OrgID)
	if err != nil {
		return Token{}, fmt.Errorf("auth: mint token: %w", err)
	}
	s, err := tok.SignedString(key)
	if err != nil {
		return Token{}, fmt.Errorf("auth: mint token: %w", err)
	}
	return Token{Token: s, ExpiresAt: exp, Caller: cl.caller(k.ID)}, nil
}

// caller is the caller a token with these claims, signed by key kid,
// authenticates as.
func (cl claims) caller(kid string) memory.Caller {
	g, _ := memory.ParseGrants("grants", cl.Grants)
	return memory.Caller{OrgID: cl.Org, AgentID: cl.Agent, Grants: g & TokenGrants, KeyID: TokenKeyPrefix + kid,
		Binding: &memory.Acting{UserID: cl.User, RoomID: cl.Room, WorldID: cl.World}}
}

// Verify checks token's signature, algorithm (HS256 only), issuer, expiry
// and issue time (TokenLeeway of skew), and claims, and returns the caller
// it authenticates as and when it expires. A token that fails any check
// is EUNAUTHORIZED; other errors mean the key keeper failed.
func (t *Tokens) Verify(ctx context.Context, token string) (memory.Caller, time.Time, error) {
	var cl claims
	var kid string
	var keeperErr error
	_, err := jwt.ParseWithClaims(token, &cl, func(tok *jwt.Token) (any, error) {
		kid, _ = tok.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("no kid")
		}
		k, err := t.keys.Lookup(ctx, kid)
		if memory.IsNotFound(err) {
			return nil, errors.New("unknown kid")
		} else if err != nil {
			keeperErr = err
			return nil, err
		}
		if err := validKey(k); err != nil {
			keeperErr = err
			return nil, err
		}
		if !memory.ValidName(cl.Org) {
			return nil, errors.New("no valid org")
		}
		return orgKey(k, cl.Org)
	}, jwt.WithValidMethods([]string{tokenAlg}), jwt.WithLeeway(TokenLeeway), jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(), jwt.WithIssuer(tokenIssuer), jwt.WithTimeFunc(t.now))
	if keeperErr != nil {
		return memory.Caller{}, time.Time{}, fmt.Errorf("auth: token key lookup: %w", keeperErr)
	}
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return memory.Caller{}, time.Time{}, memory.Errorf(memory.EUNAUTHORIZED, "the token has expired")
	case err != nil:
		return memory.Caller{}, time.Time{}, memory.Errorf(memory.EUNAUTHORIZED, "invalid token")
	}
	if err := cl.validate(); err != nil {
		return memory.Caller{}, time.Time{}, err
	}
	return cl.caller(kid), cl.ExpiresAt.Time, nil
}

// validate checks the claims of a well-signed token: the names a caller
// needs, grants within TokenGrants, and a lifetime within MaxTokenTTL
// (so that no token outlives the documented bound, however it was made).
func (cl claims) validate() error {
	bad := func(what string) error {
		return memory.Errorf(memory.EUNAUTHORIZED, "invalid token: %s", what)
	}
	switch {
	case cl.Agent != "" && (!memory.ValidName(cl.Agent) || cl.Agent == memory.OrgScope):
		return bad("agent")
	case cl.User == "" || (&memory.Acting{UserID: cl.User, RoomID: cl.Room, WorldID: cl.World}).Validate() != nil:
		return bad("user, room or world")
	case cl.IssuedAt == nil || cl.ExpiresAt.Sub(cl.IssuedAt.Time) > MaxTokenTTL:
		return bad("lifetime")
	}
	g, err := memory.ParseGrants("grants", cl.Grants)
	if err != nil || g == 0 || g&^TokenGrants != 0 {
		return bad("grants")
	}
	return nil
}

// Authenticate implements Authenticator for tokens.
func (t *Tokens) Authenticate(ctx context.Context, token string) (memory.Caller, error) {
	c, _, err := t.Verify(ctx, token)
	return c, err
}

// WithTokens returns an Authenticator that verifies bearers shaped like a
// token (IsToken) with t and hands every other bearer to keys. Without t,
// it is keys.
func WithTokens(keys Authenticator, t *Tokens) Authenticator {
	if t == nil {
		return keys
	}
	return bearers{keys: keys, tokens: t}
}

type bearers struct {
	keys   Authenticator
	tokens *Tokens
}

func (b bearers) Authenticate(ctx context.Context, bearer string) (memory.Caller, error) {
	if IsToken(bearer) {
		return b.tokens.Authenticate(ctx, bearer)
	}
	if b.keys == nil {
		return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "unknown API key")
	}
	return b.keys.Authenticate(ctx, bearer)
}
