package memory

import (
	"reflect"
	"testing"
)

func TestCanSeeAudiences(t *testing.T) {
	alice := &Acting{UserID: "alice", RoomID: "room-alice", WorldID: "w1"}
	tests := []struct {
		name     string
		c        Caller
		agent    string
		audience string
		want     bool
	}{
		{"admin view sees a room", Caller{OrgID: "o"}, "", RoomAudience("room-bob"), true},
		{"admin view sees a user", Caller{OrgID: "o"}, "", UserAudience("bob"), true},
		{"acting sees shared", Caller{OrgID: "o", Acting: alice}, "", "", true},
		{"acting sees agent memories its key allows", Caller{OrgID: "o", Acting: alice}, "a1", "", true},
		{"acting sees its room", Caller{OrgID: "o", Acting: alice}, "", RoomAudience("room-alice"), true},
		{"acting sees its user", Caller{OrgID: "o", Acting: alice}, "", UserAudience("alice"), true},
		{"acting sees its world", Caller{OrgID: "o", Acting: alice}, "", WorldAudience("w1"), true},
		{"acting never sees another room", Caller{OrgID: "o", Acting: alice}, "", RoomAudience("room-bob"), false},
		{"acting never sees another user", Caller{OrgID: "o", Acting: alice}, "", UserAudience("bob"), false},
		{"acting never sees another world", Caller{OrgID: "o", Acting: alice}, "", WorldAudience("w2"), false},
		{"agent key never sees another agent's room", Caller{OrgID: "o", AgentID: "a1"}, "a2", RoomAudience("r"), false},
		{"acting with an empty audience set sees no room", Caller{OrgID: "o", Acting: &Acting{}}, "", RoomAudience("r"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.CanSee("o", tc.agent, tc.audience); got != tc.want {
				t.Errorf("CanSee = %v, want %v", got, tc.want)
			}
			f, err := tc.c.Bind(Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Match(Attrs{OrgID: "o", AgentID: tc.agent, Audience: tc.audience}); got != tc.want {
				t.Errorf("Bind then Match = %v, want %v (the two rules must agree)", got, tc.want)
			}
		})
	}
}

func TestNarrowNeverWidens(t *testing.T) {
	bound := &Acting{UserID: "alice", RoomID: "room-alice"}
	tests := []struct {
		name    string
		binding *Acting
		req     Acting
		want    *Acting
		code    string
	}{
		{"no binding takes the request", nil, Acting{UserID: "bob"}, &Acting{UserID: "bob"}, ""},
		{"no binding, no request is the admin view", nil, Acting{}, nil, ""},
		{"a binding is kept", bound, Acting{}, bound, ""},
		{"the same user is fine", bound, Acting{UserID: "alice"}, bound, ""},
		{"another user is refused", bound, Acting{UserID: "bob"}, nil, EFORBIDDEN},
		{"another room is refused", bound, Acting{RoomID: "room-bob"}, nil, EFORBIDDEN},
		{"a room under a user binding narrows", &Acting{UserID: "alice"}, Acting{RoomID: "r2"}, &Acting{UserID: "alice", RoomID: "r2"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.binding.Narrow(tc.req)
			if ErrorCode(err) != tc.code {
				t.Fatalf("err %v, want code %q", err, tc.code)
			}
			if tc.code == "" && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestInheritNeverWidens(t *testing.T) {
	roomMsg := &Memory{Type: TypeMessage, RoomID: "room-bob", Visibility: VisibilityRoom}
	bobSaid := &Memory{Type: TypeMessage, RoomID: "room-bob", Visibility: VisibilityRoom, UserID: "bob"}
	shared := &Memory{Type: TypeDocument}
	tests := []struct {
		name string
		srcs []*Memory
		ok   bool
		aud  string
	}{
		{"a room's message gives a room fact", []*Memory{roomMsg}, true, RoomAudience("room-bob")},
		{"what an end user said is theirs", []*Memory{bobSaid}, true, UserAudience("bob")},
		{"a shared source gives a shared fact", []*Memory{shared}, true, ""},
		{"one audience across sources", []*Memory{bobSaid, bobSaid}, true, UserAudience("bob")},
		{"no single audience for two", []*Memory{bobSaid, shared}, false, ""},
		{"a room's turns with one user's own among them", []*Memory{bobSaid, {Type: TypeMessage, RoomID: "room-bob", Visibility: VisibilityUser, UserID: "alice"}}, false, ""},
		{"a room's turns of two users", []*Memory{bobSaid, {Type: TypeMessage, RoomID: "room-bob", Visibility: VisibilityRoom, UserID: "alice"}}, true, RoomAudience("room-bob")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &Memory{Type: TypeFact}
			ok := d.Inherit(tc.srcs...)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if ok && d.Audience() != tc.aud {
				t.Errorf("audience %q, want %q", d.Audience(), tc.aud)
			}
		})
	}
}

func TestParseVisibility(t *testing.T) {
	for in, want := range map[string]Visibility{"private": VisibilityAgent, "org": VisibilityShared, "room": VisibilityRoom, "": ""} {
		if got, err := ParseVisibility("scope", in); err != nil || got != want {
			t.Errorf("%q: %q, %v", in, got, err)
		}
	}
	if _, err := ParseVisibility("scope", "public"); ErrorCode(err) != EINVALID {
		t.Errorf("public: %v", err)
	}
}

// TestMayHold checks which memories another may carry the text of (a
// message's Context, a fact's sources): only what every one of its
// readers may read.
func TestMayHold(t *testing.T) {
	room := &Memory{Type: TypeMessage, RoomID: "r1", WorldID: "w1", Visibility: VisibilityRoom, UserID: "bob"}
	bob := &Memory{Type: TypeMessage, RoomID: "r1", WorldID: "w1", Visibility: VisibilityUser, UserID: "bob"}
	alice := &Memory{Type: TypeMessage, RoomID: "r1", WorldID: "w1", Visibility: VisibilityUser, UserID: "alice"}
	world := &Memory{Type: TypeFact, WorldID: "w1", Visibility: VisibilityWorld}
	other := &Memory{Type: TypeMessage, RoomID: "r2", Visibility: VisibilityRoom}
	shared := &Memory{Type: TypeMessage, RoomID: "r1"}
	tests := []struct {
		name   string
		d, src *Memory
		ok     bool
	}{
		{"a room turn holds a shared one", room, shared, true},
		{"a room turn holds its room's", room, room, true},
		{"a room turn holds its world's", room, world, true},
		{"a room turn never holds a user's own", room, alice, false},
		{"a user's turn holds the room's", bob, room, true},
		{"a user's turn holds the user's", bob, bob, true},
		{"a user's turn never holds another user's", bob, alice, false},
		{"a shared turn holds a shared one", shared, shared, true},
		{"a shared turn never holds a room's", shared, room, false},
		{"a world memory never holds a room's", world, room, false},
		{"a room turn never holds another room's", room, other, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.MayHold(tc.src); got != tc.ok {
				t.Fatalf("MayHold = %v, want %v (readers see %v, source's audience %q)", got, tc.ok, tc.d.ReaderAudiences(), tc.src.Audience())
			}
		})
	}
	if a := shared.ReaderAudiences(); a == nil || len(a) != 0 {
		t.Fatalf("a shared memory's reader audiences: %#v, want empty and not nil (a filter of no audience)", a)
	}
}
