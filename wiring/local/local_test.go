package local_test

import (
	"context"
	"github.com/agentmem/agentmem/service"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/embed/hashing"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/wiring/local"
)

// TestIndexIsRebuiltFromTheStore removes the index directory, as a lost
// disk or a crash between the store and index writes would, and checks that
// opening the backend rebuilds it from the store.
func TestIndexIsRebuiltFromTheStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := memory.Caller{OrgID: "org"}
	b, err := local.Open(ctx, dir, hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	var in []service.NewMemory
	for _, s := range []string{"alpha centauri is the nearest star system", "the bakery opens at seven", "rent is due on the first"} {
		in = append(in, service.NewMemory{Content: memory.Content{Text: s}})
	}
	if _, err := b.Service.Create(ctx, c, in); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	b, err = local.Open(ctx, dir, hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if n, _ := b.Index.DocCount(); n != 3 || b.Index.Len() != 3 {
		t.Fatalf("rebuilt index holds %d texts and %d vectors, want 3 and 3", n, b.Index.Len())
	}
	for _, mode := range []service.Mode{service.ModeKeyword, service.ModeSemantic} {
		res, err := b.Service.Search(ctx, c, service.SearchRequest{Query: "bakery opens", Mode: mode, K: 1})
		if err != nil || len(res) != 1 || res[0].Memory.Content.Text != "the bakery opens at seven" {
			t.Fatalf("%s after rebuild: %v %v", mode, res, err)
		}
	}
}
