package memorytest

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// End users of the index visibility fixture (its worlds are World1 and World2).
const (
	UserU1 = "u1"
	UserU2 = "u2"
)

// IndexVisibilityCorpus returns Corpus(org, n) with every visibility: of each
// five, one keeps the old scope (shared, or its agent's), one is a room's
// (its room, room-3 when it has none, in world-1 or world-2), one a
// world's, one an end user's (u1 or u2), and one names its scope
// explicitly; memories of any visibility may carry an agent, as an agent
// key writes them. Every text holds "memo".
func IndexVisibilityCorpus(org string, n int) []*memory.Memory {
	ms := Corpus(org, n)
	for i, m := range ms {
		world := []string{World1, World2}[(i/5)%2]
		switch i % 5 {
		case 1:
			if m.RoomID == "" {
				m.RoomID = "room-3"
			}
			m.Visibility, m.WorldID = memory.VisibilityRoom, world
		case 2:
			m.Visibility, m.WorldID = memory.VisibilityWorld, world
		case 3:
			m.Visibility, m.UserID = memory.VisibilityUser, []string{UserU1, UserU2}[(i/5)%2]
		case 4:
			m.Visibility = m.EffectiveVisibility()
		}
	}
	return ms
}

// IndexVisibilityFilters is a table of readers and narrowings over
// IndexVisibilityCorpus: the admin view (nil Audiences), readers acting for
// rooms, worlds and users, with and without an agent binding, and the
// WorldID narrowing. OrgID is set by the caller.
func IndexVisibilityFilters() []struct {
	Name string
	F    memory.Filter
} {
	room := memory.RoomAudience
	return []struct {
		Name string
		F    memory.Filter
	}{
		{"admin view", memory.Filter{}},
		{"no audience", memory.Filter{Audiences: []string{}}},
		{"room", memory.Filter{Audiences: []string{room("room-1")}}},
		{"room of another world's memories", memory.Filter{Audiences: []string{room("room-3")}}},
		{"world", memory.Filter{Audiences: []string{memory.WorldAudience(World2)}}},
		{"user", memory.Filter{Audiences: []string{memory.UserAudience(UserU1)}}},
		{"user in a room of a world", memory.Filter{Audiences: []string{memory.UserAudience(UserU2), room("room-2"), memory.WorldAudience(World1)}}},
		{"agent acting for a user", memory.Filter{Viewer: AgentX, Audiences: []string{memory.UserAudience(UserU1)}}},
		{"agent acting for rooms", memory.Filter{Viewer: AgentY, Audiences: []string{room("room-1"), room("room-2"), room("room-3")}}},
		{"unknown audience", memory.Filter{Audiences: []string{room("no-such-room")}}},
		{"world narrowing", memory.Filter{WorldID: World1}},
		{"world narrowing for a reader", memory.Filter{WorldID: World2, Viewer: AgentX, Audiences: []string{memory.WorldAudience(World2), room("room-2")}}},
		{"world narrowing with type and room", memory.Filter{WorldID: World1, RoomID: "room-1", Types: []memory.Type{memory.TypeMessage, memory.TypeFact}}},
	}
}

// indexVisibility is IndexSuite's visibility clauses: audiences and the
// world narrowing select exactly the reference set in both modes, and
// keyword scores leak nothing (scoreProbe).
func indexVisibility(t *testing.T, open func(t *testing.T) memory.Index) {
	ctx := context.Background()
	t.Run("keyword scores leak nothing", func(t *testing.T) { scoreProbe(t, open) })
	t.Run("audiences and world select exactly the reference set in both modes", func(t *testing.T) {
		ix := open(t)
		corpus := IndexVisibilityCorpus(OrgA, 120)
		if err := ix.Upsert(ctx, corpus); err != nil {
			t.Fatal(err)
		}
		if err := ix.Upsert(ctx, IndexVisibilityCorpus(OrgB, 30)); err != nil {
			t.Fatal(err)
		}
		for _, tc := range IndexVisibilityFilters() {
			t.Run(tc.Name, func(t *testing.T) {
				f := tc.F
				f.OrgID = OrgA
				want := Expect(corpus, f)
				r, err := ix.Search(ctx, memory.IndexQuery{Filter: f, Text: "memo", Vector: Embed("memo"), K: 200})
				if err != nil {
					t.Fatal(err)
				}
				if got := hitSet(r.Keyword); !reflect.DeepEqual(got, want) {
					t.Fatalf("keyword: %d hits, want %d: %v", len(got), len(want), diff(got, want))
				}
				if got := hitSet(r.Semantic); !reflect.DeepEqual(got, want) {
					t.Fatalf("semantic: %d hits, want %d: %v", len(got), len(want), diff(got, want))
				}
			})
		}
	})
}

// scoreProbe is the clause "keyword scores leak nothing": a visible
// memory's keyword score is the same (to 1e-9) whether or not memories
// the reader may not see (another agent's, another room's, world's or
// user's) hold the query's words, for agent-bound readers (Viewer) and
// readers acting for audiences; adding them, then deleting them, changes
// no visible score, while the admin view's scores do change (the probe is
// not vacuous). An index scoring with statistics beyond the reader's view
// (BM25 as Lucene computes it: the shard's) fails it.
func scoreProbe(t *testing.T, open func(t *testing.T) memory.Index) {
	ctx := context.Background()
	const query = "violin recital budget"
	// The pool: the query's words at varied frequencies and lengths, in
	// every visibility.
	texts := []string{
		"violin recital on friday", "budget for the violin", "the recital budget was cut, the violin stays",
		"violin violin violin practice", "a long note about the budget of the school and the recital hall and the chairs",
		"recital", "budget review", "nothing relevant here at all",
	}
	type vis struct {
		agent string
		v     memory.Visibility
		id    string // room, world or user
	}
	kinds := []vis{
		{"", memory.VisibilityShared, ""}, {AgentX, memory.VisibilityAgent, ""}, {AgentY, memory.VisibilityAgent, ""},
		{"", memory.VisibilityRoom, "room-1"}, {"", memory.VisibilityRoom, "room-2"}, {AgentX, memory.VisibilityRoom, "room-1"},
		{AgentY, memory.VisibilityRoom, "room-1"}, {"", memory.VisibilityWorld, World1}, {"", memory.VisibilityWorld, World2},
		{"", memory.VisibilityUser, UserU1}, {"", memory.VisibilityUser, UserU2}, {AgentX, memory.VisibilityUser, UserU1},
	}
	// Each kind has its own mix (a text in four left out, a word added to
	// every other kind's), so that what one reader misses shifts the
	// document frequencies and the average length.
	var pool []*memory.Memory
	for i, k := range kinds {
		for j, text := range texts {
			if (i+j)%4 == 0 {
				continue
			}
			if i%2 == 1 {
				text += " violin"
			}
			m := New(OrgA, k.agent, memory.TypeCustom, fmt.Sprintf("%s (%d)", text, i), Base+int64(i*len(texts)+j))
			m.Visibility = k.v
			switch k.v {
			case memory.VisibilityRoom:
				m.RoomID, m.WorldID = k.id, World1
			case memory.VisibilityWorld:
				m.WorldID = k.id
			case memory.VisibilityUser:
				m.UserID = k.id
			}
			pool = append(pool, m)
		}
	}
	readers := []struct {
		name string
		f    memory.Filter
	}{
		{"agent key", memory.Filter{Viewer: AgentX}},
		{"org key acting for a room", memory.Filter{Audiences: []string{memory.RoomAudience("room-1")}}},
		{"org key acting for a user in a world", memory.Filter{Audiences: []string{memory.UserAudience(UserU1), memory.WorldAudience(World1)}}},
		{"agent key acting for a user in a room", memory.Filter{Viewer: AgentX, Audiences: []string{memory.UserAudience(UserU1), memory.RoomAudience("room-1")}}},
		{"agent key acting for nobody", memory.Filter{Viewer: AgentY, Audiences: []string{}}},
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			ix := open(t)
			f := rd.f
			f.OrgID = OrgA
			var seen, unseen []*memory.Memory
			sees := f
			sees.IncludeArchived = true // who may see, not what the query narrows
			for _, m := range pool {
				if sees.Match(m.Attrs()) {
					seen = append(seen, m)
				} else {
					unseen = append(unseen, m)
				}
			}
			if len(unseen) == 0 || len(seen) == 0 {
				t.Fatalf("the reader sees %d and misses %d of the pool: no probe", len(seen), len(unseen))
			}
			keyword := func(f memory.Filter) []memory.Hit {
				t.Helper()
				r, err := ix.Search(ctx, memory.IndexQuery{Filter: f, Text: query, K: len(pool)})
				if err != nil {
					t.Fatal(err)
				}
				return r.Keyword
			}
			if err := ix.Upsert(ctx, seen); err != nil {
				t.Fatal(err)
			}
			alone, adminAlone := keyword(f), keyword(memory.Filter{OrgID: OrgA})
			if len(alone) == 0 {
				t.Fatal("the reader finds nothing")
			}
			if err := ix.Upsert(ctx, unseen); err != nil {
				t.Fatal(err)
			}
			sameScores(t, "with the unseen memories", alone, keyword(f))
			if scoresEqual(keyword(memory.Filter{OrgID: OrgA}), adminAlone) {
				t.Fatal("the unseen memories change nothing in the admin view either: the probe is vacuous")
			}
			ids := make([]string, len(unseen))
			for i, m := range unseen {
				ids[i] = m.ID
			}
			if err := ix.Delete(ctx, OrgA, ids); err != nil {
				t.Fatal(err)
			}
			sameScores(t, "after deleting them", alone, keyword(f))
		})
	}
}

// sameScores fails unless got holds the hits of want, in order, with the
// same scores to 1e-9.
func sameScores(t *testing.T, when string, want, got []memory.Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, want %d", when, len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-9 {
			t.Fatalf("%s: hit %d is %s %.12f, want %s %.12f: the score depends on memories the reader cannot see",
				when, i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
		}
	}
}

// scoresEqual reports whether a and b score the same ids alike.
func scoresEqual(a, b []memory.Hit) bool {
	sb := map[string]float64{}
	for _, h := range b {
		sb[h.ID] = h.Score
	}
	for _, h := range a {
		if s, ok := sb[h.ID]; ok && math.Abs(s-h.Score) > 1e-9 {
			return false
		}
	}
	return true
}
