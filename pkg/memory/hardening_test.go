package memory

import (
	"strings"
	"testing"
)

func TestBlank(t *testing.T) {
	for _, tc := range []struct {
		in    string
		blank bool
	}{
		{"", true},
		{" \t\n", true},
		{"\x00\x00", true},
		{"\u200b\u200c\u200d\u2060\ufeff", true},
		{"\u202e\u200e\u00ad", true},
		{"\u3164\u115f\u2800", true},
		{"a", false},
		{"\x00a\u200b", false},
		{"日本", false},
	} {
		if got := Blank(tc.in); got != tc.blank {
			t.Errorf("Blank(%q) = %v, want %v", tc.in, got, tc.blank)
		}
	}
}

func TestValidTime(t *testing.T) {
	for _, tc := range []struct {
		ms int64
		ok bool
	}{{0, true}, {1, true}, {MaxTime, true}, {MaxTime + 1, false}, {-1, false}, {1<<63 - 1, false}} {
		err := ValidTime("createdAt", tc.ms)
		if (err == nil) != tc.ok || err != nil && !strings.HasPrefix(ErrorMessage(err), "createdAt:") {
			t.Errorf("ValidTime(%d) = %v, want ok=%v", tc.ms, err, tc.ok)
		}
	}
}

func TestValidDocumentName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"a.md", true},
		{"guides/setup.md", true},
		{"日本語.txt", true},
		{"", false},
		{"../a.md", false},
		{"a/../b.md", false},
		{"a//b.md", false},
		{"./a.md", false},
		{"/a.md", false},
		{"a\x01.md", false},
		{"a\n.md", false},
		{"a\u200b.md", false},
		{"a\u202e.md", false},
		{"\xff.md", false},
		{strings.Repeat("a", MaxDocumentNameLen+1), false},
	} {
		err := ValidDocumentName("name", tc.name)
		if (err == nil) != tc.ok || err != nil && (ErrorCode(err) != EINVALID || !strings.HasPrefix(ErrorMessage(err), "name:")) {
			t.Errorf("ValidDocumentName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
