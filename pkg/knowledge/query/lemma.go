package query

import "strings"

// The offline extractor (knowledge/extractor/offline) indexes verbs by
// their lemma. It exports no lemmatizer, so this is a small one with the
// same rules: its table of irregular verbs, then the regular -ing, -ed and
// -s endings with the usual spelling repairs (doubled consonants, a
// dropped final e, y to ie). The extractor also consults a list of known
// base verbs, which this file does not copy; a test checks that both agree
// on common verbs. When the extractor exports its own, Lemma should call it.

// irregular maps irregular verb forms (past, participle, third person) to
// their base, and each base to itself.
var irregular = map[string]string{}

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
	// base, past, participle; alternatives split by "/". The same table as
	// the offline extractor's.
	for _, v := range strings.Split(`be was/were been|have had had|do did done|go went gone|get got got/gotten|
		make made made|say said said|see saw seen|come came come|take took taken|know knew known|
		think thought thought|give gave given|find found found|tell told told|become became become|
		leave left left|feel felt felt|bring brought brought|begin began begun|keep kept kept|hold held held|
		write wrote written|stand stood stood|hear heard heard|let let let|mean meant meant|set set set|
		meet met met|run ran run|pay paid paid|sit sat sat|speak spoke spoken|lie lay lain|lead led led|
		read read read|grow grew grown|lose lost lost|fall fell fallen|send sent sent|build built built|
		understand understood understood|draw drew drawn|break broke broken|spend spent spent|cut cut cut|
		rise rose risen|drive drove driven|buy bought bought|wear wore worn|choose chose chosen|
		seek sought sought|throw threw thrown|catch caught caught|deal dealt dealt|win won won|
		forget forgot forgotten|sell sold sold|fight fought fought|teach taught taught|eat ate eaten|
		sing sang sung|swim swam swum|drink drank drunk|fly flew flown|ride rode ridden|hide hid hidden|
		shake shook shaken|steal stole stolen|wake woke woken|bite bit bitten|blow blew blown|
		freeze froze frozen|forgive forgave forgiven|hang hung hung|shoot shot shot|shut shut shut|
		sleep slept slept|slide slid slid|spin spun spun|stick stuck stuck|strike struck struck|
		swear swore sworn|sweep swept swept|swing swung swung|tear tore torn|bear bore borne|bend bent bent|
		bet bet bet|bind bound bound|bleed bled bled|breed bred bred|burn burnt burnt|cling clung clung|
		creep crept crept|dig dug dug|dream dreamt dreamt|feed fed fed|flee fled fled|grind ground ground|
		hit hit hit|hurt hurt hurt|kneel knelt knelt|lay laid laid|lean leant leant|leap leapt leapt|
		learn learnt learnt|lend lent lent|light lit lit|put put put|quit quit quit|ring rang rung|
		shine shone shone|show showed shown|shrink shrank shrunk|sink sank sunk|smell smelt smelt|
		spell spelt spelt|spill spilt spilt|split split split|spread spread spread|spring sprang sprung|
		sting stung stung|stink stank stunk|string strung strung|undertake undertook undertaken|
		upset upset upset|weave wove woven|weep wept wept|wind wound wound|withdraw withdrew withdrawn|
		overcome overcame overcome|rebuild rebuilt rebuilt|babysit babysat babysat|oversleep overslept overslept`, "|") {
		f := strings.Fields(v)
		irregular[f[0]] = f[0]
		for _, form := range f[1:] {
			for _, x := range strings.Split(form, "/") {
				irregular[x] = f[0]
			}
		}
	}
	// A form shared by two verbs goes to the later entry of the table, as
	// in the extractor: "lay" is the base of lay, not lie's past.
	irregular["born"] = "born" // "was born in", not "bear"
	for _, w := range []string{"is", "am", "are", "'s", "'re", "'m"} {
		irregular[w] = "be"
	}
	irregular["has"], irregular["'ve"], irregular["having"] = "have", "have", "have"
	irregular["does"], irregular["goes"] = "do", "go"
	irregular["doing"], irregular["going"], irregular["being"] = "do", "go", "be"
	irregular["dying"], irregular["lying"], irregular["tying"] = "die", "lie", "tie"
	irregular["used"], irregular["using"], irregular["uses"] = "use", "use", "use"
	irregular["skied"], irregular["skiing"], irregular["skis"] = "ski", "ski", "ski"
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
		n, _ := lemmaOnce(l)
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

// inflected reports whether w is an inflected verb form Lemma changes: an
// irregular form, or a regular -ing or -ed ending. Third-person -s is not
// counted, since the plural of a noun looks the same.
func inflected(w string) bool {
	l, suffix := lemmaOnce(w)
	return l != w && suffix != "s"
}

// lemmaOnce undoes one inflection of w and says which ("irregular",
// "ing", "ed", "s"), or returns w and "".
func lemmaOnce(w string) (string, string) {
	if l, ok := irregular[w]; ok {
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

// irregularPlurals are the nouns whose singular is not a suffix away, and
// nouns that only look plural.
