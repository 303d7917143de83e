package offline

import (
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// nameSpan is a proper name or a title found in the text: tokens
// [from, to) and the entity it is.
type nameSpan struct {
	from, to int
	ent      int
}

var pronouns = map[string]string{"i": "1", "me": "1", "my": "1", "mine": "1", "myself": "1",
	"we": "1", "us": "1", "our": "1", "ours": "1", "ourselves": "1",
	"you": "2", "your": "2", "yours": "2", "yourself": "2", "yourselves": "2", "u": "2", "ya": "2",
	"he": "3", "him": "3", "his": "3", "himself": "3", "she": "3", "her": "3", "hers": "3", "herself": "3",
	"they": "3p", "them": "3p", "y'all": "2", "yall": "2", "'em": "3p", "their": "3p", "theirs": "3p", "themselves": "3p",
	"it": "3n", "its": "3n", "itself": "3n", "this": "3n", "that": "3n", "these": "3n", "those": "3n"}

var (
	nameConnectors = set(`of the de da del della di la le van von du y of_the & and`)
	greetings      = set(`hey hi hello hiya yo thanks thank thx congrats congratulations bye goodbye dear
		morning evening night welcome sup howdy cheers love miss`)
	// words before "to" + name that make the name a place.
	toPlace = set(`go goes went gone going come came coming move moves moved moving fly flew flying drive drove
		driving travel traveled travelled traveling travelling trip flight way back headed head heading return
		returned returning relocate relocated relocating commute road vacation holiday visit journey`)
	atOrg = set(`work works worked working job intern interning interned employed study studied studying
		student teach teaches taught teaching volunteer volunteers volunteered volunteering`)
)

// knownWord reports whether w (lower case) is a common English word of the
// lexicon, so that its capital at the start of a sentence says nothing.
func knownWord(w string) bool {
	if determiners[w] || possessives[w] || prepositions[w] || conjunctions[w] || beForms[w] || haveForms[w] ||
		doForms[w] || modals[w] || negations[w] || adverbs[w] || adjectives[w] || interjections[w] ||
		genericNouns[w] || timeWords[w] || en.TermStopWord(w) || wh[w] {
		return true
	}
	if _, ok := pronouns[w]; ok {
		return true
	}
	if _, ok := numberWords[w]; ok {
		return true
	}
	if _, ok := categories[w]; ok {
		return true
	}
	if _, ok := categories[en.Singular(w)]; ok {
		return true
	}
	if _, _, known := lemmaVerb(w); known {
		return true
	}
	return false
}

// firstWord returns the first word token of sentence s, or -1.
func (a *analysis) firstWord(s sentence) int {
	for i := s.from; i < s.to; i++ {
		if a.toks[i].kind == tWord || a.toks[i].kind == tNum {
			return i
		}
	}
	return -1
}

func (a *analysis) isCapWord(i int) bool {
	t := a.toks[i]
	return t.kind == tWord && (t.cap || t.allCaps) && t.low != "i" && a.timeAt[i] == 0 && a.nameAt[i] == 0 &&
		!strings.HasPrefix(t.low, "'") && t.low != "not"
}

// findNames finds quoted titles, capitalized names and mentions of the
// speaker and listeners, and adds them as entities.
func (a *analysis) findNames() {
	midCaps := map[string]bool{}
	for si, s := range a.sents {
		if a.caseless[si] {
			continue
		}
		first := a.firstWord(s)
		for i := s.from; i < s.to; i++ {
			if i != first && a.isCapWord(i) && !(i > 0 && a.toks[i-1].kind == tQuote) {
				midCaps[a.toks[i].low] = true
			}
		}
	}
	for si, s := range a.sents {
		a.findTitles(s)
		a.findPeople(s)
		if !a.caseless[si] {
			a.findCapRuns(s, midCaps)
		}
	}
}

// findPeople marks mentions of the speaker and listeners, in any case.
func (a *analysis) findPeople(s sentence) {
	if a.peopleFirst == nil {
		a.peopleFirst = map[string]bool{}
		for k := range a.people {
			f, _, _ := strings.Cut(k, " ")
			a.peopleFirst[f] = true
		}
	}
	for i := s.from; i < s.to; i++ {
		if a.toks[i].kind != tWord || a.nameAt[i] != 0 || a.timeAt[i] != 0 || !a.peopleFirst[a.toks[i].low] {
			continue
		}
		// the longest match of up to 3 words.
		for n := 3; n >= 1; n-- {
			if i+n > s.to {
				continue
			}
			key := memory.NormalizeTerm(a.surface(i, i+n))
			name, ok := a.people[key]
			if !ok {
				continue
			}
			if !a.toks[i].cap && knownWord(a.toks[i].low) {
				break // "will", "rose" in lower case are words, not names
			}
			a.addName(i, i+n, name, []string{"person"})
			i += n - 1
			break
		}
	}
}

// findTitles finds short quoted titles after a cue ("reading 'Dune'") or in
// title case.
func (a *analysis) findTitles(s sentence) {
	for i := s.from; i < s.to; i++ {
		if a.toks[i].kind != tQuote {
			continue
		}
		j := i + 1
		words, caps := 0, 0
		for ; j < s.to && j < i+14 && a.toks[j].kind != tQuote; j++ {
			switch a.toks[j].kind {
			case tWord, tNum:
				words++
				if a.toks[j].cap || a.toks[j].kind == tNum {
					caps++
				} else if nameConnectors[a.toks[j].low] || a.toks[j].low == "a" || a.toks[j].low == "an" ||
					a.toks[j].low == "in" || a.toks[j].low == "on" || a.toks[j].low == "to" {
					caps++
				}
			case tPunct:
				if !strings.Contains(",:-!?&'.", a.toks[j].text) {
					words = 100
				}
			default:
				words = 100
			}
		}
		if j >= s.to || a.toks[j].kind != tQuote || words == 0 || words > 8 || j == i+1 {
			continue
		}
		cue := a.titleCue(i)
		if cue == "" && !(a.toks[i+1].cap && caps*10 >= words*8) {
			continue
		}
		if cue == "" {
			cue = "title"
		}
		skip := false
		for k := i + 1; k < j; k++ {
			if a.nameAt[k] != 0 {
				skip = true
			}
		}
		if skip {
			continue
		}
		a.addName(i+1, j, a.surface(i+1, j), []string{cue})
		i = j
	}
}

// titleCue returns the kind of work a cue word before token i names
// ("reading", "the movie", "a song called"), or "".
func (a *analysis) titleCue(i int) string {
	for k := i - 1; k >= 0 && k >= i-6; k-- {
		w := a.low(k)
		if c, ok := titleCues[w]; ok {
			return c
		}
		if w == "the" || w == "a" || w == "an" || w == "called" || w == "named" || w == "titled" || w == "to" ||
			w == "is" || w == "was" || w == "of" || w == "all" || w == "time" || w == "ever" ||
			w == "new" || w == "favorite" || w == "favourite" || w == "my" || w == "his" || w == "her" {
			continue
		}
		if a.toks[k].kind == tQuote {
			continue
		}
		break
	}
	return ""
}

// findCapRuns finds runs of capitalized words: "Lisbon", "New York",
// "Lord of the Rings", "Dr. Silva".
func (a *analysis) findCapRuns(s sentence, midCaps map[string]bool) {
	first := a.firstWord(s)
	for i := s.from; i < s.to; i++ {
		if !a.isCapWord(i) || len(a.toks[i].text) < 2 && !a.toks[i].allCaps {
			continue
		}
		low := a.toks[i].low
		if interjections[low] && !midCaps[low] {
			continue
		}
		_, isPeople := a.people[low]
		initial := i == first || (i > s.from && a.toks[i-1].kind == tQuote && a.toks[i-1].end == a.toks[i].start)
		if initial && knownWord(low) && !midCaps[low] && !isPeople && !honorifics[low] {
			continue
		}
		j := i + 1
		for j < s.to {
			if a.isCapWord(j) && !(interjections[a.low(j)] && a.toks[j].allCaps) {
				j++
				continue
			}
			// "Mr. Smith", "St. Louis"
			if a.toks[j].text == "." && honorifics[a.low(j-1)] && j+1 < s.to && a.isCapWord(j+1) {
				j += 2
				continue
			}
			// a title with a possessive: "The Innovator's Dilemma"
			if a.low(j) == "'s" && a.low(i) == "the" && j+1 < s.to && a.isCapWord(j+1) {
				j += 2
				continue
			}
			if (nameConnectors[a.low(j)] || a.toks[j].text == "&") && a.low(j) != "and" {
				k := j + 1
				for k < s.to && k < j+3 && nameConnectors[a.low(k)] && a.low(k) != "and" && !a.toks[k].cap {
					k++
				}
				if k < s.to && a.isCapWord(k) && k-j <= 2 && j-i < 6 {
					j = k + 1
					continue
				}
			}
			break
		}
		// a title of capitalized words joined by commas after a cue, to the
		// end of the clause: "my favorite novel is Gödel, Escher, Bach";
		// one that goes on across "and the" (titleAnd).
		if a.workCue(i, true) != "" {
			j = a.titleAnd(j, s.to)
			k := j
			for k+1 < s.to && a.toks[k].text == "," && a.isCapWord(k+1) {
				k += 2
				for k < s.to && a.isCapWord(k) {
					k++
				}
			}
			if k > j && a.commaTitleEnd(k, s.to) {
				j = k
			}
		}
		if j-i > 8 {
			j = i + 8
		}
		if j == i+1 && initial {
			// a lone capitalized word at the start of a sentence is a name
			// only when something says so.
			if !(midCaps[low] || isPeople || gazetteer(low) != nil || a.low(j) == "'s" || personVerbs[a.low(j)] ||
				(a.low(j) == "," && a.vocativeEnd(j))) {
				continue
			}
		}
		if j == i+1 && allFunction(a.toks[i].low) {
			continue
		}
		types := a.classify(i, j, s)
		a.addName(i, j, a.surface(i, j), types)
		i = j - 1
	}
}

func allFunction(w string) bool {
	return determiners[w] || prepositions[w] || conjunctions[w] || en.TermStopWord(w) || interjections[w]
}

// vocativeEnd reports whether the clause after a comma at j is short
// enough that the name before it is an address ("Ana, look!").
func (a *analysis) vocativeEnd(j int) bool {
	return j+1 < len(a.toks) && (pronounSubject(a.low(j+1)) || a.low(j+1) == "did" || a.low(j+1) == "have" ||
		a.low(j+1) == "do" || a.low(j+1) == "are" || a.low(j+1) == "how" || a.low(j+1) == "what")
}

func pronounSubject(w string) bool {
	switch w {
	case "i", "we", "you", "he", "she", "they":
		return true
	}
	return false
}

// gazetteer returns the types of a well-known place name (lower case).
func gazetteer(w string) []string {
	switch {
	case countries[w]:
		return []string{"place", "country"}
	case cities[w]:
		return []string{"place", "city"}
	case usStates[w]:
		return []string{"place", "state"}
	case continents[w]:
		return []string{"place", "region"}
	}
	return nil
}

// classify infers the types of the name in tokens [i, j) from its words
// and its neighbours.
func (a *analysis) classify(i, j int, s sentence) []string {
	name := memory.NormalizeTerm(a.surface(i, j))
	firstLow, lastLow := a.low(i), a.low(j-1)
	prev, prev2 := "", ""
	if i-1 >= s.from {
		prev = a.low(i - 1)
	}
	if i-2 >= s.from {
		prev2 = a.low(i - 2)
	}
	next := a.low(j)
	if j >= s.to {
		next = ""
	}
	if _, ok := a.people[name]; ok {
		return []string{"person"}
	}
	if j-i > 1 && honorifics[firstLow] {
		return []string{"person"}
	}
	if j-i > 1 && (firstLow == "the" || a.hasAnd(i, j)) && next != "'s" {
		// a title after a cue, whatever its last word: "reading The
		// Remains of the Day", "wrote Klara and the Sun"
		if c := a.workCue(i, true); c != "" {
			return []string{c}
		}
	}
	if j-i > 1 {
		if t, ok := nameHeads[lastLow]; ok {
			return t
		}
		if t, ok := namePrefixes[firstLow]; ok {
			return t
		}
	}
	if t := gazetteer(name); t != nil {
		return t
	}
	if j-i == 1 && languages[name] {
		return []string{"language"}
	}
	if j-i == 1 && nationalities[name] {
		return []string{"nationality"}
	}
	if relationNouns[prev] && a.toks[i-1].kind == tWord {
		return []string{"person"}
	}
	// an apposition types the name: "the artist Paul Simon"
	if occupations[prev] && a.toks[i-1].kind == tWord && (determiners[prev2] || prev2 == "") {
		return []string{"person", prev}
	}
	if prev == "." && honorifics[prev2] {
		return []string{"person"}
	}
	if next != "'s" {
		if c := a.workCue(i, j-i > 1); c != "" {
			return []string{c}
		}
	}
	// followed by a verb of speech or thought, or possessing a relative.
	for k := j; k < s.to && k < j+3; k++ {
		w := a.low(k)
		if personVerbs[w] {
			return []string{"person"}
		}
		if w == "'s" && relationNouns[a.low(k+1)] {
			return []string{"person"}
		}
		if !(adverbs[w] || negations[w] || modals[w] || doForms[w] || haveForms[w]) {
			break
		}
	}
	if greetings[prev] || (prev == "you" && prev2 == "thank") || interjections[prev] && (next == "," || next == "!") {
		return []string{"person"}
	}
	if a.nickname(name) {
		return []string{"person"}
	}
	if prev == "," && (next == "!" || next == "?" || next == "." || next == "" || next == ",") {
		return []string{"person"}
	}
	if i == a.firstWord(s) && next == "," && a.vocativeEnd(j) {
		return []string{"person"}
	}
	switch prev {
	case "in", "from", "near", "around", "across", "through", "outside", "inside", "towards", "toward":
		return []string{"place"}
	case "to":
		if toPlace[prev2] {
			return []string{"place"}
		}
	case "at":
		if atOrg[prev2] {
			return []string{"organization"}
		}
		return []string{"place"}
	case "for":
		if atOrg[prev2] {
			return []string{"organization"}
		}
	}
	return nil
}

// addName records the name in tokens [i, j) as an entity of the given
// types, merged with any entity of the same name.
func (a *analysis) addName(i, j int, name string, types []string) {
	name = strings.Trim(name, " ,.;:!?-")
	if memory.NormalizeTerm(name) == "" || len(name) > 200 {
		return
	}
	e := a.ents.add(name, types, a.rng(i, j))
	a.names = append(a.names, nameSpan{from: i, to: j, ent: e})
	for k := i; k < j; k++ {
		a.nameAt[k] = len(a.names)
	}
	if a.ents.hasType(e, "person") {
		a.personAt(i, a.ents.list[e].Name)
	}
	// "my friend Ana": a relation facet.
	if i >= 2 && relationNouns[a.low(i-1)] {
		if owner := a.possessor(i - 2); owner != "" {
			a.ents.addType(e, "person")
			a.ents.addFacet(e, memory.Facet{Name: "relation", Value: a.low(i-1) + " of " + owner})
		}
	}
}

// possessor resolves a possessive at token i ("my" -> the speaker, "your"
// -> the listener, "Ana's" -> Ana), or "".
func (a *analysis) possessor(i int) string {
	if i < 0 || i >= len(a.toks) {
		return ""
	}
	switch a.low(i) {
	case "my", "our":
		return a.speaker
	case "your":
		return a.listener
	case "his", "her":
		return a.thirdPerson(i)
	case "'s", "'":
		if i > 0 && a.nameAt[i-1] != 0 {
			return a.ents.list[a.names[a.nameAt[i-1]-1].ent].Name
		}
	}
	return ""
}

// nickname reports whether a one-word name is the start of a participant's
// name ("Mel" for Melanie).
func (a *analysis) nickname(name string) bool {
	if len(name) < 3 || strings.Contains(name, " ") {
		return false
	}
	for k := range a.people {
		if len(k) > len(name) && strings.HasPrefix(k, name) {
			return true
		}
	}
	return false
}
