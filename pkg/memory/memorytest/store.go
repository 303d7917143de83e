package memorytest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// StoreSuite runs the Store contract against stores made by open; each
// subtest gets a fresh, empty store.
func StoreSuite(t *testing.T, open func(t *testing.T) memory.Store) {
	ctx := context.Background()

	t.Run("create and get round trip", func(t *testing.T) {
		s := open(t)
		m := New(OrgA, AgentX, memory.TypeFragment, "The quick brown fox", Base)
		m.Metadata = []byte(`{"source":"test","n":1}`)
		m.RoomID, m.EntityID, m.WorldID, m.SessionID, m.DocumentID = "r", "e", "w", "s", "d"
		pos := 3
		m.Position = &pos
		m.Content.Attachments = []memory.Attachment{{ID: "a1", Title: "photo", Description: "a fox"}}
		res, err := s.Create(ctx, []*memory.Memory{m})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].ID != m.ID || res[0].Duplicate {
			t.Fatalf("create result %+v", res)
		}
		got, err := s.Get(ctx, OrgA, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, m)
		}
	})

	t.Run("another org's id is not found", func(t *testing.T) {
		s := open(t)
		m := New(OrgA, "", memory.TypeCustom, "secret of org a", Base)
		mustCreate(t, s, m)
		if _, err := s.Get(ctx, OrgB, m.ID); !memory.IsNotFound(err) {
			t.Fatalf("get from org b: %v", err)
		}
		got, err := s.GetMany(ctx, OrgB, []string{m.ID})
		if err != nil || len(got) != 0 {
			t.Fatalf("getmany from org b: %v %v", got, err)
		}
		other := *m
		other.OrgID = OrgB
		if err := s.Update(ctx, &other); !memory.IsNotFound(err) {
			t.Fatalf("update from org b: %v", err)
		}
		if err := s.Delete(ctx, OrgB, m.ID); !memory.IsNotFound(err) {
			t.Fatalf("delete from org b: %v", err)
		}
		if err := s.Touch(ctx, OrgB, []string{m.ID}, Base+1); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, s, OrgA, m.ID); got.AccessCount != 0 || got.Content.Text != m.Content.Text {
			t.Fatalf("org b changed org a's memory: %+v", got)
		}
	})

	t.Run("same content in the same scope is one memory", func(t *testing.T) {
		s := open(t)
		a := New(OrgA, AgentX, memory.TypeFact, "Likes green tea", Base)
		mustCreate(t, s, a)
		b := New(OrgA, AgentX, memory.TypeFact, "  likes GREEN tea ", Base+1)
		res, err := s.Create(ctx, []*memory.Memory{b})
		if err != nil {
			t.Fatal(err)
		}
		if !res[0].Duplicate || res[0].ID != a.ID {
			t.Fatalf("want duplicate of %s, got %+v", a.ID, res[0])
		}
		// Other scopes, types and orgs are not duplicates.
		for _, m := range []*memory.Memory{
			New(OrgA, AgentY, memory.TypeFact, "Likes green tea", Base),
			New(OrgA, "", memory.TypeFact, "Likes green tea", Base),
			New(OrgA, AgentX, memory.TypeCustom, "Likes green tea", Base),
			New(OrgB, AgentX, memory.TypeFact, "Likes green tea", Base),
		} {
			res, err := s.Create(ctx, []*memory.Memory{m})
			if err != nil || res[0].Duplicate {
				t.Fatalf("%s: %+v %v", m, res, err)
			}
		}
	})

	t.Run("concurrent duplicate writes make one memory", func(t *testing.T) {
		s := open(t)
		const writers = 16
		var wg sync.WaitGroup
		results := make([]memory.CreateResult, writers)
		errs := make([]error, writers)
		for i := 0; i < writers; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				m := New(OrgA, "", memory.TypeFact, "The launch is on Friday", Base+int64(i))
				r, err := s.Create(ctx, []*memory.Memory{m})
				if err == nil {
					results[i] = r[0]
				}
				errs[i] = err
			}(i)
		}
		wg.Wait()
		created := 0
		ids := map[string]bool{}
		for i := range results {
			if errs[i] != nil {
				t.Fatalf("writer %d: %v", i, errs[i])
			}
			if !results[i].Duplicate {
				created++
			}
			ids[results[i].ID] = true
		}
		n, err := s.Count(ctx, memory.Filter{OrgID: OrgA})
		if err != nil {
			t.Fatal(err)
		}
		if created != 1 || len(ids) != 1 || n != 1 {
			t.Fatalf("created %d, distinct ids %d, stored %d; want 1, 1, 1", created, len(ids), n)
		}
	})

	t.Run("update is conditional on the version", func(t *testing.T) {
		s := open(t)
		m := New(OrgA, "", memory.TypeCustom, "version one", Base)
		mustCreate(t, s, m)
		a, b := mustGet(t, s, OrgA, m.ID), mustGet(t, s, OrgA, m.ID)
		a.Content.Text, a.ContentHash = "version two", memory.ContentHash("version two")
		if err := s.Update(ctx, a); err != nil {
			t.Fatal(err)
		}
		if a.Version != 2 {
			t.Fatalf("version after update = %d, want 2", a.Version)
		}
		b.Importance = 0.9
		if err := s.Update(ctx, b); !memory.IsConflict(err) {
			t.Fatalf("stale update: want conflict, got %v", err)
		}
		got := mustGet(t, s, OrgA, m.ID)
		if got.Content.Text != "version two" || got.Importance != 0.5 || got.Version != 2 {
			t.Fatalf("after stale update: %+v", got)
		}
	})

	t.Run("racing updates lose nothing", func(t *testing.T) {
		s := open(t)
		m := New(OrgA, "", memory.TypeCustom, "counter", Base)
		m.Metadata = []byte(`{"n":0}`)
		mustCreate(t, s, m)
		const racers, each = 4, 5
		var wg sync.WaitGroup
		for r := 0; r < racers; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					for { // read-modify-write, retried on conflict
						cur := mustGet(t, s, OrgA, m.ID)
						cur.Importance = float64(int(cur.Importance*1000)+1) / 1000
						err := s.Update(ctx, cur)
						if err == nil {
							break
						}
						if !memory.IsConflict(err) {
							t.Error(err)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		got := mustGet(t, s, OrgA, m.ID)
		want := 0.5 + racers*each/1000.0
		if fmt.Sprintf("%.3f", got.Importance) != fmt.Sprintf("%.3f", want) || got.Version != 1+racers*each {
			t.Fatalf("importance %.3f version %d, want %.3f and %d", got.Importance, got.Version, want, 1+racers*each)
		}
	})

	t.Run("update to another memory's content is a duplicate conflict", func(t *testing.T) {
		s := open(t)
		a := New(OrgA, "", memory.TypeFact, "first fact", Base)
		b := New(OrgA, "", memory.TypeFact, "second fact", Base+1)
		mustCreate(t, s, a, b)
		b.Content.Text, b.ContentHash = "FIRST fact", memory.ContentHash("FIRST fact")
		err := s.Update(ctx, b)
		var dup *memory.DuplicateError
		if !errors.As(err, &dup) || dup.ExistingID != a.ID || !memory.IsConflict(err) {
			t.Fatalf("want duplicate conflict with %s, got %v", a.ID, err)
		}
		// The freed key can be reused once the holder changes.
		a.Content.Text, a.ContentHash = "first fact, revised", memory.ContentHash("first fact, revised")
		if err := s.Update(ctx, a); err != nil {
			t.Fatal(err)
		}
		b = mustGet(t, s, OrgA, b.ID)
		b.Content.Text, b.ContentHash = "first fact", memory.ContentHash("first fact")
		if err := s.Update(ctx, b); err != nil {
			t.Fatalf("reusing a freed key: %v", err)
		}
	})

	t.Run("list, count and pages follow the filter", func(t *testing.T) {
		s := open(t)
		corpus := Corpus(OrgA, 84)
		mustCreate(t, s, corpus...)
		mustCreate(t, s, Corpus(OrgB, 20)...) // noise in another org
		for _, tc := range Filters() {
			t.Run(tc.Name, func(t *testing.T) {
				f := tc.F
				f.OrgID = OrgA
				checkListed(t, s, f, Expect(corpus, f))
			})
		}
	})

	t.Run("orgs lists every org with memories once, in order", func(t *testing.T) {
		s := open(t)
		ol, ok := s.(memory.OrgLister)
		if !ok {
			t.Skip("the store does not list orgs")
		}
		before, err := ol.Orgs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustCreate(t, s, Corpus(OrgB, 3)...)
		mustCreate(t, s, Corpus(OrgA, 5)...)
		got, err := ol.Orgs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Compact(slices.Sorted(slices.Values(append(before, OrgA, OrgB))))
		if !slices.Equal(got, want) {
			t.Fatalf("orgs %q; want %q (each once, sorted)", got, want)
		}
	})

	t.Run("memory keys page through the whole org, newest first", func(t *testing.T) {
		s := open(t)
		kl, ok := s.(memory.MemoryKeyLister)
		if !ok {
			t.Skip("the store does not list keys")
		}
		corpus := Corpus(OrgA, 84)
		staged := New(OrgA, "", memory.TypeFragment, "a staged fragment", Base+500)
		staged.Pending = true
		mustCreate(t, s, append(corpus, staged)...)
		mustCreate(t, s, Corpus(OrgB, 20)...) // noise in another org
		want := append(append([]*memory.Memory(nil), corpus...), staged)
		sort.Slice(want, func(i, j int) bool {
			if want[i].CreatedAt != want[j].CreatedAt {
				return want[i].CreatedAt > want[j].CreatedAt
			}
			return want[i].ID > want[j].ID
		})
		var got []memory.Cursor
		var after *memory.Cursor
		for pages := 0; ; pages++ {
			if pages > len(want) {
				t.Fatal("the pages never end")
			}
			keys, next, err := kl.ListMemoryKeys(ctx, OrgA, after, 9)
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) > 9 {
				t.Fatalf("a page of 9 holds %d keys", len(keys))
			}
			got = append(got, keys...)
			if next == nil {
				break
			}
			if *next != keys[len(keys)-1] {
				t.Fatalf("next %+v is not the page's last key %+v", *next, keys[len(keys)-1])
			}
			after = next
		}
		if len(got) != len(want) {
			t.Fatalf("listed %d keys; want %d (every memory of the org, archived and staged included)", len(got), len(want))
		}
		for i, m := range want {
			if got[i] != (memory.Cursor{CreatedAt: m.CreatedAt, ID: m.ID}) {
				t.Fatalf("key %d is %+v; want %s at %d", i, got[i], m.ID, m.CreatedAt)
			}
		}
		if _, _, err := kl.ListMemoryKeys(ctx, OrgA, nil, 0); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("a limit of 0: %v; want EINVALID", err)
		}
	})

	t.Run("bulk delete removes exactly the filtered memories", func(t *testing.T) {
		for _, tc := range Filters() {
			if tc.Name == "all" || tc.Name == "archived too" {
				continue
			}
			t.Run(tc.Name, func(t *testing.T) {
				s := open(t)
				corpus := Corpus(OrgA, 42)
				mustCreate(t, s, corpus...)
				mustCreate(t, s, Corpus(OrgB, 42)...)
				f := tc.F
				f.OrgID = OrgA
				want := Expect(corpus, f)
				ids, err := s.DeleteWhere(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if got := set(ids); !reflect.DeepEqual(got, want) {
					t.Fatalf("deleted %d, want %d: %v", len(got), len(want), diff(got, want))
				}
				for _, m := range corpus {
					_, err := s.Get(ctx, OrgA, m.ID)
					if want[m.ID] != memory.IsNotFound(err) {
						t.Fatalf("%s: deleted=%v but get error %v", m.ID, want[m.ID], err)
					}
				}
				if n, err := s.Count(ctx, memory.Filter{OrgID: OrgB, IncludeArchived: true}); err != nil || n != 42 {
					t.Fatalf("org b lost memories: %d left of 42 (%v)", n, err)
				}
			})
		}
	})

	t.Run("touch counts accesses without a new version", func(t *testing.T) {
		s := open(t)
		a := New(OrgA, "", memory.TypeCustom, "touched", Base)
		b := New(OrgA, "", memory.TypeCustom, "untouched", Base)
		mustCreate(t, s, a, b)
		for i := int64(1); i <= 3; i++ {
			if err := s.Touch(ctx, OrgA, []string{a.ID, "missing"}, Base+i*1000); err != nil {
				t.Fatal(err)
			}
		}
		got := mustGet(t, s, OrgA, a.ID)
		if got.AccessCount != 3 || got.LastAccessedAt != Base+3000 || got.Version != 1 {
			t.Fatalf("after 3 touches: count %d last %d version %d", got.AccessCount, got.LastAccessedAt, got.Version)
		}
		if got := mustGet(t, s, OrgA, b.ID); got.AccessCount != 0 {
			t.Fatalf("untouched memory has %d accesses", got.AccessCount)
		}
		// An id listed n times in one call is n accesses.
		if err := s.Touch(ctx, OrgA, []string{b.ID, a.ID, b.ID, "missing", b.ID}, Base+5000); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id   string
			want int64
		}{{a.ID, 4}, {b.ID, 3}} {
			if got := mustGet(t, s, OrgA, c.id); got.AccessCount != c.want || got.LastAccessedAt != Base+5000 || got.Version != 1 {
				t.Fatalf("%s after one call with repeats: count %d last %d version %d, want %d at %d",
					got.Content.Text, got.AccessCount, got.LastAccessedAt, got.Version, c.want, Base+5000)
			}
		}
	})

	t.Run("a touch older than the last access keeps the last time", func(t *testing.T) {
		s := open(t)
		a := New(OrgA, "", memory.TypeCustom, "read by two writers", Base)
		mustCreate(t, s, a)
		// Two processes' access batches, the later one written first.
		for _, at := range []int64{Base + 5000, Base + 2000} {
			if err := s.Touch(ctx, OrgA, []string{a.ID}, at); err != nil {
				t.Fatal(err)
			}
		}
		if got := mustGet(t, s, OrgA, a.ID); got.AccessCount != 2 || got.LastAccessedAt != Base+5000 {
			t.Fatalf("touches at +5000 then +2000: count %d last %d, want 2 at %d", got.AccessCount, got.LastAccessedAt, Base+5000)
		}
	})

	t.Run("accesses survive an update once and die with the memory", func(t *testing.T) {
		s := open(t)
		a := New(OrgA, "", memory.TypeCustom, "read often", Base)
		mustCreate(t, s, a)
		for i := int64(1); i <= 2; i++ {
			if err := s.Touch(ctx, OrgA, []string{a.ID}, Base+i*1000); err != nil {
				t.Fatal(err)
			}
		}
		got := mustGet(t, s, OrgA, a.ID)
		got.Content.Text, got.ContentHash = "read often, changed", memory.ContentHash("read often, changed")
		if err := s.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		if err := s.Touch(ctx, OrgA, []string{a.ID}, Base+3000); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, s, OrgA, a.ID); got.AccessCount != 3 || got.LastAccessedAt != Base+3000 {
			t.Fatalf("2 touches, an update, 1 touch: count %d last %d, want 3 at %d", got.AccessCount, got.LastAccessedAt, Base+3000)
		}
		if err := s.Delete(ctx, OrgA, a.ID); err != nil {
			t.Fatal(err)
		}
		again := New(OrgA, "", memory.TypeCustom, "read often", Base+4000)
		again.ID = a.ID
		mustCreate(t, s, again)
		if got := mustGet(t, s, OrgA, a.ID); got.AccessCount != 0 || got.LastAccessedAt != 0 {
			t.Fatalf("a memory recreated under a deleted one's id inherited its accesses: count %d last %d", got.AccessCount, got.LastAccessedAt)
		}
		// The same through a deletion by filter.
		if err := s.Touch(ctx, OrgA, []string{a.ID, a.ID}, Base+5000); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteWhere(ctx, memory.Filter{OrgID: OrgA}); err != nil {
			t.Fatal(err)
		}
		mustCreate(t, s, again)
		if got := mustGet(t, s, OrgA, a.ID); got.AccessCount != 0 || got.LastAccessedAt != 0 {
			t.Fatalf("a memory recreated after a deletion by filter inherited its accesses: count %d last %d", got.AccessCount, got.LastAccessedAt)
		}
	})

	t.Run("an imported count is the base that touches add to", func(t *testing.T) {
		s := open(t)
		a := New(OrgA, "", memory.TypeCustom, "restored from an export", Base)
		a.AccessCount, a.LastAccessedAt = 5, Base+9000
		mustCreate(t, s, a)
		if err := s.Touch(ctx, OrgA, []string{a.ID}, Base+1000); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, s, OrgA, a.ID); got.AccessCount != 6 || got.LastAccessedAt != Base+9000 {
			t.Fatalf("5 imported accesses and 1 older touch: count %d last %d, want 6 at %d", got.AccessCount, got.LastAccessedAt, Base+9000)
		}
		if err := s.Touch(ctx, OrgA, []string{a.ID}, Base+10000); err != nil {
			t.Fatal(err)
		}
		listed, err := s.List(ctx, memory.ListQuery{Filter: memory.Filter{OrgID: OrgA}, Limit: 10})
		if err != nil || len(listed.Memories) != 1 || listed.Memories[0].AccessCount != 7 || listed.Memories[0].LastAccessedAt != Base+10000 {
			t.Fatalf("listed after a newer touch: %+v %v, want 7 accesses at %d", listed, err, Base+10000)
		}
	})

	t.Run("delete and scan", func(t *testing.T) {
		s := open(t)
		corpus := append(Corpus(OrgA, 30), Corpus(OrgB, 25)...)
		mustCreate(t, s, corpus...)
		if err := s.Delete(ctx, OrgA, corpus[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, OrgA, corpus[0].ID); !memory.IsNotFound(err) {
			t.Fatalf("second delete: %v", err)
		}
		seen := map[string]int{}
		err := s.Scan(ctx, func(m *memory.Memory) error {
			seen[m.OrgID+"/"+m.ID]++
			if len(m.Embedding) == 0 {
				return fmt.Errorf("%s scanned without its embedding", m.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != len(corpus)-1 {
			t.Fatalf("scanned %d, want %d", len(seen), len(corpus)-1)
		}
		for k, n := range seen {
			if n != 1 {
				t.Fatalf("%s scanned %d times", k, n)
			}
		}
		vs, ok := s.(memory.VersionScanner)
		if !ok {
			return
		}
		// The versions are what Scan finds: every memory once, with its
		// version, pending flag, model and dimensions.
		updated := mustGet(t, s, OrgB, corpus[len(corpus)-1].ID)
		updated.Content.Text += " (edited)"
		if err := s.Update(ctx, updated); err != nil {
			t.Fatal(err)
		}
		want := map[string]memory.MemoryVersion{}
		if err := s.Scan(ctx, func(m *memory.Memory) error {
			want[m.OrgID+"/"+m.ID] = memory.MemoryVersion{OrgID: m.OrgID, ID: m.ID, Version: m.Version, Pending: m.Pending,
				EmbeddingModel: m.EmbeddingModel, Dimensions: len(m.Embedding)}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		got := map[string]memory.MemoryVersion{}
		if err := vs.ScanVersions(ctx, func(v memory.MemoryVersion) error {
			if _, dup := got[v.OrgID+"/"+v.ID]; dup {
				return fmt.Errorf("%s/%s listed twice", v.OrgID, v.ID)
			}
			got[v.OrgID+"/"+v.ID] = v
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("versions differ from the scan:\n got %v\nwant %v", got, want)
		}
		if v := got[OrgB+"/"+updated.ID].Version; v != 2 {
			t.Fatalf("updated memory listed at version %d, want 2", v)
		}
	})

	storeVisibilityCases(t, open)
	historyCases(t, open)
}

// checkListed lists f in pages, newest first then oldest first, and checks
// that the pages hold exactly want, each once, in order, and that Count
// agrees.
func checkListed(t *testing.T, s memory.Store, f memory.Filter, want map[string]bool) {
	t.Helper()
	ctx := context.Background()
	var got []*memory.Memory
	q := memory.ListQuery{Filter: f, Limit: 7}
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("pagination does not end")
		}
		p, err := s.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Memories) > 7 {
			t.Fatalf("page of %d > limit 7", len(p.Memories))
		}
		got = append(got, p.Memories...)
		if p.Next == nil {
			break
		}
		q.Cursor = p.Next
	}
	seen := map[string]bool{}
	for i, m := range got {
		if seen[m.ID] {
			t.Fatalf("%s listed twice", m.ID)
		}
		seen[m.ID] = true
		if i > 0 && (got[i-1].CreatedAt < m.CreatedAt || (got[i-1].CreatedAt == m.CreatedAt && got[i-1].ID < m.ID)) {
			t.Fatalf("not newest first at %d", i)
		}
	}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("listed %d memories, want %d: %v", len(seen), len(want), diff(seen, want))
	}
	n, err := s.Count(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Fatalf("count %d, want %d", n, len(want))
	}
	// Oldest first: the same memories in the reverse order.
	var up []*memory.Memory
	q = memory.ListQuery{Filter: f, Limit: 5, Ascending: true}
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("ascending pagination does not end")
		}
		p, err := s.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Memories) > 5 {
			t.Fatalf("ascending page of %d > limit 5", len(p.Memories))
		}
		up = append(up, p.Memories...)
		if p.Next == nil {
			break
		}
		q.Cursor = p.Next
	}
	if len(up) != len(got) {
		t.Fatalf("ascending listed %d memories, descending %d", len(up), len(got))
	}
	for i, m := range up {
		if m.ID != got[len(got)-1-i].ID {
			t.Fatalf("ascending position %d is %s, want %s (descending reversed)", i, m.ID, got[len(got)-1-i].ID)
		}
	}
}

func mustCreate(t *testing.T, s memory.Store, ms ...*memory.Memory) {
	t.Helper()
	for start := 0; start < len(ms); start += memory.MaxBatch {
		batch := ms[start:min(len(ms), start+memory.MaxBatch)]
		res, err := s.Create(context.Background(), batch)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if r.Duplicate {
				t.Fatalf("fixture memory %d is a duplicate of %s", start+i, r.ID)
			}
		}
	}
}

func mustGet(t *testing.T, s memory.Store, org, id string) *memory.Memory {
	t.Helper()
	m, err := s.Get(context.Background(), org, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func set(ids []string) map[string]bool {
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

func diff(got, want map[string]bool) string {
	var extra, missing []string
	for id := range got {
		if !want[id] {
			extra = append(extra, id)
		}
	}
	for id := range want {
		if !got[id] {
			missing = append(missing, id)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	return fmt.Sprintf("extra %v missing %v", extra, missing)
}
