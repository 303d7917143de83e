package service_test

import (
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
)

// TestEntityList: a question that names one entity that memories are by
// ranks that entity's memories in the entity list, but not the turns in
// which it speaks of its listener, and one that names no entity, two of
// them, or an entity nobody is, gets none.
func TestEntityList(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "acme"}
	res, err := b.Service.Create(ctx, org, []service.NewMemory{
		{Type: memory.TypeMessage, EntityID: "Ana", RoomID: "s1", Content: memory.Content{Text: "I painted a sunrise over the lake last weekend"}},
		{Type: memory.TypeMessage, EntityID: "Bo", RoomID: "s1", Content: memory.Content{Text: "Wow Ana, what a painting! I love the lake colors"}},
		{Type: memory.TypeMessage, EntityID: "Ana", RoomID: "s2", Content: memory.Content{Text: "Signed up for a pottery class, it is like therapy"}},
		{Type: memory.TypeMessage, EntityID: "Bo", RoomID: "s2", Content: memory.Content{Text: "I went climbing and then fencing practice"}},
		{Type: memory.TypeMessage, EntityID: "Ana", RoomID: "s2", Content: memory.Content{Text: "Wow, you paint too? What gave you the idea for your lake painting?"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ana := []string{res[0].ID, res[2].ID} // not res[4]: Ana's turn about Bo's painting
	bo := []string{res[1].ID, res[3].ID}
	tests := []struct {
		query string
		want  []string // the list's ids, in any order
	}{
		{"What did Ana paint?", ana},
		{"What is Ana's hobby?", ana},
		{"Which sports has Bo tried?", bo},
		{"What did they paint?", nil},                                            // no name
		{"Did Ana and Bo paint together?", nil},                                  // two entities
		{"Did Ana and Bo both paint?", append(slices.Clone(ana), bo...)},         // asked of each: both lists
		{"What do Ana and Bo have in common?", append(slices.Clone(ana), bo...)}, // the same
		{"What did Carla paint at the lake?", nil},                               // nobody's entity
		{"what did ana paint?", nil},                                             // a name is capitalized
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			out, err := b.Service.Search(ctx, org, service.SearchRequest{Query: tc.query, Lists: []string{retrieval.ListEntity}, K: 5})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range out {
				got = append(got, r.Memory.ID)
			}
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("entity list %v, want %v", got, want)
			}
		})
	}
	// An agent's view: another agent's memories by the named entity stay
	// out of the list.
	x := memory.Caller{OrgID: "acme", AgentID: "x"}
	if _, err := b.Service.Create(ctx, memory.Caller{OrgID: "acme", AgentID: "y"}, []service.NewMemory{
		{Type: memory.TypeMessage, EntityID: "Dee", Content: memory.Content{Text: "Dee painted a private mural"}},
	}); err != nil {
		t.Fatal(err)
	}
	out, err := b.Service.Search(ctx, x, service.SearchRequest{Query: "What did Dee paint?", Lists: []string{retrieval.ListEntity}, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 0 {
		t.Fatalf("agent x sees agent y's memory through the entity list: %v", out[0].Memory.ID)
	}
}

func TestAddressesListener(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"What gave you the idea to paint it?", true},
		{"Wow, that's gorgeous! How does your art help you?", true},
		{"You’re amazing, and your kids too", true},                  // typographic apostrophe
		{"I painted that lake sunrise last year!", false},            // the speaker's own
		{"We love painting together, here's our latest work", false}, // we counts as the speaker
		{"Thanks! I made it for you, I hope you like it", false},     // two and two: not more
		{"Look at this sunset", false},                               // neither
		{"Youth groups and yourselves", true},                        // "youth" is not "you"
		{"", false},
	}
	for _, tc := range tests {
		if got := retrieval.AddressesListener(tc.text); got != tc.want {
			t.Errorf("AddressesListener(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"What did Melanie paint recently?", []string{"What", "Melanie"}},
		{"Is Caroline's necklace from Sweden?", []string{"Is", "Caroline", "Sweden"}},
		{"When did I meet \"Bo\"?", []string{"When", "Bo"}},
		{"A B C D", []string{"A", "B", "C"}},
		{"Ana, Ana and Ana", []string{"Ana"}},
		{"nothing here", nil},
	}
	for _, tc := range tests {
		if got := retrieval.Names(tc.text, retrieval.MaxEntityNames); !slices.Equal(got, tc.want) {
			t.Errorf("Names(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
