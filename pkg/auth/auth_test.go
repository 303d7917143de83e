package auth_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
)

func TestParseKeys(t *testing.T) {
	tests := []struct {
		spec, err string
	}{
		{"k-0123456789abcdef=org", ""},
		{"k-0123456789abcdef=org/agent, k-1123456789abcdef=org2", ""},
		{"short=org", "shorter than 16"},
		{"k-0123456789abcdef", "not key=org"},
		{"k-0123456789abcdef=org with space", "org and agent names"},
		{"k-0123456789abcdef=org/_org", "org and agent names"},
		{"k-0123456789abcdef=/agent", "org and agent names"},
		{"k-0123456789abcdef=a,k-0123456789abcdef=b", "listed twice"},
		{"", "no keys"},
	}
	for _, tc := range tests {
		_, err := auth.ParseKeys(tc.spec)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q: %v, want %q", tc.spec, err, tc.err)
		}
		if err != nil && strings.Contains(err.Error(), "0123456789abcdef") {
			t.Errorf("%q: the error shows the key: %v", tc.spec, err)
		}
	}
}

func TestKeyMapAuthenticate(t *testing.T) {
	km, err := auth.ParseKeys("key-acme-0123456789ab=acme, key-bot-0123456789abc=acme/bot")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  string
		want memory.Caller
		code string
	}{
		{"key-acme-0123456789ab", memory.Caller{OrgID: "acme", Grants: memory.AllGrants}, ""},
		{"key-bot-0123456789abc", memory.Caller{OrgID: "acme", AgentID: "bot", Grants: memory.AgentGrants}, ""},
		{"key-nope-0123456789ab", memory.Caller{}, memory.EUNAUTHORIZED},
		{"", memory.Caller{}, memory.EUNAUTHORIZED},
	}
	for _, tc := range tests {
		got, err := km.Authenticate(context.Background(), tc.key)
		if got != tc.want || memory.ErrorCode(err) != tc.code {
			t.Errorf("%q: %+v %v, want %+v %s", tc.key, got, err, tc.want, tc.code)
		}
	}
}

func TestBearer(t *testing.T) {
	tests := []struct {
		header, key, msg string
	}{
		{"Bearer key-0123456789abcdef", "key-0123456789abcdef", ""},
		{"bearer  key-0123456789abcdef ", "key-0123456789abcdef", ""},
		{" BEARER key-0123456789abcdef", "key-0123456789abcdef", ""},
		{"", "", "missing Authorization: Bearer <api key> header"},
		{"key-0123456789abcdef", "", "the Authorization header must be Bearer <api key>"},
		{"Basic dXNlcjpwYXNz", "", "the Authorization header must be Bearer <api key>"},
		{"Bearer ", "", "the Authorization header must be Bearer <api key>"},
		{"Bearer    ", "", "the Authorization header must be Bearer <api key>"},
	}
	for _, tc := range tests {
		key, err := auth.Bearer(tc.header)
		if tc.msg == "" {
			if err != nil || key != tc.key {
				t.Errorf("%q: %q %v, want %q", tc.header, key, err, tc.key)
			}
			continue
		}
		if memory.ErrorCode(err) != memory.EUNAUTHORIZED || memory.ErrorMessage(err) != tc.msg || key != "" {
			t.Errorf("%q: %q %v, want EUNAUTHORIZED %q", tc.header, key, err, tc.msg)
		}
	}
}

// TestDevKey checks that the development key is created once, kept
// private, and read back on the next start.
func TestDevKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, err := auth.DevKey(dir)
	if err != nil || len(first) < auth.MinKeyLen {
		t.Fatalf("first start: %q %v", first, err)
	}
	fi, err := os.Stat(filepath.Join(dir, "dev-api-key"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	again, created, err := auth.OpenDevKey(dir)
	if err != nil || again != first || created {
		t.Fatalf("second start: %q created %v %v, want %q not created", again, created, err, first)
	}
	if _, created, err := auth.OpenDevKey(filepath.Join(dir, "other")); err != nil || !created {
		t.Fatalf("a new data directory: created %v %v", created, err)
	}
	km, err := auth.ParseKeys(first + "=" + auth.DevOrg)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := km.Authenticate(context.Background(), first); err != nil || c.OrgID != auth.DevOrg {
		t.Fatalf("dev key authenticates as %+v %v", c, err)
	}
}
