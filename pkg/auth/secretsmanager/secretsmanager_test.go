package secretsmanager_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/auth/secretsmanager"
	"github.com/agentmem/agentmem/pkg/memory"
)

// fakeSecrets speaks the Secrets Manager JSON protocol (AWS JSON 1.1,
// X-Amz-Target secretsmanager.GetSecretValue) for one secret and its
// versions, as the service answers, and counts the calls.
type fakeSecrets struct {
	name     string
	mu       sync.Mutex
	versions map[string]string // version id -> secret string
	current  string            // the AWSCURRENT version id
	calls    int
}

func (f *fakeSecrets) rotate(id, secret string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.versions[id], f.current = secret, id
}

func (f *fakeSecrets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	fail := func(status int, typ, msg string) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.Header().Set("X-Amzn-ErrorType", typ)
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
	}
	if r.Method != "POST" || r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" ||
		!strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-amz-json-1.1") || !strings.Contains(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256") {
		fail(400, "InvalidRequestException", "not a signed GetSecretValue call")
		return
	}
	var in struct{ SecretId, VersionId, VersionStage string }
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &in); err != nil {
		fail(400, "InvalidParameterException", err.Error())
		return
	}
	if in.SecretId != f.name {
		fail(400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
		return
	}
	id := in.VersionId
	switch {
	case id == "" && (in.VersionStage == "AWSCURRENT" || in.VersionStage == ""):
		id = f.current
	case id == "":
		fail(400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret value for staging label: "+in.VersionStage)
		return
	}
	secret, ok := f.versions[id]
	if !ok {
		fail(400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret value for VersionId: "+id)
		return
	}
	stages := []string{"AWSPREVIOUS"}
	if id == f.current {
		stages = []string{"AWSCURRENT"}
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	json.NewEncoder(w).Encode(map[string]any{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:" + f.name + "-AbCdEf",
		"Name": f.name, "VersionId": id, "SecretString": secret, "VersionStages": stages, "CreatedDate": 1.7e9})
}

const (
	v1 = "EXAMPLE1-90ab-cdef-fedc-ba987EXAMPLE"
	v2 = "EXAMPLE2-90ab-cdef-fedc-ba987EXAMPLE"
)

func TestKeys(t *testing.T) {
	ctx := context.Background()
	fake := &fakeSecrets{name: "agentmem/token-signing", versions: map[string]string{v1: strings.Repeat("k", 64)}, current: v1}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c, err := secretsmanager.NewClient(ctx, secretsmanager.ClientOptions{Endpoint: srv.URL, Region: "us-east-1", AccessKey: "test", SecretKey: "test"})
	if err != nil {
		t.Fatal(err)
	}
	keys := secretsmanager.New(c, fake.name)
	cur, err := keys.Current(ctx)
	if err != nil || cur.ID != v1 || string(cur.Secret) != strings.Repeat("k", 64) {
		t.Fatalf("current: %+v %v", cur, err)
	}
	tokens := auth.NewTokens(keys)
	caller := memory.Caller{OrgID: "acme", Grants: memory.AllGrants}
	old, err := tokens.Mint(ctx, caller, auth.TokenRequest{UserID: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	// The authorizer Lambda: its own client, the same secret.
	vkeys := secretsmanager.New(c, fake.name)
	verifier := auth.NewTokens(vkeys)
	if got, err := verifier.Authenticate(ctx, old.Token); err != nil || got.KeyID != "token:"+v1 {
		t.Fatalf("verify in another process: %+v %v", got, err)
	}
	fake.rotate(v2, strings.Repeat("n", 64))
	if got, err := secretsmanager.New(c, fake.name).Current(ctx); err != nil || got.ID != v2 {
		t.Fatalf("current after rotation: %+v %v", got.ID, err)
	}
	if _, err := auth.NewTokens(secretsmanager.New(c, fake.name)).Authenticate(ctx, old.Token); err != nil {
		t.Fatalf("a token of the previous version after rotation: %v", err)
	}

	calls := fake.calls
	tests := []struct {
		name, id string
		code     string
		calls    int // Secrets Manager calls the lookup makes
	}{
		{name: "cached version", id: v1, calls: 0},
		{name: "unknown version", id: "EXAMPLE9-90ab-cdef-fedc-ba987EXAMPLE", code: memory.ENOTFOUND, calls: 1},
		{name: "unknown version again, remembered", id: "EXAMPLE9-90ab-cdef-fedc-ba987EXAMPLE", code: memory.ENOTFOUND, calls: 0},
		{name: "not a version id", id: "sk_0123", code: memory.ENOTFOUND, calls: 0},
		{name: "new version", id: v2, calls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, err := vkeys.Lookup(ctx, tc.id)
			if memory.ErrorCode(err) != tc.code || (tc.code == "" && key.ID != tc.id) || fake.calls-calls != tc.calls {
				t.Fatalf("%+v %v after %d calls, want %q after %d", key.ID, err, fake.calls-calls, tc.code, tc.calls)
			}
			calls = fake.calls
		})
	}

	// A failing service is an error, not an unknown key (a 500, not a 401).
	broken := secretsmanager.New(c, "no-such-secret")
	if _, err := broken.Current(ctx); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("missing secret: %v", err)
	}
	// A refused call (here a request the service finds invalid; throttling
	// and outages are retried by the client first) is an error of its own.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Amzn-ErrorType", "InvalidRequestException")
		w.WriteHeader(400)
		io.WriteString(w, `{"__type":"InvalidRequestException","message":"You can't perform this operation on the secret because it was marked for deletion."}`)
	}))
	defer refusing.Close()
	rc, err := secretsmanager.NewClient(ctx, secretsmanager.ClientOptions{Endpoint: refusing.URL, Region: "us-east-1", AccessKey: "test", SecretKey: "test"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = auth.NewTokens(secretsmanager.New(rc, fake.name)).Authenticate(ctx, old.Token)
	if err == nil || memory.ErrorCode(err) == memory.EUNAUTHORIZED || !strings.Contains(err.Error(), "marked for deletion") {
		t.Fatalf("a refused call: %v, want an internal error", err)
	}
}
