package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// SecretPrefix starts every key secret this package creates.
const SecretPrefix = "amk_"

// Hash returns the hex SHA-256 of a key secret: what the stores keep and
// look keys up by.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NewKey makes a key for org (and agent, if set) with grants: its secret,
// shown once to whoever asked for it, and the record to store, which holds
// only the secret's hash and its first characters. The secret is 32
// random bytes. Invalid names or grants are EINVALID (see
// memory.APIKey.Validate).
func NewKey(org, agent, name string, grants memory.Grants, now time.Time) (string, memory.APIKey, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", memory.APIKey{}, fmt.Errorf("auth: new key: %w", err)
	}
	secret := SecretPrefix + hex.EncodeToString(raw[:])
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", memory.APIKey{}, fmt.Errorf("auth: new key: %w", err)
	}
	if grants.Has(memory.GrantDeleteOrg) {
		grants |= memory.GrantDelete
	}
	if grants.Has(memory.GrantWriteOrg) {
		grants |= memory.GrantWrite
	}
	k := memory.APIKey{ID: "key_" + hex.EncodeToString(id[:]), Hash: Hash(secret), OrgID: org, AgentID: agent,
		Name: name, Grants: grants, Prefix: secret[:len(SecretPrefix)+8], CreatedAt: now.UTC().Truncate(time.Millisecond)}
	if err := k.Validate(); err != nil {
		return "", memory.APIKey{}, err
	}
	return secret, k, nil
}

// StoreKeys is an Authenticator over the keys of a memory.KeyStore: a
// key is found by the hash of the secret; an unknown or revoked key is
// EUNAUTHORIZED. It does not cache, so a revocation holds from the next
// request (the API Gateway authorizer's result cache is the one delay in
// AWS).
type StoreKeys struct {
	Store memory.KeyStore
}

// Authenticate implements Authenticator.
func (s StoreKeys) Authenticate(ctx context.Context, secret string) (memory.Caller, error) {
	if len(secret) < MinKeyLen {
		return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "unknown API key")
	}
	k, err := s.Store.KeyByHash(ctx, Hash(secret))
	if memory.IsNotFound(err) {
		return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "unknown API key")
	} else if err != nil {
		return memory.Caller{}, fmt.Errorf("auth: key lookup: %w", err)
	}
	if k.RevokedAt != nil {
		return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "the API key was revoked")
	}
	c := k.Caller()
	if c.AgentID != "" {
		c.Grants &^= memory.GrantAdmin // never, even if a store held it
	}
	return c, c.Valid()
}

// Chain tries each Authenticator in turn: the first that knows the key
// answers. A key store that fails stops the chain (the request is a 500,
// never a 401 that hides the outage).
type Chain []Authenticator

// Authenticate implements Authenticator.
func (ch Chain) Authenticate(ctx context.Context, secret string) (memory.Caller, error) {
	err := error(memory.Errorf(memory.EUNAUTHORIZED, "unknown API key"))
	for _, a := range ch {
		if a == nil {
			continue
		}
		var c memory.Caller
		c, err = a.Authenticate(ctx, secret)
		if memory.ErrorCode(err) != memory.EUNAUTHORIZED {
			return c, err
		}
	}
	return memory.Caller{}, err
}
