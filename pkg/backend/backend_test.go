package backend_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/agentmem/agentmem/pkg/testenv"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/pkg/backend"
	"github.com/agentmem/agentmem/pkg/config"
	"github.com/agentmem/agentmem/pkg/memory"
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
	b, err := backend.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var in []memory.NewMemory
	for i := 0; i < 40; i++ {
		in = append(in, memory.NewMemory{Content: memory.Content{Text: fmt.Sprintf("ticket %d: the printer on floor %d jams", i, i%5)}})
	}
	in = append(in, memory.NewMemory{Type: memory.TypeFact, Content: memory.Content{Text: "The VPN certificate expires on 3 March"}})
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
	b, err = backend.Open(ctx, cfg, nil)
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
		for _, mode := range []memory.Mode{memory.ModeKeyword, memory.ModeSemantic, memory.ModeHybrid} {
			res, err := b.Service.Search(ctx, caller, memory.SearchRequest{Query: "VPN certificate expiry", Mode: mode, K: 3})
			if err != nil || len(res) == 0 || res[0].Memory.Type != memory.TypeFact {
				t.Fatalf("%s, %s: %v %v", when, mode, res, err)
			}
		}
		res, _ := b.Service.Search(ctx, caller, memory.SearchRequest{Query: "printer jams", Mode: memory.ModeKeyword, K: 100})
		if len(res) != 40 {
			t.Fatalf("%s: %d of 40 printer tickets found", when, len(res))
		}
	}
	check("after the switch")
	st, err := b.OpenSearch.Reindex(ctx, b.Store, b.Embedder)
	if err != nil || st.Indexed != 41 {
		t.Fatalf("reindex: %+v %v", st, err)
	}
	check("after a reindex")
}

// TestAWSStoreWithEmbeddedIndex runs the service on DynamoDB Local with the
// embedded index, and checks that a lost index is refilled from DynamoDB.
func TestAWSStoreWithEmbeddedIndex(t *testing.T) {
	ep := testenv.Get(t, "DYNAMODB_ENDPOINT")
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	ctx := context.Background()
	var suffix [4]byte
	rand.Read(suffix[:])
	dir := t.TempDir()
	env := map[string]string{"BACKEND": "aws", "DYNAMODB_ENDPOINT": ep, "DYNAMODB_CREATE_TABLE": "true",
		"DYNAMODB_TABLE": "backend-" + hex.EncodeToString(suffix[:]), "DATA_DIR": dir}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	b, err := backend.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	caller := memory.Caller{OrgID: "acme"}
	res, err := b.Service.Create(ctx, caller, []memory.NewMemory{
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
	b, err = backend.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, mode := range []memory.Mode{memory.ModeKeyword, memory.ModeSemantic, memory.ModeHybrid} {
		got, err := b.Service.Search(ctx, caller, memory.SearchRequest{Query: "on-call rotation Monday", Mode: mode, K: 1})
		if err != nil || len(got) != 1 || got[0].Memory.ID != res[0].ID {
			t.Fatalf("%s after the index was lost: %v %v", mode, got, err)
		}
	}
	if n, err := b.Service.Count(ctx, caller, memory.Filter{RoomID: "ops"}); err != nil || n != 1 {
		t.Fatalf("count on DynamoDB: %d %v", n, err)
	}
}
