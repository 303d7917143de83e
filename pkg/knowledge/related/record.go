package related

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// decodeVectorRecord decodes a stored term vector (VectorKind). A large
// org's start-up reads a million of them: through encoding/json they took
// 5.6 s of CPU at a million memories (checking, unquoting and reflecting
// over every value), beside the searches of a process that had just
// started. The records are written by json.Marshal of a vectorRecord, so
// decodeWritten reads that exact form directly; anything else (escapes in
// a term, a store that rewrote the JSON) goes through encoding/json.
func decodeVectorRecord(b []byte, v *vectorRecord) error {
	if decodeWritten(b, v) {
		return nil
	}
	*v = vectorRecord{}
	return json.Unmarshal(b, v)
}

// decodeWritten decodes b when it has exactly the form json.Marshal gives
// a vectorRecord whose strings need no escape, and reports whether it did.
func decodeWritten(b []byte, v *vectorRecord) bool {
	rest, ok := bytes.CutPrefix(b, []byte(`{"term":`))
	if !ok {
		return false
	}
	term, rest, ok := plainString(rest)
	if !ok {
		return false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"model":`)); !ok {
		return false
	}
	model, rest, ok := plainString(rest)
	if !ok {
		return false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"scale":`)); !ok {
		return false
	}
	end := bytes.IndexByte(rest, ',')
	if end <= 0 || !plainNumber(rest[:end]) {
		return false
	}
	scale, err := strconv.ParseFloat(string(rest[:end]), 32)
	if err != nil {
		return false
	}
	if rest, ok = bytes.CutPrefix(rest[end:], []byte(`,"vec":`)); !ok {
		return false
	}
	enc, rest, ok := plainString(rest)
	if !ok || !bytes.Equal(rest, []byte("}")) {
		return false
	}
	vec := make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
	n, err := base64.StdEncoding.Decode(vec, enc)
	if err != nil {
		return false
	}
	*v = vectorRecord{Term: string(term), Model: string(model), Scale: float32(scale), Vec: vec[:n]}
	return true
}

// plainString reads a JSON string at the start of b that holds no escape
// and no control character, and returns its bytes and what follows it.
func plainString(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 {
		return nil, nil, false
	}
	s = b[1 : 1+end]
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			return nil, nil, false
		}
	}
	if !utf8.Valid(s) {
		return nil, nil, false
	}
	return s, b[2+end:], true
}

// plainNumber reports whether b is a number as JSON writes it: -?int
// frac? exp? (strconv accepts more: a sign, "Inf", hexadecimal, ".5").
func plainNumber(b []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	start := i
	if n := digits(); n == 0 || (n > 1 && b[start] == '0') {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}
