package ingest

import (
	"fmt"
	"strconv"
)

// This file is a PDF lexer that reads tokens and objects exactly as
// github.com/ledongthuc/pdf's does (its lex.go), quirks included, so that
// the structural checks in pdfcheck.go see the file as the library will.
// It has two modes, as the library's buffer: file mode (objects in the
// file: the end of the data is an error, "N G R" is a reference, a
// dictionary may start a stream) and PostScript mode (content streams and
// character maps: the end of the data is a token, numbers stay numbers).

// PDF syntax objects, as the library's: nil, bool, int64, float64,
// pdfString, pdfName, pdfKeyword (tokens only), pdfArray, pdfDict, pdfRef,
// *pdfStream, pdfObjdef, pdfEOF.
type (
	pdfName    string
	pdfKeyword string
	pdfString  int // a string; only its length matters here
	pdfArray   []any
	pdfDict    map[pdfName]any
	pdfRef     struct {
		id  uint32
		gen uint16
	}
	pdfStream struct {
		hdr pdfDict
		off int // offset of the stream's data in the file
	}
	pdfObjdef struct {
		ref pdfRef
		obj any
	}
	pdfEOF struct{}
)

// pdfMaxObjectDepth is the library's maxObjectDepth.
const pdfMaxObjectDepth = 1000

// pdfSyntaxError is a parse error: the library panics there too, and
// recovers (a broken file, not a hazard).
type pdfSyntaxError struct{ msg string }

func (e pdfSyntaxError) Error() string { return e.msg }

// pdfHazard is input on which the library would loop forever or allocate
// without bound: the file is refused.
type pdfHazard struct{ msg string }

func (e pdfHazard) Error() string { return e.msg }

type pdfLexer struct {
	data   []byte
	pos    int
	eof    bool // PostScript mode: a read went past the end
	ps     bool
	unread []any
	depth  int
	tokens int // tokens read, for the operand count
}

func newPDFLexer(data []byte, pos int, ps bool) *pdfLexer {
	return &pdfLexer{data: data, pos: pos, ps: ps}
}

func (l *pdfLexer) errorf(format string, args ...any) {
	panic(pdfSyntaxError{fmt.Sprintf(format, args...)})
}

// readByte returns the next byte; past the end it fails in file mode and
// returns '\n' for ever in PostScript mode, as the library's.
func (l *pdfLexer) readByte() byte {
	if l.pos >= len(l.data) || l.pos < 0 {
		if !l.ps {
			l.errorf("unexpected end of data at offset %d", l.pos)
		}
		l.eof = true
		return '\n'
	}
	c := l.data[l.pos]
	l.pos++
	return c
}

func (l *pdfLexer) unreadByte() {
	if !l.eof && l.pos > 0 {
		l.pos--
	}
}

func (l *pdfLexer) unreadToken(t any) { l.unread = append(l.unread, t) }

func pdfIsSpace(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ':
		return true
	}
	return false
}

func pdfIsDelim(c byte) bool {
	switch c {
	case '<', '>', '(', ')', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *pdfLexer) readToken() any {
	if n := len(l.unread); n > 0 {
		t := l.unread[n-1]
		l.unread = l.unread[:n-1]
		return t
	}
	l.tokens++
	c := l.readByte()
	for {
		if pdfIsSpace(c) {
			if l.eof {
				return pdfEOF{}
			}
			c = l.readByte()
		} else if c == '%' {
			for c != '\r' && c != '\n' {
				c = l.readByte()
			}
		} else {
			break
		}
	}
	switch c {
	case '<':
		if l.readByte() == '<' {
			return pdfKeyword("<<")
		}
		l.unreadByte()
		return l.readHexString()
	case '(':
		return l.readLiteralString()
	case '[', ']', '{', '}':
		return pdfKeyword(string(c))
	case '/':
		return l.readName()
	case '>':
		if l.readByte() == '>' {
			return pdfKeyword(">>")
		}
		l.unreadByte()
	}
	if pdfIsDelim(c) {
		l.errorf("unexpected delimiter %q", c)
	}
	l.unreadByte()
	return l.readKeyword()
}

func pdfUnhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c) - '0'
	case 'a' <= c && c <= 'f':
		return int(c) - 'a' + 10
	case 'A' <= c && c <= 'F':
		return int(c) - 'A' + 10
	}
	return -1
}

// readHexString reads <...>. At the end of a PostScript stream the
// library's loop skips the '\n' it reads there as white space, for ever:
// that is a hazard.
func (l *pdfLexer) readHexString() any {
	n := 0
	for {
		c := l.readByte()
		for pdfIsSpace(c) {
			if l.eof {
				panic(pdfHazard{"an unterminated hex string at the end of a stream"})
			}
			c = l.readByte()
		}
		if c == '>' {
			break
		}
		c2 := l.readByte()
		for pdfIsSpace(c2) {
			if l.eof {
				panic(pdfHazard{"an unterminated hex string at the end of a stream"})
			}
			c2 = l.readByte()
		}
		if pdfUnhex(c)<<4|pdfUnhex(c2) < 0 {
			l.errorf("malformed hex string")
		}
		n++
	}
	return pdfString(n)
}

func (l *pdfLexer) readLiteralString() any {
	n := 0
	depth := 1
Loop:
	for !l.eof {
		c := l.readByte()
		switch c {
		default:
			n++
		case '(':
			depth++
			n++
		case ')':
			if depth--; depth == 0 {
				break Loop
			}
			n++
		case '\\':
			switch c = l.readByte(); c {
			default:
				l.errorf("invalid escape sequence \\%c", c)
			case 'n', 'r', 'b', 't', 'f', '(', ')', '\\':
				n++
			case '\r':
				if l.readByte() != '\n' {
					l.unreadByte()
				}
			case '\n':
			case '0', '1', '2', '3', '4', '5', '6', '7':
				x := int(c - '0')
				for i := 0; i < 2; i++ {
					c = l.readByte()
					if c < '0' || c > '7' {
						l.unreadByte()
						break
					}
					x = x*8 + int(c-'0')
				}
				if x > 255 {
					l.errorf("invalid octal escape \\%03o", x)
				}
				n++
			}
		}
	}
	return pdfString(n)
}

func (l *pdfLexer) readName() any {
	var b []byte
	for {
		c := l.readByte()
		if pdfIsDelim(c) || pdfIsSpace(c) {
			l.unreadByte()
			break
		}
		if c == '#' {
			x := pdfUnhex(l.readByte())<<4 | pdfUnhex(l.readByte())
			if x < 0 {
				l.errorf("malformed name")
			}
			b = append(b, byte(x))
			continue
		}
		b = append(b, c)
	}
	return pdfName(b)
}

func (l *pdfLexer) readKeyword() any {
	start := l.pos
	for {
		c := l.readByte()
		if pdfIsDelim(c) || pdfIsSpace(c) {
			l.unreadByte()
			break
		}
	}
	end := min(l.pos, len(l.data))
	if l.eof {
		end = len(l.data)
	}
	s := string(l.data[start:end])
	switch {
	case s == "true":
		return true
	case s == "false":
		return false
	case pdfIsInteger(s):
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			l.errorf("invalid integer %s", s)
		}
		return x
	case pdfIsReal(s):
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			l.errorf("invalid real %s", s)
		}
		return x
	}
	return pdfKeyword(s)
}

func pdfIsInteger(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func pdfIsReal(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	dots := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			dots++
			continue
		}
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return dots == 1
}

// readObject reads one object, as the library's buffer.readObject.
func (l *pdfLexer) readObject() any {
	l.depth++
	defer func() { l.depth-- }()
	if l.depth > pdfMaxObjectDepth {
		l.errorf("object nesting exceeds maximum depth %d", pdfMaxObjectDepth)
	}
	tok := l.readToken()
	if kw, ok := tok.(pdfKeyword); ok {
		switch kw {
		case "null", ">>", "]":
			return nil
		case "<<":
			return l.readDict()
		case "[":
			return l.readArray()
		}
		l.errorf("unexpected keyword %q parsing object", kw)
	}
	if l.ps {
		return tok
	}
	if t1, ok := tok.(int64); ok && int64(uint32(t1)) == t1 {
		tok2 := l.readToken()
		if t2, ok := tok2.(int64); ok && int64(uint16(t2)) == t2 {
			tok3 := l.readToken()
			switch tok3 {
			case pdfKeyword("R"):
				return pdfRef{uint32(t1), uint16(t2)}
			case pdfKeyword("obj"):
				obj := l.readObject()
				if _, ok := obj.(*pdfStream); !ok {
					if tok4 := l.readToken(); tok4 != pdfKeyword("endobj") {
						l.errorf("missing endobj after indirect object definition")
					}
				}
				return pdfObjdef{pdfRef{uint32(t1), uint16(t2)}, obj}
			}
			l.unreadToken(tok3)
		}
		l.unreadToken(tok2)
	}
	return tok
}

func (l *pdfLexer) readArray() any {
	var x pdfArray
	for {
		tok := l.readToken()
		if tok == (pdfEOF{}) || tok == pdfKeyword("]") {
			break
		}
		l.unreadToken(tok)
		x = append(x, l.readObject())
	}
	return x
}

func (l *pdfLexer) readDict() any {
	x := pdfDict{}
	for {
		tok := l.readToken()
		if tok == pdfKeyword(">>") || tok == (pdfEOF{}) {
			break
		}
		n, ok := tok.(pdfName)
		if !ok {
			l.errorf("unexpected non-name key %v parsing dictionary", tok)
		}
		x[n] = l.readObject()
	}
	if l.ps {
		return x
	}
	tok := l.readToken()
	if tok != pdfKeyword("stream") {
		l.unreadToken(tok)
		return x
	}
	switch l.readByte() {
	case '\r':
		if l.readByte() != '\n' {
			l.unreadByte()
		}
	case '\n':
	default:
		l.errorf("stream keyword not followed by newline")
	}
	return &pdfStream{hdr: x, off: l.pos}
}
