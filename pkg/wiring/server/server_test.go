package server_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/service"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// TestSwitchToOpenSearchFillsItFromTheStore writes memories with the
// embedded index, reopens the same data with INDEX=opensearch on a new
// alias, and checks that the alias was filled from the store, searches in
// every mode, and survives a reindex.
func TestSwitchToOpenSearchFillsItFromTheStore(t *testing.T) {
	url := testenv.Get(t, "OPENSEARCH_URL")
	ctx := context.Background()
	dir := t.TempDir()
	caller := memory.Caller{OrgID: "acme"}
	env := map[string]string{"DATA_DIR": dir}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	b, err := server.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var in []service.NewMemory
	for i := 0; i < 40; i++ {
		in = append(in, service.NewMemory{Content: memory.Content{Text: fmt.Sprintf("ticket %d: the printer on floor %d jams", i, i%5)}})
	}
	in = append(in, service.NewMemory{Type: memory.TypeFact, Content: memory.Content{Text: "The VPN certificate expires on 3 March"}})
	if _, err := b.Service.Create(ctx, caller, in); err != nil {
		t.Fatal(err)
	}
	b.Close()

	var suffix [4]byte
	rand.Read(suffix[:])
	env["INDEX"], env["OPENSEARCH_URL"], env["OPENSEARCH_ALIAS"] = "opensearch", url, "switch-"+hex.EncodeToString(suffix[:])
	if cfg, err = config.Load(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	b, err = server.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	defer b.OpenSearch.DeleteAll(context.Background())
	check := func(when string) {
		t.Helper()
		if err := b.OpenSearch.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []service.Mode{service.ModeKeyword, service.ModeSemantic, service.ModeHybrid} {
			res, err := b.Service.Search(ctx, caller, service.SearchRequest{Query: "VPN certificate expiry", Mode: mode, K: 3})
			if err != nil || len(res) == 0 || res[0].Memory.Type != memory.TypeFact {
				t.Fatalf("%s, %s: %v %v", when, mode, res, err)
			}
		}
		res, _ := b.Service.Search(ctx, caller, service.SearchRequest{Query: "printer jams", Mode: service.ModeKeyword, K: 100})
		if len(res) != 40 {
			t.Fatalf("%s: %d of 40 printer tickets found", when, len(res))
		}
	}
	check("after the switch")
	st, err := b.OpenSearch.Reindex(ctx, service.Rebuilder{Store: b.Store, Embedder: b.Embedder, Sentences: true})
	if err != nil || st.Indexed != 41 {
		t.Fatalf("reindex: %+v %v", st, err)
	}
	check("after a reindex")
}

// TestAWSStoreWithEmbeddedIndex runs the service on DynamoDB Local with the
// embedded index, and checks that a lost index is refilled from DynamoDB.
// awsConfig is the configuration of a DynamoDB Local backend on a fresh
// table, with the embedded index in dir.
func awsConfig(t *testing.T, dir string) config.Config {
	t.Helper()
	ep := testenv.Get(t, "DYNAMODB_ENDPOINT")
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	var suffix [4]byte
	rand.Read(suffix[:])
	env := map[string]string{"BACKEND": "aws", "DYNAMODB_ENDPOINT": ep, "DYNAMODB_CREATE_TABLE": "true",
		"DYNAMODB_TABLE": "backend-" + hex.EncodeToString(suffix[:]), "DATA_DIR": dir}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestConversationContextOnDynamoDB checks that messages find the turn
// before them through the DynamoDB store (its room index, newest first,
// filtered by type, scope and time), across batches and scopes.
func TestConversationContextOnDynamoDB(t *testing.T) {
	ctx := context.Background()
	b, err := server.Open(ctx, awsConfig(t, t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	org, agent := memory.Caller{OrgID: "acme"}, memory.Caller{OrgID: "acme", AgentID: "x"}
	const t0 = int64(1_700_000_000_000)
	msg := func(room, who, text string, at int64) service.NewMemory {
		return service.NewMemory{Type: memory.TypeMessage, RoomID: room, EntityID: who, Content: memory.Content{Text: text}, CreatedAt: at}
	}
	create := func(c memory.Caller, in ...service.NewMemory) []memory.CreateResult {
		t.Helper()
		res, err := b.Service.Create(ctx, c, in)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	create(org, msg("ops", "kim", "Who is on call this week?", t0), msg("dev", "lee", "Merge freeze starts Friday", t0+1),
		service.NewMemory{Type: memory.TypeFact, RoomID: "ops", Content: memory.Content{Text: "Kim runs the rotation"}, CreatedAt: t0 + 2})
	create(agent, msg("ops", "bot", "private note for agent x", t0+3))
	answer := create(org, msg("ops", "sam", "Jo is, until Sunday", t0+10))
	mine := create(agent, msg("ops", "bot", "second private note", t0+20))
	for _, c := range []struct {
		caller memory.Caller
		id     string
		want   string
	}{
		{org, answer[0].ID, "kim: Who is on call this week?"},
		{agent, mine[0].ID, "bot: private note for agent x"},
	} {
		m, err := b.Service.Get(ctx, c.caller, c.id)
		if err != nil || m.Context != c.want {
			t.Fatalf("context %q (%v), want %q", m.Context, err, c.want)
		}
	}
}

func TestAWSStoreWithEmbeddedIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := awsConfig(t, dir)
	b, err := server.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	caller := memory.Caller{OrgID: "acme"}
	res, err := b.Service.Create(ctx, caller, []service.NewMemory{
		{Type: memory.TypeFact, Content: memory.Content{Text: "The on-call rotation changes every Monday"}},
		{Type: memory.TypeMessage, RoomID: "ops", EntityID: "kim", Content: memory.Content{Text: "Who is on call this week?"}},
	})
	if err != nil || b.DynamoDB == nil {
		t.Fatalf("create: %v %v", res, err)
	}
	b.Close()
	if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	b, err = server.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, mode := range []service.Mode{service.ModeKeyword, service.ModeSemantic, service.ModeHybrid} {
		got, err := b.Service.Search(ctx, caller, service.SearchRequest{Query: "on-call rotation Monday", Mode: mode, K: 1})
		if err != nil || len(got) != 1 || got[0].Memory.ID != res[0].ID {
			t.Fatalf("%s after the index was lost: %v %v", mode, got, err)
		}
	}
	if n, err := b.Service.Count(ctx, caller, memory.Filter{RoomID: "ops"}); err != nil || n != 1 {
		t.Fatalf("count on DynamoDB: %d %v", n, err)
	}
}
