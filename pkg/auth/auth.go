// Package auth resolves API keys to the callers they belong to: the
// Authenticator port, the fixed key map of API_KEYS, the keys created
// through the admin API or memctl (StoreKeys over a memory.KeyStore), the
// development key of a data directory, and the one parser of the
// Authorization header that the HTTP server and the API Gateway request
// authorizer share. It imports only the vocabulary (package memory), so the
// authorizer Lambda links nothing else of the service.
//
// Every caller carries its key's grants (memory.Grants). A key from
// API_KEYS, or the development key, holds the full set of its binding
// (memory.DefaultGrants): everything for an org-level key; read, write and
// delete in its own scope for an agent-bound one.
//
// Keys are stored as the SHA-256 of the secret, not bcrypt: the secret is
// 32 random bytes (256 bits), so no dictionary or brute-force attack on a
// leaked hash is feasible, which is what bcrypt's cost protects low-entropy
// passwords against; a plain hash also lets the stores look a key up by
// its hash in one indexed read (bcrypt is salted, so it cannot be looked
// up), and costs microseconds per request instead of the tens of
// milliseconds of CPU bcrypt would add to every call.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Authenticator resolves an API key to the caller it belongs to.
type Authenticator interface {
	// Authenticate returns the caller of key, or EUNAUTHORIZED. Other
	// errors mean the key store failed.
	Authenticate(ctx context.Context, key string) (memory.Caller, error)
}

// The keys of the API Gateway authorizer context: the request authorizer
// writes the caller under them and the API reads it from there, never from
// the request.
const (
	ContextOrgKey   = "orgId"
	ContextAgentKey = "agentId"
	// ContextGrantsKey holds the grants, comma-separated (memory.Grants'
	// String). When it is absent (an authorizer older than grants) the
	// caller holds its binding's default grants.
	ContextGrantsKey = "grants"
)

// ContextGrants returns the grants of an authorizer context value: the
// named grants when present (unknown names are dropped, never widened),
// else the default grants of the binding.
func ContextGrants(value string, present bool, agentID string) memory.Grants {
	if !present {
		return memory.DefaultGrants(agentID)
	}
	var g memory.Grants
	for _, name := range strings.Split(value, ",") {
		if one, err := memory.ParseGrants("grants", []string{name}); err == nil && strings.TrimSpace(name) != "" {
			g |= one
		}
	}
	if agentID != "" {
		g &^= memory.GrantAdmin
	}
	return g
}

// Bearer returns the API key of an Authorization header value of the form
// "Bearer <key>" (the scheme in any case). A missing or malformed header is
// EUNAUTHORIZED with a message that says what is expected.
func Bearer(header string) (string, error) {
	if header == "" {
		return "", memory.Errorf(memory.EUNAUTHORIZED, "missing Authorization: Bearer <api key> header")
	}
	scheme, key, ok := strings.Cut(strings.TrimSpace(header), " ")
	key = strings.TrimSpace(key)
	if !ok || !strings.EqualFold(scheme, "Bearer") || key == "" {
		return "", memory.Errorf(memory.EUNAUTHORIZED, "the Authorization header must be Bearer <api key>")
	}
	return key, nil
}

// MinKeyLen is the shortest API key accepted.
const MinKeyLen = 16

// KeyMap is an Authenticator over a fixed set of keys, kept as SHA-256
// hashes so that the plain keys do not stay in memory longer than parsing.
type KeyMap struct {
	keys map[[32]byte]memory.Caller
}

// ParseKeys parses API_KEYS: a comma-separated list of key=org or
// key=org/agent, each a full-grant key of its binding, keys of at least MinKeyLen characters, names that pass
// memory.ValidName, and no agent named memory.OrgScope. Errors never show a
// key.
func ParseKeys(spec string) (*KeyMap, error) {
	km := &KeyMap{keys: map[[32]byte]memory.Caller{}}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, owner, ok := strings.Cut(item, "=")
		if !ok || key == "" || owner == "" {
			return nil, fmt.Errorf("API_KEYS: %q is not key=org or key=org/agent", redact(item))
		}
		if len(key) < MinKeyLen {
			return nil, fmt.Errorf("API_KEYS: a key for %q is shorter than %d characters", owner, MinKeyLen)
		}
		org, agent, _ := strings.Cut(owner, "/")
		if !memory.ValidName(org) || (agent != "" && !memory.ValidName(agent)) || agent == memory.OrgScope {
			return nil, fmt.Errorf("API_KEYS: %q: org and agent names are 1-%d of A-Z a-z 0-9 . _ -", owner, memory.MaxNameLen)
		}
		h := sha256.Sum256([]byte(key))
		if _, dup := km.keys[h]; dup {
			return nil, fmt.Errorf("API_KEYS: a key is listed twice (for %q)", owner)
		}
		km.keys[h] = memory.Caller{OrgID: org, AgentID: agent, Grants: memory.DefaultGrants(agent)}
	}
	if len(km.keys) == 0 {
		return nil, fmt.Errorf("API_KEYS: no keys")
	}
	return km, nil
}

func redact(item string) string {
	if _, owner, ok := strings.Cut(item, "="); ok {
		return "…=" + owner
	}
	return "…"
}

// Authenticate implements Authenticator.
func (km *KeyMap) Authenticate(_ context.Context, key string) (memory.Caller, error) {
	if c, ok := km.keys[sha256.Sum256([]byte(key))]; ok && key != "" {
		return c, nil
	}
	return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "unknown API key")
}

// DevOrg is the org of the generated development key.
const DevOrg = "dev"

// DevKeyFile is the file of dataDir that keeps the development key.
const DevKeyFile = "dev-api-key"

// DevKey returns the development key kept in dataDir, creating it on first
// use. It is used when no API_KEYS are configured.
func DevKey(dataDir string) (string, error) {
	key, _, err := OpenDevKey(dataDir)
	return key, err
}

// OpenDevKey is DevKey, and reports whether the key was created by this
// call (so that a server shows it once, when it is new, and not on every
// start).
func OpenDevKey(dataDir string) (key string, created bool, err error) {
	path := filepath.Join(dataDir, DevKeyFile)
	if b, err := os.ReadFile(path); err == nil {
		if k := strings.TrimSpace(string(b)); len(k) >= MinKeyLen {
			return k, false, nil
		}
	}
	key, err = newDevKey(dataDir, path)
	return key, err == nil, err
}

func newDevKey(dataDir, path string) (string, error) {
	var raw [20]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("auth: dev key: %w", err)
	}
	key := "amk_dev_" + hex.EncodeToString(raw[:])
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", fmt.Errorf("auth: dev key: %w", err)
	}
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("auth: dev key: %w", err)
	}
	return key, nil
}
