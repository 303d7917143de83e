package memorytest

import (
	"context"
	"reflect"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// IndexSuite runs the Index contract against indexes made by open; each
// subtest gets a fresh, empty index. Vectors are 64-dimensional (Embed).
func IndexSuite(t *testing.T, open func(t *testing.T) memory.Index) {
	ctx := context.Background()
	search := func(t *testing.T, ix memory.Index, q memory.IndexQuery) memory.IndexResult {
		t.Helper()
		r, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	upsert := func(t *testing.T, ix memory.Index, ms ...*memory.Memory) {
		t.Helper()
		if err := ix.Upsert(ctx, ms); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("keyword ranks by BM25 with English analysis", func(t *testing.T) {
		ix := open(t)
		docs := []*memory.Memory{
			New(OrgA, "", memory.TypeCustom, "She runs every morning before work and loves running trails", Base),
			New(OrgA, "", memory.TypeCustom, "The quarterly budget meeting moved to Thursday", Base),
			New(OrgA, "", memory.TypeCustom, "He ran a marathon last spring", Base),
			New(OrgA, "", memory.TypeCustom, "Budget approvals need the finance team", Base),
		}
		upsert(t, ix, docs...)
		r := search(t, ix, memory.IndexQuery{Filter: memory.Filter{OrgID: OrgA}, Text: "Running", K: 10})
		if len(r.Keyword) == 0 || r.Keyword[0].ID != docs[0].ID {
			t.Fatalf("stemmed query 'Running': want %s first, got %v", docs[0].ID, r.Keyword)
		}
		r = search(t, ix, memory.IndexQuery{Filter: memory.Filter{OrgID: OrgA}, Text: "the budget meeting", K: 10})
		if len(r.Keyword) != 2 || r.Keyword[0].ID != docs[1].ID || r.Keyword[1].ID != docs[3].ID {
			t.Fatalf("'the budget meeting': want [%s %s], got %v", docs[1].ID, docs[3].ID, r.Keyword)
		}
		if r.Keyword[0].Score <= r.Keyword[1].Score {
			t.Fatalf("scores not descending: %v", r.Keyword)
		}
		if r.Semantic != nil {
			t.Fatalf("semantic list without a vector: %v", r.Semantic)
		}
		r = search(t, ix, memory.IndexQuery{Filter: memory.Filter{OrgID: OrgA}, Text: "zebra", K: 10})
		if len(r.Keyword) != 0 {
			t.Fatalf("no-match query returned %v", r.Keyword)
		}
	})

	t.Run("semantic ranks by cosine similarity", func(t *testing.T) {
		ix := open(t)
		docs := Corpus(OrgA, 30)
		upsert(t, ix, docs...)
		target := docs[12]
		r := search(t, ix, memory.IndexQuery{Filter: memory.Filter{OrgID: OrgA}, Vector: target.Embedding, K: 5})
		if len(r.Semantic) != 5 || r.Semantic[0].ID != target.ID {
			t.Fatalf("own vector: want %s first of 5, got %v", target.ID, r.Semantic)
		}
		if s := r.Semantic[0].Score; s < 0.999 || s > 1.001 {
			t.Fatalf("self similarity %v, want 1", s)
		}
		for i := 1; i < len(r.Semantic); i++ {
			if r.Semantic[i].Score > r.Semantic[i-1].Score {
				t.Fatalf("scores not descending: %v", r.Semantic)
			}
		}
		if r.Keyword != nil {
			t.Fatalf("keyword list without text: %v", r.Keyword)
		}
	})

	t.Run("every filter selects exactly the reference set in both modes", func(t *testing.T) {
		ix := open(t)
		corpus := Corpus(OrgA, 84)
		upsert(t, ix, corpus...)
		upsert(t, ix, Corpus(OrgB, 30)...)
		for _, tc := range Filters() {
			t.Run(tc.Name, func(t *testing.T) {
				f := tc.F
				f.OrgID = OrgA
				want := Expect(corpus, f)
				r := search(t, ix, memory.IndexQuery{Filter: f, Text: "memo", Vector: Embed("memo"), K: 200})
				if got := hitSet(r.Keyword); !reflect.DeepEqual(got, want) {
					t.Fatalf("keyword: %d hits, want %d: %v", len(got), len(want), diff(got, want))
				}
				if got := hitSet(r.Semantic); !reflect.DeepEqual(got, want) {
					t.Fatalf("semantic: %d hits, want %d: %v", len(got), len(want), diff(got, want))
				}
				r = search(t, ix, memory.IndexQuery{Filter: f, Text: "memo", Vector: Embed("memo"), K: 3})
				if len(r.Keyword) != min(3, len(want)) || len(r.Semantic) != min(3, len(want)) {
					t.Fatalf("k=3: %d keyword, %d semantic hits", len(r.Keyword), len(r.Semantic))
				}
			})
		}
	})

	t.Run("orgs never see each other even with identical text", func(t *testing.T) {
		ix := open(t)
		a := New(OrgA, "", memory.TypeCustom, "the vault code is 4921", Base)
		b := New(OrgB, "", memory.TypeCustom, "the vault code is 4921", Base)
		b.ID = a.ID // the same id in two orgs must not collide either
		upsert(t, ix, a, b)
		for _, org := range []string{OrgA, OrgB} {
			r := search(t, ix, memory.IndexQuery{Filter: memory.Filter{OrgID: org}, Text: "vault code", Vector: a.Embedding, K: 10})
			if len(r.Keyword) != 1 || len(r.Semantic) != 1 {
				t.Fatalf("%s: %d keyword and %d semantic hits, want 1 and 1", org, len(r.Keyword), len(r.Semantic))
			}
		}
		if err := ix.Delete(ctx, OrgB, []string{b.ID}); err != nil {
			t.Fatal(err)
		}
		r := search(t, ix, memory.IndexQuery{Filter: memory.Filter{OrgID: OrgA}, Text: "vault code", Vector: a.Embedding, K: 10})
		if len(r.Keyword) != 1 || len(r.Semantic) != 1 {
			t.Fatal("deleting org b's memory removed org a's")
		}
		r = search(t, ix, memory.IndexQuery{Filter: memory.Filter{OrgID: OrgB}, Text: "vault code", Vector: a.Embedding, K: 10})
		if len(r.Keyword)+len(r.Semantic) != 0 {
			t.Fatalf("org b still finds its deleted memory: %+v", r)
		}
		r = search(t, ix, memory.IndexQuery{Filter: memory.Filter{OrgID: "org-c"}, Text: "vault code", Vector: a.Embedding, K: 10})
		if len(r.Keyword)+len(r.Semantic) != 0 {
			t.Fatalf("an empty org finds %+v", r)
		}
	})

	t.Run("upsert replaces and delete removes", func(t *testing.T) {
		ix := open(t)
		m := New(OrgA, "", memory.TypeCustom, "original wording about apples", Base)
		keep := New(OrgA, "", memory.TypeCustom, "unrelated note about pears", Base)
		upsert(t, ix, m, keep)
		changed := *m
		changed.Content.Text = "revised wording about oranges"
		changed.Embedding = Embed(changed.Content.Text)
		changed.RoomID = "room-9"
		upsert(t, ix, &changed)
		f := memory.Filter{OrgID: OrgA}
		if r := search(t, ix, memory.IndexQuery{Filter: f, Text: "apples", K: 10}); len(r.Keyword) != 0 {
			t.Fatalf("old text still matches: %v", r.Keyword)
		}
		if r := search(t, ix, memory.IndexQuery{Filter: f, Text: "oranges", K: 10}); len(r.Keyword) != 1 {
			t.Fatalf("new text does not match: %v", r.Keyword)
		}
		r := search(t, ix, memory.IndexQuery{Filter: memory.Filter{OrgID: OrgA, RoomID: "room-9"}, Vector: changed.Embedding, K: 10})
		if len(r.Semantic) != 1 || r.Semantic[0].ID != m.ID {
			t.Fatalf("new attributes not applied to the vector: %v", r.Semantic)
		}
		if err := ix.Delete(ctx, OrgA, []string{m.ID, "never-indexed"}); err != nil {
			t.Fatal(err)
		}
		r = search(t, ix, memory.IndexQuery{Filter: f, Text: "wording note", Vector: changed.Embedding, K: 10})
		if len(r.Keyword) != 1 || r.Keyword[0].ID != keep.ID || len(r.Semantic) != 1 || r.Semantic[0].ID != keep.ID {
			t.Fatalf("after delete: %+v", r)
		}
	})

	indexVisibility(t, open)
}

func hitSet(hs []memory.Hit) map[string]bool {
	out := map[string]bool{}
	for _, h := range hs {
		out[h.ID] = true
	}
	return out
}
