package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentmem/agentmem/memory"
)

// Authenticator resolves an API key to the caller it belongs to.
type Authenticator interface {
	// Authenticate returns the caller of key, or EUNAUTHORIZED.
	Authenticate(ctx context.Context, key string) (memory.Caller, error)
}

// KeyMap is an Authenticator over a fixed set of keys, kept as SHA-256
// hashes so that the plain keys do not stay in memory longer than parsing.
type KeyMap struct {
	keys map[[32]byte]memory.Caller
}

// MinKeyLen is the shortest API key accepted.
const MinKeyLen = 16

// ParseKeys parses a comma-separated list of key=org or key=org/agent.
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
		if !validName(org) || (agent != "" && !validName(agent)) || agent == memory.OrgScope {
			return nil, fmt.Errorf("API_KEYS: %q: org and agent names are 1-64 of A-Z a-z 0-9 . _ -", owner)
		}
		h := sha256.Sum256([]byte(key))
		if _, dup := km.keys[h]; dup {
			return nil, fmt.Errorf("API_KEYS: a key is listed twice (for %q)", owner)
		}
		km.keys[h] = memory.Caller{OrgID: org, AgentID: agent}
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

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
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

// DevKey returns the development key kept in dataDir, creating it on first
// use. It is used when no API_KEYS are configured.
func DevKey(dataDir string) (string, error) {
	path := filepath.Join(dataDir, "dev-api-key")
	if b, err := os.ReadFile(path); err == nil {
		if k := strings.TrimSpace(string(b)); len(k) >= MinKeyLen {
			return k, nil
		}
	}
	var raw [20]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	key := "amk_dev_" + hex.EncodeToString(raw[:])
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", err
	}
	return key, os.WriteFile(path, []byte(key+"\n"), 0o600)
}
