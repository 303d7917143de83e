// Package wordpiece is BERT's uncased WordPiece tokenizer, as the
// BERT-based sentence encoders (bge, MiniLM) expect it: text cleaning, CJK
// characters split apart, lower case, accents stripped (NFD, marks
// dropped), punctuation split, then greedy longest-match-first WordPiece
// with "##" continuations, [UNK] for words that cannot be covered, and
// [CLS] ... [SEP] around the truncated sequence.
package wordpiece

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Tokenizer maps text to vocabulary ids. It is safe for concurrent use.
type Tokenizer struct {
	vocab              map[string]int32
	size               int // lines of the vocabulary file: ids are below it
	unk, cls, sep, pad int32
	maxWordChars       int
}

// maxVocab bounds the lines of a vocabulary file (BERT's has 30,522).
const maxVocab = 1 << 24

// Load reads a vocabulary file: one token per line, the line number is the
// id. A token on several lines takes the id of its last one, as BERT's
// reference tokenizers read the file; the other lines' ids stay in the
// vocabulary's range, so Size is the number of lines, the size of the
// model's embedding table, not the number of distinct tokens.
func Load(r io.Reader) (*Tokenizer, error) {
	t := &Tokenizer{vocab: map[string]int32{}, maxWordChars: 100}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if t.size == maxVocab {
			return nil, fmt.Errorf("wordpiece: vocabulary has more than %d lines", maxVocab)
		}
		t.vocab[strings.TrimRight(sc.Text(), "\r")] = int32(t.size)
		t.size++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordpiece: read vocabulary: %w", err)
	}
	for _, s := range []struct {
		name string
		dst  *int32
	}{{"[UNK]", &t.unk}, {"[CLS]", &t.cls}, {"[SEP]", &t.sep}, {"[PAD]", &t.pad}} {
		v, ok := t.vocab[s.name]
		if !ok {
			return nil, fmt.Errorf("wordpiece: vocabulary has no %s token", s.name)
		}
		*s.dst = v
	}
	return t, nil
}

// Size is the number of ids of the vocabulary (its lines): every id Encode
// returns is below it.
func (t *Tokenizer) Size() int { return t.size }

// Pad is the id of [PAD].
func (t *Tokenizer) Pad() int32 { return t.pad }

// Encode returns [CLS] + the text's word pieces + [SEP], truncated to at most
// maxLen ids in all.
func (t *Tokenizer) Encode(text string, maxLen int) []int32 {
	ids := []int32{t.cls}
	for _, word := range basic(text) {
		for _, id := range t.pieces(word) {
			if len(ids) == maxLen-1 {
				return append(ids, t.sep)
			}
			ids = append(ids, id)
		}
	}
	return append(ids, t.sep)
}

// pieces splits one word greedily into the longest vocabulary pieces.
func (t *Tokenizer) pieces(word string) []int32 {
	rs := []rune(word)
	if len(rs) > t.maxWordChars {
		return []int32{t.unk}
	}
	var out []int32
	for start := 0; start < len(rs); {
		end := len(rs)
		found := int32(-1)
		for end > start {
			sub := string(rs[start:end])
			if start > 0 {
				sub = "##" + sub
			}
			if id, ok := t.vocab[sub]; ok {
				found = id
				break
			}
			end--
		}
		if found < 0 {
			return []int32{t.unk}
		}
		out = append(out, found)
		start = end
	}
	return out
}

// basic is BERT's BasicTokenizer with lower casing: it returns the words and
// punctuation marks of text.
func basic(text string) []string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == 0 || r == 0xFFFD || (isControl(r)):
			continue
		case isWhitespace(r):
			b.WriteByte(' ')
		case isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	var out []string
	for _, tok := range strings.Fields(b.String()) {
		tok = stripAccents(strings.ToLower(tok))
		start := 0
		rs := []rune(tok)
		for i, r := range rs {
			if isPunct(r) {
				if i > start {
					out = append(out, string(rs[start:i]))
				}
				out = append(out, string(r))
				start = i + 1
			}
		}
		if start < len(rs) {
			out = append(out, string(rs[start:]))
		}
	}
	return out
}

func stripAccents(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isWhitespace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r)
}

func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf)
}

func isPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return unicode.IsPunct(r)
}

func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) || (r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}
