package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	para := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 10) // 450 chars
	doc := para + "\n\n" + para + "\n\n" + strings.Repeat("héllo wörld ", 60) + "\n" + strings.Repeat("x", 700)
	tests := []struct {
		name          string
		text          string
		size, overlap int
		minChunks     int
	}{
		{"empty", "", 100, 20, 0},
		{"blank", "  \n\t ", 100, 20, 0},
		{"short", "one sentence.", 100, 20, 1},
		{"paragraphs, accents, a long word", doc, 300, 60, 6},
		{"defaults", doc, 0, 0, 2},
		{"overlap larger than size is capped", doc, 200, 500, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Splitter{Size: tc.size, Overlap: tc.overlap}
			chunks := s.Split(tc.text)
			if len(chunks) < tc.minChunks || (tc.minChunks == 0 && len(chunks) != 0) {
				t.Fatalf("%d chunks, want at least %d", len(chunks), tc.minChunks)
			}
			rs := []rune(tc.text)
			size := tc.size
			if size == 0 {
				size = 1000
			}
			covered := 0
			for i, c := range chunks {
				n := utf8.RuneCountInString(c.Text)
				if n > size || n == 0 || !utf8.ValidString(c.Text) {
					t.Fatalf("chunk %d: %d characters (size %d), valid %v", i, n, size, utf8.ValidString(c.Text))
				}
				if string(rs[c.Start:c.End]) != c.Text || c.Position != i {
					t.Fatalf("chunk %d: offsets [%d,%d) do not give its text", i, c.Start, c.End)
				}
				if i > 0 {
					prev := chunks[i-1]
					if (c.Start > prev.End && strings.TrimSpace(string(rs[prev.End:c.Start])) != "") || c.Start <= prev.Start {
						t.Fatalf("chunk %d starts at %d, previous [%d,%d): a gap or no progress", i, c.Start, prev.Start, prev.End)
					}
				}
				covered = max(covered, c.End)
			}
			if len(chunks) > 0 && strings.TrimSpace(string(rs[covered:])) != "" {
				t.Fatalf("text after offset %d is not in any chunk", covered)
			}
		})
	}
	// Boundaries: with room for a paragraph, the cut falls on the paragraph break.
	chunks := Splitter{Size: 600, Overlap: 100}.Split(doc)
	if !strings.HasSuffix(chunks[0].Text, "lazy dog.") {
		t.Fatalf("first chunk does not end at the paragraph: %q", chunks[0].Text[len(chunks[0].Text)-30:])
	}
	// Overlap: the second chunk begins inside the first, at a word.
	if chunks[1].Start >= chunks[0].End || chunks[0].End-chunks[1].Start > 100 || strings.HasPrefix(chunks[1].Text, " ") {
		t.Fatalf("overlap: first [%d,%d), second starts %d with %q", chunks[0].Start, chunks[0].End, chunks[1].Start, chunks[1].Text[:10])
	}
}
