package service_test

import (
	"encoding/json"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

func TestHistoryNamesTheKeyAndAgent(t *testing.T) {
	svc := open(t).Service
	byX := memory.Caller{OrgID: "org-a", AgentID: "x", KeyID: "key_x1"}
	byOrg := memory.Caller{OrgID: "org-a", KeyID: "key_admin"}
	id := create(t, svc, byX, service.NewMemory{Content: text("likes tea")})[0].ID
	coffee := text("likes coffee")
	if _, err := svc.Update(ctx, byOrg, id, service.Patch{Content: &coffee}); err != nil {
		t.Fatal(err)
	}
	revs, err := svc.History(ctx, byX, id)
	check(t, err)
	want := []memory.Revision{
		{Version: 1, Op: memory.OpCreate, By: memory.Actor{KeyID: "key_x1", AgentID: "x"}},
		{Version: 2, Op: memory.OpUpdate, By: memory.Actor{KeyID: "key_admin"}},
	}
	if len(revs) != len(want) {
		t.Fatalf("%d revisions", len(revs))
	}
	for i, w := range want {
		if revs[i].Version != w.Version || revs[i].Op != w.Op || revs[i].By != w.By || revs[i].Memory.Embedding != nil {
			t.Fatalf("revision %d = %+v, want %+v", i, revs[i], w)
		}
	}
	if revs[0].Memory.Content.Text != "likes tea" || revs[1].Memory.Content.Text != "likes coffee" {
		t.Fatalf("texts %q, %q", revs[0].Memory.Content.Text, revs[1].Memory.Content.Text)
	}
	for _, c := range []memory.Caller{orgB, agentY} {
		if _, err := svc.History(ctx, c, id); !memory.IsNotFound(err) {
			t.Fatalf("history for %+v: %v", c, err)
		}
	}
}

func TestExportImportRelationsAndRecords(t *testing.T) {
	src := open(t)
	ids := create(t, src.Service, orgA,
		service.NewMemory{Type: memory.TypeFact, Content: text("Bo moved to Lisbon")},
		service.NewMemory{Type: memory.TypeMessage, Content: text("I moved to Lisbon in May")})
	xs := create(t, src.Service, agentX, service.NewMemory{Content: text("x's note")})
	check(t, src.Service.Relate(ctx, orgA, []memory.Relation{{FromID: ids[0].ID, Type: memory.RelCausedBy, ToID: ids[1].ID, Confidence: 1}}))
	check(t, src.Service.Relate(ctx, orgA, []memory.Relation{{FromID: xs[0].ID, Type: memory.RelSupports, ToID: ids[0].ID, Confidence: 1}}))
	_, err := src.Store.PutRecord(ctx, "org-a", service.DocumentRecordKind, "doc-1", map[string]any{"id": "doc-1", "orgId": "org-a", "key": "org-a/_org/guide.md", "name": "guide.md", "state": "indexed"}, 0)
	check(t, err)
	_, err = src.Store.PutRecord(ctx, "org-a", service.DocumentRecordKind, "doc-x", map[string]any{"id": "doc-x", "orgId": "org-a", "agentId": "x", "key": "org-a/x/notes/a.txt", "name": "a.txt", "state": "failed"}, 0)
	check(t, err)

	export := func(c memory.Caller, opts service.ExportOptions) (lines [][]byte, kinds map[string]int) {
		kinds = map[string]int{}
		check(t, src.Service.Export(ctx, c, opts, func(l service.ExportLine) error {
			js, err := json.Marshal(l)
			lines = append(lines, js)
			kinds[l.Kind]++
			return err
		}))
		return lines, kinds
	}
	for _, tc := range []struct {
		name   string
		c      memory.Caller
		opts   service.ExportOptions
		counts map[string]int
	}{
		{"org", orgA, service.ExportOptions{}, map[string]int{"memory": 3, "relation": 2, "record": 2}},
		{"org scope", orgA, service.ExportOptions{AgentID: memory.OrgScope}, map[string]int{"memory": 2, "relation": 1, "record": 1}},
		// x's relation points into the org scope, outside x's export.
		{"agent x", agentX, service.ExportOptions{}, map[string]int{"memory": 1, "record": 1}},
		{"agent y", agentY, service.ExportOptions{}, map[string]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, kinds := export(tc.c, tc.opts)
			if len(kinds) != len(tc.counts) {
				t.Fatalf("kinds %v, want %v", kinds, tc.counts)
			}
			for k, n := range tc.counts {
				if kinds[k] != n {
					t.Fatalf("kinds %v, want %v", kinds, tc.counts)
				}
			}
		})
	}

	lines, _ := export(orgA, service.ExportOptions{})
	dst := open(t)
	run := func() service.ImportReport {
		im, err := dst.Service.NewImporter(orgA)
		check(t, err)
		for i, l := range lines {
			check(t, im.Add(ctx, i+1, l))
		}
		rep, err := im.Finish(ctx)
		check(t, err)
		return rep
	}
	first := run()
	if first.Memories.Created != 3 || first.Relations.Created != 2 || first.Records.Created != 2 || len(first.Errors) != 0 {
		t.Fatalf("first import %+v", first)
	}
	second := run()
	if second.Memories.Existing != 3 || second.Relations.Existing != 2 || second.Records.Existing != 2 ||
		second.Memories.Created+second.Relations.Created+second.Records.Created != 0 {
		t.Fatalf("second import %+v", second)
	}
	rels, err := dst.Service.Relations(ctx, orgA, ids[0].ID)
	check(t, err)
	if len(rels) != 2 {
		t.Fatalf("relations of the imported fact: %+v", rels)
	}
	var rec map[string]any
	if _, err := dst.Store.GetRecord(ctx, "org-a", service.DocumentRecordKind, "doc-x", &rec); err != nil || rec["agentId"] != "x" {
		t.Fatalf("imported record %v %v", rec, err)
	}
}

// TestExportImportCarriesVisibility: an export carries each memory's
// visibility and end user, an import keeps them, and an export acting for
// a user holds nothing of another user's.
func TestExportImportCarriesVisibility(t *testing.T) {
	src := open(t)
	in := []service.NewMemory{
		{Type: memory.TypeMessage, RoomID: "room-bob", UserID: "bob", EntityID: "Bob", Content: text("I live on Elm Street")},
		{Type: memory.TypeFact, Visibility: "user", UserID: "bob", Content: text("Bob is allergic to peanuts")},
		{Type: memory.TypeFact, Visibility: "user", UserID: "alice", Content: text("Alice loves hiking")},
		{Type: memory.TypeFact, Scope: "shared", Content: text("The office opens at nine")},
	}
	ids := create(t, src.Service, orgA, in...)
	lines := map[string][]byte{}
	check(t, src.Service.Export(ctx, orgA, service.ExportOptions{}, func(l service.ExportLine) error {
		js, err := json.Marshal(l)
		if l.Memory != nil {
			lines[l.Memory.ID] = js
		}
		return err
	}))
	dst := open(t)
	im, err := dst.Service.NewImporter(orgA)
	check(t, err)
	n := 0
	for _, js := range lines {
		n++
		check(t, im.Add(ctx, n, js))
	}
	_, err = im.Finish(ctx)
	check(t, err)
	want := []struct {
		vis         memory.Visibility
		user, room  string
		audienceKey string
	}{
		{memory.VisibilityRoom, "bob", "room-bob", memory.RoomAudience("room-bob")},
		{memory.VisibilityUser, "bob", "", memory.UserAudience("bob")},
		{memory.VisibilityUser, "alice", "", memory.UserAudience("alice")},
		{memory.VisibilityShared, "", "", ""},
	}
	for i, w := range want {
		m, err := dst.Service.Get(ctx, orgA, ids[i].ID)
		check(t, err)
		if m.Visibility != w.vis || m.UserID != w.user || m.RoomID != w.room || m.Audience() != w.audienceKey {
			t.Errorf("imported %d: visibility %q user %q room %q, want %+v", i, m.Visibility, m.UserID, m.RoomID, w)
		}
	}
	alice, err := dst.Service.Act(ctx, orgA, memory.Acting{UserID: "alice"})
	check(t, err)
	var got []string
	check(t, dst.Service.Export(ctx, alice, service.ExportOptions{}, func(l service.ExportLine) error {
		if l.Memory != nil {
			got = append(got, l.Memory.Content.Text)
		}
		return nil
	}))
	if len(got) != 2 || !contains(got, "Alice loves hiking") || !contains(got, "The office opens at nine") {
		t.Errorf("acting for Alice, the export holds %q", got)
	}
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// TestByKeyFindsAudienceScopedKeys: a key is unique per audience too, and
// the by-key reads find it where the request places it.
func TestByKeyFindsAudienceScopedKeys(t *testing.T) {
	svc := open(t).Service
	put := func(c memory.Caller, n service.NewMemory) *memory.Memory {
		t.Helper()
		m, created, err := svc.PutByKey(ctx, c, n, service.PutCondition{})
		check(t, err)
		if !created {
			t.Fatalf("put %+v: not created", n)
		}
		return m
	}
	room := put(orgA, service.NewMemory{ExternalID: "k", Type: memory.TypeMessage, RoomID: "room-1", EntityID: "Ana", Content: text("in the room")})
	bob := put(orgA, service.NewMemory{ExternalID: "k", Visibility: "user", UserID: "bob", Content: text("Bob's")})
	shared := put(orgA, service.NewMemory{ExternalID: "k", Content: text("everyone's")})
	alice, err := svc.Act(ctx, orgA, memory.Acting{UserID: "alice"})
	check(t, err)
	tests := []struct {
		name string
		c    memory.Caller
		ks   service.KeyScope
		want string // "" for not found
	}{
		{"the room's", orgA, service.KeyScope{RoomID: "room-1"}, room.ID},
		{"the user's", orgA, service.KeyScope{UserID: "bob"}, bob.ID},
		{"visibility names one", orgA, service.KeyScope{Visibility: "user", UserID: "bob", RoomID: "room-1"}, bob.ID},
		{"shared when nothing is named", orgA, service.KeyScope{}, shared.ID},
		{"another room has none, the shared one is found", orgA, service.KeyScope{RoomID: "room-2"}, shared.ID},
		{"acting for Alice, Bob's is not found", alice, service.KeyScope{UserID: "bob"}, shared.ID},
		{"room visibility in another room", orgA, service.KeyScope{Visibility: "room", RoomID: "room-2"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := svc.GetByKey(ctx, tc.c, tc.ks, "k")
			switch {
			case tc.want == "" && !memory.IsNotFound(err):
				t.Fatalf("got %v, %v; want not found", m, err)
			case tc.want != "" && (err != nil || m.ID != tc.want):
				t.Fatalf("got %v, %v; want %s", m, err, tc.want)
			}
		})
	}
	// A put places the key where a create would: replacing Bob's keeps its id.
	again, created, err := svc.PutByKey(ctx, orgA, service.NewMemory{ExternalID: "k", Visibility: "user", UserID: "bob", Content: text("Bob's, again")}, service.PutCondition{})
	check(t, err)
	if created || again.ID != bob.ID {
		t.Fatalf("replace Bob's: created %v id %s, want %s", created, again.ID, bob.ID)
	}
}
