package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tkind is what a token is.
type tkind uint8

const (
	tWord  tkind = iota
	tNum         // 32, 3.5, 1,000
	tPunct       // one punctuation or symbol rune, or an emoji
	tQuote       // " “ ” ‘ ’ « » and ' used as a quote
	tURL         // a URL, e-mail address, @mention or #hashtag: skipped
)

// token is a word, number or mark of the text, with its byte range. Low is
// its lower-case form with clitics expanded ("n't" -> "not", "'m" -> "am",
// "'ll" -> "will", "'re" -> "are", "'ve" -> "have"; "'s" and "'d" stay).
type token struct {
	text       string
	low        string
	start, end int
	kind       tkind
	cap        bool // starts with an upper-case letter
	allCaps    bool // two or more letters, all upper case
	nlBefore   bool // a line break precedes it
	num        float64
}

var cliticLow = map[string]string{"n't": "not", "'m": "am", "'re": "are", "'ve": "have", "'ll": "will",
	"'s": "'s", "'d": "'d"}

// tokenize splits text into tokens. It accepts any string, including
// invalid UTF-8 (invalid bytes become punctuation tokens).
func tokenize(text string) []token {
	toks := make([]token, 0, len(text)/4+1)
	nl := false
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n' || r == '\r':
			nl = true
			i += size
			continue
		case unicode.IsSpace(r):
			i += size
			continue
		}
		start := i
		switch {
		case isURLStart(text[i:]):
			j := i
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if unicode.IsSpace(r2) {
					break
				}
				j += s2
			}
			toks = append(toks, token{text: text[i:j], low: "", start: i, end: j, kind: tURL, nlBefore: nl})
			i = j
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			j := scanWord(text, i)
			toks = appendWord(toks, text, i, j, nl)
			i = j
		default:
			k := tPunct
			switch r {
			case '"', '“', '”', '«', '»', '‘', '’', '\'', '`':
				k = tQuote
			}
			if r == utf8.RuneError && size <= 1 {
				size = 1
			}
			toks = append(toks, token{text: text[i : i+size], low: text[i : i+size], start: i, end: i + size, kind: k, nlBefore: nl})
			i += size
		}
		_ = start
		nl = false
	}
	return toks
}

func isURLStart(s string) bool {
	if len(s) > 8 && (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) {
		return true
	}
	if len(s) > 4 && strings.HasPrefix(s, "www.") {
		return true
	}
	if len(s) > 1 && (s[0] == '@' || s[0] == '#') {
		r, _ := utf8.DecodeRuneInString(s[1:])
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return false
}

// scanWord returns the end of the word starting at i: letters, digits and
// marks, joined by inner apostrophes, hyphens, periods (U.S., 3.5, e.g.)
// or commas between digits (1,000). An address with @ is one word.
func scanWord(text string, i int) int {
	j := i
	for j < len(text) {
		r, s := utf8.DecodeRuneInString(text[j:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			j += s
			continue
		}
		if j+s < len(text) && (r == '\'' || r == '’' || r == '-' || r == '.' || r == ',' || r == '@' || r == '&') {
			next, _ := utf8.DecodeRuneInString(text[j+s:])
			prev, _ := utf8.DecodeLastRuneInString(text[i:j])
			ok := false
			switch r {
			case '\'', '’', '-', '@':
				ok = unicode.IsLetter(next) || unicode.IsDigit(next)
			case '&':
				ok = unicode.IsUpper(prev) && unicode.IsUpper(next) // AT&T
			case '.':
				// 3.5, U.S., e.g. — a period between two letters or digits of
				// short parts only, so that "end.Next" stays two words.
				ok = (unicode.IsDigit(prev) && unicode.IsDigit(next)) ||
					(unicode.IsLetter(next) && j-lastBreak(text, i, j) <= 1 && unicode.IsLetter(prev))
			case ',':
				ok = unicode.IsDigit(prev) && unicode.IsDigit(next) && j+s+3 <= len(text) &&
					allDigits(text[j+s:j+s+3]) && (j+s+3 == len(text) || !isDigitByte(text[j+s+3]))
			}
			if ok {
				j += s
				continue
			}
		}
		break
	}
	if j == i { // a lone mark
		_, s := utf8.DecodeRuneInString(text[i:])
		j = i + s
	}
	return j
}

// lastBreak returns the start of the last part of text[i:j] after a period.
func lastBreak(text string, i, j int) int {
	k := strings.LastIndexByte(text[i:j], '.')
	if k < 0 {
		return i
	}
	return i + k + 1
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigitByte(s[i]) {
			return false
		}
	}
	return s != ""
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

// appendWord appends the word text[i:j], split into its stem and clitics,
// and numbers with glued units split ("5km" -> "5" "km").
func appendWord(toks []token, text string, i, j int, nl bool) []token {
	w := text[i:j]
	// clitics: find a final apostrophe clitic.
	if a := strings.LastIndexAny(w, "'’"); a > 0 {
		suf := strings.ToLower(strings.ReplaceAll(w[a:], "’", "'"))
		stemEnd := i + a
		if suf == "'t" && (strings.HasSuffix(strings.ToLower(w[:a]), "n")) {
			suf = "n't"
			stemEnd--
		}
		if low, ok := cliticLow[suf]; ok && stemEnd > i {
			stem := text[i:stemEnd]
			switch strings.ToLower(stem) {
			case "ca":
				toks = appendPlain(toks, text, i, stemEnd, nl, "can")
			case "wo":
				toks = appendPlain(toks, text, i, stemEnd, nl, "will")
			case "ai":
				toks = appendPlain(toks, text, i, stemEnd, nl, "is")
			case "sha":
				toks = appendPlain(toks, text, i, stemEnd, nl, "shall")
			default:
				toks = appendPlain(toks, text, i, stemEnd, nl, "")
			}
			return append(toks, token{text: text[stemEnd:j], low: low, start: stemEnd, end: j, kind: tWord})
		}
	}
	// numbers with units glued on: 5km, 3pm, 10k.
	if d := digitPrefix(w); d > 0 && d < len(w) {
		rest := strings.ToLower(w[d:])
		if _, ok := units[rest]; ok || rest == "am" || rest == "pm" {
			toks = appendPlain(toks, text, i, i+d, nl, "")
			return appendPlain(toks, text, i+d, j, false, "")
		}
	}
	return appendPlain(toks, text, i, j, nl, "")
}

func digitPrefix(w string) int {
	n := 0
	for n < len(w) && (isDigitByte(w[n]) || (n > 0 && w[n] == '.' && n+1 < len(w) && isDigitByte(w[n+1]))) {
		n++
	}
	return n
}

func appendPlain(toks []token, text string, i, j int, nl bool, low string) []token {
	w := text[i:j]
	t := token{text: w, start: i, end: j, kind: tWord, nlBefore: nl}
	if low == "" {
		low = strings.ToLower(w)
	}
	t.low = low
	r, _ := utf8.DecodeRuneInString(w)
	t.cap = unicode.IsUpper(r)
	letters, upper := 0, 0
	for _, c := range w {
		if unicode.IsLetter(c) {
			letters++
			if unicode.IsUpper(c) {
				upper++
			}
		}
	}
	t.allCaps = letters >= 2 && upper == letters
	if v, ok := parseNumber(w); ok {
		t.kind, t.num = tNum, v
	}
	return append(toks, t)
}

// parseNumber reads 32, 3.5 and 1,000.
func parseNumber(w string) (float64, bool) {
	if w == "" || !isDigitByte(w[0]) {
		return 0, false
	}
	var v, frac float64
	scale := 0.0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case isDigitByte(c):
			if scale > 0 {
				frac += float64(c-'0') / scale
				scale *= 10
			} else {
				v = v*10 + float64(c-'0')
			}
		case c == ',' && scale == 0:
		case c == '.' && scale == 0:
			scale = 10
		default:
			return 0, false
		}
	}
	return v + frac, true
}

// sentence is a span of tokens [from, to) ending at ., !, ? or a line break.
type sentence struct {
	from, to int
	question bool
}

// splitSentences splits toks into sentences.
func splitSentences(toks []token) []sentence {
	var out []sentence
	from := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.nlBefore && i > from {
			out = append(out, sentence{from: from, to: i})
			from = i
		}
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case ".", "!", "?", "…", ";":
		default:
			continue
		}
		if t.text == "." && i > from && abbreviations[toks[i-1].low] && toks[i-1].end == t.start {
			continue // Mr. Dr. St.
		}
		end := i + 1
		q := t.text == "?"
		for end < len(toks) && toks[end].kind == tPunct && strings.Contains(".!?…", toks[end].text) {
			q = q || toks[end].text == "?"
			end++
		}
		// a closing quote belongs to the sentence it closes.
		for end < len(toks) && toks[end].kind == tQuote && toks[end].start == toks[end-1].end {
			end++
		}
		out = append(out, sentence{from: from, to: end, question: q})
		from = end
		i = end - 1
	}
	if from < len(toks) {
		out = append(out, sentence{from: from, to: len(toks)})
	}
	return out
}
