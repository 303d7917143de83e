package memory

import (
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"acme", true},
		{"org-a.b_c9", true},
		{OrgScope, true}, // reserved as an agent by the callers, not by the rule
		{strings.Repeat("a", MaxNameLen), true},
		{"", false},
		{strings.Repeat("a", MaxNameLen+1), false},
		{"with space", false},
		{"a/b", false},
		{"é", false},
		{"tab\t", false},
		{".", false},
		{"..", false},
		{"...", true},
		{".hidden", true},
	}
	for _, tc := range tests {
		if got := ValidName(tc.name); got != tc.want {
			t.Errorf("ValidName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
