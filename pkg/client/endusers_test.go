package client_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/client"
)

// people is one org key's two end users, Alice and Bob, each in a room of
// their own, with what each said, a shared memory and a world memory.
type people struct {
	u, alice, bob, roomA, roomB, world string
	// aliceMem and bobMem are the users' user-visible memories, bobMsg
	// Bob's turn in his room, shared the org's, worldMem the world's.
	aliceMem, bobMem, bobMsg, shared, worldMem string
}

// seed writes people's memories with the org key c.
func seed(t *testing.T, c *client.Client) people {
	t.Helper()
	ctx := context.Background()
	u := unique(t)
	p := people{u: u, alice: "alice-" + u, bob: "bob-" + u, roomA: "room-alice-" + u, roomB: "room-bob-" + u, world: "world-" + u}
	if _, err := c.CreateWorld(ctx, client.NewWorld{ID: p.world, Name: "Springfield " + u}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRoom(ctx, client.NewRoom{ID: p.roomA, WorldID: p.world, Participants: []string{p.alice}}); err != nil {
		t.Fatal(err)
	}
	msgs, err := c.PostMessages(ctx, client.MessagesRequest{RoomID: p.roomB, UserID: p.bob, Messages: []client.Turn{
		client.ChatMessage{Role: "user", Content: "I am allergic to peanuts, remember that " + u},
	}})
	if err != nil || len(msgs.Memories) != 1 {
		t.Fatalf("Bob's OpenAI-shaped turn: %+v %v", msgs, err)
	}
	p.bobMsg = msgs.Memories[0].ID
	for _, w := range []struct {
		into *string
		m    client.NewMemory
	}{
		{&p.bobMem, client.NewMemory{Visibility: "user", UserID: p.bob, EntityID: p.bob, Content: client.Content{Text: "I live at 12 Elm Street, Springfield " + u}}},
		{&p.aliceMem, client.NewMemory{Visibility: "user", UserID: p.alice, EntityID: p.alice, Content: client.Content{Text: "I love hiking in the Alps " + u}}},
		{&p.shared, client.NewMemory{Visibility: "shared", Content: client.Content{Text: "The clinic in Springfield closes at six " + u}}},
		{&p.worldMem, client.NewMemory{Visibility: "world", WorldID: p.world, Content: client.Content{Text: "Springfield's town hike starts at the Alps trailhead " + u}}},
	} {
		res, err := c.Create(ctx, w.m)
		if err != nil {
			t.Fatalf("create %q: %v", w.m.Content.Text, err)
		}
		*w.into = res.ID
	}
	m, err := c.Get(ctx, p.bobMem)
	if err != nil || m.Visibility != "user" || m.UserID != p.bob {
		t.Fatalf("Bob's memory reads back as %+v %v, want visibility user of %s", m, err, p.bob)
	}
	msg, err := c.Get(ctx, p.bobMsg)
	if err != nil || msg.Visibility != "room" || msg.EntityID != p.bob || msg.RoomID != p.roomB {
		t.Fatalf("Bob's turn reads back as %+v %v, want a room message of %s in %s", msg, err, p.bob, p.roomB)
	}
	return p
}

// owner is the end user m belongs to or was said by: Alice, Bob or "".
func (p people) owner(userID, entityID string) string {
	for _, who := range []string{p.alice, p.bob} {
		if userID == who || entityID == who {
			return who
		}
	}
	return ""
}

// reader is one way of acting in TestActingForAUser: the fields that say
// whom the reads serve, the ids every read of memories returns, and the end
// users (and ids) none of them may return.
type reader struct {
	name        string
	acting      client.Filter
	want        []string
	hiddenUsers []string
	hiddenIDs   []string
	// narrowsRooms: the reader names a room, which also narrows search
	// and listings to that room's memories (not the export); exportWant
	// are the ids the export returns.
	narrowsRooms bool
	exportWant   []string
}

// TestActingForAUser shows that every read acting for Alice (by userId,
// by her room) returns nothing of Bob's (his memory, his turn, the fact
// learnt from it), while the admin view and a read acting for Bob see it.
func TestActingForAUser(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	p := seed(t, c)
	query := "allergic peanuts Elm Street Springfield hiking Alps " + p.u

	for _, tc := range []reader{
		{name: "admin view", want: []string{p.bobMem, p.bobMsg, p.aliceMem, p.shared, p.worldMem}},
		{name: "as Alice's userId", acting: client.Filter{UserID: p.alice}, want: []string{p.aliceMem, p.shared, p.worldMem},
			hiddenUsers: []string{p.bob}},
		// A room in filters also narrows to the room's memories, so the
		// reads of memories return none of the seeded ones.
		{name: "as Alice's room", acting: client.Filter{RoomID: p.roomA}, hiddenUsers: []string{p.bob, p.alice},
			narrowsRooms: true, exportWant: []string{p.shared, p.worldMem}},
		{name: "as Bob's userId", acting: client.Filter{UserID: p.bob}, want: []string{p.bobMem, p.bobMsg, p.shared},
			hiddenUsers: []string{p.alice}, hiddenIDs: []string{p.worldMem}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// check checks what a read returned: ms, each as (id, userId,
			// entityId, roomId).
			check := func(what string, ms [][4]string, complete bool) {
				t.Helper()
				var ids []string
				for _, m := range ms {
					ids = append(ids, m[0])
					if who := p.owner(m[1], m[2]); slices.Contains(tc.hiddenUsers, who) || slices.Contains(tc.hiddenIDs, m[0]) {
						t.Errorf("%s: returned %v (of %q), which this reader may not see", what, m, who)
					}
					if tc.narrowsRooms && what != "export" && m[3] != tc.acting.RoomID {
						t.Errorf("%s: returned %v, not of room %s", what, m, tc.acting.RoomID)
					}
				}
				want := tc.want
				if what == "export" && tc.exportWant != nil {
					want = tc.exportWant
				}
				for _, id := range want {
					if complete && !slices.Contains(ids, id) {
						t.Errorf("%s: %s missing from %v", what, id, ids)
					}
				}
			}
			mem := func(m *client.Memory) [4]string { return [4]string{m.ID, m.UserID, m.EntityID, m.RoomID} }

			for _, mode := range []string{"keyword", "semantic", "hybrid", "full"} {
				f := tc.acting
				res, err := c.Search(ctx, client.SearchRequest{Query: query, Mode: mode, K: 100, Filters: &f})
				if err != nil {
					t.Fatalf("search %s: %v", mode, err)
				}
				var ms [][4]string
				for _, r := range res.Results {
					ms = append(ms, mem(r.Memory))
				}
				check("search "+mode, ms, mode == "keyword")
			}

			page, err := c.List(ctx, client.ListOptions{Filter: tc.acting, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			var ms [][4]string
			for _, m := range page.Memories {
				ms = append(ms, mem(m))
			}
			check("list", ms, true)

			f := tc.acting
			f.EntityID = p.bob
			n, err := c.Count(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if seesBob := !slices.Contains(tc.hiddenUsers, p.bob); seesBob != (n >= 2) || (!seesBob && n != 0) {
				t.Errorf("count of Bob's memories: %d (sees Bob: %v)", n, seesBob)
			}

			pc, err := c.Context(ctx, client.ContextRequest{Query: "What am I allergic to, and where do I live? " + p.u,
				RoomID: tc.acting.RoomID, UserID: tc.acting.UserID, BudgetTokens: 2000})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(tc.hiddenUsers, p.bob) && (strings.Contains(pc.Context, "peanuts") || strings.Contains(pc.Context, "Elm Street")) {
				t.Errorf("the context tells Bob's allergy or address:\n%s", pc.Context)
			}
			if tc.acting.UserID == p.bob && !strings.Contains(pc.Context, "Elm Street") {
				t.Errorf("the context acting for Bob lacks his address:\n%s", pc.Context)
			}

			kf := tc.acting
			ks, err := c.KnowledgeSearch(ctx, client.KnowledgeSearchRequest{Text: "Who is allergic to peanuts?", Filters: &kf, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			ms = nil
			for _, m := range ks.Memories {
				ms = append(ms, mem(m.Memory))
			}
			check("knowledge search", ms, false)

			ents, err := c.KnowledgeEntities(ctx, client.KnowledgeListOptions{Filter: tc.acting, Prefix: "bob-", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(tc.hiddenUsers, p.bob) && len(ents.Items) > 0 {
				t.Errorf("entities named after Bob: %+v", ents.Items)
			}
			if _, err := c.KnowledgeTopics(ctx, client.KnowledgeListOptions{Filter: tc.acting, Limit: 10}); err != nil {
				t.Fatal(err)
			}
			terms, err := c.KnowledgeTerms(ctx, client.KnowledgeListOptions{Filter: tc.acting, Prefix: "peanu", Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(tc.hiddenUsers, p.bob) && len(terms) > 0 {
				t.Errorf("terms completing peanu... from Bob's turn: %+v", terms)
			}

			ms = nil
			for line, err := range c.Export(ctx, client.ExportOptions{RoomID: tc.acting.RoomID, UserID: tc.acting.UserID}) {
				if err != nil {
					t.Fatal(err)
				}
				var rec struct {
					Kind   string        `json:"kind"`
					Memory client.Memory `json:"memory"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatal(err)
				}
				if rec.Kind == "memory" {
					ms = append(ms, mem(&rec.Memory))
				}
			}
			check("export", ms, true)
		})
	}
}

// TestTokenRoundTrip mints a token for Alice with the org key and reads
// and writes with it: it sees Alice's memories and none of Bob's, cannot
// widen its binding or mint, and a tampered token is refused.
func TestTokenRoundTrip(t *testing.T) {
	ctx := context.Background()
	org := newClient(t, srv.org)
	p := seed(t, org)
	tok, err := org.CreateToken(ctx, client.TokenRequest{UserID: p.alice, Grants: []string{"read", "write"}, TTLSeconds: 600})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Token == "" || tok.UserID != p.alice || tok.OrgID != "org-a" || !slices.Equal(tok.Grants, []string{"read", "write"}) || tok.ExpiresAt.IsZero() {
		t.Fatalf("token: %+v", tok)
	}
	if _, err := org.CreateToken(ctx, client.TokenRequest{}); err == nil || !strings.Contains(err.Error(), "userId") {
		t.Fatalf("a token without a user: %v", err)
	}
	alice, err := client.NewWithToken(srv.url, tok.Token)
	if err != nil {
		t.Fatal(err)
	}

	res, err := alice.Search(ctx, client.SearchRequest{Query: "peanuts Elm Street hiking Alps " + p.u, Mode: "keyword", K: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res.Results {
		ids = append(ids, r.Memory.ID)
	}
	if !slices.Contains(ids, p.aliceMem) || slices.Contains(ids, p.bobMem) || slices.Contains(ids, p.bobMsg) {
		t.Fatalf("search with Alice's token: %v, want %s and none of Bob's", ids, p.aliceMem)
	}
	if _, err := alice.Get(ctx, p.bobMem); !client.IsNotFound(err) {
		t.Fatalf("get Bob's memory with Alice's token: %v, want not_found", err)
	}
	if n, err := alice.Count(ctx, client.Filter{EntityID: p.bob}); err != nil || n != 0 {
		t.Fatalf("count of Bob's with Alice's token: %d %v", n, err)
	}
	for what, f := range map[string]client.Filter{"userId": {UserID: p.bob}, "roomId": {RoomID: p.roomB}} {
		if _, err := alice.List(ctx, client.ListOptions{Filter: f}); client.ErrorCode(err) != client.CodeForbidden {
			t.Errorf("Alice's token widened to Bob's %s: %v, want forbidden", what, err)
		}
	}
	if _, err := alice.CreateToken(ctx, client.TokenRequest{UserID: p.bob}); client.ErrorCode(err) != client.CodeForbidden {
		t.Errorf("a token minting a token: %v, want forbidden", err)
	}

	// A token writes its user's memories: the org reading for Bob never
	// sees it.
	w, err := alice.Create(ctx, client.NewMemory{Visibility: "user", Content: client.Content{Text: "My passport number ends in 42 " + p.u}})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := org.Get(ctx, w.ID); err != nil || m.UserID != p.alice || m.Visibility != "user" {
		t.Fatalf("the token's write: %+v %v, want Alice's user memory", m, err)
	}
	asBob, err := org.Search(ctx, client.SearchRequest{Query: "passport number " + p.u, Mode: "keyword", Filters: &client.Filter{UserID: p.bob}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(asBob.Results, func(r client.SearchResult) bool { return r.Memory.ID == w.ID }) {
		t.Fatalf("acting for Bob finds Alice's passport")
	}

	tampered := tok.Token[:len(tok.Token)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(tok.Token, "AA")]
	if _, err := org.WithToken(tampered).List(ctx, client.ListOptions{}); client.ErrorCode(err) != client.CodeUnauthorized {
		t.Fatalf("a tampered token: %v, want unauthorized", err)
	}
	if _, err := client.NewWithToken(srv.url, ""); err == nil {
		t.Fatal("NewWithToken accepted an empty token")
	}
}

// TestRegistries runs entities, worlds, rooms and participants through
// create, get, list, update and delete.
func TestRegistries(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)

	e, err := c.CreateEntity(ctx, client.NewEntity{ID: "dana-" + u, Names: []string{"Dana", "D."}, Metadata: json.RawMessage(`{"tier":"gold"}`)})
	if err != nil || e.ID != "dana-"+u || e.Version != 1 || !slices.Equal(e.Names, []string{"Dana", "D."}) {
		t.Fatalf("create entity: %+v %v", e, err)
	}
	if got, err := c.Entity(ctx, e.ID); err != nil || got.Names[0] != "Dana" || string(got.Metadata) != `{"tier":"gold"}` {
		t.Fatalf("get entity: %+v %v", got, err)
	}
	upd, err := c.UpdateEntity(ctx, e.ID, client.EntityPatch{Names: []string{"Dana", "Danielle"}}, client.RequestOptions{IfMatch: e.Version})
	if err != nil || upd.Version != 2 || upd.Names[1] != "Danielle" {
		t.Fatalf("update entity: %+v %v", upd, err)
	}
	if _, err := c.UpdateEntity(ctx, e.ID, client.EntityPatch{Names: []string{"Dee"}}, client.RequestOptions{IfMatch: e.Version}); !client.IsStale(err) {
		t.Fatalf("update over a stale version: %v, want stale", err)
	}
	ents, err := c.Entities(ctx, client.Page{Limit: 1000})
	if err != nil || !slices.ContainsFunc(ents.Entities, func(x *client.Entity) bool { return x.ID == e.ID }) {
		t.Fatalf("list entities: %+v %v", ents, err)
	}

	w, err := c.CreateWorld(ctx, client.NewWorld{Name: "Guild " + u, ServerID: "guild-" + u})
	if err != nil || w.ID == "" || w.Name != "Guild "+u {
		t.Fatalf("create world: %+v %v", w, err)
	}
	name := "Guild renamed " + u
	if w2, err := c.UpdateWorld(ctx, w.ID, client.WorldPatch{Name: &name}); err != nil || w2.Name != name {
		t.Fatalf("update world: %+v %v", w2, err)
	}
	if got, err := c.World(ctx, w.ID); err != nil || got.Name != name || got.ServerID != "guild-"+u {
		t.Fatalf("get world: %+v %v", got, err)
	}
	if ws, err := c.Worlds(ctx, client.Page{Limit: 1000}); err != nil || !slices.ContainsFunc(ws.Worlds, func(x *client.World) bool { return x.ID == w.ID }) {
		t.Fatalf("list worlds: %+v %v", ws, err)
	}

	r, err := c.CreateRoom(ctx, client.NewRoom{ID: "general-" + u, Name: "general", WorldID: w.ID, Source: "discord", Type: "GROUP", Participants: []string{e.ID}})
	if err != nil || r.WorldID != w.ID || !slices.Equal(r.Participants, []string{e.ID}) {
		t.Fatalf("create room: %+v %v", r, err)
	}
	if _, err := c.CreateRoom(ctx, client.NewRoom{WorldID: "no-such-world-" + u}); client.ErrorCode(err) != client.CodeInvalid || !strings.Contains(err.Error(), "worldId") {
		t.Fatalf("a room in a missing world: %v, want invalid naming worldId", err)
	}
	rooms, err := c.Rooms(ctx, w.ID, client.Page{})
	if err != nil || len(rooms.Rooms) != 1 || rooms.Rooms[0].ID != r.ID {
		t.Fatalf("the world's rooms: %+v %v", rooms, err)
	}
	ps, err := c.AddParticipant(ctx, r.ID, "eli-"+u)
	if err != nil || !slices.Contains(ps.Participants, "eli-"+u) || len(ps.Participants) != 2 {
		t.Fatalf("add participant: %+v %v", ps, err)
	}
	if ps, err = c.RemoveParticipant(ctx, r.ID, e.ID); err != nil || !slices.Equal(ps.Participants, []string{"eli-" + u}) {
		t.Fatalf("remove participant: %+v %v", ps, err)
	}
	if ps, err = c.Participants(ctx, r.ID); err != nil || !slices.Equal(ps.Participants, []string{"eli-" + u}) {
		t.Fatalf("participants: %+v %v", ps, err)
	}
	typ := "DM"
	if r2, err := c.UpdateRoom(ctx, r.ID, client.RoomPatch{Type: &typ}); err != nil || r2.Type != "DM" {
		t.Fatalf("update room: %+v %v", r2, err)
	}
	if got, err := c.Room(ctx, r.ID); err != nil || got.Type != "DM" || got.Source != "discord" {
		t.Fatalf("get room: %+v %v", got, err)
	}

	if err := c.DeleteRoom(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteWorld(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteEntity(ctx, e.ID, client.RequestOptions{IfMatch: upd.Version}); err != nil {
		t.Fatal(err)
	}
	for what, get := range map[string]func() error{
		"entity": func() error { _, err := c.Entity(ctx, e.ID); return err },
		"world":  func() error { _, err := c.World(ctx, w.ID); return err },
		"room":   func() error { _, err := c.Room(ctx, r.ID); return err },
	} {
		if err := get(); !client.IsNotFound(err) {
			t.Errorf("the deleted %s: %v, want not_found", what, err)
		}
	}
}
