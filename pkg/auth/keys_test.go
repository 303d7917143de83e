package auth_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
)

// keyStore is an in-memory memory.KeyStore for the authenticator's logic
// (the real stores pass memorytest.KeySuite).
type keyStore struct {
	mu   sync.Mutex
	keys map[string]memory.APIKey
	err  error
}

func (s *keyStore) CreateKey(_ context.Context, k memory.APIKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys = map[string]memory.APIKey{}
	}
	s.keys[k.Hash] = k
	return nil
}

func (s *keyStore) KeyByHash(_ context.Context, hash string) (memory.APIKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return memory.APIKey{}, s.err
	}
	k, ok := s.keys[hash]
	if !ok {
		return k, memory.Errorf(memory.ENOTFOUND, "no such key")
	}
	return k, nil
}

func (s *keyStore) ListKeys(context.Context, string) ([]memory.APIKey, error) { return nil, nil }

func (s *keyStore) RevokeKey(_ context.Context, org, id string, at time.Time) (memory.APIKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, k := range s.keys {
		if k.OrgID == org && k.ID == id {
			k.RevokedAt = &at
			s.keys[h] = k
			return k, nil
		}
	}
	return memory.APIKey{}, memory.Errorf(memory.ENOTFOUND, "no key")
}

func TestNewKey(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name, org, agent string
		grants           memory.Grants
		want             memory.Grants
		code             string
	}{
		{"org admin", "acme", "", memory.AllGrants, memory.AllGrants, ""},
		{"agent read", "acme", "bot", memory.GrantRead, memory.GrantRead, ""},
		{"delete:org implies delete", "acme", "bot", memory.GrantDeleteOrg, memory.GrantDeleteOrg | memory.GrantDelete, ""},
		{"agent admin", "acme", "bot", memory.GrantAdmin, 0, memory.EINVALID},
		{"no grants", "acme", "", 0, 0, memory.EINVALID},
		{"bad org", "a b", "", memory.GrantRead, 0, memory.EINVALID},
		{"org-scope agent", "acme", memory.OrgScope, memory.GrantRead, 0, memory.EINVALID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			secret, k, err := auth.NewKey(tc.org, tc.agent, "n", tc.grants, now)
			if memory.ErrorCode(err) != tc.code {
				t.Fatalf("err %v, want %q", err, tc.code)
			}
			if err != nil {
				return
			}
			if k.Grants != tc.want || k.Hash != auth.Hash(secret) || !strings.HasPrefix(secret, k.Prefix) ||
				len(secret) != len(auth.SecretPrefix)+64 || strings.Contains(k.Hash, secret) {
				t.Fatalf("key %+v for secret %q", k, secret)
			}
		})
	}
	a, _, _ := auth.NewKey("acme", "", "", memory.GrantRead, now)
	b, _, _ := auth.NewKey("acme", "", "", memory.GrantRead, now)
	if a == b {
		t.Fatal("two keys share a secret")
	}
}

func TestStoreKeysAndChain(t *testing.T) {
	ctx := context.Background()
	ks := &keyStore{}
	now := time.Now()
	reader, rk, _ := auth.NewKey("acme", "bot", "reader", memory.GrantRead, now)
	revoked, vk, _ := auth.NewKey("acme", "", "old", memory.AllGrants, now)
	ks.CreateKey(ctx, rk)
	ks.CreateKey(ctx, vk)
	if _, err := ks.RevokeKey(ctx, "acme", vk.ID, now); err != nil {
		t.Fatal(err)
	}
	static, err := auth.ParseKeys("static-key-0123456789=acme")
	if err != nil {
		t.Fatal(err)
	}
	chain := auth.Chain{static, auth.StoreKeys{Store: ks}}
	tests := []struct {
		key  string
		want memory.Caller
		code string
	}{
		{reader, memory.Caller{OrgID: "acme", AgentID: "bot", Grants: memory.GrantRead, KeyID: rk.ID}, ""},
		{"static-key-0123456789", memory.Caller{OrgID: "acme", Grants: memory.AllGrants}, ""},
		{revoked, memory.Caller{}, memory.EUNAUTHORIZED},
		{"amk_unknown_0123456789", memory.Caller{}, memory.EUNAUTHORIZED},
		{"short", memory.Caller{}, memory.EUNAUTHORIZED},
	}
	for _, tc := range tests {
		got, err := chain.Authenticate(ctx, tc.key)
		if got != tc.want || memory.ErrorCode(err) != tc.code {
			t.Errorf("%.12s…: %+v %v, want %+v %q", tc.key, got, err, tc.want, tc.code)
		}
	}
	// A failing store is an error, not an unknown key.
	ks.err = errors.New("table unavailable")
	if _, err := chain.Authenticate(ctx, reader); memory.ErrorCode(err) != memory.EINTERNAL {
		t.Fatalf("store down: %v", err)
	}
}

func TestContextGrants(t *testing.T) {
	tests := []struct {
		value   string
		present bool
		agent   string
		want    memory.Grants
	}{
		{"", false, "", memory.AllGrants},
		{"", false, "bot", memory.AgentGrants},
		{"", true, "", 0},
		{"read,write", true, "", memory.GrantRead | memory.GrantWrite},
		{"read,bogus,delete:org", true, "bot", memory.GrantRead | memory.GrantDelete | memory.GrantDeleteOrg},
		{"admin,read", true, "bot", memory.GrantRead},
	}
	for _, tc := range tests {
		if got := auth.ContextGrants(tc.value, tc.present, tc.agent); got != tc.want {
			t.Errorf("%q present=%v agent=%q: %v, want %v", tc.value, tc.present, tc.agent, got, tc.want)
		}
	}
}
