package memorytest

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The rooms, worlds and end users of VisibilityCorpus.
const (
	RoomA  = "room-a"
	RoomB  = "room-b"
	RoomC  = "room-c"
	World1 = "world-1"
	World2 = "world-2"
	UserU  = "user-u"
	UserV  = "user-v"
)

// visibilityShapes are the owners of VisibilityCorpus's memories: every
// visibility, with and without an agent, in and out of rooms and worlds,
// and memories stored before visibilities existed (no Visibility), which
// read as shared or agent.
var visibilityShapes = []struct {
	vis                      memory.Visibility
	agent, room, world, user string
}{
	{memory.VisibilityShared, "", "", "", ""},
	{memory.VisibilityShared, "", RoomA, World1, ""},
	{memory.VisibilityAgent, AgentX, "", "", ""},
	{memory.VisibilityAgent, AgentY, RoomA, World1, ""},
	{memory.VisibilityRoom, "", RoomA, World1, ""},
	{memory.VisibilityRoom, AgentX, RoomA, World1, ""},
	{memory.VisibilityRoom, "", RoomB, World1, ""},
	{memory.VisibilityRoom, AgentY, RoomC, World2, ""},
	{memory.VisibilityRoom, "", RoomC, "", ""},
	{memory.VisibilityWorld, "", "", World1, ""},
	{memory.VisibilityWorld, AgentX, RoomB, World2, ""},
	{memory.VisibilityUser, "", RoomA, World1, UserU},
	{memory.VisibilityUser, AgentX, "", "", UserU},
	{memory.VisibilityUser, "", RoomB, World2, UserV},
	{"", "", RoomA, World1, ""},
	{"", AgentY, "", World2, ""},
}

// VisibilityCorpus returns memories of org of every visibility (see
// visibilityShapes), each shape twice: as a message and as a fact, one in
// five archived. Deterministic.
func VisibilityCorpus(org string) []*memory.Memory {
	var out []*memory.Memory
	for i, sh := range visibilityShapes {
		for j, typ := range []memory.Type{memory.TypeMessage, memory.TypeFact} {
			n := 2*i + j
			text := fmt.Sprintf("visible %d: %s about %s", n, sh.vis, topics[n%len(topics)])
			m := New(org, sh.agent, typ, text, Base+int64(n)*60_000)
			m.Visibility, m.RoomID, m.WorldID, m.UserID = sh.vis, sh.room, sh.world, sh.user
			m.EntityID = entities[n%len(entities)]
			m.Archived = n%5 == 4
			out = append(out, m)
		}
	}
	return out
}

// VisibilityFilters is a table of filters over VisibilityCorpus that
// exercises the audience clause: the admin view (nil Audiences), readers
// acting for rooms, worlds and users, the empty set (nothing with an
// audience), the largest set a reader can have (every room a user may
// take part in, and their worlds), each alone and with the other fields,
// and WorldID narrowing. OrgID is set by the caller.
func VisibilityFilters() []struct {
	Name string
	F    memory.Filter
} {
	aud := func(a memory.Acting) []string { return a.Audiences() }
	roomAUserU := aud(memory.Acting{RoomID: RoomA, UserID: UserU})
	many := memory.Acting{UserID: UserV, RoomID: RoomB}
	for i := range memory.MaxActingRooms {
		many.Rooms = append(many.Rooms, fmt.Sprintf("room-%03d", i))
		many.Worlds = append(many.Worlds, fmt.Sprintf("world-%03d", i))
	}
	many.Rooms[memory.MaxActingRooms-1], many.Worlds[memory.MaxActingRooms-1] = RoomC, World2
	return []struct {
		Name string
		F    memory.Filter
	}{
		{"admin view", memory.Filter{}},
		{"admin view archived too", memory.Filter{IncludeArchived: true}},
		{"room a and user u", memory.Filter{Audiences: roomAUserU}},
		{"room a, its world and user u", memory.Filter{Audiences: aud(memory.Acting{RoomID: RoomA, WorldID: World1, UserID: UserU})}},
		{"user v alone", memory.Filter{Audiences: aud(memory.Acting{UserID: UserV}), IncludeArchived: true}},
		{"empty set", memory.Filter{Audiences: []string{}}},
		{"empty set archived too", memory.Filter{Audiences: []string{}, IncludeArchived: true}},
		{"the most rooms a user takes part in", memory.Filter{Audiences: many.Audiences()}},
		{"room a and user u, viewer x", memory.Filter{Viewer: AgentX, Audiences: roomAUserU}},
		{"room a and user u, agent y", memory.Filter{AgentID: AgentY, Audiences: roomAUserU}},
		{"room a and user u, org scope", memory.Filter{AgentID: memory.OrgScope, Audiences: roomAUserU}},
		{"room a and user u, messages in room a", memory.Filter{Types: []memory.Type{memory.TypeMessage}, RoomID: RoomA, Audiences: roomAUserU}},
		{"world 1", memory.Filter{WorldID: World1}},
		{"world 2 archived too", memory.Filter{WorldID: World2, IncludeArchived: true}},
		{"world 1, room a and user u", memory.Filter{WorldID: World1, Audiences: roomAUserU}},
		{"world 2, empty set", memory.Filter{WorldID: World2, Audiences: []string{}}},
		{"world 1 and room b", memory.Filter{WorldID: World1, RoomID: RoomB}},
		{"no such world", memory.Filter{WorldID: "no-such-world"}},
	}
}

// storeVisibilityCases are the Store clauses of visibility: the new fields
// round-trip, and List, Count and DeleteWhere select exactly what
// Filter.Match does for every VisibilityFilters filter.
func storeVisibilityCases(t *testing.T, open func(t *testing.T) memory.Store) {
	ctx := context.Background()

	t.Run("visibility, user and world round-trip through create, get and update", func(t *testing.T) {
		s := open(t)
		m := New(OrgA, AgentX, memory.TypeFact, "Bob's secret plan", Base)
		m.Visibility, m.UserID, m.RoomID, m.WorldID = memory.VisibilityUser, UserU, RoomA, World1
		mustCreate(t, s, m)
		if got := mustGet(t, s, OrgA, m.ID); !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, m)
		}
		user := memory.Filter{OrgID: OrgA, Audiences: []string{memory.UserAudience(UserU)}}
		room := memory.Filter{OrgID: OrgA, Audiences: []string{memory.RoomAudience(RoomA)}}
		checkListed(t, s, user, map[string]bool{m.ID: true})
		checkListed(t, s, room, map[string]bool{})
		// Moved to the room: the stored audience follows the update.
		next := mustGet(t, s, OrgA, m.ID)
		next.Visibility, next.UserID, next.WorldID = memory.VisibilityRoom, "", World2
		if err := s.Update(ctx, next); err != nil {
			t.Fatal(err)
		}
		got := mustGet(t, s, OrgA, m.ID)
		if got.Visibility != memory.VisibilityRoom || got.UserID != "" || got.WorldID != World2 || got.RoomID != RoomA {
			t.Fatalf("after update: visibility %q user %q world %q room %q", got.Visibility, got.UserID, got.WorldID, got.RoomID)
		}
		checkListed(t, s, user, map[string]bool{})
		checkListed(t, s, room, map[string]bool{m.ID: true})
		checkListed(t, s, memory.Filter{OrgID: OrgA, WorldID: World1}, map[string]bool{})
		checkListed(t, s, memory.Filter{OrgID: OrgA, WorldID: World2}, map[string]bool{m.ID: true})
	})

	t.Run("list and count follow the audiences", func(t *testing.T) {
		s := open(t)
		corpus := VisibilityCorpus(OrgA)
		mustCreate(t, s, corpus...)
		mustCreate(t, s, VisibilityCorpus(OrgB)...) // the same audiences in another org
		for _, tc := range VisibilityFilters() {
			t.Run(tc.Name, func(t *testing.T) {
				f := tc.F
				f.OrgID = OrgA
				checkListed(t, s, f, Expect(corpus, f))
			})
		}
	})

	t.Run("bulk delete removes exactly the memories the audiences select", func(t *testing.T) {
		// One store, an org per filter: every delete starts from the
		// whole corpus.
		s := open(t)
		filters := VisibilityFilters()
		corpora := make([][]*memory.Memory, len(filters))
		for i := range filters {
			corpora[i] = VisibilityCorpus(fmt.Sprintf("org-vis-%02d", i))
			mustCreate(t, s, corpora[i]...)
		}
		for i, tc := range filters {
			t.Run(tc.Name, func(t *testing.T) {
				org := corpora[i][0].OrgID
				f := tc.F
				f.OrgID = org
				want := Expect(corpora[i], f)
				ids, err := s.DeleteWhere(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if got := set(ids); !reflect.DeepEqual(got, want) {
					t.Fatalf("deleted %d, want %d: %v", len(got), len(want), diff(got, want))
				}
				left := map[string]bool{}
				for _, m := range corpora[i] {
					if !want[m.ID] {
						left[m.ID] = true
					}
				}
				checkListed(t, s, memory.Filter{OrgID: org, IncludeArchived: true}, left)
			})
		}
	})
}

// termVisibilityCases are the TermIndex clauses of visibility: every
// knowledge read (postings, properties, completions, counts, lists) sees
// exactly what Filter.Match says for every VisibilityFilters filter, and
// SetKnowledgeAttrs moves a memory's knowledge to its new audience.
func termVisibilityCases(t *testing.T, open func(t *testing.T) TermIndexStore) {
	t.Run("knowledge reads follow the audiences", func(t *testing.T) {
		w := newKWorld(t, open(t))
		for _, org := range []string{OrgA, OrgB} {
			for i, m := range VisibilityCorpus(org) {
				w.createMemories(m)
				w.put(m, KnowledgeOf(i))
			}
		}
		for _, tc := range VisibilityFilters() {
			t.Run(tc.Name, func(t *testing.T) {
				f := tc.F
				f.OrgID = OrgA
				w.check(OrgA, f)
			})
		}
	})

	t.Run("set attrs moves knowledge between audiences", func(t *testing.T) {
		w := newKWorld(t, open(t))
		corpus := VisibilityCorpus(OrgA)
		for i, m := range corpus {
			w.createMemories(m)
			w.put(m, KnowledgeOf(i))
		}
		// A user's memory made the room's, a room's made shared, a
		// shared one made a world's.
		moves := []struct {
			i          int
			vis        memory.Visibility
			user, wrld string
		}{{22, memory.VisibilityRoom, "", World1}, {8, memory.VisibilityShared, "", ""}, {0, memory.VisibilityWorld, "", World2}}
		for _, mv := range moves {
			m := *corpus[mv.i]
			m.Visibility, m.UserID, m.WorldID = mv.vis, mv.user, mv.wrld
			w.setAttrs(&m)
		}
		for _, tc := range VisibilityFilters() {
			f := tc.F
			f.OrgID = OrgA
			w.check(OrgA, f)
		}
	})
}
