package retrieval

import (
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

func TestDecompose(t *testing.T) {
	for _, c := range []struct {
		q      string
		spread bool
		subs   []string
	}{
		// Many answers: plural nouns after a wh-word, how many/often, what are, the present perfect, each of several.
		{"What sports does Priya play?", true, nil},
		{"Which towns has the band toured?", true, nil},
		{"What kinds of tea does Omar like?", true, nil},
		{"How many times did Lena call her sister?", true, nil},
		{"How often does Sam go running?", true, nil},
		{"What are Omar's favourite dishes?", true, nil},
		{"Where has Priya lived?", true, nil},
		{"What do Lena and Sam both collect?", true, nil},
		// One answer.
		{"What did Priya cook on Sunday?", false, nil},
		{"Where does Omar work?", false, nil},
		{"Who is Lena's manager?", false, nil},
		{"What is the name of Sam's cat?", false, nil},
		{"Is this a yes?", false, nil},
		// Joined by time: two parts.
		{"What did Omar do after the marathon?", false, []string{"What did Omar do", "the marathon"}},
		{"Where did Lena travel before her wedding?", false, []string{"Where did Lena travel", "her wedding"}},
		{"What cities has Priya visited since the move?", true, []string{"What cities has Priya visited", "the move"}},
		// Not a join: no noun phrase after the word, or too short a part.
		{"What did Sam do after?", false, nil},
		{"What happened after lunch?", false, nil},
	} {
		got := Decompose(c.q)
		if got.Spread != c.spread || !slices.Equal(got.Subs, c.subs) {
			t.Errorf("Decompose(%q) = %+v, want spread %v subs %q", c.q, got, c.spread, c.subs)
		}
	}
}

func TestBySession(t *testing.T) {
	hits := []memory.Hit{{ID: "a1"}, {ID: "a2"}, {ID: "b1"}, {ID: "a3"}, {ID: "x"}, {ID: "b2"}, {ID: "c1"}}
	session := map[string]string{"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B", "c1": "C"}
	var ids []string
	for _, h := range bySession(hits, session) {
		ids = append(ids, h.ID)
	}
	if want := []string{"a1", "b1", "x", "c1", "a2", "b2", "a3"}; !slices.Equal(ids, want) {
		t.Fatalf("bySession = %v, want %v", ids, want)
	}
}
