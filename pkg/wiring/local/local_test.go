package local_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
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

// TestStartupCheckRepairsByStamp breaks the index the ways a crash can,
// keeping its count equal to the store's so that a count would see
// nothing: a memory missing from the index, one indexed from older content,
// an entry for a memory the store no longer has, and one for a memory the
// store holds staged. The check finds each by its stamp and repairs it,
// reading whole only the memories whose versions differ from the entries'.
func TestStartupCheckRepairsByStamp(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := memory.Caller{OrgID: "org"}
	emb := hashing.New(64)
	b, err := local.Open(ctx, dir, emb, nil)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"alpha centauri is the nearest star system", "the bakery opens at seven", "rent is due on the first",
		"the cat is called Miso", "the boiler was serviced in May"}
	var in []service.NewMemory
	for _, s := range texts {
		in = append(in, service.NewMemory{Content: memory.Content{Text: s}})
	}
	res, err := b.Service.Create(ctx, c, in)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(res))
	for i, r := range res {
		ids[i] = r.ID
	}
	// Missing: out of the index only.
	if err := b.Index.Delete(ctx, c.OrgID, []string{ids[0]}); err != nil {
		t.Fatal(err)
	}
	// Stale: the store moved on without the index.
	m, err := b.Store.Get(ctx, c.OrgID, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	m.Content.Text = "the bakery now opens at nine"
	m.ContentHash = memory.ContentHash(m.Content.Text)
	if err := b.Store.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	// Current, at a new version: the same content saved again.
	same, err := b.Store.Get(ctx, c.OrgID, ids[3])
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Store.Update(ctx, same); err != nil {
		t.Fatal(err)
	}
	// Orphans: a memory gone from the store, and a staged one, still indexed.
	gone, err := b.Store.Get(ctx, c.OrgID, ids[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Store.Delete(ctx, c.OrgID, ids[2]); err != nil {
		t.Fatal(err)
	}
	staged, err := b.Service.Pipelines().Stage(ctx, c, []service.NewMemory{{Type: memory.TypeFragment, DocumentID: "doc-1",
		Content: memory.Content{Text: "a staged fragment about zeppelins"}}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.Store.Get(ctx, c.OrgID, staged[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	st.Pending = false // as a half-done commit could have indexed it
	if err := b.Index.Upsert(ctx, []*memory.Memory{st}); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.Index.DocCount(); n != 5 {
		t.Fatalf("the broken index holds %d entries; the test needs the store's count, 4 visible + 1 staged", n)
	}
	b.Close()

	// Read: the memories read whole, those whose versions the index did
	// not record as its entries' (the missing one, the stale one, and the
	// current one saved again, whose version is then recorded); every
	// memory when the store cannot list versions.
	cases := []struct {
		name     string
		scanOnly bool
		want     local.CheckStats
	}{
		{"repairs", false, local.CheckStats{Checked: 4, Read: 3, Missing: 1, Stale: 1, Orphans: 2}},
		{"then finds nothing, reading none", false, local.CheckStats{Checked: 4}},
		{"a store without versions: every memory read", true, local.CheckStats{Checked: 4, Read: 4}},
	}
	for _, tc := range cases {
		sq, err := local.OpenStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		var store memory.Store = sq
		if tc.scanOnly {
			store = struct{ memory.Store }{sq} // hides memory.VersionScanner
		}
		ix, _, err := bolt.Open(filepath.Join(dir, "index"), emb.Model(), emb.Dimensions())
		if err != nil {
			t.Fatal(err)
		}
		got, err := local.CheckIndex(ctx, store, ix, emb, slog.New(slog.NewTextHandler(io.Discard, nil)))
		ix.Close()
		sq.Close()
		got.Took = 0
		if err != nil || got != tc.want {
			t.Fatalf("%s: %+v %v, want %+v", tc.name, got, err, tc.want)
		}
	}

	b, err = local.Open(ctx, dir, emb, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	search := func(q string) []string {
		t.Helper()
		res, err := b.Service.Search(ctx, c, service.SearchRequest{Query: q, Mode: service.ModeKeyword, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res {
			out = append(out, r.Memory.ID)
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"alpha centauri", []string{ids[0]}},
		{"bakery nine", []string{ids[1]}},
		{"seven", nil},
		{"zeppelins", nil},
	} {
		if got := search(tc.query); !slices.Equal(got, tc.want) {
			t.Fatalf("%q: %v, want %v", tc.query, got, tc.want)
		}
	}
	var left int
	if err := b.Index.Stamps(func(org, id string, _ uint64, _ int64) error {
		if id == gone.ID || id == staged[0].ID {
			t.Errorf("orphan %s still indexed", id)
		}
		left++
		return nil
	}); err != nil || left != 4 {
		t.Fatalf("%d entries left, want 4 (%v)", left, err)
	}
}

// TestOpenIndexANN: the approximate search configuration given to
// OpenIndex (from the INDEX_ANN_* variables) reaches the index, its zero
// fields keeping the defaults; none given keeps DefaultANN.
func TestOpenIndexANN(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name string
		ann  []bolt.ANNConfig
		want bolt.ANNConfig
	}{
		{"default", nil, bolt.DefaultANN},
		{"exact", []bolt.ANNConfig{{Threshold: -1}}, bolt.ANNConfig{Threshold: -1, M: bolt.DefaultANN.M,
			EfConstruction: bolt.DefaultANN.EfConstruction, EfSearch: bolt.DefaultANN.EfSearch}},
		{"all set", []bolt.ANNConfig{{Threshold: 1000, M: 24, EfConstruction: 200, EfSearch: 64}},
			bolt.ANNConfig{Threshold: 1000, M: 24, EfConstruction: 200, EfSearch: 64}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			store, err := local.OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			ix, _, err := local.OpenIndex(ctx, dir, store, hashing.New(64), log, tc.ann...)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if got := ix.ANN(); got != tc.want {
				t.Fatalf("ANN() = %+v, want %+v", got, tc.want)
			}
		})
	}
}
