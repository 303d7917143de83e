package related_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/knowledge/related"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// conceptEmbedder is a fake embedder for the logic of related terms: the
// words of one concept share most of their direction (cosine about 0.9),
// every other text gets its own pseudo-random direction (cosine about 0).
// It counts the texts it embeds.
type conceptEmbedder struct {
	mu       sync.Mutex
	embedded []string
}

var concepts = map[string]int{"novel": 1, "book": 1, "novels": 1, "books": 1, "puppy": 2, "dog": 2, "canoe": 3, "kayak": 3}

const conceptDims = 64

func direction(seed uint64) []float64 {
	v := make([]float64, conceptDims)
	x := seed | 1
	for i := range v {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v[i] = float64(int64(x%2001)-1000) / 1000
	}
	return v
}

func (e *conceptEmbedder) Embed(_ context.Context, texts []string, _ memory.Purpose) ([][]float32, error) {
	e.mu.Lock()
	e.embedded = append(e.embedded, texts...)
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New64a()
		h.Write([]byte(t))
		own := direction(h.Sum64())
		v := make([]float32, conceptDims)
		c, ok := concepts[t]
		if strings.HasPrefix(t, "kayak") {
			c, ok = concepts["kayak"], true // kayaks of every kind (TestRelatedUpkeepUnderLoad)
		}
		if ok {
			base := direction(uint64(c) * 0x9e3779b97f4a7c15)
			for k := range v {
				v[k] = float32(base[k] + 0.3*own[k])
			}
		} else {
			for k := range v {
				v[k] = float32(own[k])
			}
		}
		memory.Normalize(v)
		out[i] = v
	}
	return out, nil
}

func (e *conceptEmbedder) Dimensions() int { return conceptDims }
func (e *conceptEmbedder) Model() string   { return "concept-test-v1" }

func (e *conceptEmbedder) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.embedded)
}

// TestRelatedTerms: related terms come from the is-a table (only the kinds
// the org mentions), from the extractor's types, and from the embedding
// neighbours above the org's noise cut-off; another org's vocabulary never
// shows; a forget drops the forgotten terms and their stored vectors; a
// second process loads the vectors instead of embedding them again.
func TestRelatedTerms(t *testing.T) {
	b := open(t)
	svc := b.Service
	org := memory.Caller{OrgID: "o"}
	texts := []string{
		"I finished a wonderful book about the sea last week",
		"My sister is an artist and she paints murals downtown",
		"I tried fencing last weekend and loved it",
		"We adopted a dog from the shelter in May",
		"The weather was grey all week so we stayed home",
		"Our garden has tomatoes, basil, peppers and sunflowers now",
		"The conference in Lisbon had great talks about robotics and compilers",
		"I cooked lasagna and baked bread for the family dinner",
		"The marathon training plan starts with easy runs on Tuesday",
		"Mel plays the violin in a small orchestra with her cousin",
	}
	bookMemory := sayAll(t, svc, org, texts)[0]
	if _, err := svc.Create(ctx, memory.Caller{OrgID: "p"}, []service.NewMemory{say("Bo", "I love reading novels on the train", 1000)}); err != nil {
		t.Fatal(err)
	}
	emb := &conceptEmbedder{}
	rel := &related.Index{Terms: b.Store, Embedder: emb, Records: b.Store}
	expand := func(rel *related.Index, orgID, term string) []string {
		t.Helper()
		rs, err := rel.Related(ctx, orgID, term)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(rs))
		for i, r := range rs {
			if r.Weight <= 0 || r.Weight > 1 {
				t.Fatalf("%s: related %q weighs %v, outside (0, 1]", term, r.Term, r.Weight)
			}
			out[i] = r.Term
		}
		return out
	}
	for _, tc := range []struct {
		name, org, term string
		want, not       []string
	}{
		{"by embedding: a novel is a book", "o", "novel", []string{"book"}, []string{"weather", "novels"}},
		{"the is-a table, kinds the org mentions only", "o", "people", []string{"sister", "artist", "cousin", "family"}, []string{"actor", "book"}},
		{"a type stands for the names the extractor typed with it", "o", "sports", []string{"fencing", "marathon"}, []string{"violin"}},
		{"a singular type too", "o", "animal", []string{"dog"}, nil},
		{"nothing related to an unrelated word", "o", "weather", nil, []string{"book", "dog", "sister"}},
		{"another org's vocabulary never shows", "p", "book", []string{"novel"}, []string{"fencing", "sister", "sea"}},
		{"nor its types", "p", "people", nil, []string{"sister", "artist"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := expand(rel, tc.org, tc.term)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Fatalf("%s in %s: got %v, want %q among them", tc.term, tc.org, got, w)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Fatalf("%s in %s: got %v, %q should not be there", tc.term, tc.org, got, n)
				}
			}
			if len(got) > related.MaxPerTerm {
				t.Fatalf("%d related terms, more than %d", len(got), related.MaxPerTerm)
			}
		})
	}

	// A second process, after the first stored its vectors (in the
	// background, which a clean shutdown waits for): the vocabulary's
	// vectors are loaded from the store.
	rel.Wait()
	before := emb.count()
	second := &related.Index{Terms: b.Store, Embedder: emb, Records: b.Store}
	if got := expand(second, "o", "novel"); !slices.Contains(got, "book") {
		t.Fatalf("novel in o, second process: got %v, want book among them", got)
	}
	if n := emb.count() - before; n != 1 {
		t.Fatalf("a second process embedded %d texts; want 1 (the query term): the vocabulary's vectors are in the store", n)
	}

	// Forgetting the only memory that says "book": the term leaves the
	// related terms and its stored vector goes.
	var rec map[string]any
	id := related.RecordID("book")
	if _, err := b.Store.GetRecord(ctx, "o", related.VectorKind, id, &rec); err != nil {
		t.Fatalf("the vector of a vocabulary term is not stored: %v", err)
	}
	if _, err := svc.Delete(ctx, org, bookMemory, service.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The delete itself drops it, before any lookup.
	if _, err := b.Store.GetRecord(ctx, "o", related.VectorKind, id, &rec); !memory.IsNotFound(err) {
		t.Fatalf("the vector of a forgotten term outlives the delete: %v", err)
	}
	rel.Forgot("o") // the service's own Index is told by its Forgetter; this one is separate
	if got := expand(rel, "o", "novel"); slices.Contains(got, "book") {
		t.Fatalf("a forgotten term is still related: %v", got)
	}
	if _, err := b.Store.GetRecord(ctx, "o", related.VectorKind, id, &rec); !memory.IsNotFound(err) {
		t.Fatalf("the vector of a forgotten term is still stored: %v", err)
	}
	// The org's own vocabulary decides the cut-off: it is finite once the
	// org has enough terms.
	if c := rel.Cutoff("o"); math.IsInf(c, 1) || c >= 1 {
		t.Fatalf("cut-off %v", c)
	}
}

// vocabulary are eight messages of Ana's on as many topics: enough terms
// for the noise cut-off of embedding neighbours (MinNoiseTerms).
var vocabulary = []string{
	"I finished a wonderful book about the sea last week",
	"My sister is an artist and she paints murals downtown",
	"We adopted a dog from the shelter in May",
	"The conference in Lisbon had great talks about robotics and compilers",
	"I cooked lasagna and baked bread for the family dinner",
	"The marathon training plan starts with easy runs on Tuesday",
	"Our garden has tomatoes, basil, peppers and sunflowers now",
	"Mel plays the violin in a small orchestra with her cousin",
}

// createVocabulary creates the vocabulary messages in org.
func createVocabulary(t *testing.T, b *local.Backend, org memory.Caller) {
	t.Helper()
	var ns []service.NewMemory
	for i, tx := range vocabulary {
		ns = append(ns, say("Ana", tx, int64(1000*(i+1))))
	}
	if _, err := b.Service.Create(ctx, org, ns); err != nil {
		t.Fatal(err)
	}
}

// TestRelatedTermsInBackground: past SyncScan, a search's new query terms
// get the is-a table's kinds at once, and their embedding neighbours and
// the extractors' related terms in the background, for the searches
// after; with searches in flight the whole time, the background yields
// to them at each step (YieldMax) and still finishes.
func TestRelatedTermsInBackground(t *testing.T) {
	tests := []struct {
		name       string
		foreground *retrieval.Foreground
		busy       bool // a search in flight throughout
	}{
		{"no foreground gauge", nil, false},
		{"idle foreground", &retrieval.Foreground{}, false},
		{"searches in flight throughout", &retrieval.Foreground{}, true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t)
			orgID := fmt.Sprintf("o%d", i)
			org := memory.Caller{OrgID: orgID}
			createVocabulary(t, b, org)
			rel := &related.Index{Terms: b.Store, Embedder: &conceptEmbedder{}, SyncScan: 1, Foreground: tc.foreground}
			terms := func(qs ...string) map[string][]string {
				t.Helper()
				m, err := rel.Expand(ctx, orgID, qs)
				if err != nil {
					t.Fatal(err)
				}
				out := map[string][]string{}
				for q, rs := range m {
					for _, r := range rs {
						out[q] = append(out[q], r.Term)
					}
				}
				return out
			}
			if tc.busy {
				defer tc.foreground.Enter()()
			}
			start := time.Now()
			first := terms("novel", "people")
			if slices.Contains(first["novel"], "book") {
				t.Fatalf("the first search scored the vocabulary while it waited: %v", first["novel"])
			}
			if !slices.Contains(first["people"], "sister") {
				t.Fatalf("the is-a table did not answer at once: %v", first["people"])
			}
			rel.Wait()
			if took := time.Since(start); tc.busy && took < related.YieldMax {
				t.Fatalf("the background expansion took %v beside a search in flight: it did not yield (YieldMax %v)", took, related.YieldMax)
			}
			after := terms("novel", "people")
			if !slices.Contains(after["novel"], "book") {
				t.Fatalf("the background expansion did not reach the next search: %v", after["novel"])
			}
			if !slices.Contains(after["people"], "sister") {
				t.Fatalf("the cached expansion lost the is-a terms: %v", after["people"])
			}
		})
	}
}

// TestRelatedKindsFollowWrites: a type word's expansion, cached by a
// search and by the background, is dropped when a memory brings a new
// kind of the type, so the next search finds it at once.
func TestRelatedKindsFollowWrites(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "k"}
	createVocabulary(t, b, org)
	rel := &related.Index{Terms: b.Store, Embedder: &conceptEmbedder{}, SyncScan: 1}
	people := func() []string {
		t.Helper()
		m, err := rel.Expand(ctx, "k", []string{"people"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range m["people"] {
			out = append(out, r.Term)
		}
		return out
	}
	if got := people(); !slices.Contains(got, "sister") || slices.Contains(got, "nephew") {
		t.Fatalf("people before: %v", got)
	}
	rel.Wait() // the background expansion cached too
	res, err := b.Service.Create(ctx, org, []service.NewMemory{say("Ana", "Leo came over for dinner", 9000)})
	if err != nil {
		t.Fatal(err)
	}
	refs := memory.Knowledge{Entities: []memory.Entity{{Name: "Leo", Types: []string{"nephew"}}}}.Refs(res[0].ID)
	m, err := b.Store.Get(ctx, "k", res[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Store.PutKnowledge(ctx, "k", m.ID, m.Attrs(), "test", refs); err != nil {
		t.Fatal(err)
	}
	rel.Observe("k", refs)
	if got := people(); !slices.Contains(got, "nephew") {
		t.Fatalf("people after a nephew was mentioned: %v", got)
	}
	rel.Wait()
}

// TestRelatedTermsQueueInBackground: many searches at once, each with new
// words, past SyncScan: the org's one background worker expands every
// word, so that after Wait each one's embedding neighbours are cached for
// the next search.
func TestRelatedTermsQueueInBackground(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "q"}
	createVocabulary(t, b, org)
	rel := &related.Index{Terms: b.Store, Embedder: &conceptEmbedder{}, SyncScan: 1}
	words := []string{"novel", "puppy", "painter", "ocean", "mural", "shelter", "sea", "dog"}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := rel.Expand(ctx, "q", []string{words[i%len(words)], words[(i+3)%len(words)]}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	rel.Wait()
	got, err := rel.Expand(ctx, "q", []string{"novel", "puppy"})
	if err != nil {
		t.Fatal(err)
	}
	has := func(q, want string) bool {
		for _, r := range got[q] {
			if r.Term == want {
				return true
			}
		}
		return false
	}
	if !has("novel", "book") || !has("puppy", "dog") {
		t.Fatalf("after the background worker: novel %v, puppy %v", got["novel"], got["puppy"])
	}
}

// TestRelatedStoresEveryBatch: a vocabulary of more terms than one save
// batch holds is stored whole in the background, batch after batch, so a
// second process embeds only its query term.
func TestRelatedStoresEveryBatch(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "o"}
	word := func(i int) string { // quxab, quxac...: made-up nouns, one per memory
		return "qux" + string(rune('a'+i/26%26)) + string(rune('a'+i%26)) + string(rune('a'+i/676))
	}
	for start := 0; start < 1300; start += memory.MaxBatch {
		var ns []service.NewMemory
		for i := start; i < min(start+memory.MaxBatch, 1300); i++ {
			ns = append(ns, say("Ana", "I found a "+word(i)+" in the garden", int64(1000*(i+1))))
		}
		if _, err := b.Service.Create(ctx, org, ns); err != nil {
			t.Fatal(err)
		}
	}
	vocab, _, err := b.Store.Vocabulary(ctx, "o", "", memory.MaxVocabularyPage)
	if err != nil {
		t.Fatal(err)
	}
	if len(vocab) <= 2*512 {
		t.Fatalf("a vocabulary of %d terms: want more than two save batches", len(vocab))
	}
	emb := &conceptEmbedder{}
	rel := &related.Index{Terms: b.Store, Embedder: emb, Records: b.Store}
	if _, err := rel.Related(ctx, "o", "garden"); err != nil {
		t.Fatal(err)
	}
	rel.Wait()
	stored := 0
	for after := ""; ; {
		recs, next, err := b.Store.ListRecords(ctx, "o", related.VectorKind, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		stored += len(recs)
		if next == "" {
			break
		}
		after = next
	}
	if stored < len(vocab) {
		t.Fatalf("%d term vectors stored for a vocabulary of %d", stored, len(vocab))
	}
	before := emb.count()
	second := &related.Index{Terms: b.Store, Embedder: emb, Records: b.Store}
	if _, err := second.Related(ctx, "o", "orchard"); err != nil {
		t.Fatal(err)
	}
	if n := emb.count() - before; n != 1 {
		t.Fatalf("a second process embedded %d texts; want 1 (the query term, new to the vocabulary)", n)
	}
}

// gatedTerms is a term index whose vocabulary listings are counted and,
// while gate is set, held after they have read the store until it is
// closed.
type gatedTerms struct {
	memory.TermIndex
	mu     sync.Mutex
	lists  int
	gate   chan struct{}
	listed chan struct{} // told when a held listing has read its page
}

func (g *gatedTerms) Vocabulary(ctx context.Context, orgID, after string, limit int) ([]string, string, error) {
	g.mu.Lock()
	g.lists++
	gate, listed := g.gate, g.listed
	g.mu.Unlock()
	page, next, err := g.TermIndex.Vocabulary(ctx, orgID, after, limit)
	if gate != nil {
		listed <- struct{}{}
		<-gate
	}
	return page, next, err
}

func (g *gatedTerms) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lists
}

// TestRelatedUpkeepOffTheLookup: a forget drops the forgotten terms from
// the related terms, in process and in the store, without listing the
// vocabulary again; once MaxAge has passed, the vocabulary is listed in
// the background while lookups are answered from the vectors at hand; the
// terms that listing finds (written by another process) join the related
// terms when it ends, and a term forgotten while it ran stays out.
func TestRelatedUpkeepOffTheLookup(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "o"}
	ids := sayAll(t, b.Service, org, everyday)
	bookMemory, dogMemory := ids[0], ids[1]
	terms := &gatedTerms{TermIndex: b.Store}
	now := time.Unix(1_700_000_000, 0)
	var clock sync.Mutex
	rel := &related.Index{Terms: terms, Embedder: &conceptEmbedder{}, Records: b.Store,
		Now: func() time.Time { clock.Lock(); defer clock.Unlock(); return now }}
	k := &knowledge.Service{Store: b.Store, Terms: b.Store, Related: rel}
	relatedOf := func(term string) []string { t.Helper(); return relatedTerms(t, rel, "o", term) }
	if got := relatedOf("novel"); !slices.Contains(got, "book") {
		t.Fatalf("novel: got %v, want book among them", got)
	}
	lists := terms.count()
	rel.Wait() // the vectors stored

	// A forget: "book" goes at once, and nothing is listed again.
	if err := k.Forget(ctx, "o", []string{bookMemory}); err != nil {
		t.Fatal(err)
	}
	if got := relatedOf("novel"); slices.Contains(got, "book") {
		t.Fatalf("a forgotten term is still related: %v", got)
	}
	var rec map[string]any
	if _, err := b.Store.GetRecord(ctx, "o", related.VectorKind, related.RecordID("book"), &rec); !memory.IsNotFound(err) {
		t.Fatalf("the stored vector of a forgotten term outlives the forget: %v", err)
	}
	if n := terms.count(); n != lists {
		t.Fatalf("a forget listed the vocabulary again (%d listings, want %d)", n, lists)
	}
	// The rest stays: a dog is still a puppy's neighbour.
	if got := relatedOf("puppy"); !slices.Contains(got, "dog") {
		t.Fatalf("puppy: got %v, want dog among them", got)
	}

	// Another process writes "kayak"; this one does not observe it.
	if _, err := b.Service.Create(ctx, org, []service.NewMemory{say("Ana", "I bought a kayak yesterday", 9000)}); err != nil {
		t.Fatal(err)
	}
	clock.Lock()
	now = now.Add(related.DefaultMaxAge + time.Second)
	clock.Unlock()
	gate, listed := make(chan struct{}), make(chan struct{}, 1)
	terms.mu.Lock()
	terms.gate, terms.listed = gate, listed
	terms.mu.Unlock()
	done := make(chan []string, 1)
	go func() { done <- relatedTerms(t, rel, "o", "canoe") }()
	select {
	case got := <-done:
		if slices.Contains(got, "kayak") {
			t.Fatalf("canoe: got %v before the listing ended", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a lookup past MaxAge waited for the vocabulary's listing")
	}
	select {
	case <-listed: // the listing has read "dog"
	case <-time.After(10 * time.Second):
		t.Fatal("no listing began past MaxAge")
	}
	terms.mu.Lock()
	terms.gate = nil
	terms.mu.Unlock()
	// Forgotten while the listing is held: it must not bring "dog" back.
	if err := k.Forget(ctx, "o", []string{dogMemory}); err != nil {
		t.Fatal(err)
	}
	close(gate)
	rel.Wait()
	if got := relatedOf("canoe"); !slices.Contains(got, "kayak") {
		t.Fatalf("canoe after the background listing: got %v, want kayak among them", got)
	}
	if got := relatedOf("puppy"); slices.Contains(got, "dog") {
		t.Fatalf("the background listing brought back a term forgotten while it ran: %v", got)
	}
	if n := terms.count(); n <= lists {
		t.Fatalf("%d listings after MaxAge, want more than %d", n, lists)
	}
}

// TestRelatedLoadDropsStaleVectors: a process that loads the stored term
// vectors deletes those it cannot use (another model's, unreadable, or
// stored under another term's id) and embeds their terms again; the
// others it loads as they are.
func TestRelatedLoadDropsStaleVectors(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "o"}
	sayAll(t, b.Service, org, []string{"I finished a wonderful book about the sea", "We adopted a dog from the shelter",
		"We paddled a canoe across the lake", "The marathon training plan starts with easy runs"})
	emb := &conceptEmbedder{}
	first := &related.Index{Terms: b.Store, Embedder: emb, Records: b.Store}
	if _, err := first.Related(ctx, "o", "novel"); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	var dog map[string]any
	if _, err := b.Store.GetRecord(ctx, "o", related.VectorKind, related.RecordID("dog"), &dog); err != nil {
		t.Fatal(err)
	}
	stale := map[string]any{
		related.RecordID("book"):  map[string]any{"term": "book", "model": "another-model", "scale": 0.01, "vec": dog["vec"]},
		related.RecordID("canoe"): "not a vector",
		related.RecordID("sea"):   dog, // the vector of "dog" under the id of "sea"
	}
	for id, v := range stale {
		if _, err := b.Store.PutRecord(ctx, "o", related.VectorKind, id, v, 0); err != nil {
			t.Fatal(err)
		}
	}
	before := emb.count()
	second := &related.Index{Terms: b.Store, Embedder: emb, Records: b.Store}
	if _, err := second.Related(ctx, "o", "novel"); err != nil {
		t.Fatal(err)
	}
	second.Wait()
	embedded := emb.embedded[before:]
	for _, want := range []string{"book", "canoe", "sea"} {
		if !slices.Contains(embedded, want) {
			t.Errorf("%q has a stale stored vector and was not embedded again (embedded %v)", want, embedded)
		}
	}
	if slices.Contains(embedded, "dog") {
		t.Errorf("dog's stored vector is good but was embedded again")
	}
	for id := range stale {
		var v map[string]any
		if _, err := b.Store.GetRecord(ctx, "o", related.VectorKind, id, &v); err != nil {
			t.Fatalf("record %s: %v", id, err)
		}
		if v["model"] != emb.Model() {
			t.Errorf("record %s still holds a stale vector: %v", id, v)
		}
	}
}

// sayAll writes texts as Ana's turns, a second apart, and returns their ids.
func sayAll(t *testing.T, svc *service.Service, org memory.Caller, texts []string) []string {
	t.Helper()
	var ns []service.NewMemory
	for i, tx := range texts {
		ns = append(ns, say("Ana", tx, int64(1000*(i+1))))
	}
	res, err := svc.Create(ctx, org, ns)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(res))
	for i, r := range res {
		ids[i] = r.ID
	}
	return ids
}

// heldEmbedder is a conceptEmbedder whose calls, while hold is set, tell
// entered and wait until hold is closed.
type heldEmbedder struct {
	*conceptEmbedder
	mu      sync.Mutex
	hold    chan struct{}
	entered chan struct{}
}

func (h *heldEmbedder) Embed(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	h.mu.Lock()
	hold, entered := h.hold, h.entered
	h.mu.Unlock()
	if hold != nil {
		entered <- struct{}{}
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h.conceptEmbedder.Embed(ctx, texts, p)
}

// holdNext makes the next calls wait; the returned func lets them go.
func (h *heldEmbedder) holdNext() (entered <-chan struct{}, release func()) {
	hold, in := make(chan struct{}), make(chan struct{}, 8)
	h.mu.Lock()
	h.hold, h.entered = hold, in
	h.mu.Unlock()
	return in, func() {
		h.mu.Lock()
		h.hold = nil
		h.mu.Unlock()
		close(hold)
	}
}

// TestRelatedNewTermsInBackground: a write's new terms are embedded in the
// background: neither the write nor the lookups after it wait for the
// embedder, the terms join the related terms once embedded, and a term
// forgotten while its batch was embedded stays out.
func TestRelatedNewTermsInBackground(t *testing.T) {
	b := open(t)
	sayAll(t, b.Service, memory.Caller{OrgID: "o"}, everyday)
	emb := &heldEmbedder{conceptEmbedder: &conceptEmbedder{}}
	rel := &related.Index{Terms: b.Store, Embedder: emb, Records: b.Store}
	k := &knowledge.Service{Store: b.Store, Terms: b.Store, Extractor: offline.New(offline.Options{}), Related: rel}
	within := func(what string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { defer close(done); f() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s waited for the embedder", what)
		}
	}
	embedding := func(entered <-chan struct{}) {
		t.Helper()
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("a write's new term was not embedded in the background")
		}
	}
	canoe := func() []string { return relatedTerms(t, rel, "o", "canoe") }
	if got := canoe(); slices.Contains(got, "kayak") {
		t.Fatalf("canoe: got %v before any kayak", got)
	}
	rel.Wait()
	write := func(text string, at int64) string {
		t.Helper()
		m := memorytest.New("o", "", memory.TypeMessage, text, memorytest.Base+at)
		if _, err := b.Store.Create(ctx, []*memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
		within("a write", func() {
			if err := k.Index(ctx, "o", []*memory.Memory{m}); err != nil {
				t.Error(err)
			}
		})
		return m.ID
	}

	// Forgotten while its batch is embedded: it stays out.
	entered, release := emb.holdNext()
	id := write("I bought a kayak yesterday", 1000)
	embedding(entered)
	within("a lookup", func() {
		if got := canoe(); slices.Contains(got, "kayak") {
			t.Errorf("canoe: got %v while kayak is being embedded", got)
		}
	})
	if err := k.Forget(ctx, "o", []string{id}); err != nil {
		t.Fatal(err)
	}
	release()
	rel.Wait()
	if got := canoe(); slices.Contains(got, "kayak") {
		t.Fatalf("canoe: got %v; kayak was forgotten while it was embedded", got)
	}

	// Written again: it joins once embedded.
	entered, release = emb.holdNext()
	write("We rented a kayak for the weekend", 2000)
	embedding(entered)
	within("a lookup", func() { canoe() })
	release()
	rel.Wait()
	if got := canoe(); !slices.Contains(got, "kayak") {
		t.Fatalf("canoe: got %v, want kayak among them once embedded", got)
	}
}

// everyday are turns of enough words for an org's noise cut-off
// (MinNoiseTerms): "book", "dog" and "canoe" first.
var everyday = []string{
	"I finished a wonderful book about the sea last week",
	"We adopted a dog from the shelter in May",
	"We paddled a canoe across the lake",
	"My sister is an artist and she paints murals downtown",
	"The weather was grey all week so we stayed home",
	"Our garden has tomatoes, basil, peppers and sunflowers now",
	"The conference in Lisbon had great talks about robotics and compilers",
	"I cooked lasagna and baked bread for the family dinner",
	"The marathon training plan starts with easy runs on Tuesday",
}

// TestRelatedFirstBuildInBackground: the first lookup of an org whose
// vocabulary is larger than SyncBuildTerms does not wait for its vectors:
// it gets the related terms that need no embedding (the is-a table's and
// the extractor's), and the embedding neighbours once the build is done.
func TestRelatedFirstBuildInBackground(t *testing.T) {
	b := open(t)
	sayAll(t, b.Service, memory.Caller{OrgID: "o"}, everyday)
	emb := &heldEmbedder{conceptEmbedder: &conceptEmbedder{}}
	rel := &related.Index{Terms: b.Store, Embedder: emb, Records: b.Store, SyncBuildTerms: 10}
	relatedOf := func(term string) []string { t.Helper(); return relatedTerms(t, rel, "o", term) }
	entered, release := emb.holdNext()
	done := make(chan [2][]string, 1)
	go func() { done <- [2][]string{relatedOf("novel"), relatedOf("animal")} }()
	select {
	case got := <-done:
		if slices.Contains(got[0], "book") {
			t.Errorf("novel: got %v before the vocabulary's vectors were built", got[0])
		}
		if !slices.Contains(got[1], "dog") {
			t.Errorf("animal: got %v while the vectors load, want dog (the extractor's type) among them", got[1])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first lookup of a large vocabulary waited for its vectors")
	}
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the vocabulary's vectors are not being built")
	}
	release()
	rel.Wait()
	if got := relatedOf("novel"); !slices.Contains(got, "book") {
		t.Fatalf("novel after the build: got %v, want book among them", got)
	}
}

// relatedTerms returns the related terms of term in orgID, most similar
// first. It reports an error rather than stopping: lookups run in
// goroutines of their own too.
func relatedTerms(t *testing.T, rel *related.Index, orgID, term string) []string {
	t.Helper()
	rs, err := rel.Related(ctx, orgID, term)
	if err != nil {
		t.Error(err)
	}
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Term)
	}
	return out
}

// TestRelatedCloseStopsAFirstLoad: Close does not wait for a first load
// in the background (a vocabulary never embedded before is embedded
// whole, which can take minutes).
func TestRelatedCloseStopsAFirstLoad(t *testing.T) {
	b := open(t)
	sayAll(t, b.Service, memory.Caller{OrgID: "o"}, everyday)
	emb := &heldEmbedder{conceptEmbedder: &conceptEmbedder{}}
	rel := &related.Index{Terms: b.Store, Embedder: emb, Records: b.Store, SyncBuildTerms: 10}
	entered, release := emb.holdNext()
	defer release()
	relatedTerms(t, rel, "o", "novel")
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the vocabulary's vectors are not being built")
	}
	closed := make(chan error, 1)
	go func() { closed <- rel.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the first load")
	}
}

// TestRelatedUpkeepUnderLoad runs writes, lookups, forgets and the
// five-minutely listing side by side (under -race in make test) and checks
// that, once the background work is done, no forgotten term is related to
// anything and the words still written are.
func TestRelatedUpkeepUnderLoad(t *testing.T) {
	b := open(t)
	sayAll(t, b.Service, memory.Caller{OrgID: "o"}, everyday)
	var clock sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	rel := &related.Index{Terms: b.Store, Embedder: &conceptEmbedder{}, Records: b.Store, Foreground: &retrieval.Foreground{},
		Now: func() time.Time { clock.Lock(); defer clock.Unlock(); return now }}
	k := &knowledge.Service{Store: b.Store, Terms: b.Store, Extractor: offline.New(offline.Options{}), Related: rel}
	relatedTerms(t, rel, "o", "canoe") // built
	// Each writer writes turns naming a kayak of its own kind (all of
	// them canoe's neighbours) and forgets the second half of them.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var forgotten []string
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				word := "kayak" + []string{"a", "e", "u"}[w] + strings.Repeat("o", i+1)
				m := memorytest.New("o", "", memory.TypeMessage, "I paddled the "+word+" on the river", memorytest.Base+int64(100_000*(w+1)+i))
				if _, err := b.Store.Create(ctx, []*memory.Memory{m}); err != nil {
					t.Error(err)
					return
				}
				if err := k.Index(ctx, "o", []*memory.Memory{m}); err != nil {
					t.Error(err)
					return
				}
				if i >= 10 {
					if err := k.Forget(ctx, "o", []string{m.ID}); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					forgotten = append(forgotten, word)
					mu.Unlock()
				}
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				relatedTerms(t, rel, "o", []string{"canoe", "kayak", "river", "boat"}[i%4])
				if i%15 == 0 {
					clock.Lock()
					now = now.Add(related.DefaultMaxAge + time.Second)
					clock.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	rel.Wait()
	for _, q := range append([]string{"canoe", "kayak", "boat"}, forgotten...) {
		got := relatedTerms(t, rel, "o", q)
		for _, f := range forgotten {
			if slices.Contains(got, f) {
				t.Fatalf("%s: got %v, with the forgotten %q", q, got, f)
			}
		}
	}
	if got := relatedTerms(t, rel, "o", "canoe"); !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "kayak") }) {
		t.Fatalf("canoe: got %v, want kayaks among them", got)
	}
}
