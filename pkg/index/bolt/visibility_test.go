package bolt_test

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// TestVisibilitySurvivesRestart: the audience and world of every entry are
// persisted, and a reopened index filters and scores by them as before.
func TestVisibilitySurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix, _ := open(t, dir, model)
	corpus := memorytest.IndexVisibilityCorpus(memorytest.OrgA, 90)
	if err := ix.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	search := func(f memory.Filter) memory.IndexResult {
		t.Helper()
		r, err := ix.Search(ctx, memory.IndexQuery{Filter: f, Text: "memo violin", Vector: memorytest.Embed("memo"), K: 200})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var before []memory.IndexResult
	fs := memorytest.IndexVisibilityFilters()
	for _, tc := range fs {
		tc.F.OrgID = memorytest.OrgA
		before = append(before, search(tc.F))
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, rebuild := open(t, dir, model)
	defer ix.Close()
	if rebuild {
		t.Fatal("reopening asks for a rebuild")
	}
	for i, tc := range fs {
		tc.F.OrgID = memorytest.OrgA
		if got := search(tc.F); !reflect.DeepEqual(got, before[i]) {
			t.Fatalf("%s: after reopening\n%v\nwant\n%v", tc.Name, got, before[i])
		}
	}
}

// TestScoresLeakNothingAtScale: on thousands of memories, searched in one
// part and in several, pruned and not, and after the unseen memories are
// deleted (compacting the org), a reader's top hits and their scores are
// those of an index that never held what it cannot see.
func TestScoresLeakNothingAtScale(t *testing.T) {
	ctx := context.Background()
	corpus := memorytest.IndexVisibilityCorpus(memorytest.OrgA, 3000)
	f := memory.Filter{OrgID: memorytest.OrgA, Viewer: memorytest.AgentX,
		Audiences: []string{memory.UserAudience(memorytest.UserU1), memory.RoomAudience("room-1"), memory.WorldAudience(memorytest.World2)}}
	var seen []*memory.Memory
	var unseenIDs []string
	sees := f
	sees.IncludeArchived = true // archived memories are the reader's to see, and count
	for _, m := range corpus {
		if sees.Match(m.Attrs()) {
			seen = append(seen, m)
		} else {
			unseenIDs = append(unseenIDs, m.ID)
		}
	}
	alone, _ := open(t, t.TempDir(), model)
	defer alone.Close()
	all, _ := open(t, t.TempDir(), model)
	defer all.Close()
	for _, step := range []struct {
		ix *bolt.Index
		ms []*memory.Memory
	}{{alone, seen}, {all, corpus}} {
		if err := step.ix.Upsert(ctx, step.ms); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(t *testing.T) {
		for _, q := range []string{"memo violin", "sourdough bread trip", "marathon memo note 7", "japan"} {
			for _, mode := range []struct {
				name    string
				pruning bool
				parts   int
			}{{"pruned", true, 1}, {"pruned in parts", true, 3}, {"every posting", false, 1}} {
				restorePruning, restoreParts := bolt.SetPruning(mode.pruning), bolt.SetKeywordParts(mode.parts)
				want, err := alone.Search(ctx, memory.IndexQuery{Filter: f, Text: q, K: 50})
				if err != nil {
					t.Fatal(err)
				}
				got, err := all.Search(ctx, memory.IndexQuery{Filter: f, Text: q, K: 50})
				if err != nil {
					t.Fatal(err)
				}
				restoreParts()
				restorePruning()
				if len(want.Keyword) == 0 {
					t.Fatalf("%q: nothing found", q)
				}
				if len(got.Keyword) != len(want.Keyword) {
					t.Fatalf("%q %s: %d hits, want %d", q, mode.name, len(got.Keyword), len(want.Keyword))
				}
				for i, h := range want.Keyword {
					if g := got.Keyword[i]; g.ID != h.ID || math.Abs(g.Score-h.Score) > 1e-9 {
						t.Fatalf("%q %s: hit %d is %s %.12f, want %s %.12f", q, mode.name, i, g.ID, g.Score, h.ID, h.Score)
					}
				}
			}
		}
	}
	t.Run("beside the unseen memories", compare)
	if err := all.Delete(ctx, memorytest.OrgA, unseenIDs); err != nil {
		t.Fatal(err)
	}
	t.Run("after deleting them", compare)
}

// TestScoresLeakNothingInTheirLastBits: a memory's float32 score is summed
// term by term, so the order of the terms must not depend on memories the
// reader cannot see either: here the unseen memories are short and repeat
// a word, which raises that word's bound (postings.bound) past the
// others', and every query has several words.
func TestScoresLeakNothingInTheirLastBits(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	vocab := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima")
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(ws, " ")
	}
	var seen, unseen []*memory.Memory
	for i := range 300 {
		seen = append(seen, memorytest.New(memorytest.OrgA, "", memory.TypeCustom, words(3+rng.IntN(30)), memorytest.Base+int64(i)))
	}
	for i := range 100 {
		w := vocab[rng.IntN(len(vocab))]
		m := memorytest.New(memorytest.OrgA, memorytest.AgentY, memory.TypeCustom, strings.Repeat(w+" ", 1+rng.IntN(6)), memorytest.Base+1000+int64(i))
		m.Visibility = memory.VisibilityAgent
		unseen = append(unseen, m)
	}
	alone, _ := open(t, t.TempDir(), model)
	defer alone.Close()
	all, _ := open(t, t.TempDir(), model)
	defer all.Close()
	if err := alone.Upsert(ctx, seen); err != nil {
		t.Fatal(err)
	}
	if err := all.Upsert(ctx, append(append([]*memory.Memory{}, seen...), unseen...)); err != nil {
		t.Fatal(err)
	}
	f := memory.Filter{OrgID: memorytest.OrgA, Viewer: memorytest.AgentX}
	for range 200 {
		q := words(3 + rng.IntN(5))
		want, err := alone.Search(ctx, memory.IndexQuery{Filter: f, Text: q, K: 300})
		if err != nil {
			t.Fatal(err)
		}
		got, err := all.Search(ctx, memory.IndexQuery{Filter: f, Text: q, K: 300})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Keyword) != len(want.Keyword) || len(want.Keyword) == 0 {
			t.Fatalf("%q: %d hits, want %d", q, len(got.Keyword), len(want.Keyword))
		}
		for i, h := range want.Keyword {
			if g := got.Keyword[i]; g.ID != h.ID || g.Score != h.Score {
				t.Fatalf("%q: hit %d is %s %v, want %s %v", q, i, g.ID, g.Score, h.ID, h.Score)
			}
		}
	}
}
