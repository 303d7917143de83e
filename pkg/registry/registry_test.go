package registry_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/registry"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
)

var ctx = context.Background()

// backends opens a fresh record store of each kind: a SQLite file, and a
// table of DynamoDB Local (DYNAMODB_ENDPOINT; skipped without it unless
// REQUIRE_DYNAMODB=1).
var backends = []struct {
	name string
	open func(t *testing.T) memory.RecordStore
}{
	{"sqlite", func(t *testing.T) memory.RecordStore {
		s, err := sqlite.Open(filepath.Join(t.TempDir(), "registry.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"dynamodb", func(t *testing.T) memory.RecordStore {
		c, err := dynamodb.NewClient(ctx, dynamodb.ClientOptions{Endpoint: testenv.Get(t, "DYNAMODB_ENDPOINT"), AccessKey: "local", SecretKey: "local"})
		if err != nil {
			t.Fatal(err)
		}
		var b [4]byte
		rand.Read(b[:])
		name := "test-registry-" + hex.EncodeToString(b[:])
		if err := dynamodb.CreateTable(ctx, c, name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dynamodb.DeleteTable(context.Background(), c, name) })
		return dynamodb.New(c, name)
	}},
}

// The callers of the tests: org A's org-level key, its agents x and y,
// and org B's org-level key.
var (
	orgA   = memory.Caller{OrgID: memorytest.OrgA}
	agentX = memory.Caller{OrgID: memorytest.OrgA, AgentID: memorytest.AgentX}
	agentY = memory.Caller{OrgID: memorytest.OrgA, AgentID: memorytest.AgentY}
	orgB   = memory.Caller{OrgID: memorytest.OrgB}
)

// each runs f on a fresh registry of every backend.
func each(t *testing.T, f func(t *testing.T, r *registry.Registry, rs memory.RecordStore)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			rs := b.open(t)
			f(t, registry.New(rs), rs)
		})
	}
}

// code fails t unless err has the code want (and, for want "", is nil).
func code(t *testing.T, what string, err error, want string) {
	t.Helper()
	if got := memory.ErrorCode(err); got != want {
		t.Fatalf("%s: %v (code %q), want code %q", what, err, got, want)
	}
}

func strp(s string) *string { return &s }

func TestEntityLifecycle(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, _ memory.RecordStore) {
		e, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "ana", Names: []string{"Ana", "Ana Lima"}, Metadata: json.RawMessage(`{"tz":"Europe/Lisbon"}`)})
		if err != nil || e.Version != 1 || e.CreatedAt == 0 || e.AgentID != "" {
			t.Fatalf("create: %+v %v", e, err)
		}
		anon, err := r.CreateEntity(ctx, orgA, registry.NewEntity{Names: []string{"Someone"}})
		if err != nil || len(anon.ID) != 32 {
			t.Fatalf("create without an id: %+v %v", anon, err)
		}
		_, err = r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "ana", Names: []string{"Other"}})
		code(t, "create a taken id", err, memory.ECONFLICT)
		got, err := r.GetEntity(ctx, orgA, "ana")
		if err != nil || got.Version != 1 || got.Names[1] != "Ana Lima" || string(got.Metadata) != `{"tz":"Europe/Lisbon"}` {
			t.Fatalf("get: %+v %v", got, err)
		}
		up, err := r.UpdateEntity(ctx, orgA, "ana", registry.EntityPatch{Names: &[]string{"Ana L."}}, 1)
		if err != nil || up.Version != 2 || up.Names[0] != "Ana L." || string(up.Metadata) != `{"tz":"Europe/Lisbon"}` {
			t.Fatalf("update at version 1: %+v %v", up, err)
		}
		_, err = r.UpdateEntity(ctx, orgA, "ana", registry.EntityPatch{Names: &[]string{"Stale"}}, 1)
		code(t, "update a stale version", err, memory.ECONFLICT)
		meta := json.RawMessage(`null`)
		if up, err = r.UpdateEntity(ctx, orgA, "ana", registry.EntityPatch{Metadata: &meta}, 0); err != nil || up.Version != 3 || up.Metadata != nil {
			t.Fatalf("unconditional update clearing metadata: %+v %v", up, err)
		}
		code(t, "delete a stale version", r.DeleteEntity(ctx, orgA, "ana", 2), memory.ECONFLICT)
		code(t, "delete", r.DeleteEntity(ctx, orgA, "ana", 3), "")
		_, err = r.GetEntity(ctx, orgA, "ana")
		code(t, "get after delete", err, memory.ENOTFOUND)
		code(t, "delete again", r.DeleteEntity(ctx, orgA, "ana", 0), memory.ENOTFOUND)
		_, err = r.UpdateEntity(ctx, orgA, "ana", registry.EntityPatch{Names: &[]string{"X"}}, 0)
		code(t, "update after delete", err, memory.ENOTFOUND)
	})
}

func TestValidation(t *testing.T) {
	long := strings.Repeat("x", registry.MaxNameBytes+1)
	bigMeta := json.RawMessage(`{"x":"` + strings.Repeat("a", memory.MaxMetadataBytes) + `"}`)
	tooMany := make([]string, memory.MaxParticipants+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprint("p", i)
	}
	each(t, func(t *testing.T, r *registry.Registry, _ memory.RecordStore) {
		if _, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "r1"}); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name  string
			call  func() error
			field string // the message must name it
		}{
			{"entity without names", func() error { _, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "e"}); return err }, "names"},
			{"entity with a blank name", func() error {
				_, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "e", Names: []string{"Ana", "  "}})
				return err
			}, "names[1]"},
			{"entity with a long name", func() error {
				_, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "e", Names: []string{long}})
				return err
			}, "names[0]"},
			{"entity with too many names", func() error {
				_, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "e", Names: make([]string, registry.MaxNames+1)})
				return err
			}, "names"},
			{"entity with a control character in its id", func() error {
				_, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "a\nb", Names: []string{"A"}})
				return err
			}, "id"},
			{"entity with metadata that is not an object", func() error {
				_, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "e", Names: []string{"A"}, Metadata: json.RawMessage(`[1]`)})
				return err
			}, "metadata"},
			{"entity with metadata too large", func() error {
				_, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "e", Names: []string{"A"}, Metadata: bigMeta})
				return err
			}, "metadata"},
			{"entity in a bad scope", func() error {
				_, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "e", Names: []string{"A"}, Owner: registry.Owner{Scope: "team"}})
				return err
			}, "scope"},
			{"entity patch with nothing", func() error { _, err := r.UpdateEntity(ctx, orgA, "e", registry.EntityPatch{}, 0); return err }, "patch"},
			{"entity patch without names", func() error {
				_, err := r.UpdateEntity(ctx, orgA, "e", registry.EntityPatch{Names: &[]string{}}, 0)
				return err
			}, "names"},
			{"get without an id", func() error { _, err := r.GetEntity(ctx, orgA, ""); return err }, "id"},
			{"world with a blank name", func() error { _, err := r.CreateWorld(ctx, orgA, registry.NewWorld{ID: "w", Name: " "}); return err }, "name"},
			{"world with a control character in serverId", func() error {
				_, err := r.CreateWorld(ctx, orgA, registry.NewWorld{ID: "w", ServerID: "a\x00"})
				return err
			}, "serverId"},
			{"world patch with a blank name", func() error {
				_, err := r.UpdateWorld(ctx, orgA, "w", registry.WorldPatch{Name: strp("\t")}, 0)
				return err
			}, "name"},
			{"room in a world that is not registered", func() error {
				_, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "r", WorldID: "nowhere"})
				return err
			}, "worldId"},
			{"room with a blank participant", func() error {
				_, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "r", Participants: []string{"a", ""}})
				return err
			}, "participants[1]"},
			{"room with too many participants", func() error {
				_, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "r", Participants: tooMany})
				return err
			}, "participants"},
			{"room with a long type", func() error {
				_, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "r", Type: strings.Repeat("t", memory.MaxIDLen+1)})
				return err
			}, "type"},
			{"room moved to a world that is not registered", func() error {
				_, err := r.UpdateRoom(ctx, orgA, "r1", registry.RoomPatch{WorldID: strp("nowhere")}, 0)
				return err
			}, "worldId"},
			{"participant without an id", func() error { _, err := r.AddParticipant(ctx, orgA, "r1", ""); return err }, "entityId"},
			{"list with a negative limit", func() error {
				_, _, err := r.ListEntities(ctx, orgA, registry.Page{Limit: -1})
				return err
			}, "limit"},
			{"list with a limit too large", func() error {
				_, _, err := r.ListRooms(ctx, orgA, "", registry.Page{Limit: registry.MaxLimit + 1})
				return err
			}, "limit"},
			{"list with a bad cursor", func() error {
				_, _, err := r.ListWorlds(ctx, orgA, registry.Page{Cursor: "a\x01"})
				return err
			}, "cursor"},
			{"join without a room", func() error { return r.Join(ctx, memorytest.OrgA, "", "", "ana") }, "roomId"},
			{"join without an entity", func() error { return r.Join(ctx, memorytest.OrgA, "r1", "", "") }, "entityId"},
			{"rooms of no entity", func() error { _, err := r.RoomsOf(ctx, memorytest.OrgA, "", 10); return err }, "entityId"},
		}
		for _, tc := range cases {
			err := tc.call()
			if memory.ErrorCode(err) != memory.EINVALID || !strings.HasPrefix(memory.ErrorMessage(err), tc.field+":") {
				t.Errorf("%s: %v, want %s naming %q", tc.name, err, memory.EINVALID, tc.field)
			}
		}
		if rooms, _, err := r.ListRooms(ctx, orgA, "", registry.Page{}); err != nil || len(rooms) != 1 {
			t.Errorf("the refused creates stored something: %d rooms %v", len(rooms), err)
		}
	})
}

func TestPaging(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, _ memory.RecordStore) {
		var want []string
		for i := range 7 {
			id := fmt.Sprintf("e%02d", i)
			want = append(want, id)
			if _, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: id, Names: []string{id}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, limit := range []int{1, 3, 7, 0} {
			var got []string
			p := registry.Page{Limit: limit}
			for pages := 0; ; pages++ {
				es, next, err := r.ListEntities(ctx, orgA, p)
				if err != nil {
					t.Fatal(err)
				}
				if limit > 0 && len(es) > limit {
					t.Fatalf("limit %d: a page of %d", limit, len(es))
				}
				for _, e := range es {
					got = append(got, e.ID)
					if e.Version != 1 {
						t.Fatalf("listed %s at version %d", e.ID, e.Version)
					}
				}
				if next == "" {
					break
				}
				if pages > 10 {
					t.Fatal("the cursor does not advance")
				}
				p.Cursor = next
			}
			if !slices.Equal(got, want) {
				t.Errorf("limit %d: listed %v, want %v", limit, got, want)
			}
		}
	})
}

func TestWorldsAndRooms(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, rs memory.RecordStore) {
		for _, w := range []string{"w1", "w2"} {
			if _, err := r.CreateWorld(ctx, orgA, registry.NewWorld{ID: w, Name: "World " + w, ServerID: "guild-" + w}); err != nil {
				t.Fatal(err)
			}
		}
		for _, rm := range []registry.NewRoom{{ID: "r1", WorldID: "w1", Type: "GROUP", Source: "discord"}, {ID: "r2", WorldID: "w1"}, {ID: "r3", WorldID: "w2"}, {ID: "r4"}} {
			if _, err := r.CreateRoom(ctx, orgA, rm); err != nil {
				t.Fatal(err)
			}
		}
		roomsOf := func(world string) []string {
			t.Helper()
			rooms, _, err := r.ListRooms(ctx, orgA, world, registry.Page{})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, rm := range rooms {
				ids = append(ids, rm.ID)
			}
			return ids
		}
		for _, tc := range []struct {
			world string
			want  []string
		}{{"w1", []string{"r1", "r2"}}, {"w2", []string{"r3"}}, {"", []string{"r1", "r2", "r3", "r4"}}, {"none", nil}} {
			if got := roomsOf(tc.world); !slices.Equal(got, tc.want) {
				t.Errorf("rooms of world %q: %v, want %v", tc.world, got, tc.want)
			}
		}
		code(t, "delete a world with rooms", r.DeleteWorld(ctx, orgA, "w2", 0), memory.ECONFLICT)
		moved, err := r.UpdateRoom(ctx, orgA, "r3", registry.RoomPatch{WorldID: strp("w1"), Name: strp("general")}, 1)
		if err != nil || moved.WorldID != "w1" || moved.Name != "general" || moved.Version != 2 {
			t.Fatalf("move r3 to w1: %+v %v", moved, err)
		}
		if got := roomsOf("w1"); !slices.Equal(got, []string{"r1", "r2", "r3"}) {
			t.Errorf("w1 after the move: %v", got)
		}
		if got := roomsOf("w2"); got != nil {
			t.Errorf("w2 after the move: %v", got)
		}
		code(t, "delete the emptied world", r.DeleteWorld(ctx, orgA, "w2", 0), "")
		if recs, _, err := rs.ListRecords(ctx, memorytest.OrgA, "world-rooms:w2", "", 10); err != nil || len(recs) != 0 {
			t.Errorf("the world's index after the move: %v %v", recs, err)
		}
		// A room out of its world, and the world's rooms deleted: the world goes.
		if _, err := r.UpdateRoom(ctx, orgA, "r3", registry.RoomPatch{WorldID: strp("")}, 0); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"r1", "r2"} {
			code(t, "delete "+id, r.DeleteRoom(ctx, orgA, id, 0), "")
		}
		code(t, "delete w1", r.DeleteWorld(ctx, orgA, "w1", 0), "")
		_, err = r.GetWorld(ctx, orgA, "w1")
		code(t, "get a deleted world", err, memory.ENOTFOUND)
		w, err := r.UpdateWorld(ctx, orgA, "w1", registry.WorldPatch{Name: strp("x")}, 0)
		code(t, fmt.Sprintf("update a deleted world: %+v", w), err, memory.ENOTFOUND)
	})
}

func TestParticipants(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, rs memory.RecordStore) {
		room, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "r1", Participants: []string{"ana", "bo", "ana"}})
		if err != nil || !slices.Equal(room.Participants, []string{"ana", "bo"}) {
			t.Fatalf("create with participants: %+v %v", room, err)
		}
		if room, err = r.AddParticipant(ctx, orgA, "r1", "cy"); err != nil || room.Version != 2 || !slices.Equal(room.Participants, []string{"ana", "bo", "cy"}) {
			t.Fatalf("add cy: %+v %v", room, err)
		}
		if room, err = r.AddParticipant(ctx, orgA, "r1", "cy"); err != nil || room.Version != 2 {
			t.Fatalf("add cy again changed the room: %+v %v", room, err)
		}
		if _, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "r2", Participants: []string{"cy"}}); err != nil {
			t.Fatal(err)
		}
		roomsOf := func(entity string, limit int) []string {
			t.Helper()
			rooms, err := r.RoomsOf(ctx, memorytest.OrgA, entity, limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, rm := range rooms {
				ids = append(ids, rm.ID)
			}
			return ids
		}
		for _, tc := range []struct {
			entity string
			limit  int
			want   []string
		}{{"cy", 10, []string{"r1", "r2"}}, {"cy", 1, []string{"r1"}}, {"ana", 10, []string{"r1"}}, {"nobody", 10, nil}, {"cy", 0, nil}} {
			if got := roomsOf(tc.entity, tc.limit); !slices.Equal(got, tc.want) {
				t.Errorf("rooms of %s (limit %d): %v, want %v", tc.entity, tc.limit, got, tc.want)
			}
		}
		if room, err = r.RemoveParticipant(ctx, orgA, "r1", "bo"); err != nil || !slices.Equal(room.Participants, []string{"ana", "cy"}) {
			t.Fatalf("remove bo: %+v %v", room, err)
		}
		_, err = r.RemoveParticipant(ctx, orgA, "r1", "bo")
		code(t, "remove bo again", err, memory.ENOTFOUND)
		if got := roomsOf("bo", 10); got != nil {
			t.Errorf("rooms of bo after leaving: %v", got)
		}
		// A stale index entry (a room that is gone, or no longer has the
		// entity) is skipped, and does not take a place of the limit.
		for _, stale := range []string{"r0", "r1"} {
			if _, err := rs.PutRecord(ctx, memorytest.OrgA, "rooms-of:bo", stale, map[string]string{"roomId": stale}, 0); err != nil {
				t.Fatal(err)
			}
		}
		if got := roomsOf("bo", 1); got != nil {
			t.Errorf("rooms of bo through stale entries: %v", got)
		}
		if ps, err := r.Participants(ctx, orgA, "r1"); err != nil || !slices.Equal(ps, []string{"ana", "cy"}) {
			t.Errorf("participants of r1: %v %v", ps, err)
		}
		code(t, "delete r1", r.DeleteRoom(ctx, orgA, "r1", 0), "")
		if got := roomsOf("cy", 10); !slices.Equal(got, []string{"r2"}) {
			t.Errorf("rooms of cy after r1 is deleted: %v", got)
		}
		if recs, _, err := rs.ListRecords(ctx, memorytest.OrgA, "rooms-of:ana", "", 10); err != nil || len(recs) != 0 {
			t.Errorf("ana's index after r1 is deleted: %v %v", recs, err)
		}
		_, err = r.AddParticipant(ctx, orgA, "r1", "ana")
		code(t, "add to a deleted room", err, memory.ENOTFOUND)
	})
}

func TestParticipantLimit(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, _ memory.RecordStore) {
		full := make([]string, memory.MaxParticipants)
		for i := range full {
			full[i] = fmt.Sprint("p", i)
		}
		if _, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "big", Participants: full}); err != nil {
			t.Fatal(err)
		}
		_, err := r.AddParticipant(ctx, orgA, "big", "one-more")
		code(t, "add to a full room", err, memory.ECONFLICT)
		code(t, "join a full room", r.Join(ctx, memorytest.OrgA, "big", "", "one-more"), memory.ECONFLICT)
		if _, err := r.AddParticipant(ctx, orgA, "big", "p7"); err != nil {
			t.Errorf("adding a participant of a full room again: %v", err)
		}
		if rooms, err := r.RoomsOf(ctx, memorytest.OrgA, "p999", 10); err != nil || len(rooms) != 1 {
			t.Errorf("rooms of the last participant: %d %v", len(rooms), err)
		}
	})
}

func TestJoin(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, _ memory.RecordStore) {
		code(t, "join a new room", r.Join(ctx, memorytest.OrgA, "dm-1", "guild-9", "ana"), "")
		room, err := r.Room(ctx, memorytest.OrgA, "dm-1")
		if err != nil || room.WorldID != "guild-9" || room.AgentID != "" || !slices.Equal(room.Participants, []string{"ana"}) || room.Version != 1 {
			t.Fatalf("the room join made: %+v %v", room, err)
		}
		code(t, "join again", r.Join(ctx, memorytest.OrgA, "dm-1", "guild-9", "ana"), "")
		code(t, "another joins, naming another world", r.Join(ctx, memorytest.OrgA, "dm-1", "other", "bo"), "")
		room, err = r.Room(ctx, memorytest.OrgA, "dm-1")
		if err != nil || room.WorldID != "guild-9" || !slices.Equal(room.Participants, []string{"ana", "bo"}) || room.Version != 2 {
			t.Fatalf("after two joins: %+v %v", room, err)
		}
		if rooms, err := r.RoomsOf(ctx, memorytest.OrgA, "bo", 5); err != nil || len(rooms) != 1 || rooms[0].ID != "dm-1" {
			t.Errorf("rooms of bo: %v %v", rooms, err)
		}
		if rooms, _, err := r.ListRooms(ctx, orgA, "guild-9", registry.Page{}); err != nil || len(rooms) != 1 {
			t.Errorf("rooms of the unregistered world: %v %v", rooms, err)
		}
		_, err = r.Room(ctx, memorytest.OrgB, "dm-1")
		code(t, "another org's room", err, memory.ENOTFOUND)
		if rooms, err := r.RoomsOf(ctx, memorytest.OrgB, "bo", 5); err != nil || len(rooms) != 0 {
			t.Errorf("rooms of bo in another org: %v %v", rooms, err)
		}
	})
}

func TestOrgIsolation(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, _ memory.RecordStore) {
		if _, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "ana", Names: []string{"Ana"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CreateWorld(ctx, orgA, registry.NewWorld{ID: "w"}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "r", WorldID: "w", Participants: []string{"ana"}}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			call func() error
		}{
			{"get entity", func() error { _, err := r.GetEntity(ctx, orgB, "ana"); return err }},
			{"update entity", func() error {
				_, err := r.UpdateEntity(ctx, orgB, "ana", registry.EntityPatch{Names: &[]string{"B"}}, 0)
				return err
			}},
			{"delete entity", func() error { return r.DeleteEntity(ctx, orgB, "ana", 0) }},
			{"get world", func() error { _, err := r.GetWorld(ctx, orgB, "w"); return err }},
			{"delete world", func() error { return r.DeleteWorld(ctx, orgB, "w", 0) }},
			{"get room", func() error { _, err := r.GetRoom(ctx, orgB, "r"); return err }},
			{"participants", func() error { _, err := r.Participants(ctx, orgB, "r"); return err }},
			{"add participant", func() error { _, err := r.AddParticipant(ctx, orgB, "r", "x"); return err }},
			{"remove participant", func() error { _, err := r.RemoveParticipant(ctx, orgB, "r", "ana"); return err }},
			{"delete room", func() error { return r.DeleteRoom(ctx, orgB, "r", 0) }},
		} {
			if err := tc.call(); memory.ErrorCode(err) != memory.ENOTFOUND {
				t.Errorf("org B: %s: %v, want %s", tc.name, err, memory.ENOTFOUND)
			}
		}
		_, err := r.CreateRoom(ctx, orgB, registry.NewRoom{ID: "r2", WorldID: "w"})
		code(t, "org B's room in org A's world", err, memory.EINVALID)
		es, _, err := r.ListEntities(ctx, orgB, registry.Page{})
		if err != nil || len(es) != 0 {
			t.Errorf("org B lists %v %v", es, err)
		}
		rooms, _, err := r.ListRooms(ctx, orgB, "w", registry.Page{})
		if err != nil || len(rooms) != 0 {
			t.Errorf("org B lists org A's world's rooms: %v %v", rooms, err)
		}
		// The same ids are org B's own.
		if _, err := r.CreateEntity(ctx, orgB, registry.NewEntity{ID: "ana", Names: []string{"Ana of B"}}); err != nil {
			t.Fatalf("org B reuses the id: %v", err)
		}
		if e, err := r.GetEntity(ctx, orgA, "ana"); err != nil || e.Names[0] != "Ana" {
			t.Errorf("org A's entity after org B's: %+v %v", e, err)
		}
		_, err = r.GetEntity(ctx, memory.Caller{}, "ana")
		code(t, "no org", err, memory.EUNAUTHORIZED)
	})
}

func TestAgentIsolation(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, _ memory.RecordStore) {
		// Org-wide items (org key), agent x's and agent y's.
		if _, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "e-org", Names: []string{"Org"}}); err != nil {
			t.Fatal(err)
		}
		ex, err := r.CreateEntity(ctx, agentX, registry.NewEntity{ID: "e-x", Names: []string{"X"}})
		if err != nil || ex.AgentID != memorytest.AgentX {
			t.Fatalf("agent x's entity: %+v %v", ex, err)
		}
		if _, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "e-y", Names: []string{"Y"}, Owner: registry.Owner{AgentID: memorytest.AgentY}}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CreateWorld(ctx, orgA, registry.NewWorld{ID: "w-org"}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CreateWorld(ctx, agentY, registry.NewWorld{ID: "w-y"}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CreateRoom(ctx, orgA, registry.NewRoom{ID: "r-org", WorldID: "w-org", Participants: []string{"ana"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CreateRoom(ctx, agentX, registry.NewRoom{ID: "r-x", WorldID: "w-org", Participants: []string{"ana"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CreateRoom(ctx, agentY, registry.NewRoom{ID: "r-y", WorldID: "w-org"}); err != nil {
			t.Fatal(err)
		}
		ids := func(es []*memory.EntityProfile) []string {
			var out []string
			for _, e := range es {
				out = append(out, e.ID)
			}
			return out
		}
		for _, tc := range []struct {
			c    memory.Caller
			want []string
		}{{orgA, []string{"e-org", "e-x", "e-y"}}, {agentX, []string{"e-org", "e-x"}}, {agentY, []string{"e-org", "e-y"}}} {
			// Pages of one: the list skips what the caller does not see.
			var got []string
			p := registry.Page{Limit: 1}
			for {
				es, next, err := r.ListEntities(ctx, tc.c, p)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ids(es)...)
				if next == "" {
					break
				}
				p.Cursor = next
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("entities listed by %q: %v, want %v", tc.c.AgentID, got, tc.want)
			}
		}
		rooms, _, err := r.ListRooms(ctx, agentX, "w-org", registry.Page{})
		if err != nil || len(rooms) != 2 || rooms[0].ID != "r-org" || rooms[1].ID != "r-x" {
			t.Errorf("agent x lists the org world's rooms: %v %v", rooms, err)
		}
		// Another agent's items are not there for x.
		for _, tc := range []struct {
			name string
			call func() error
		}{
			{"get y's entity", func() error { _, err := r.GetEntity(ctx, agentX, "e-y"); return err }},
			{"update y's entity", func() error {
				_, err := r.UpdateEntity(ctx, agentX, "e-y", registry.EntityPatch{Names: &[]string{"Z"}}, 0)
				return err
			}},
			{"delete y's entity", func() error { return r.DeleteEntity(ctx, agentX, "e-y", 0) }},
			{"get y's world", func() error { _, err := r.GetWorld(ctx, agentX, "w-y"); return err }},
			{"get y's room", func() error { _, err := r.GetRoom(ctx, agentX, "r-y"); return err }},
			{"join y's room", func() error { _, err := r.AddParticipant(ctx, agentX, "r-y", "ana"); return err }},
		} {
			if err := tc.call(); memory.ErrorCode(err) != memory.ENOTFOUND {
				t.Errorf("agent x: %s: %v, want %s", tc.name, err, memory.ENOTFOUND)
			}
		}
		// Org-wide items are read-only for x, and x makes none.
		for _, tc := range []struct {
			name string
			call func() error
		}{
			{"update an org entity", func() error {
				_, err := r.UpdateEntity(ctx, agentX, "e-org", registry.EntityPatch{Names: &[]string{"Z"}}, 0)
				return err
			}},
			{"delete an org entity", func() error { return r.DeleteEntity(ctx, agentX, "e-org", 0) }},
			{"delete an org world", func() error { return r.DeleteWorld(ctx, agentX, "w-org", 0) }},
			{"rename an org room", func() error {
				_, err := r.UpdateRoom(ctx, agentX, "r-org", registry.RoomPatch{Name: strp("x")}, 0)
				return err
			}},
			{"add to an org room", func() error { _, err := r.AddParticipant(ctx, agentX, "r-org", "bo"); return err }},
			{"remove from an org room", func() error { _, err := r.RemoveParticipant(ctx, agentX, "r-org", "ana"); return err }},
			{"delete an org room", func() error { return r.DeleteRoom(ctx, agentX, "r-org", 0) }},
			{"create an org entity", func() error {
				_, err := r.CreateEntity(ctx, agentX, registry.NewEntity{ID: "new", Names: []string{"N"}, Owner: registry.Owner{Scope: "org"}})
				return err
			}},
			{"create y's entity", func() error {
				_, err := r.CreateEntity(ctx, agentX, registry.NewEntity{ID: "new", Names: []string{"N"}, Owner: registry.Owner{AgentID: memorytest.AgentY}})
				return err
			}},
		} {
			if err := tc.call(); memory.ErrorCode(err) != memory.EFORBIDDEN {
				t.Errorf("agent x: %s: %v, want %s", tc.name, err, memory.EFORBIDDEN)
			}
		}
		_, err = r.CreateRoom(ctx, agentX, registry.NewRoom{ID: "r-x2", WorldID: "w-y"})
		code(t, "agent x's room in y's world", err, memory.EINVALID)
		// x's own, and the org's seen by x.
		if _, err := r.UpdateEntity(ctx, agentX, "e-x", registry.EntityPatch{Names: &[]string{"X2"}}, 0); err != nil {
			t.Errorf("agent x updates its entity: %v", err)
		}
		if _, err := r.GetWorld(ctx, agentX, "w-org"); err != nil {
			t.Errorf("agent x reads the org's world: %v", err)
		}
		if _, err := r.AddParticipant(ctx, agentX, "r-x", "bo"); err != nil {
			t.Errorf("agent x adds to its room: %v", err)
		}
		code(t, "the org deletes y's world", r.DeleteWorld(ctx, orgA, "w-y", 0), "")
		// The org world has rooms of x and y: no agent's room is left behind.
		code(t, "the org deletes the org world", r.DeleteWorld(ctx, orgA, "w-org", 0), memory.ECONFLICT)
	})
}

// TestConcurrentJoins: entities joining a room that does not exist yet,
// all at once, all take part in it: one creates it, the others join it.
func TestConcurrentJoins(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, _ memory.RecordStore) {
		const n = 8
		errs := make(chan error, n)
		for i := range n {
			go func() { errs <- r.Join(ctx, memorytest.OrgA, "busy", "", fmt.Sprint("e", i)) }()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		room, err := r.Room(ctx, memorytest.OrgA, "busy")
		if err != nil || len(room.Participants) != n {
			t.Fatalf("after %d joins: %+v %v", n, room, err)
		}
		for i := range n {
			if rooms, err := r.RoomsOf(ctx, memorytest.OrgA, fmt.Sprint("e", i), 5); err != nil || len(rooms) != 1 {
				t.Errorf("rooms of e%d: %v %v", i, rooms, err)
			}
		}
	})
}
