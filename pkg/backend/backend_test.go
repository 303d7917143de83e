package backend_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
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
	url := os.Getenv("OPENSEARCH_URL")
	if url == "" {
		if os.Getenv("REQUIRE_OPENSEARCH") == "1" {
			t.Fatal("REQUIRE_OPENSEARCH=1 but OPENSEARCH_URL is not set")
		}
		t.Skip("OPENSEARCH_URL not set")
	}
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
