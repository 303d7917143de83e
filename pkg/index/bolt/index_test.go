package bolt_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

const model = "test-model"

func open(t *testing.T, dir, model string) (*bolt.Index, bool) {
	t.Helper()
	ix, rebuild, err := bolt.Open(dir, model, 64)
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

	// Another embedding model keeps the entries: keyword search works at
	// once, semantic search is off until every memory is re-embedded, and
	// vectors of the old dimensions are dropped rather than refused.
	other, _, err := bolt.Open(dir, "other-model", 32)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ix = other
	got, err := ix.Search(ctx, q)
	if err != nil || !ix.Reembedding() || len(got.Keyword) != 39 || len(got.Semantic) != 0 {
		t.Fatalf("model change: reembedding %v, %d keyword, %d semantic hits, %v", ix.Reembedding(), len(got.Keyword), len(got.Semantic), err)
	}
	if err := ix.Upsert(ctx, corpus[1:3]); err != nil {
		t.Fatalf("an old vector while re-embedding: %v", err)
	}
	fresh := make([]*memory.Memory, 0, 39)
	for _, m := range corpus[1:] {
		c := *m
		c.Embedding, c.EmbeddingModel = append([]float32(nil), m.Embedding[:32]...), "other-model"
		memory.Normalize(c.Embedding)
		fresh = append(fresh, &c)
	}
	if err := ix.Upsert(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if err := ix.FinishReembedding(); err != nil {
		t.Fatal(err)
	}
	q.Vector = fresh[4].Embedding
	got, err = ix.Search(ctx, q)
	if err != nil || ix.Reembedding() || len(got.Semantic) != 39 || got.Semantic[0].ID != corpus[5].ID {
		t.Fatalf("after re-embedding: %d semantic hits %v", len(got.Semantic), err)
	}
}

// TestScoresAreBM25 checks scores against the formula computed by hand:
// idf = ln(1 + (N-df+0.5)/(df+0.5)), tf part = tf*(k1+1)/(tf + k1*(1-b+b*dl/avgdl)).
func TestScoresAreBM25(t *testing.T) {
	ctx := context.Background()
	ix, _ := open(t, t.TempDir(), model)
	defer ix.Close()
	texts := []string{
		"apple banana",                             // 2 tokens
		"apple apple cherry",                       // 3 tokens
		"banana cherry durian fig",                 // 4 tokens
		"the of and",                               // only stop words: 0 tokens
		strings.Repeat("melon ", 12),               // a frequency past what a posting packs (bm25.go): 12 tokens
		"papaya " + strings.Repeat("lemon ", 4999), // a length past what a posting packs: 5,000 tokens
	}
	var ms []*memory.Memory
	for i, s := range texts {
		ms = append(ms, memorytest.New(memorytest.OrgA, "", memory.TypeCustom, s, memorytest.Base+int64(i)))
	}
	if err := ix.Upsert(ctx, ms); err != nil {
		t.Fatal(err)
	}
	const N, avgdl = 6.0, 5021.0 / 6
	idf := func(df float64) float64 { return math.Log(1 + (N-df+0.5)/(df+0.5)) }
	part := func(tf, dl float64) float64 { return tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/avgdl)) }
	cases := []struct {
		query string
		want  map[int]float64 // text index → score
	}{
		{"apple", map[int]float64{0: idf(2) * part(1, 2), 1: idf(2) * part(2, 3)}},
		{"durian", map[int]float64{2: idf(1) * part(1, 4)}},
		{"banana cherry", map[int]float64{
			0: idf(2) * part(1, 2),
			1: idf(2) * part(1, 3),
			2: idf(2)*part(1, 4) + idf(2)*part(1, 4),
		}},
		{"apple apple", map[int]float64{0: 2 * idf(2) * part(1, 2), 1: 2 * idf(2) * part(2, 3)}},
		{"melon", map[int]float64{4: idf(1) * part(12, 12)}},
		{"papaya", map[int]float64{5: idf(1) * part(1, 5000)}},
		{"lemon melon", map[int]float64{4: idf(1) * part(12, 12), 5: idf(1) * part(4999, 5000)}},
		{"the", nil},
		{"kiwi", nil},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r, err := ix.Search(ctx, memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA}, Text: c.query, K: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Keyword) != len(c.want) {
				t.Fatalf("%d hits, want %d: %v", len(r.Keyword), len(c.want), r.Keyword)
			}
			for i, h := range r.Keyword {
				if i > 0 && h.Score > r.Keyword[i-1].Score {
					t.Errorf("hits out of order: %v", r.Keyword)
				}
				found := false
				for j, want := range c.want {
					if ms[j].ID == h.ID {
						found = true
						if math.Abs(h.Score-want) > 1e-5*want {
							t.Errorf("text %d (%.30q) scores %.6f, want %.6f", j, texts[j], h.Score, want)
						}
					}
				}
				if !found {
					t.Errorf("unexpected hit %s", h.ID)
				}
			}
		})
	}
}

// TestDeletesAndUpdatesMatchAFreshIndex churns one index with updates and
// enough deletes to compact it, then compares every search with an index
// built from the surviving memories alone, before and after a restart.
func TestDeletesAndUpdatesMatchAFreshIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	churned, _ := open(t, dir, model)
	corpus := memorytest.Corpus(memorytest.OrgA, 3000)
	if err := churned.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	var gone []string
	var kept []*memory.Memory
	for i, m := range corpus {
		switch {
		case i%3 != 0:
			gone = append(gone, m.ID)
		case i%5 == 0: // rewritten: new text, archived flag flipped
			c := *m
			c.Content.Text = "rewritten " + m.Content.Text + " violin"
			c.Archived = !c.Archived
			c.Embedding = memorytest.Embed(c.SearchText())
			kept = append(kept, &c)
		default:
			kept = append(kept, m)
		}
	}
	if err := churned.Upsert(ctx, kept); err != nil {
		t.Fatal(err)
	}
	if err := churned.Delete(ctx, memorytest.OrgA, gone); err != nil {
		t.Fatal(err)
	}
	fresh, _ := open(t, t.TempDir(), model)
	defer fresh.Close()
	if err := fresh.Upsert(ctx, kept); err != nil {
		t.Fatal(err)
	}
	compare := func(t *testing.T, a *bolt.Index) {
		t.Helper()
		if n, _ := a.DocCount(); n != uint64(len(kept)) || a.Len() != len(kept) {
			t.Fatalf("%d documents and %d vectors, want %d", n, a.Len(), len(kept))
		}
		for _, q := range []memory.IndexQuery{
			{Filter: memory.Filter{OrgID: memorytest.OrgA}, Text: "memo violin", Vector: kept[7].Embedding, K: 50},
			{Filter: memory.Filter{OrgID: memorytest.OrgA, IncludeArchived: true}, Text: "rewritten marathon", Vector: kept[3].Embedding, K: 2000},
			{Filter: memory.Filter{OrgID: memorytest.OrgA, RoomID: "room-1"}, Text: "japan trip", K: 30},
		} {
			got, err := a.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := fresh.Search(ctx, q)
			if len(got.Keyword) == 0 || len(got.Keyword) != len(want.Keyword) || len(got.Semantic) != len(want.Semantic) {
				t.Fatalf("%q: %d/%d keyword and %d/%d semantic hits", q.Text, len(got.Keyword), len(want.Keyword), len(got.Semantic), len(want.Semantic))
			}
			for i := range want.Keyword {
				g, w := got.Keyword[i], want.Keyword[i]
				if g.ID != w.ID || math.Abs(g.Score-w.Score) > 1e-5*w.Score {
					t.Fatalf("%q keyword rank %d: %v, fresh index %v", q.Text, i, g, w)
				}
			}
			for i := range want.Semantic {
				if got.Semantic[i] != want.Semantic[i] {
					t.Fatalf("semantic rank %d: %v, fresh index %v", i, got.Semantic[i], want.Semantic[i])
				}
			}
		}
	}
	compare(t, churned)
	churned.Close()
	reopened, _ := open(t, dir, model)
	defer reopened.Close()
	compare(t, reopened)
}

// TestEarlierLayoutIsRebuilt opens a directory left by the bleve-based
// index of earlier versions: its files are dropped and a rebuild is asked.
func TestEarlierLayoutIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	db, err := bbolt.Open(filepath.Join(dir, "index.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucket([]byte("vectors")); err != nil {
			return err
		}
		return meta.Put([]byte("model"), []byte(model))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "text.bleve", "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	ix, rebuild := open(t, dir, model)
	defer ix.Close()
	if !rebuild {
		t.Fatal("an earlier layout does not ask for a rebuild")
	}
	if _, err := os.Stat(filepath.Join(dir, "text.bleve")); !os.IsNotExist(err) {
		t.Fatalf("the old text index is still there: %v", err)
	}
}

// TestKeywordOnlyMemoriesBeforeVectors opens an index that does not know
// its dimensions yet and adds memories without embeddings first.
func TestKeywordOnlyMemoriesBeforeVectors(t *testing.T) {
	ctx := context.Background()
	ix, _, err := bolt.Open(t.TempDir(), model, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	plain := memorytest.New(memorytest.OrgA, "", memory.TypeCustom, "no vector here, only words", memorytest.Base)
	plain.Embedding = nil
	withVec := memorytest.New(memorytest.OrgA, "", memory.TypeCustom, "words and a vector", memorytest.Base+1)
	for _, m := range []*memory.Memory{plain, withVec} {
		if err := ix.Upsert(ctx, []*memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := ix.Search(ctx, memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA}, Text: "words", Vector: withVec.Embedding, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Keyword) != 2 || len(r.Semantic) != 1 || r.Semantic[0].ID != withVec.ID || math.Abs(r.Semantic[0].Score-1) > 1e-5 {
		t.Fatalf("keyword %v, semantic %v", r.Keyword, r.Semantic)
	}
	bad := memorytest.New(memorytest.OrgA, "", memory.TypeCustom, "short vector", memorytest.Base+2)
	bad.Embedding = bad.Embedding[:8]
	if err := ix.Upsert(ctx, []*memory.Memory{bad}); err == nil {
		t.Fatal("an embedding of other dimensions was accepted")
	}
}

// TestConcurrentWritesAndSearches runs writers, deleters and searchers
// together (meaningful under -race) and checks the final state.
func TestConcurrentWritesAndSearches(t *testing.T) {
	ctx := context.Background()
	ix, _ := open(t, t.TempDir(), model)
	defer ix.Close()
	corpus := memorytest.Corpus(memorytest.OrgA, 2400)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w * 600; i < (w+1)*600; i += 50 {
				if err := ix.Upsert(ctx, corpus[i:i+50]); err != nil {
					errs <- err
					return
				}
				if err := ix.Delete(ctx, memorytest.OrgA, []string{corpus[i].ID}); err != nil {
					errs <- err
					return
				}
			}
		}(w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if _, err := ix.Search(ctx, memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA}, Text: "memo bread", Vector: corpus[1].Embedding, K: 20}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, _ := ix.DocCount(); n != 2400-48 {
		t.Fatalf("%d documents, want %d", n, 2400-48)
	}
}

// TestSemanticIsExact compares vector search with a brute-force float64
// ranking on random vectors, near-duplicates and filters: the int8 first
// pass must never lose a true top-k vector.
func TestSemanticIsExact(t *testing.T) {
	ctx := context.Background()
	ix, _, err := bolt.Open(t.TempDir(), model, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	unit := func(base []float32, noise float64) []float32 {
		v := make([]float32, 64)
		var n float64
		for i := range v {
			v[i] = float32(rng.NormFloat64() * noise)
			if base != nil {
				v[i] += base[i]
			}
			n += float64(v[i]) * float64(v[i])
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	corpus := memorytest.Corpus(memorytest.OrgA, 20_000) // above the parallel threshold
	centre := unit(nil, 1)
	for i, m := range corpus {
		if i%4 == 0 {
			m.Embedding = unit(centre, 0.003) // a tight cluster of near-duplicates, closer than int8 can tell apart
		} else {
			m.Embedding = unit(nil, 1)
		}
	}
	for i := 0; i < len(corpus); i += 1000 {
		if err := ix.Upsert(ctx, corpus[i:i+1000]); err != nil {
			t.Fatal(err)
		}
	}
	filters := []memory.Filter{
		{OrgID: memorytest.OrgA, IncludeArchived: true},
		{OrgID: memorytest.OrgA},
		{OrgID: memorytest.OrgA, RoomID: "room-2", Types: []memory.Type{memory.TypeFact}},
	}
	for qi := 0; qi < 30; qi++ {
		vec := unit(nil, 1)
		if qi%2 == 0 {
			vec = unit(centre, 0.003)
		}
		f := filters[qi%len(filters)]
		k := []int{1, 10, 100}[qi%3]
		got, err := ix.Search(ctx, memory.IndexQuery{Filter: f, Vector: vec, K: k})
		if err != nil {
			t.Fatal(err)
		}
		type scoredID struct {
			id string
			s  float64
		}
		var all []scoredID
		for _, m := range corpus {
			if f.Match(m.Attrs()) {
				var s float64
				for i := range vec {
					s += float64(vec[i]) * float64(m.Embedding[i])
				}
				all = append(all, scoredID{m.ID, s})
			}
		}
		sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
		if len(got.Semantic) != min(k, len(all)) {
			t.Fatalf("query %d: %d hits, want %d", qi, len(got.Semantic), min(k, len(all)))
		}
		for i, h := range got.Semantic {
			// Same scores rank by rank; ids may swap only within float32 noise.
			if math.Abs(h.Score-all[i].s) > 1e-5 {
				t.Fatalf("query %d rank %d: score %.7f, brute force %.7f", qi, i, h.Score, all[i].s)
			}
		}
	}
}

// TestRestartLoadsInChunks reopens an index of two orgs whose entries span
// nine of load's decoding chunks (one of them holding both orgs), with
// keyword-only memories among them: every search answers as before the
// restart. A corrupt entry fails the open with an error that names it.
func TestRestartLoadsInChunks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix, _ := open(t, dir, model)
	var queries []memory.IndexQuery
	for _, org := range []string{memorytest.OrgA, memorytest.OrgB} {
		corpus := memorytest.Corpus(org, 1100)
		for i := 0; i < len(corpus); i += 97 {
			corpus[i].Embedding = nil // keywords only
		}
		for i := 0; i < len(corpus); i += 300 {
			if err := ix.Upsert(ctx, corpus[i:min(i+300, len(corpus))]); err != nil {
				t.Fatal(err)
			}
		}
		for _, text := range []string{"memo", "note 7", "memo 12 note 3"} {
			queries = append(queries, memory.IndexQuery{Filter: memory.Filter{OrgID: org, IncludeArchived: true},
				Text: text, Vector: corpus[5].Embedding, K: 50})
		}
	}
	search := func(ix *bolt.Index) []memory.IndexResult {
		out := make([]memory.IndexResult, len(queries))
		for i, q := range queries {
			r, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = r
		}
		return out
	}
	before := search(ix)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, _ = open(t, dir, model)
	after := search(ix)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range queries {
		if len(before[i].Keyword) == 0 || len(before[i].Semantic) == 0 {
			t.Fatalf("query %d found nothing before the restart", i)
		}
		if !reflect.DeepEqual(before[i], after[i]) {
			t.Fatalf("query %d (%s, %q) answers differently after the restart:\n%v\n%v", i, queries[i].Filter.OrgID, queries[i].Text, before[i], after[i])
		}
	}

	db, err := bbolt.Open(filepath.Join(dir, "index.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := []byte(memorytest.OrgB + "\x00zz-corrupt")
	err = db.Update(func(tx *bbolt.Tx) error { return tx.Bucket([]byte("docs")).Put(bad, []byte{0xff, 0xff, 0xff}) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if ix, _, err := bolt.Open(dir, model, 64); err == nil || !strings.Contains(err.Error(), "zz-corrupt") {
		if ix != nil {
			ix.Close()
		}
		t.Fatalf("a corrupt entry: %v", err)
	}
}
