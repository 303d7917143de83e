package memory_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

func TestEntityNamesResolve(t *testing.T) {
	bob := &memory.EntityProfile{ID: "u-bob", Names: []string{"Bob", "Robert"}}
	kim := &memory.EntityProfile{ID: "u-kim", Names: []string{"Kim"}}
	kim2 := &memory.EntityProfile{ID: "u-kim2", Names: []string{"kim"}}
	xAna := &memory.EntityProfile{ID: "x-ana", AgentID: "x", Names: []string{"Ana"}}
	orgAna := &memory.EntityProfile{ID: "ana", Names: []string{"Ana", "Anabel"}}
	n := memory.NewEntityNames([]*memory.EntityProfile{bob, kim, kim2, xAna, orgAna})
	for _, tc := range []struct {
		name, agent string
		want        *memory.EntityProfile
	}{
		{"Bob", "", bob},
		{"bob", "", bob},
		{"  ROBERT ", "", bob},
		{"u-bob", "", bob},
		{"U-BOB", "", nil}, // ids are exact
		{"Kim", "", nil},   // two entities: neither
		{"Ana", "", orgAna},
		{"Ana", "x", xAna},      // the agent's own wins
		{"Anabel", "x", orgAna}, // org-wide names still count
		{"x-ana", "y", nil},     // another agent's entity
		{"Alice", "", nil},
		{"", "", nil},
	} {
		if got := n.Resolve(tc.name, tc.agent); got != tc.want {
			t.Errorf("Resolve(%q, %q) = %v, want %v", tc.name, tc.agent, got, tc.want)
		}
	}
	var none *memory.EntityNames
	if none.Resolve("Bob", "") != nil || none.Len() != 0 {
		t.Fatal("a nil table resolves")
	}
	if bob.DisplayName() != "Bob" || (&memory.EntityProfile{ID: "z"}).DisplayName() != "z" {
		t.Fatal("display name")
	}
}
