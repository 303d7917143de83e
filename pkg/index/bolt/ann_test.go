package bolt_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/viterin/vek/vek32"
)

// annCorpus is a fixed synthetic corpus for the recall tests: vectors
// drawn around clusters (as sentence embeddings are), with attributes
// that give filters of every selectivity, some of them correlated with
// the clusters.
type annCorpus struct {
	rng     *rand.Rand
	dims    int
	centres [][]float32
	next    int
}

func newANNCorpus(dims, clusters int) *annCorpus {
	c := &annCorpus{rng: rand.New(rand.NewPCG(19, 2026)), dims: dims}
	for range clusters {
		c.centres = append(c.centres, c.around(nil, 1))
	}
	return c
}

// around returns a unit vector at centre plus Gaussian noise of sigma per
// component (a random direction when centre is nil).
func (c *annCorpus) around(centre []float32, sigma float64) []float32 {
	v := make([]float32, c.dims)
	var n float64
	for i := range v {
		x := c.rng.NormFloat64() * sigma
		if centre != nil {
			x += float64(centre[i])
		}
		v[i] = float32(x)
		n += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// memories returns n new memories of org. Agents: agent-i%4 (a quarter
// each, independent of the clusters); rooms: one per cluster modulo 10
// (correlated); entity "rare" on 5% and session "tiny" on 0.5%.
func (c *annCorpus) memories(org string, n int) []*memory.Memory {
	out := make([]*memory.Memory, n)
	for j := range out {
		i := c.next
		c.next++
		cl := c.rng.IntN(len(c.centres))
		m := &memory.Memory{
			ID: fmt.Sprintf("m%06d", i), OrgID: org, AgentID: fmt.Sprintf("agent-%d", i%4),
			Type: memory.TypeMessage, Content: memory.Content{Text: fmt.Sprintf("note %d", i)},
			RoomID:    fmt.Sprintf("room-%d", cl%10),
			Embedding: c.around(c.centres[cl], 0.25/math.Sqrt(float64(c.dims))), EmbeddingModel: model,
			Durability: memory.DurabilityStandard, CreatedAt: memorytest.Base, UpdatedAt: memorytest.Base, Version: 1,
		}
		if i%20 == 7 {
			m.EntityID = "rare"
		}
		if i%200 == 3 {
			m.SessionID = "tiny"
		}
		out[j] = m
	}
	return out
}

// liveMemory is a memory the test expects the index to hold, with its
// attributes computed once.
type liveMemory struct {
	attrs memory.Attrs
	vec   []float32
}

// ranked is every live memory by float32 inner product with v, best
// first (ties by id).
func ranked(live map[string]liveMemory, v []float32) []string {
	type hit struct {
		id string
		s  float32
	}
	hits := make([]hit, 0, len(live))
	for id, m := range live {
		hits = append(hits, hit{id, vek32.Dot(v, m.vec)})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	return ids
}

// exactTop is the first k of ranked that pass f.
func exactTop(live map[string]liveMemory, ranked []string, f memory.Filter, k int) []string {
	var ids []string
	for _, id := range ranked {
		if len(ids) == k {
			break
		}
		if f.Match(live[id].attrs) {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestANNRecall builds the graph over annSize clustered vectors of one org
// (30,000; 6,000 under the race detector), and a small second org, and checks, with filters of every selectivity,
// after deletes, inserts and a compaction, that the top 10 it returns
// holds at least 98% of the exact top 10, that every hit passes the
// filter and belongs to the org, and that a filtered query still returns
// k hits when k are allowed.
func TestANNRecall(t *testing.T) {
	const (
		dims    = 64
		size    = annSize
		queries = annQueries
		k       = 10
	)
	ctx := context.Background()
	ix, _, err := bolt.Open(t.TempDir(), model, dims)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	defer bolt.SetWalkCost(0)() // every filter through the graph, however selective: the walk must still find k
	cfg := bolt.ANNConfig{Threshold: size / 3, M: 16, EfConstruction: 64, EfSearch: 64}
	ix.SetANN(cfg)
	c := newANNCorpus(dims, 200)
	live := map[string]liveMemory{}
	upsert := func(ms []*memory.Memory) {
		t.Helper()
		for at := 0; at < len(ms); at += 2000 {
			batch := ms[at:min(at+2000, len(ms))]
			if err := ix.Upsert(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range ms {
			if m.OrgID == memorytest.OrgA {
				live[m.ID] = liveMemory{m.Attrs(), m.Embedding}
			}
		}
	}
	upsert(c.memories(memorytest.OrgA, size))
	other := c.memories(memorytest.OrgB, size/15) // same clusters, another tenant, under the threshold
	upsert(other)
	wait, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if err := ix.WaitANN(wait); err != nil {
		t.Fatal(err)
	}

	org := memory.Filter{OrgID: memorytest.OrgA}
	filters := []struct {
		name string
		f    memory.Filter
	}{
		{"org", org},
		{"agent (25%)", memory.Filter{OrgID: memorytest.OrgA, AgentID: "agent-2"}},
		{"room (10%, clustered)", memory.Filter{OrgID: memorytest.OrgA, RoomID: "room-3"}},
		{"entity (5%)", memory.Filter{OrgID: memorytest.OrgA, EntityID: "rare"}},
		{"agent and entity (1.25%)", memory.Filter{OrgID: memorytest.OrgA, AgentID: "agent-3", EntityID: "rare"}},
		{"session (0.5%)", memory.Filter{OrgID: memorytest.OrgA, SessionID: "tiny"}},
	}
	qrng := rand.New(rand.NewPCG(7, 7))
	check := func(stage string) {
		t.Helper()
		got, total := make([]float64, len(filters)), make([]float64, len(filters))
		for range queries {
			v := c.around(c.centres[qrng.IntN(len(c.centres))], 0.4/math.Sqrt(dims))
			all := ranked(live, v)
			for i, tc := range filters {
				res, err := ix.Search(ctx, memory.IndexQuery{Filter: tc.f, Vector: v, K: k})
				if err != nil {
					t.Fatal(err)
				}
				want := exactTop(live, all, tc.f, k)
				if len(res.Semantic) != len(want) {
					t.Fatalf("%s, %s: %d hits, %d allowed in the exact top %d", stage, tc.name, len(res.Semantic), len(want), k)
				}
				for _, h := range res.Semantic {
					m, ok := live[h.ID]
					if !ok {
						t.Fatalf("%s, %s: hit %s is not a live memory of the org", stage, tc.name, h.ID)
					}
					if !tc.f.Match(m.attrs) {
						t.Fatalf("%s, %s: hit %s does not pass the filter", stage, tc.name, h.ID)
					}
					if slices.Contains(want, h.ID) {
						got[i]++
					}
				}
				total[i] += float64(len(want))
			}
		}
		for i, tc := range filters {
			recall := got[i] / total[i]
			t.Logf("%s, %s: recall@%d %.4f", stage, tc.name, k, recall)
			if recall < 0.98 {
				t.Errorf("%s, %s: recall@%d %.4f < 0.98", stage, tc.name, k, recall)
			}
		}
	}
	check("built")

	// Deletes (tombstones) and inserts (linked at once).
	var ids []string
	for id := range live {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	drop := func(n int) {
		t.Helper()
		gone := ids[:n]
		ids = ids[n:]
		if err := ix.Delete(ctx, memorytest.OrgA, gone); err != nil {
			t.Fatal(err)
		}
		for _, id := range gone {
			delete(live, id)
		}
	}
	qrng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	drop(size / 5)
	fresh := c.memories(memorytest.OrgA, size/10)
	upsert(fresh)
	for _, m := range fresh {
		ids = append(ids, m.ID)
	}
	check("after deletes and inserts")

	// More than half removed: the org compacts and the graph is renumbered
	// and repaired.
	drop(len(ids)/2 + size/20)
	if n := len(live); n < cfg.Threshold {
		t.Fatalf("the test leaves %d vectors, under the threshold", n)
	}
	check("after compaction")
}

// TestANNRestart closes an index with a built graph, after deletes and
// inserts, and checks that the next Open restores the graph instead of
// rebuilding it, maps it onto the reloaded ordinals, and answers with the
// recall of a fresh graph; and that a snapshot that does not match (here,
// another M) is ignored for a rebuild.
func TestANNRestart(t *testing.T) {
	const dims, size, k = 64, 3000, 10
	ctx := context.Background()
	dir := t.TempDir()
	cfg := bolt.ANNConfig{Threshold: 1000, M: 8, EfConstruction: 48, EfSearch: 48}
	c := newANNCorpus(dims, 40)
	live := map[string]liveMemory{}
	ms := c.memories(memorytest.OrgA, size)
	for _, m := range ms {
		live[m.ID] = liveMemory{m.Attrs(), m.Embedding}
	}
	openANN := func(cfg bolt.ANNConfig) *bolt.Index {
		t.Helper()
		ix, _, err := bolt.Open(dir, model, dims)
		if err != nil {
			t.Fatal(err)
		}
		ix.SetANN(cfg)
		wait, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		if err := ix.WaitANN(wait); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	ix := openANN(cfg)
	if err := ix.Upsert(ctx, ms[:size-200]); err != nil {
		t.Fatal(err)
	}
	ix.WaitANN(ctx)
	if err := ix.Upsert(ctx, ms[size-200:]); err != nil { // linked at once
		t.Fatal(err)
	}
	var gone []string
	for _, m := range ms[:300] {
		gone = append(gone, m.ID)
		delete(live, m.ID)
	}
	if err := ix.Delete(ctx, memorytest.OrgA, gone); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		cfg      bolt.ANNConfig
		crash    bool // the snapshot is gone, as after a crash
		restored int
	}{
		{"clean close: restored", cfg, false, 1},
		{"no snapshot: rebuilt", cfg, true, 0},
		{"another M: rebuilt", bolt.ANNConfig{Threshold: 1000, M: 12, EfConstruction: 48, EfSearch: 48}, false, 1},
	} {
		if tc.crash {
			if err := os.Remove(filepath.Join(dir, "graphs.hnsw")); err != nil {
				t.Fatal(err)
			}
		}
		ix := openANN(tc.cfg)
		if got := bolt.RestoredGraphs(ix); got != tc.restored {
			t.Errorf("%s: %d graphs restored, want %d", tc.name, got, tc.restored)
		}
		qrng := rand.New(rand.NewPCG(5, 5))
		var hit, total int
		for range 30 {
			v := c.around(c.centres[qrng.IntN(len(c.centres))], 0.4/math.Sqrt(dims))
			res, err := ix.Search(ctx, memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA}, Vector: v, K: k})
			if err != nil {
				t.Fatal(err)
			}
			want := exactTop(live, ranked(live, v), memory.Filter{OrgID: memorytest.OrgA}, k)
			for _, h := range res.Semantic {
				if _, ok := live[h.ID]; !ok {
					t.Fatalf("%s: deleted memory %s returned", tc.name, h.ID)
				}
				if slices.Contains(want, h.ID) {
					hit++
				}
			}
			total += len(want)
		}
		if recall := float64(hit) / float64(total); recall < 0.98 {
			t.Errorf("%s: recall@%d %.4f < 0.98", tc.name, k, recall)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestANNFindsMemoriesBeforeTheyAreLinked holds the background linker and
// checks that memories added to an org with a ready graph are found at
// once (searches scan the ordinals the graph lacks), with filters and
// across a compaction, that a writer outrunning the linker links the
// excess itself, and that once
// released the linker catches up and the graph alone finds them.
func TestANNFindsMemoriesBeforeTheyAreLinked(t *testing.T) {
	const dims, size, added, bound = 32, 3000, 300, 100
	ctx := context.Background()
	ix, _, err := bolt.Open(t.TempDir(), model, dims)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	defer bolt.SetWalkCost(0)()
	ix.SetANN(bolt.ANNConfig{Threshold: 1000, M: 8, EfConstruction: 32, EfSearch: 32})
	c := newANNCorpus(dims, 40)
	if err := ix.Upsert(ctx, c.memories(memorytest.OrgA, size)); err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := ix.WaitANN(wait); err != nil {
		t.Fatal(err)
	}
	hold := bolt.HoldLinking(bound)
	var once sync.Once
	release := func() { once.Do(hold) }
	defer release() // before Close, which waits for the linker
	fresh := c.memories(memorytest.OrgA, added)
	for at := 0; at < added; at += 50 {
		if err := ix.Upsert(ctx, fresh[at:at+50]); err != nil {
			t.Fatal(err)
		}
	}
	found := func(stage string, fresh []*memory.Memory) {
		t.Helper()
		for i, m := range fresh {
			f := memory.Filter{OrgID: memorytest.OrgA}
			if i%2 == 1 {
				f.AgentID = m.AgentID
			}
			r, err := ix.Search(ctx, memory.IndexQuery{Filter: f, Vector: m.Embedding, K: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Semantic) == 0 || r.Semantic[0].ID != m.ID {
				t.Fatalf("%s: memory %d (%s) not first for its own vector: %v", stage, i, m.ID, r.Semantic)
			}
		}
	}
	unlinked := bolt.Unlinked(ix, memorytest.OrgA)
	if unlinked <= 0 || unlinked > bound {
		t.Fatalf("held linker: the graph lacks %d ordinals, want 1..%d", unlinked, bound)
	}
	found("held linker", fresh)
	// A compaction (more holes than live memories) renumbers the graph
	// and the tail it lacks.
	var gone []string
	for i := range 1800 {
		gone = append(gone, fmt.Sprintf("m%06d", i))
	}
	if err := ix.Delete(ctx, memorytest.OrgA, gone); err != nil {
		t.Fatal(err)
	}
	n := bolt.Unlinked(ix, memorytest.OrgA)
	if n <= 0 || n > bound {
		t.Fatalf("after compaction the graph lacks %d ordinals, want 1..%d", n, bound)
	}
	// Only the tail is certain to be found here: halving the graph can
	// leave a linked node without a way in (TestANNRecall bounds that).
	found("held linker, compacted", fresh[added-n:])
	release()
	if err := ix.WaitANN(wait); err != nil {
		t.Fatal(err)
	}
	if n := bolt.Unlinked(ix, memorytest.OrgA); n != 0 {
		t.Fatalf("after the linker caught up the graph lacks %d", n)
	}
	found("linked", fresh[added-n:])
}

// TestSearchWidth checks the walk's width against the org's size: the
// base up to 100,000 vectors, doubling about every 3.2× past it, and
// capped at 8× the base.
func TestSearchWidth(t *testing.T) {
	for _, tc := range []struct{ base, n, want int }{
		{128, 0, 128},
		{128, 100_000, 128},
		{128, 300_000, 247},
		{128, 1_000_000, 509},
		{128, 100_000_000, 1024},
		{64, 1_000_000, 254},
	} {
		if got := bolt.SearchWidth(tc.base, tc.n); got != tc.want {
			t.Errorf("SearchWidth(%d, %d) = %d, want %d", tc.base, tc.n, got, tc.want)
		}
	}
}

// TestGraphReachesEveryMemory builds the graph over clustered vectors,
// deletes a fifth, inserts a tenth more (linked into the ready graph),
// then deletes past half (a compaction), and checks after each step, by a
// breadth-first traversal of layer 0 from the entry point, that a walk can
// reach every live memory the graph holds: one it cannot reach is never
// found. After the build and after the compaction, which connect the
// graph, every memory must also lead back to the entry point, so that a
// walk reaches all of them wherever the descent lands it. Both with the
// lists filled (the default) and with the heuristic alone.
func TestGraphReachesEveryMemory(t *testing.T) {
	const dims, size = 64, annSize
	for _, tc := range []struct {
		name string
		fill bool
	}{
		{"filled lists", true},
		{"heuristic alone", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer bolt.SetFill(tc.fill)()
			ctx := context.Background()
			ix, _, err := bolt.Open(t.TempDir(), model, dims)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			ix.SetANN(bolt.ANNConfig{Threshold: size / 3, M: 16, EfConstruction: 64, EfSearch: 64})
			c := newANNCorpus(dims, 200)
			var ids []string
			upsert := func(ms []*memory.Memory) {
				t.Helper()
				for at := 0; at < len(ms); at += 2000 {
					if err := ix.Upsert(ctx, ms[at:min(at+2000, len(ms))]); err != nil {
						t.Fatal(err)
					}
				}
				for _, m := range ms {
					ids = append(ids, m.ID)
				}
				wait, cancel := context.WithTimeout(ctx, 5*time.Minute)
				defer cancel()
				if err := ix.WaitANN(wait); err != nil {
					t.Fatal(err)
				}
			}
			drop := func(n int) {
				t.Helper()
				if err := ix.Delete(ctx, memorytest.OrgA, ids[:n]); err != nil {
					t.Fatal(err)
				}
				ids = ids[n:]
			}
			check := func(stage string, connected bool) {
				t.Helper()
				r := bolt.GraphReach(ix, memorytest.OrgA)
				t.Logf("%s: %d live memories linked, %d not reached from the entry point (%d without an in-edge), %d not leading back to it",
					stage, r.Linked, r.Unreached, r.Orphans, r.Stuck)
				if r.Linked != len(ids) {
					t.Errorf("%s: %d memories linked, want %d", stage, r.Linked, len(ids))
				}
				if r.Unreached != 0 {
					t.Errorf("%s: %d of %d live memories not reached from the entry point", stage, r.Unreached, r.Linked)
				}
				if connected && r.Stuck != 0 {
					t.Errorf("%s: the entry point not reached from %d of %d live memories", stage, r.Stuck, r.Linked)
				}
			}
			upsert(c.memories(memorytest.OrgA, size))
			check("built", true)
			rng := rand.New(rand.NewPCG(7, 7))
			rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			drop(size / 5)
			upsert(c.memories(memorytest.OrgA, size/10))
			check("after deletes and inserts", false)
			rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			drop(len(ids)/2 + size/20)
			check("after compaction", true)
		})
	}
}

// TestHugePagesFollowTheArrays checks that the graph's arrays are advised
// for huge pages once the graph is built, again after appends have moved
// them, and after a compaction has (with no write after it to start a
// link), and that searches find the same memories meanwhile (the
// kernel's effect is internal/hugepage's test).
func TestHugePagesFollowTheArrays(t *testing.T) {
	const dims = 32
	ctx := context.Background()
	defer bolt.SetHugeMin(0)()
	ix, _, err := bolt.Open(t.TempDir(), model, dims)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.SetANN(bolt.ANNConfig{Threshold: 500, M: 32, EfConstruction: 128, EfSearch: 128}) // the defaults: a graph of M 8 loses recall in a compaction (docs/benchmarks.md)
	c := newANNCorpus(dims, 10)
	all := c.memories(memorytest.OrgA, 3000)
	var gone []string
	for _, m := range all[:2500] {
		gone = append(gone, m.ID)
	}
	steps := []struct {
		name    string
		added   []*memory.Memory
		deleted []string
		checked []*memory.Memory // searched for after the step
	}{
		{"built", all[:1000], nil, all[:20]},
		{"grown", all[1000:3000], nil, all[1000:1020]}, // doubles the arrays: new backing arrays
		// More holes than memories: the org is compacted into new arrays,
		// and no write follows to start a link.
		{"compacted", nil, gone, all[2500:2520]},
	}
	for _, s := range steps {
		if err := ix.Upsert(ctx, s.added); err != nil {
			t.Fatal(err)
		}
		if err := ix.Delete(ctx, memorytest.OrgA, s.deleted); err != nil {
			t.Fatal(err)
		}
		wait, cancel := context.WithTimeout(ctx, time.Minute)
		if err := ix.WaitANN(wait); err != nil {
			t.Fatal(err)
		}
		for {
			vectors, graph := bolt.HugeArrays(ix, memorytest.OrgA)
			if vectors && graph {
				break
			}
			if wait.Err() != nil {
				t.Fatalf("%s: arrays advised: vectors %v, graph %v", s.name, vectors, graph)
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		for _, m := range s.checked {
			r, err := ix.Search(ctx, memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA}, Vector: m.Embedding, K: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Semantic) == 0 || r.Semantic[0].ID != m.ID {
				t.Fatalf("%s: %s not first for its own vector: %v", s.name, m.ID, r.Semantic)
			}
		}
	}
}
