package offline

import (
	"strings"

	"github.com/agentmem/agentmem/pkg/text/en"
)

// vform is the inflection of a verb form.
type vform uint8

const (
	vNone  vform = iota
	vBase        // love, go
	v3sg         // loves, goes
	vPast        // loved, went, gone
	vIng         // loving, going
	vAmbig       // read, put, cut: base and past alike
)

// lemmaVerb returns the lemma and inflection of w (lower case) when it is
// a verb form the lexicon knows, or one with a regular ending whose stem
// it knows. guess also returns a best-effort lemma for unknown -ed/-ing/-s
// words, with known false.
func lemmaVerb(w string) (lemma string, f vform, known bool) {
	if l, ok := en.IrregularVerb(w); ok {
		if l == w && w != "born" {
			return w, vBase, true
		}
		if baseVerbs[w] && en.IrregularPast(w) {
			return l, vAmbig, true
		}
		return l, vPast, true
	}
	if baseVerbs[w] {
		return w, vBase, true
	}
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ing"):
		if l, ok := stemLookup(w[:n-3]); ok {
			return l, vIng, true
		}
		return guessStem(w[:n-3]), vIng, false
	case n > 3 && strings.HasSuffix(w, "ed"):
		if l, ok := stemLookup(w[:n-2]); ok {
			return l, vPast, true
		}
		if strings.HasSuffix(w, "ied") && n > 4 {
			return w[:n-3] + "y", vPast, false
		}
		return guessStem(w[:n-2]), vPast, false
	case n > 3 && strings.HasSuffix(w, "ies"):
		if l := w[:n-3] + "y"; baseVerbs[l] {
			return l, v3sg, true
		}
	case n > 3 && strings.HasSuffix(w, "es"):
		if l := w[:n-2]; baseVerbs[l] {
			return l, v3sg, true
		}
		if l := w[:n-1]; baseVerbs[l] {
			return l, v3sg, true
		}
		if l, ok := en.IrregularVerb(w[:n-2]); ok && l == w[:n-2] {
			return l, v3sg, true // goes, does
		}
	case n > 2 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		if l := w[:n-1]; baseVerbs[l] {
			return l, v3sg, true
		}
		if l, ok := en.IrregularVerb(w[:n-1]); ok && l == w[:n-1] {
			return l, v3sg, true
		}
	}
	return w, vNone, false
}

// stemLookup finds the base verb behind the stem of an -ed or -ing form:
// adopt(ed), mov(ed)+e, stopp(ed)-p, tri(ed)->try, ly(ing)->lie.
func stemLookup(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	if baseVerbs[s] {
		return s, true
	}
	if baseVerbs[s+"e"] {
		return s + "e", true
	}
	if n := len(s); n > 2 && s[n-1] == s[n-2] {
		if baseVerbs[s[:n-1]] {
			return s[:n-1], true
		}
	}
	if strings.HasSuffix(s, "i") && baseVerbs[s[:len(s)-1]+"y"] {
		return s[:len(s)-1] + "y", true
	}
	if strings.HasSuffix(s, "y") && baseVerbs[s[:len(s)-1]+"ie"] {
		return s[:len(s)-1] + "ie", true
	}
	if l, ok := en.IrregularVerb(s); ok && l == s {
		return s, true // go(ing), do(ing)
	}
	return "", false
}

// guessStem undoes a regular suffix on an unknown stem: danc -> dance,
// stopp -> stop.
func guessStem(s string) string {
	n := len(s)
	if n < 2 {
		return s
	}
	last, prev := s[n-1], s[n-2]
	switch {
	case last == prev && !strings.ContainsRune("lsfz", rune(last)):
		return s[:n-1]
	case strings.ContainsRune("vcz", rune(last)) || (last == 'u' && n > 2):
		return s + "e"
	case (last == 'g' || last == 's') && isVowel(prev) && n > 3:
		return s + "e"
	}
	return s
}

func isVowel(b byte) bool { return strings.IndexByte("aeiou", b) >= 0 }

// Forms returns the forms under which the extractor indexes word w (lower
// case): w itself, the lemma of a verb form it knows ("went" → "go"), and
// the singular of a plural noun ("sports" → "sport"). Query translation uses
// it so that a question's words meet the terms the extractor wrote.
func Forms(w string) []string {
	out := []string{w}
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	if l, _, known := lemmaVerb(w); known && l != "" {
		add(l)
	}
	if s := en.Singular(w); s != "" {
		add(s)
	}
	return out
}
