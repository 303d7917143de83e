package opensearch_test

import (
	"reflect"
	"testing"

	"github.com/agentmem/agentmem/pkg/index/opensearch"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// TestScoresLeakNothingAcrossOrgs: another org's memories on the same
// shard change no score either (OpenSearch's statistics span the shard).
func TestScoresLeakNothingAcrossOrgs(t *testing.T) {
	ix := newIndex(t, 64)
	mine := memorytest.Corpus(memorytest.OrgA, 40)
	if err := ix.Upsert(ctx, mine); err != nil {
		t.Fatal(err)
	}
	q := memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA}, Text: "violin trip memo", K: 40}
	before, err := ix.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var theirs []*memory.Memory
	for i := range 30 {
		theirs = append(theirs, memorytest.New(memorytest.OrgB, "", memory.TypeCustom, "violin violin trip", memorytest.Base+int64(i)))
	}
	if err := ix.Upsert(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	after, err := ix.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Keyword) == 0 || !reflect.DeepEqual(before.Keyword, after.Keyword) {
		t.Fatalf("org b's memories change org a's scores:\n%v\n%v", before.Keyword, after.Keyword)
	}
}

// TestEnsureUpgradesSchema2: an index made before visibilities keeps
// working: Ensure adds the visibility fields in place, its old documents
// read as having no audience and no world, and new ones are filtered by
// theirs (keyword scores stay OpenSearch's until the reindex).
func TestEnsureUpgradesSchema2(t *testing.T) {
	ix, err := opensearch.New(opensearch.Config{URLs: []string{nodeURL(t)}, Alias: randomName("test"), Dimensions: 64, RefreshOnWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.DeleteAll(ctx) })
	if err := opensearch.CreateSchema2(ctx, ix); err != nil {
		t.Fatal(err)
	}
	old := memorytest.New(memorytest.OrgA, "", memory.TypeCustom, "an old memo about the violin", memorytest.Base)
	if err := opensearch.WriteSchema2(ctx, ix, old); err != nil {
		t.Fatal(err)
	}
	room := memorytest.New(memorytest.OrgA, "", memory.TypeMessage, "a room memo", memorytest.Base+1)
	room.Visibility, room.RoomID, room.WorldID = memory.VisibilityRoom, "room-1", memorytest.World1
	if err := ix.Upsert(ctx, []*memory.Memory{room}); err == nil {
		t.Fatal("a schema 2 index took a document with an audience before Ensure: the test does not reproduce the old mapping")
	}
	if created, err := ix.Ensure(ctx); err != nil || created {
		t.Fatalf("Ensure on a schema 2 index: created=%v %v", created, err)
	}
	user := memorytest.New(memorytest.OrgA, "", memory.TypeFact, "a memo of u1", memorytest.Base+2)
	user.Visibility, user.UserID = memory.VisibilityUser, memorytest.UserU1
	if err := ix.Upsert(ctx, []*memory.Memory{room, user}); err != nil {
		t.Fatal(err)
	}
	all := []*memory.Memory{old, room, user}
	for _, f := range []memory.Filter{
		{}, {Audiences: []string{}}, {Audiences: []string{memory.RoomAudience("room-1")}},
		{Audiences: []string{memory.UserAudience(memorytest.UserU1)}}, {WorldID: memorytest.World1},
	} {
		f.OrgID = memorytest.OrgA
		r, err := ix.Search(ctx, memory.IndexQuery{Filter: f, Text: "memo", Vector: memorytest.Embed("memo"), K: 10})
		if err != nil {
			t.Fatal(err)
		}
		want := memorytest.Expect(all, f)
		if got := hits(r.Keyword); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v keyword: %v, want %v", f, got, want)
		}
		if got := hits(r.Semantic); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v semantic: %v, want %v", f, got, want)
		}
	}
}

func hits(hs []memory.Hit) map[string]bool {
	out := map[string]bool{}
	for _, h := range hs {
		out[h.ID] = true
	}
	return out
}
