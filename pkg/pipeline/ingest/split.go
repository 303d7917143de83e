// Package ingest turns documents into memories: loaders extract text from
// files (txt, md, html, json, pdf, docx) and the splitter cuts it into
// overlapping fragments with their character offsets.
package ingest

import (
	"strings"
	"unicode"
)

// Chunk is one fragment of a text. Start and End are offsets in characters
// (runes) into the text, End exclusive.
type Chunk struct {
	Text       string
	Start, End int
	Position   int
}

// Splitter cuts text into chunks of at most Size characters, each starting
// Overlap characters (or fewer) before the previous one ended. It cuts at the
// best boundary inside the window, in order of preference: paragraph,
// line, sentence, word; only a text with none of them is cut at a
// character, and never inside one (it works on runes).
type Splitter struct {
	Size, Overlap int
}

// DefaultSplitter is 1,000 characters with 200 of overlap.
var DefaultSplitter = Splitter{Size: 1000, Overlap: 200}

// Split returns the chunks of text; an empty or blank text has none.
func (s Splitter) Split(text string) []Chunk { return s.split(text, -1) }

// split returns at most max chunks of text (all of them if max < 0).
func (s Splitter) split(text string, max int) []Chunk {
	size, overlap := s.Size, s.Overlap
	if size <= 0 { // the zero Splitter is the default one
		size, overlap = DefaultSplitter.Size, DefaultSplitter.Overlap
	}
	if overlap < 0 || overlap >= size {
		overlap = size / 5
	}
	rs := []rune(text)
	var out []Chunk
	start := skipSpace(rs, 0)
	for start < len(rs) && len(out) != max {
		end := len(rs)
		if end-start > size {
			end = cut(rs, start, start+size)
		}
		// Trim trailing white space from the chunk, keep offsets true.
		e := end
		for e > start && unicode.IsSpace(rs[e-1]) {
			e--
		}
		if e > start {
			out = append(out, Chunk{Text: string(rs[start:e]), Start: start, End: e, Position: len(out)})
		}
		if end >= len(rs) {
			break
		}
		next := end - overlap
		if next <= start {
			next = end
		}
		// Begin the overlap at a word start, never before the chunk's start.
		for next > start+1 && next < end && !unicode.IsSpace(rs[next-1]) {
			next++
		}
		start = skipSpace(rs, next)
	}
	return out
}

func skipSpace(rs []rune, i int) int {
	for i < len(rs) && unicode.IsSpace(rs[i]) {
		i++
	}
	return i
}

// cut returns where to end a chunk that starts at start and may reach max:
// the last paragraph break, line break, sentence end or space in the second
// half of the window, in that order of preference; else max.
func cut(rs []rune, start, max int) int {
	min := start + (max-start)/2
	window := string(rs[min:max])
	for _, sep := range []string{"\n\n", "\n", ". ", "! ", "? ", "; ", ", ", " "} {
		if i := strings.LastIndex(window, sep); i >= 0 {
			return min + len([]rune(window[:i+len(sep)]))
		}
	}
	return max
}
