package bleveindex_test

import (
	"context"
	"testing"

	"github.com/agentmem/agentmem/pkg/bleveindex"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

const model = "test-model"

func open(t *testing.T, dir, model string) (*bleveindex.Index, bool) {
	t.Helper()
	ix, rebuild, err := bleveindex.Open(dir, model, 64)
	if err != nil {
		t.Fatal(err)
	}
	return ix, rebuild
}

func TestIndexContract(t *testing.T) {
	memorytest.IndexSuite(t, func(t *testing.T) memory.Index {
		ix, _ := open(t, t.TempDir(), model)
		t.Cleanup(func() { ix.Close() })
		return ix
	})
}

func TestRestartKeepsIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix, rebuild := open(t, dir, model)
	if rebuild {
		t.Fatal("a new directory asks for a rebuild")
	}
	corpus := memorytest.Corpus(memorytest.OrgA, 40)
	if err := ix.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	if err := ix.Delete(ctx, memorytest.OrgA, []string{corpus[0].ID}); err != nil {
		t.Fatal(err)
	}
	q := memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA, IncludeArchived: true}, Text: "memo", Vector: corpus[5].Embedding, K: 100}
	before, err := ix.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	ix, rebuild = open(t, dir, model)
	if rebuild {
		t.Fatal("reopening with the same model asks for a rebuild")
	}
	after, err := ix.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Keyword) != 39 || len(after.Semantic) != 39 || after.Semantic[0].ID != corpus[5].ID {
		t.Fatalf("after restart: %d keyword, %d semantic hits", len(after.Keyword), len(after.Semantic))
	}
	for i := range before.Semantic {
		if before.Semantic[i] != after.Semantic[i] {
			t.Fatalf("semantic rank %d changed across restart: %v vs %v", i, before.Semantic[i], after.Semantic[i])
		}
	}
	ix.Close()

	// Another embedding model drops the vectors and the text and asks for a rebuild.
	ix, rebuild = open(t, dir, "other-model")
	defer ix.Close()
	if !rebuild || ix.Len() != 0 {
		t.Fatalf("model change: rebuild=%v, %d vectors kept", rebuild, ix.Len())
	}
	if n, _ := ix.DocCount(); n != 0 {
		t.Fatalf("model change kept %d text documents", n)
	}
}
