package opensearch_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/service"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/index/opensearch"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
)

var ctx = context.Background()

// nodeURL returns the test node's URL (OPENSEARCH_URL). Without one the
// tests skip, unless REQUIRE_OPENSEARCH=1 (make test sets it) makes that a
// failure.
func nodeURL(t *testing.T) string {
	t.Helper()
	u := testenv.Get(t, "OPENSEARCH_URL")
	return u
}

func randomName(prefix string) string {
	var b [4]byte
	rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// newIndex creates a fresh alias with its first version; removed at cleanup.
func newIndex(t *testing.T, dims int) *opensearch.Index {
	t.Helper()
	ix, err := opensearch.New(opensearch.Config{URLs: []string{nodeURL(t)}, Alias: randomName("test"),
		Dimensions: dims, RefreshOnWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if created, err := ix.Ensure(ctx); err != nil || !created {
		t.Fatalf("ensure on a new alias: created=%v %v", created, err)
	}
	t.Cleanup(func() { ix.DeleteAll(context.Background()) })
	return ix
}

func TestIndexContract(t *testing.T) {
	memorytest.IndexSuite(t, func(t *testing.T) memory.Index { return newIndex(t, 64) })
}

// TestKeywordRanksLikeTheEmbeddedIndex puts the same documents in the
// embedded index and OpenSearch and checks that keyword queries rank them
// alike with the same BM25 scores: both analyse text the same way and
// score with Lucene's formula (the org's documents are alone here, so the
// statistics agree).
func TestKeywordRanksLikeTheEmbeddedIndex(t *testing.T) {
	os := newIndex(t, 64)
	bl, _, err := bolt.Open(t.TempDir(), "m", 64)
	if err != nil {
		t.Fatal(err)
	}
	defer bl.Close()
	texts := []string{
		"The quarterly budget review moved to Thursday afternoon",
		"Budget approvals for the marketing team need the CFO",
		"She runs along the river every morning before work",
		"Running a marathon takes months of training",
		"The cat sleeps on the warm windowsill all afternoon",
		"Our team offsite is planned for the Lisbon office in May",
		"Remember to book the flights to Lisbon before prices rise",
		"He prefers green tea to coffee in the morning",
		"Coffee tastings happen every Friday in the kitchen",
		"The kitchen renovation budget was exceeded by ten percent",
		"Training the new support agents starts next Monday",
		"The support team answers tickets within four hours",
	}
	var ms []*memory.Memory
	for i, s := range texts {
		ms = append(ms, memorytest.New(memorytest.OrgA, "", memory.TypeCustom, s, memorytest.Base+int64(i)))
	}
	for _, ix := range []memory.Index{os, bl} {
		if err := ix.Upsert(ctx, ms); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"budget", "running training", "Lisbon flights", "coffee morning", "support team tickets", "kitchen budget", "afternoon"} {
		// Every matching document, ties put in id order: both engines break
		// exact ties by internal document order, which is not comparable.
		query := memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA}, Text: q, K: 20}
		a, err := os.Search(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := bl.Search(ctx, query)
		if len(a.Keyword) == 0 || ids(tiesByID(a.Keyword)) != ids(tiesByID(b.Keyword)) {
			t.Errorf("%q: opensearch %v, embedded %v", q, a.Keyword, b.Keyword)
			continue
		}
		for i, h := range tiesByID(a.Keyword) {
			if e := tiesByID(b.Keyword)[i].Score; math.Abs(e-h.Score) > 1e-4*h.Score {
				t.Errorf("%q: %s scores %.6f in opensearch, %.6f embedded", q, h.ID, h.Score, e)
			}
		}
	}
}

// tiesByID orders hits by score, then id among equal scores (to 1e-6
// relative, as the engines round differently).
func tiesByID(hs []memory.Hit) []memory.Hit {
	out := append([]memory.Hit(nil), hs...)
	sort.SliceStable(out, func(i, j int) bool {
		if d := out[i].Score - out[j].Score; d > 1e-6*out[i].Score || -d > 1e-6*out[i].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func ids(hs []memory.Hit) string {
	var s []string
	for _, h := range hs {
		s = append(s, h.ID)
	}
	return strings.Join(s, ",")
}

// TestOrgsNeverMeet puts identical text in two orgs and checks every mode
// with every filter combination of the contract fixture.
func TestOrgsNeverMeet(t *testing.T) {
	ix := newIndex(t, 64)
	a := memorytest.Corpus(memorytest.OrgA, 84)
	b := memorytest.Corpus(memorytest.OrgB, 84) // the same texts and attributes, other ids
	if err := ix.Upsert(ctx, append(append([]*memory.Memory{}, a...), b...)); err != nil {
		t.Fatal(err)
	}
	own := map[string]map[string]bool{memorytest.OrgA: {}, memorytest.OrgB: {}}
	for _, m := range a {
		own[memorytest.OrgA][m.ID] = true
	}
	for _, m := range b {
		own[memorytest.OrgB][m.ID] = true
	}
	for _, org := range []string{memorytest.OrgA, memorytest.OrgB} {
		for _, tc := range memorytest.Filters() {
			f := tc.F
			f.OrgID = org
			for _, mode := range []string{"keyword", "semantic", "hybrid"} {
				q := memory.IndexQuery{Filter: f, K: 200}
				if mode != "semantic" {
					q.Text = "memo hiking bread violin"
				}
				if mode != "keyword" {
					q.Vector = memorytest.Embed("memo about hiking in the mountains")
				}
				r, err := ix.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range append(r.Keyword, r.Semantic...) {
					if !own[org][h.ID] {
						t.Fatalf("%s %s %s: hit %s is not %s's", org, tc.Name, mode, h.ID, org)
					}
				}
			}
		}
	}
}

func TestEnsureRefusesAnotherDimension(t *testing.T) {
	ix := newIndex(t, 64)
	other, err := opensearch.New(opensearch.Config{URLs: []string{nodeURL(t)}, Alias: ix.Alias(), Dimensions: 32})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Ensure(ctx); err == nil || !strings.Contains(err.Error(), "run the reindex command") {
		t.Fatalf("Ensure with 32 dimensions on a 64-dimension index: %v", err)
	}
}

// TestReindexKeepsSearchAnswering rebuilds a live index from the store into
// a new version while searches and writes keep coming, then checks the swap.
func TestReindexKeepsSearchAnswering(t *testing.T) {
	emb := hashing.New(64)
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ix := newIndex(t, 64)
	svc := service.NewService(store, ix, emb)
	caller := memory.Caller{OrgID: "org-r"}
	var in []service.NewMemory
	for i := 0; i < 3000; i++ {
		in = append(in, service.NewMemory{Content: memory.Content{Text: fmt.Sprintf("note %d about project %s", i, []string{"apollo", "gemini", "mercury"}[i%3])}})
		if len(in) == memory.MaxBatch {
			if _, err := svc.Create(ctx, caller, in); err != nil {
				t.Fatal(err)
			}
			in = nil
		}
	}

	stop := make(chan struct{})
	var searches, failures atomic.Int64
	var firstFailure atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			modes := []service.Mode{service.ModeKeyword, service.ModeSemantic, service.ModeHybrid}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				res, err := svc.Search(ctx, caller, service.SearchRequest{Query: "project gemini", Mode: modes[(i+w)%3], K: 5})
				searches.Add(1)
				if err != nil || len(res) != 5 {
					failures.Add(1)
					firstFailure.CompareAndSwap(nil, fmt.Sprintf("%v results, %v", len(res), err))
				}
			}
		}(w)
	}
	// Writes during the rebuild must be searchable after it.
	var written []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			res, err := svc.Create(ctx, caller, []service.NewMemory{{Content: memory.Content{Text: fmt.Sprintf("late arrival zeppelin %d", i)}}})
			if err != nil {
				t.Error(err)
				return
			}
			written = append(written, res[0].ID)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	time.Sleep(200 * time.Millisecond)
	st, err := ix.Reindex(ctx, service.Rebuilder{Store: store, Embedder: emb, Sentences: true})
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reindex: %d indexed into %s in %v, %d caught up; %d searches during it", st.Indexed, st.NewIndex, st.Took, st.CaughtUp, searches.Load())
	if failures.Load() > 0 {
		t.Fatalf("%d of %d searches failed during the reindex, first: %v", failures.Load(), searches.Load(), firstFailure.Load())
	}
	if st.Indexed < 3000 || len(st.OldIndices) != 1 || st.OldIndices[0] == st.NewIndex {
		t.Fatalf("stats %+v", st)
	}
	ix.Refresh(ctx)
	res, err := svc.Search(ctx, caller, service.SearchRequest{Query: "late arrival zeppelin", Mode: service.ModeKeyword, K: 50})
	if err != nil || len(res) != len(written) {
		t.Fatalf("writes during the reindex: %d of %d found (%v)", len(res), len(written), err)
	}
	if created, err := ix.Ensure(ctx); err != nil || created {
		t.Fatalf("the new version does not satisfy Ensure: created=%v %v", created, err)
	}
}
