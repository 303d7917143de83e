package memory

import (
	"strings"
	"testing"
)

func TestIndexableTerm(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"ana", true}, {"東京", true}, {"zoë", true}, {"", false}, {"a\x01b", false}, {"tab\there", false},
		{"\xff", false}, {strings.Repeat("a", MaxTermBytes), true}, {strings.Repeat("a", MaxTermBytes+1), false},
	} {
		if got := IndexableTerm(c.s); got != c.ok {
			t.Errorf("IndexableTerm(%q) = %v, want %v", c.s, got, c.ok)
		}
	}
}
