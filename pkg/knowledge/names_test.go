package knowledge_test

import (
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/registry"
	"github.com/agentmem/agentmem/pkg/service"
)

// TestSpeakersResolvedByTheRegistry: a speaker named by the entity's id
// or by a name in another case, and a mention by an alias, are one
// registered entity in the knowledge refs (its id, its display name) and
// one item of the entities list; names the registry does not know are
// kept as said.
func TestSpeakersResolvedByTheRegistry(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "o"}
	if _, err := b.Registry.CreateEntity(ctx, org, registry.NewEntity{ID: "u-bob", Names: []string{"Bob", "Robert"}}); err != nil {
		t.Fatal(err)
	}
	res, err := b.Service.Create(ctx, org, []service.NewMemory{
		say("u-bob", "I am allergic to peanuts", 1000),
		say("Alice", "Yesterday I met Robert in Lisbon", 2000),
		say("bob", "I tried fencing last weekend", 3000),
		say("Alice", "Yesterday I met Carol in Porto", 4000),
	})
	if err != nil {
		t.Fatal(err)
	}
	// entities returns the entity refs of memory id as name=id.
	entities := func(id string) []string {
		t.Helper()
		keys := make([]memory.RefKey, memory.MaxRefsPerMemory)
		for i := range keys {
			keys[i] = memory.RefKey{MemoryID: id, Ordinal: i}
		}
		refs, err := b.Store.Refs(ctx, "o", keys)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range refs {
			if r.Kind == memory.KnowledgeEntity {
				out = append(out, r.Entity.Name+"="+r.Entity.ID)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		memory  string
		want    []string // entity refs that must be there
		notWant []string
	}{
		{"the speaker by id", res[0].ID, []string{"Bob=u-bob"}, []string{"u-bob="}},
		{"a mention by an alias", res[1].ID, []string{"Bob=u-bob", "Alice="}, []string{"Robert="}},
		{"the speaker by a name in lower case", res[2].ID, []string{"Bob=u-bob"}, []string{"bob="}},
		{"names the registry does not know", res[3].ID, []string{"Alice=", "Carol="}, []string{"Bob=u-bob"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := entities(tc.memory)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Fatalf("entities %v, want %s among them", got, w)
				}
			}
			for _, w := range tc.notWant {
				if slices.Contains(got, w) {
					t.Fatalf("entities %v, want no %s", got, w)
				}
			}
		})
	}
	page, err := b.Knowledge.List(ctx, org, knowledge.ListRequest{Kind: memory.KnowledgeEntity, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]int{}
	for _, it := range page.Items {
		items[it.Name] = it.Memories
	}
	if items["bob"] != 3 || items["robert"] != 0 || items["u-bob"] != 0 {
		t.Fatalf("entities list %v: want bob in 3 memories, no robert, no u-bob", items)
	}
	// The knowledge search carries the id.
	found, err := b.Knowledge.Search(ctx, org, knowledge.SearchRequest{Text: "Bob"})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Entities) == 0 || found.Entities[0].ID != "u-bob" || found.Entities[0].Name != "Bob" {
		t.Fatalf("knowledge search for Bob: %+v", found.Entities)
	}
}
