package service_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/pkg/service"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

var (
	ctx    = context.Background()
	orgA   = memory.Caller{OrgID: "org-a"}
	orgB   = memory.Caller{OrgID: "org-b"}
	agentX = memory.Caller{OrgID: "org-a", AgentID: "x"}
	agentY = memory.Caller{OrgID: "org-a", AgentID: "y"}
)

func open(t *testing.T, opts ...service.Option) *local.Backend {
	t.Helper()
	b, err := local.Open(ctx, t.TempDir(), hashing.New(128), nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func text(s string) memory.Content { return memory.Content{Text: s} }

func create(t *testing.T, s *service.Service, c memory.Caller, in ...service.NewMemory) []memory.CreateResult {
	t.Helper()
	res, err := s.Create(ctx, c, in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCreateIsAllOrNothing(t *testing.T) {
	b := open(t)
	_, err := b.Service.Create(ctx, orgA, []service.NewMemory{
		{Content: text("fine")},
		{Content: text("also fine"), Durability: "sometimes"},
	})
	if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(memory.ErrorMessage(err), "memories[1].durability") {
		t.Fatalf("want invalid naming memories[1].durability, got %v", err)
	}
	if n, _ := b.Service.Count(ctx, orgA, memory.Filter{}); n != 0 {
		t.Fatalf("%d memories stored from a rejected batch", n)
	}
	many := make([]service.NewMemory, memory.MaxBatch+1)
	if _, err := b.Service.Create(ctx, orgA, many); !strings.Contains(memory.ErrorMessage(err), "batch limit of 100") {
		t.Fatalf("oversized batch: %v", err)
	}
}

// failingIndex fails every write, to check that the service leaves nothing
// half-written.
type failingIndex struct{ memory.Index }

func (failingIndex) Upsert(context.Context, []*memory.Memory) error {
	return errors.New("index down")
}

func TestIndexFailureRollsBackTheStore(t *testing.T) {
	b := open(t)
	svc := service.NewService(b.Store, failingIndex{b.Index}, b.Embedder)
	_, err := svc.Create(ctx, orgA, []service.NewMemory{{Content: text("one")}, {Content: text("two")}})
	if memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("want unavailable, got %v", err)
	}
	if n, _ := b.Store.Total(ctx); n != 0 {
		t.Fatalf("%d memories left in the store after the index failed", n)
	}
	// An update whose index write fails is undone too.
	id := create(t, b.Service, orgA, service.NewMemory{Content: text("original")})[0].ID
	newText := text("changed")
	if _, err := svc.Update(ctx, orgA, id, service.Patch{Content: &newText}); memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("update with failing index: %v", err)
	}
	m, _ := b.Service.Get(ctx, orgA, id)
	if m.Content.Text != "original" {
		t.Fatalf("store kept %q after the index failed", m.Content.Text)
	}
}

func TestDedupWithinAndAcrossBatches(t *testing.T) {
	b := open(t)
	res := create(t, b.Service, orgA,
		service.NewMemory{Type: memory.TypeFact, Content: text("The deploy window is Tuesday")},
		service.NewMemory{Type: memory.TypeFact, Content: text("the deploy window is   TUESDAY")},
		service.NewMemory{Type: memory.TypeFact, Content: text("The deploy window is Tuesday"), AgentID: "x"},
	)
	if res[0].Duplicate || !res[1].Duplicate || res[1].ID != res[0].ID || res[2].Duplicate || res[2].ID == res[0].ID {
		t.Fatalf("batch results %+v", res)
	}
	again := create(t, b.Service, orgA, service.NewMemory{Type: memory.TypeFact, Content: text("The deploy window is Tuesday")})
	if !again[0].Duplicate || again[0].ID != res[0].ID {
		t.Fatalf("second post: %+v", again)
	}
	if n, _ := b.Service.Count(ctx, orgA, memory.Filter{}); n != 2 {
		t.Fatalf("stored %d, want 2", n)
	}
}

func seed(t *testing.T, s *service.Service) map[string]string {
	t.Helper()
	ids := map[string]string{}
	put := func(name string, c memory.Caller, n service.NewMemory) {
		ids[name] = create(t, s, c, n)[0].ID
	}
	put("tea", orgA, service.NewMemory{Type: memory.TypeFact, Kind: memory.KindPreference, Content: text("Dana prefers jasmine tea in the afternoon")})
	put("flight", orgA, service.NewMemory{Type: memory.TypeMessage, RoomID: "r1", EntityID: "dana", Content: text("My flight to Lisbon leaves on Friday morning")})
	put("budget", orgA, service.NewMemory{Type: memory.TypeCustom, Content: text("The marketing budget for Q3 is 40k euros")})
	put("x-secret", agentX, service.NewMemory{Content: text("Agent X private note: the vault combination is 1789")})
	put("y-secret", agentY, service.NewMemory{Content: text("Agent Y private note: the vault combination is 2044")})
	put("b-tea", orgB, service.NewMemory{Type: memory.TypeFact, Content: text("Dana prefers jasmine tea in the afternoon")})
	return ids
}

func TestSearchModesAndVisibility(t *testing.T) {
	b := open(t)
	ids := seed(t, b.Service)
	for _, mode := range []service.Mode{service.ModeHybrid, service.ModeKeyword, service.ModeSemantic} {
		t.Run(string(mode), func(t *testing.T) {
			res, err := b.Service.Search(ctx, orgA, service.SearchRequest{Query: "jasmine tea", Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) == 0 || res[0].Memory.ID != ids["tea"] {
				t.Fatalf("top result %v, want the tea fact", res)
			}
			for _, r := range res {
				if r.Memory.OrgID != "org-a" {
					t.Fatalf("org a's search returned %s", r.Memory)
				}
			}
			switch mode {
			case service.ModeKeyword:
				if res[0].Semantic != nil || res[0].Score != res[0].Keyword.Score {
					t.Fatalf("keyword result scores: %+v", res[0])
				}
			case service.ModeSemantic:
				if res[0].Keyword != nil || res[0].Score != res[0].Semantic.Score {
					t.Fatalf("semantic result scores: %+v", res[0])
				}
			case service.ModeHybrid:
				if res[0].Keyword == nil || res[0].Semantic == nil || res[0].Score >= 1 {
					t.Fatalf("hybrid result scores: %+v", res[0])
				}
			}
			// Agent scoping: X sees its own note, never Y's.
			res, err = b.Service.Search(ctx, agentX, service.SearchRequest{Query: "vault combination", Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if r.Memory.ID == ids["y-secret"] {
					t.Fatal("agent x found agent y's memory")
				}
			}
			if len(res) == 0 || res[0].Memory.ID != ids["x-secret"] {
				t.Fatalf("agent x does not find its own note first: %v", res)
			}
		})
	}
	before, _ := b.Service.Get(ctx, orgA, ids["tea"])
	res, _ := b.Service.Search(ctx, orgA, service.SearchRequest{Query: "jasmine", Mode: service.ModeKeyword})
	after, _ := b.Service.Get(ctx, orgA, ids["tea"])
	if len(res) != 1 || after.AccessCount != before.AccessCount+1 || after.LastAccessedAt == 0 || after.Version != before.Version {
		t.Fatalf("a search returning it: access count %d -> %d, version %d -> %d", before.AccessCount, after.AccessCount, before.Version, after.Version)
	}
	if _, err := b.Service.Search(ctx, agentX, service.SearchRequest{Query: "x", Filter: memory.Filter{AgentID: "y"}}); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Fatalf("agent x filtering on y: %v", err)
	}
}

func TestSearchFiltersAndThreshold(t *testing.T) {
	b := open(t)
	ids := seed(t, b.Service)
	res, err := b.Service.Search(ctx, orgA, service.SearchRequest{Query: "Friday flight tea", Filter: memory.Filter{Types: []memory.Type{memory.TypeMessage}, RoomID: "r1"}})
	if err != nil || len(res) != 1 || res[0].Memory.ID != ids["flight"] {
		t.Fatalf("type+room filter: %v %v", res, err)
	}
	res, _ = b.Service.Search(ctx, orgA, service.SearchRequest{Query: "jasmine tea", Mode: service.ModeSemantic, Threshold: 0.99})
	if len(res) != 0 {
		t.Fatalf("threshold 0.99 kept %d results", len(res))
	}
	for _, bad := range []service.SearchRequest{
		{Query: " "}, {Query: "x", Mode: "fuzzy"}, {Query: "x", K: 101}, {Query: "x", Threshold: 2},
		{Query: strings.Repeat("q", memory.MaxQueryBytes+1)},
	} {
		if _, err := b.Service.Search(ctx, orgA, bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestUpdateReembedsAndRacesLoseNothing(t *testing.T) {
	b := open(t)
	id := create(t, b.Service, orgA, service.NewMemory{Content: text("The office is in Berlin")})[0].ID
	c := text("The office moved to Amsterdam")
	m, err := b.Service.Update(ctx, orgA, id, service.Patch{Content: &c})
	if err != nil || m.Version != 2 {
		t.Fatalf("update: %+v %v", m, err)
	}
	res, _ := b.Service.Search(ctx, orgA, service.SearchRequest{Query: "Amsterdam", Mode: service.ModeSemantic, K: 1})
	if len(res) != 1 || res[0].Memory.ID != id || res[0].Semantic.Score < 0.3 {
		t.Fatalf("semantic search after re-embedding: %+v", res)
	}
	if res, _ := b.Service.Search(ctx, orgA, service.SearchRequest{Query: "Berlin", Mode: service.ModeKeyword}); len(res) != 0 {
		t.Fatalf("old text still found: %+v", res)
	}
	// Two patches of different fields race; both must land.
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(2)
		imp := float64(i) / 10
		dur := memory.DurabilityCore
		go func() {
			defer wg.Done()
			_, err := b.Service.Update(ctx, orgA, id, service.Patch{Importance: &imp})
			check(t, err)
		}()
		go func() {
			defer wg.Done()
			_, err := b.Service.Update(ctx, orgA, id, service.Patch{Durability: &dur})
			check(t, err)
		}()
	}
	wg.Wait()
	m, _ = b.Service.Get(ctx, orgA, id)
	if m.Durability != memory.DurabilityCore || m.Version != 22 {
		t.Fatalf("after 20 racing patches: durability %s version %d, want core and 22", m.Durability, m.Version)
	}
	if _, err := b.Service.Update(ctx, orgA, id, service.Patch{Importance: new(float64), IfVersion: 3}); memory.ErrorCode(err) != memory.EPRECONDITION {
		t.Fatalf("stale If-Match: %v", err)
	}
	if _, err := b.Service.Update(ctx, orgA, id, service.Patch{}); memory.ErrorCode(err) != memory.EINVALID {
		t.Fatalf("empty patch: %v", err)
	}
	if _, err := b.Service.Update(ctx, orgB, id, service.Patch{Importance: new(float64)}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("org b patching: %v", err)
	}
}

func check(t *testing.T, err error) {
	if err != nil {
		t.Error(err)
	}
}

func TestContextFillsTheBudgetInOrder(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b := open(t, service.WithClock(func() time.Time { return now }))
	s := b.Service
	imp := 0.9
	create(t, s, orgA, service.NewMemory{Type: memory.TypeFact, Durability: memory.DurabilityCore, Importance: &imp, Content: text("The user is called Sam and works as a nurse")})
	turn := map[string]int{} // message id -> its number
	for i := 0; i < 30; i++ {
		r := create(t, s, orgA, service.NewMemory{Type: memory.TypeMessage, RoomID: "chat", EntityID: "sam",
			CreatedAt: now.Add(time.Duration(i) * time.Minute).UnixMilli(), Content: text(fmt.Sprintf("message number %d about the weekend plans", i))})
		turn[r[0].ID] = i
	}
	create(t, s, orgA, service.NewMemory{Type: memory.TypeFact, Content: text("Sam is allergic to peanuts")})
	create(t, s, orgB, service.NewMemory{Type: memory.TypeFact, Content: text("Sam from org b is allergic to shellfish")})

	res, err := s.BuildContext(ctx, orgA, service.ContextRequest{Query: "what is Sam allergic to", RoomID: "chat", BudgetTokens: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.UsedTokens > 200 || res.UsedTokens < 150 {
		t.Fatalf("used %d of 200 tokens", res.UsedTokens)
	}
	var names []string
	for _, sec := range res.Sections {
		names = append(names, sec.Name)
	}
	if strings.Join(names, ",") != "core,recent,structured,knowledge" {
		t.Fatalf("sections %v", names)
	}
	sum := 0
	for _, sec := range res.Sections {
		sum += sec.Tokens
		if len(sec.Items) == 0 {
			t.Fatalf("section %s is empty", sec.Name)
		}
	}
	if sum != res.UsedTokens {
		t.Fatalf("sections sum to %d, used %d", sum, res.UsedTokens)
	}
	core, recent := strings.Index(res.Context, "nurse"), strings.Index(res.Context, "message number 29")
	peanuts := strings.Index(res.Context, "peanuts")
	if core < 0 || recent < 0 || peanuts < 0 || !(core < recent && recent < peanuts) {
		t.Fatalf("order core < newest message < knowledge broken:\n%s", res.Context)
	}
	if strings.Contains(res.Context, "shellfish") {
		t.Fatal("org b's memory in org a's context")
	}
	// The recent section holds the newest messages, contiguously, oldest first.
	recentItems := res.Sections[1].Items
	for j, it := range recentItems {
		if want := 30 - len(recentItems) + j; turn[it.ID] != want {
			t.Fatalf("recent item %d is message %d, want %d (the newest %d in order)", j, turn[it.ID], want, len(recentItems))
		}
	}
	if len(recentItems) >= 30 {
		t.Fatal("every message fit in a budget that should only hold the newest")
	}
	// Recent messages read oldest to newest.
	if strings.Index(res.Context, "message number 28") > strings.Index(res.Context, "message number 29") {
		t.Fatal("recent messages are not chronological")
	}
	for _, bad := range []service.ContextRequest{{Query: "x", BudgetTokens: -1}, {Query: "x", BudgetTokens: memory.MaxBudgetTokens + 1}, {}} {
		if _, err := s.BuildContext(ctx, orgA, bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestRebuildReembedsWithANewModel(t *testing.T) {
	dir := t.TempDir()
	b, err := local.Open(ctx, dir, hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, b.Service)
	b.Close()
	// Reopen with another embedder: the index is rebuilt and vectors re-made.
	b, err = local.Open(ctx, dir, hashing.New(96), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res, err := b.Service.Search(ctx, orgA, service.SearchRequest{Query: "jasmine tea", Mode: service.ModeSemantic})
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Memory.Content.Text, "jasmine") {
		t.Fatalf("semantic search after a model change: %v %v", res, err)
	}
	m, _ := b.Store.Get(ctx, "org-a", res[0].Memory.ID)
	if len(m.Embedding) != 96 || m.EmbeddingModel != "hashembed-v1-96" {
		t.Fatalf("stored embedding %d dims of %s", len(m.Embedding), m.EmbeddingModel)
	}
}

// TestSearchQueryVector: a question is embedded as one; the service's jobs
// compare a text as a stored text (Similar) or pass a stored memory's
// own vector, which is not embedded again; a vector of the wrong size is a
// 400.
func TestSearchQueryVector(t *testing.T) {
	b := open(t)
	emb := &memorytest.RecordingEmbedder{Embedder: b.Embedder, AsksDifferently: true}
	svc := service.NewService(b.Store, b.Index, emb)
	id := create(t, svc, orgA, service.NewMemory{Type: memory.TypeFact, Content: text("Dana prefers jasmine tea in the afternoon")})[0].ID
	create(t, svc, orgA, service.NewMemory{Type: memory.TypeFact, Content: text("The quarterly revenue fell by ten percent")})
	stored, err := svc.Get(ctx, orgA, id)
	check(t, err)
	question := func(q string) func() ([]service.SearchResult, error) {
		return func() ([]service.SearchResult, error) {
			return svc.Search(ctx, orgA, service.SearchRequest{Query: q, Mode: service.ModeSemantic})
		}
	}
	similar := func(r memory.SimilarRequest) func() ([]service.SearchResult, error) {
		return func() ([]service.SearchResult, error) { return svc.Pipelines().Similar(ctx, orgA, r) }
	}
	for _, tc := range []struct {
		name      string
		search    func() ([]service.SearchResult, error)
		embedded  []memory.Purpose // the embedder calls the search makes
		identical bool             // the query vector is the stored one: cosine 1
		code      string
	}{
		{"question", question(stored.Content.Text), []memory.Purpose{memory.PurposeQuery}, false, ""},
		{"similar to a stored text", similar(memory.SimilarRequest{Text: stored.Content.Text}), []memory.Purpose{memory.PurposeDocument}, true, ""},
		{"similar to a stored vector", similar(memory.SimilarRequest{Text: stored.Content.Text, Vector: stored.Embedding}), nil, true, ""},
		{"vector of another size", similar(memory.SimilarRequest{Text: "x", Vector: make([]float32, 3)}), nil, false, memory.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			emb.Purposes()
			res, err := tc.search()
			if tc.code != "" {
				if memory.ErrorCode(err) != tc.code {
					t.Fatalf("want %s, got %v", tc.code, err)
				}
				return
			}
			check(t, err)
			if got := emb.Purposes(); fmt.Sprint(got) != fmt.Sprint(tc.embedded) {
				t.Fatalf("embedder calls %v, want %v", got, tc.embedded)
			}
			if len(res) == 0 || res[0].Memory.ID != id {
				t.Fatalf("results %+v", res)
			}
			if got := res[0].Score > 0.9999; got != tc.identical {
				t.Fatalf("cosine with the stored text %.4f", res[0].Score)
			}
		})
	}
}

// TestMessageVectorViews: a message's stored vector averages the vector of
// its exchange (SearchText, with the turn before it) and the mean of its own
// sentences' (memory.EmbedMemories), unless WithSentenceView(false); a fact
// keeps the single view either way.
func TestMessageVectorViews(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprint("sentence view ", on), func(t *testing.T) {
			b := open(t)
			svc := service.NewService(b.Store, b.Index, b.Embedder, service.WithSentenceView(on))
			res := create(t, svc, orgA,
				service.NewMemory{Type: memory.TypeMessage, EntityID: "Bo", RoomID: "r1", Content: text("Where do you live now?")},
				service.NewMemory{Type: memory.TypeMessage, EntityID: "Ana", RoomID: "r1", Content: text("I moved to Lisbon. The light there is wonderful.")},
				service.NewMemory{Type: memory.TypeFact, Content: text("Ana lives in Lisbon. She paints.")})
			for i, r := range res {
				m, err := svc.Get(ctx, orgA, r.ID)
				check(t, err)
				whole, err := b.Embedder.Embed(ctx, []string{m.SearchText()}, memory.PurposeDocument)
				check(t, err)
				want := whole[0]
				if on && m.Type == memory.TypeMessage {
					if i == 1 && m.Context == "" {
						t.Fatal("the second turn has no context")
					}
					sents, err := b.Embedder.Embed(ctx, m.SentenceTexts(), memory.PurposeDocument)
					check(t, err)
					want = memory.CombineViews(whole[0], sents)
					if len(sents) > 0 && slices.Equal(want, whole[0]) {
						t.Fatalf("%s: the sentence view changes nothing", m.Content.Text)
					}
				}
				if len(m.Embedding) != len(want) {
					t.Fatalf("%s: %d dimensions, want %d", m.Content.Text, len(m.Embedding), len(want))
				}
				for j := range want {
					if math.Abs(float64(m.Embedding[j]-want[j])) > 1e-6 {
						t.Fatalf("%s: stored vector differs from the recipe's at %d: %v, want %v", m.Content.Text, j, m.Embedding[j], want[j])
					}
				}
			}
		})
	}
}

// speakerReads counts the store reads that check whether a name speaks
// (a one-item list of an entity's messages).
type speakerReads struct {
	memory.Store
	mu sync.Mutex
	n  int
}

func (s *speakerReads) List(ctx context.Context, q memory.ListQuery) (memory.Page, error) {
	if q.Filter.EntityID != "" && q.Limit == 1 {
		s.mu.Lock()
		s.n++
		s.mu.Unlock()
	}
	return s.Store.List(ctx, q)
}

// speakersReader is a knowledge context that resolves the speakers of
// the question it is given, as the real one does.
type speakersReader struct {
	store memory.Store
	got   []string
}

func (r *speakersReader) AnswerContext(ctx context.Context, q *retrieval.Query) (*service.AnswerContext, error) {
	got, err := q.Speakers(ctx, r.store)
	r.got = got
	return &service.AnswerContext{}, err
}

// TestContextReadsSpeakersOnce: a context build's structured section and
// its search ask one question, and the speakers it names are read from
// the store once, not once by each.
func TestContextReadsSpeakersOnce(t *testing.T) {
	b := open(t)
	create(t, b.Service, orgA, service.NewMemory{Type: memory.TypeMessage, RoomID: "chat", EntityID: "Sam", Content: text("I am allergic to peanuts")})
	// A service over the same store and index, every read of the store
	// counted, with the entity list (which reads the speakers too).
	counted := &speakerReads{Store: b.Store}
	kc := &speakersReader{store: counted}
	svc := service.NewService(counted, b.Index, b.Embedder, service.WithKnowledgeContext(kc), service.WithEntityList())

	res, err := svc.BuildContext(ctx, orgA, service.ContextRequest{Query: "What is Sam allergic to?", BudgetTokens: 500})
	if err != nil {
		t.Fatal(err)
	}
	// "What" and "Sam": two reads, shared by the section and the search.
	if counted.n != 2 || strings.Join(kc.got, ",") != "Sam" || !strings.Contains(res.Context, "peanuts") {
		t.Fatalf("%d reads, want 2; the knowledge context found %q; context:\n%s", counted.n, kc.got, res.Context)
	}
	// A search alone reads its own.
	if _, err := svc.Search(ctx, orgA, service.SearchRequest{Query: "What is Sam allergic to?"}); err != nil {
		t.Fatal(err)
	}
	if counted.n != 4 {
		t.Fatalf("%d reads after a search, want 4", counted.n)
	}
}
