package en

import "strings"

// Lemma's rules: the table of irregular verbs (verbs.go) with the forms of
// be, have, do, go and a few verbs whose -ing or -s form the endings below
// would get wrong, then the regular -ing, -ed and -s endings with the usual
// spelling repairs (doubled consonants, a dropped final e, y to ie). It
// knows no list of base verbs; the offline knowledge extractor, which
// does, indexes the same lemmas on common verbs (a test there checks it).

// lemmaIrregular maps irregular verb forms to their base, each base to
// itself.
var lemmaIrregular = map[string]string{}

// baseEd and baseIng are base verbs that look inflected.
var (
	baseEd  = set(`need feed seed bleed breed speed exceed succeed proceed heed weed shed wed embed shred`)
	baseIng = set(`bring sing ring sting swing string cling spring sling wring king thing`)
)

func set(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

func init() {
	for w, base := range irregularBase {
		lemmaIrregular[w] = base
	}
	for _, w := range []string{"is", "am", "are", "'s", "'re", "'m"} {
		lemmaIrregular[w] = "be"
	}
	lemmaIrregular["has"], lemmaIrregular["'ve"], lemmaIrregular["having"] = "have", "have", "have"
	lemmaIrregular["does"], lemmaIrregular["goes"] = "do", "go"
	lemmaIrregular["doing"], lemmaIrregular["going"], lemmaIrregular["being"] = "do", "go", "be"
	lemmaIrregular["dying"], lemmaIrregular["lying"], lemmaIrregular["tying"] = "die", "lie", "tie"
	lemmaIrregular["used"], lemmaIrregular["using"], lemmaIrregular["uses"] = "use", "use", "use"
	lemmaIrregular["skied"], lemmaIrregular["skiing"], lemmaIrregular["skis"] = "ski", "ski", "ski"
}

// Lemma returns the base form of an English verb given in lower case
// ("moved" → "move", "went" → "go", "studying" → "study", "picked up" →
// "pick up": only the first word of a phrasal verb changes). Words it does
// not recognize as inflected come back unchanged, and Lemma(Lemma(w)) ==
// Lemma(w).
func Lemma(verb string) string {
	head, rest, found := strings.Cut(verb, " ")
	l := head
	for range 4 { // each step shortens the word or stops: a fixed point
		n, _ := LemmaOnce(l)
		if n == l {
			break
		}
		l = n
	}
	if found {
		return l + " " + rest
	}
	return l
}

// Inflected reports whether w is an inflected verb form Lemma changes: an
// irregular form, or a regular -ing or -ed ending. Third-person -s is not
// counted, since the plural of a noun looks the same.
func Inflected(w string) bool {
	l, suffix := LemmaOnce(w)
	return l != w && suffix != "s"
}

// LemmaOnce undoes one inflection of w and says which ("irregular",
// "ing", "ed", "s"), or returns w and "".
func LemmaOnce(w string) (string, string) {
	if l, ok := lemmaIrregular[w]; ok {
		return l, "irregular"
	}
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ing") && !baseIng[w] && hasVowel(w[:n-3]):
		return restoreStem(w[:n-3]), "ing"
	case n > 3 && strings.HasSuffix(w, "eed") && !baseEd[w]:
		return w[:n-1], "ed" // agreed, freed
	case n > 4 && strings.HasSuffix(w, "ied"):
		return w[:n-3] + "y", "ed"
	case n > 3 && strings.HasSuffix(w, "ed") && !baseEd[w] && hasVowel(w[:n-2]):
		return restoreStem(w[:n-2]), "ed"
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y", "s"
	case n > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") ||
		strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes") || strings.HasSuffix(w, "oes")):
		return w[:n-2], "s"
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") &&
		!strings.HasSuffix(w, "is"):
		return w[:n-1], "s"
	}
	return w, ""
}

// restoreStem undoes the spelling change of a regular ending on stem s:
// stopp → stop, travell → travel, mak → make, danc → dance, mov → move,
// celebrat → celebrate, decid → decide, struggl → struggle.
func restoreStem(s string) string {
	n := len(s)
	if n < 2 {
		return s
	}
	if needsE[s] {
		return s + "e"
	}
	last, prev := s[n-1], s[n-2]
	syl := syllables(s)
	switch {
	case last == prev && !isVowel(last):
		// doubled consonant: stop(p)ed, travel(l)ed, control(l)ed; but
		// pass, stuff, buzz, call, install, fulfill keep theirs.
		if strings.IndexByte("sfz", last) >= 0 || last == 'l' && (syl == 1 || n > 2 && s[n-3] != 'e' && s[n-3] != 'o') {
			return s
		}
		return s[:n-1]
	case strings.IndexByte("vcz", last) >= 0 || (last == 'u' && n > 2):
		return s + "e" // moved, danced, organized, argued
	case n == 2 && isVowel(prev) && !isVowel(last):
		return s + "e" // us(ed)
	case last == 's' && !isVowel(prev) || last == 'g' && (prev == 'r' || prev == 'd' || prev == 'l' || strings.HasSuffix(s, "ang")):
		return s + "e" // nursed, collapsed, charged, judged, changed
	case last == 'l' && !isVowel(prev) && prev != 'l' && prev != 'r' && prev != 'w':
		return s + "e" // struggled, settled, cycled
	case last == 's' && n > 2 && isVowel(prev) && isVowel(s[n-3]), strings.HasSuffix(s, "uat"):
		return s + "e" // released, raised, caused, graduated
	case n > 2 && !isVowel(last) && last != 'w' && last != 'x' && last != 'y' && isVowel(prev) && !isVowel(s[n-3]):
		// consonant, vowel, consonant: one syllable takes an e (made,
		// hiked, shared); longer words only after the endings of common
		// e-final verbs (celebrate, decide, describe, include, compute,
		// promote, combine, retire, prepare, measure, compose, purchase).
		if syl == 1 {
			return s + "e"
		}
		switch s[n-2:] {
		case "at", "id", "ib", "ud", "ut", "ot", "in", "ir", "ar", "ur", "os", "as":
			return s + "e"
		}
	}
	return s
}

// needsE are stems of e-final verbs that the rules above miss.
var needsE = set(`invit excit unit recit complet compet delet explor ignor restor ador creat welcom schedul escap
	refus confus excus accus amus overcom becom`)

func isVowel(b byte) bool { return strings.IndexByte("aeiou", b) >= 0 }

func hasVowel(s string) bool { return strings.ContainsAny(s, "aeiouy") }

// syllables counts the groups of vowels of s, a rough syllable count.
func syllables(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		v := isVowel(s[i]) || (s[i] == 'y' && i > 0)
		if v && !in {
			n++
		}
		in = v
	}
	return n
}
