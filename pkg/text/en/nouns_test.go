package en_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/text/en"
)

// TestSingular: the nouns' singular that knowledge is indexed under and
// that the query translators look terms up with.
func TestSingular(t *testing.T) {
	for in, want := range map[string]string{"sports": "sport", "cities": "city", "people": "person", "books": "book",
		"boxes": "box", "classes": "class", "bus": "bus", "physics": "physics", "kids": "kid", "dog": "dog",
		"children": "child", "churches": "church"} {
		if got := en.Singular(in); got != want {
			t.Errorf("Singular(%q) = %q, want %q", in, got, want)
		}
	}
}
