package offline

import (
	"slices"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// np is a noun phrase: tokens [from, to), its content words [cfrom, cto)
// (without determiners), its possessor, and what it turned out to be: a
// pronoun, a time, a measure ("5 km") or a thing.
type np struct {
	from, to   int
	cfrom, cto int
	owner      string
	pron       string // pronoun class ("1", "2", "3", "3p", "3n") for a pronoun
	ref        string // the name a pronoun resolves to
	time       int    // index+1 into times
	count      float64
	hasCount   bool
	measure    string // unit of a measure
	measureKey string // what it measures: distance, weight, duration...
}

// functionWord reports whether w ends a noun phrase.
func functionWord(w string) bool {
	if prepositions[w] || conjunctions[w] || determiners[w] || beForms[w] || haveForms[w] || doForms[w] ||
		modals[w] || negations[w] || wh[w] || possessives[w] {
		return true
	}
	_, ok := pronouns[w]
	return ok
}

func inCategory(w string) bool {
	if _, ok := categories[w]; ok {
		return true
	}
	_, ok := categories[en.Singular(w)]
	return ok
}

// possessiveS reports whether the "'s" at i marks a possessive ("Ana's
// dog") rather than "is" or "has" ("Ana's coming", "it's great").
func (a *analysis) possessiveS(i int) bool {
	if i <= 0 || i >= len(a.toks) || (a.low(i) != "'s" && a.low(i) != "'") {
		return false
	}
	prev := a.low(i - 1)
	if _, ok := pronouns[prev]; ok || wh[prev] || prev == "there" || prev == "here" || prev == "everything" ||
		prev == "everyone" || prev == "nothing" || prev == "something" || prev == "let" {
		return false
	}
	if i+1 >= len(a.toks) || a.toks[i+1].kind != tWord {
		return false
	}
	next := a.low(i + 1)
	if functionWord(next) || adverbs[next] || adjectives[next] || next == "been" || next == "gonna" ||
		a.timeAt[i+1] != 0 {
		return false
	}
	if _, f, known := lemmaVerb(next); (f == vIng || f == vPast) && !inCategory(next) && (known || f == vPast) {
		return false
	}
	return true
}

// parseNP reads a noun phrase at i, before end: a name, a time, a
// pronoun, or determiners, a count or measure, and content words.
func (a *analysis) parseNP(i, end int) (np, bool) {
	n := np{from: i, cfrom: i, cto: i}
	if i >= end || i < 0 {
		return n, false
	}
	if a.toks[i].kind == tQuote && i+1 < end && a.nameAt[i+1] != 0 {
		i++ // "The Hobbit"
		n.from, n.cfrom, n.cto = i, i, i
	}
	if n, ok := a.npWhole(n, i, end); ok {
		return n, true
	}
	return a.npContent(n, i, end)
}

// npWhole reads a noun phrase at i that is one unit: a name, a time or a
// pronoun. It reports false for any other phrase, "that book" among
// them.
func (a *analysis) npWhole(n np, i, end int) (np, bool) {
	if ni := a.nameAt[i]; ni != 0 && a.names[ni-1].from == i && a.low(a.names[ni-1].to) != "'s" {
		s := a.names[ni-1]
		n.cfrom, n.cto, n.to = s.from, s.to, s.to
		if n.to < end && a.toks[n.to].kind == tQuote {
			n.to++
		}
		return n, true
	}
	if t := a.timeAt[i]; t != 0 && a.times[t-1].from == i {
		n.time, n.to = t, a.times[t-1].to
		return n, true
	}
	w := a.low(i)
	if p, ok := pronouns[w]; ok && !possessives[w] && w != "her" {
		if w == "this" || w == "that" || w == "these" || w == "those" {
			if i+1 < end && a.toks[i+1].kind == tWord && !functionWord(a.low(i+1)) && !adverbs[a.low(i+1)] {
				return n, false // "that book"
			}
		}
		n.pron, n.ref, n.to = p, a.resolve(i, p), i+1
		return n, true
	}
	if w == "her" {
		if i+1 >= end || a.toks[i+1].kind != tWord || functionWord(a.low(i+1)) || adverbs[a.low(i+1)] {
			n.pron, n.ref, n.to = "3", a.resolve(i, "3"), i+1
			return n, true
		}
	}
	return n, false
}

// npContent reads a noun phrase of determiners, a count or a measure,
// and content words at j, before end.
func (a *analysis) npContent(n np, j, end int) (np, bool) {
	afterDet := false
	var w string
	for k := 0; k < 3 && j < end; k++ {
		w = a.low(j)
		if !(determiners[w] || possessives[w] || w == "her" || w == "this" || w == "that" || w == "these" || w == "those") {
			break
		}
		if possessives[w] || w == "her" {
			n.owner = a.possessor(j)
		}
		afterDet = true
		j++
	}
	// a count or a measure: "3 kids", "5 km"
	if j < end {
		if v, ok := isNumberWord(a.toks[j]); ok && w != "a" && w != "an" && !(a.toks[j].kind == tWord && determiners[a.low(j)]) {
			u := a.low(j + 1)
			if j+1 < end && (units[u] != "" || timeUnits[u] != "") && !(units[u] == "" && inCategory(u)) {
				n.measure = u
				if timeUnits[u] != "" {
					n.measureKey = "duration"
				} else {
					n.measureKey = units[u]
				}
				n.count, n.hasCount = v, true
				n.cfrom, n.cto, n.to = j, j+2, j+2
				return n, true
			}
			if a.toks[j].kind == tNum || numberWords[a.low(j)] > 1 {
				n.count, n.hasCount = v, true
				j++
				afterDet = true
			}
		}
	}
	cstart, j, ok := a.npWords(&n, j, end, afterDet)
	if !ok {
		return n, false
	}
	n.cfrom, n.cto = cstart, j
	for n.cto > n.cfrom && (adjectives[a.low(n.cto-1)] || adverbs[a.low(n.cto-1)]) && a.nameAt[n.cto-1] == 0 {
		n.cto--
	}
	n.to = n.cto
	if n.cto <= n.cfrom {
		return n, false
	}
	return n, true
}

// npWords reads the content words of a noun phrase at j, before end (at
// most six, names and compounds of the lexicon counting as one, with a
// possessor noted in n), and returns where they start and end, or false
// when the words are no noun phrase (a bare verb, a gerund clause).
func (a *analysis) npWords(n *np, j, end int, afterDet bool) (cstart, to int, ok bool) {
	cstart = j
	for j < end && j-cstart < 6 {
		t := a.toks[j]
		if a.timeAt[j] != 0 {
			break
		}
		if ni := a.nameAt[j]; ni != 0 {
			span := a.names[ni-1]
			if span.from != j {
				break
			}
			if j > cstart {
				cstart = j // apposition: "my friend Ana", "the singer Adele"
			}
			j = span.to
			if j < end && a.possessiveS(j) {
				n.owner = a.ents.list[span.ent].Name
				j++
				cstart = j
				afterDet = true
			}
			continue
		}
		if t.kind != tWord {
			break
		}
		w := t.low
		if (w == "'s" || w == "'") && j > cstart && a.possessiveS(j) {
			// "my mentee's face": the phrase so far owns what follows
			if owner := a.npText(np{cfrom: cstart, cto: j}, -1); owner != "" {
				n.owner = singularPhrase(owner)
			}
			j++
			cstart = j
			afterDet = true
			continue
		}
		if functionWord(w) || strings.HasPrefix(w, "'") {
			break
		}
		if adverbs[w] {
			if j+1 < end && adjectives[a.low(j+1)] && (afterDet || j > cstart) {
				j++
				continue
			}
			break
		}
		if interjections[w] && !adjectives[w] && !inCategory(w) {
			break
		}
		if j+1 < end && inCategory(w+" "+en.Singular(a.low(j+1))) {
			j += 2 // a compound of the lexicon: "support group", "ice cream"
			continue
		}
		stop, fail := a.verbInNP(w, j, cstart, end, afterDet)
		if fail {
			return cstart, j, false
		}
		if stop {
			break
		}
		j++
	}
	return cstart, j, true
}

// verbInNP reports whether the word w at j, a verb form outside the
// lexicon, ends the noun phrase whose content words start at cstart
// (stop), or makes the words no noun phrase (fail).
func (a *analysis) verbInNP(w string, j, cstart, end int, afterDet bool) (stop, fail bool) {
	_, f, known := lemmaVerb(w)
	if inCategory(w) || occupations[w] {
		return false, false
	}
	bare := !afterDet && j == cstart
	switch {
	case known && (f == vBase || f == vAmbig) && bare:
		return false, true
	case known && f == vIng && bare && a.npStartAt(j+1, end):
		return false, true // a gerund clause: "adopting a cat"
	case f == vPast && (bare || j > cstart) && !adjectives[w]:
		// "my sister adopted": the verb ends the phrase; a bare
		// participle does not start one.
		return j != cstart, j == cstart
	case known && f == v3sg && j > cstart:
		return a.npStartAt(j+1, end), false // "the dog loves walks"
	case known && (f == vBase || f == vAmbig) && j > cstart && a.npStartAt(j+1, end) &&
		(en.Singular(a.low(j-1)) != a.low(j-1) || en.IrregularPlural(a.low(j-1))):
		// "the kids love it"; after a singular noun a base form is
		// part of a compound: "a dance studio"
		return true, false
	}
	return false, false
}

// npStartAt reports whether a noun phrase plainly starts at i.
func (a *analysis) npStartAt(i, end int) bool {
	if i >= end {
		return false
	}
	w := a.low(i)
	if determiners[w] || possessives[w] || a.nameAt[i] != 0 || a.toks[i].kind == tNum {
		return true
	}
	if _, ok := pronouns[w]; ok {
		return true
	}
	return inCategory(w)
}

// resolve returns the name a pronoun of class p at token i refers to.
func (a *analysis) resolve(i int, p string) string {
	switch p {
	case "1":
		return a.speaker
	case "2":
		return a.listener
	case "3":
		return a.thirdPerson(i)
	}
	return ""
}

// entity returns the entity a noun phrase names, adding it: a resolved
// pronoun, a name, or a common noun typed by the lexicon or by its head
// ("support group" is a group). It returns -1 for nothing.
func (a *analysis) entity(n np) int {
	if n.time != 0 || n.measure != "" {
		return -1
	}
	if n.pron != "" {
		if n.ref == "" {
			return -1
		}
		return a.ents.find(n.ref)
	}
	if n.cto <= n.cfrom {
		return -1
	}
	for k := n.from; k < n.to; k++ {
		a.usedAt[k] = true
	}
	if ni := a.nameAt[n.cfrom]; ni != 0 && a.names[ni-1].to == n.cto {
		return a.names[ni-1].ent
	}
	// strip leading evaluative adjectives: "amazing trip" -> "trip"
	from := n.cfrom
	for from < n.cto-1 && adjectives[a.low(from)] && a.nameAt[from] == 0 {
		from++
	}
	head := a.low(n.cto - 1)
	hs := en.Singular(head)
	if a.nameAt[n.cto-1] != 0 {
		hs = head
	}
	key := ""
	if n.cto-from >= 2 {
		if bi := a.low(n.cto-2) + " " + hs; inCategory(bi) {
			key = bi
		}
	}
	if key == "" && inCategory(hs) {
		key = hs
	}
	if key == "" && inCategory(head) {
		key = head
	}
	if key == "" {
		// an abstract or unknown noun ("help", "dream") is no entity;
		// a place name in lower case is.
		if g := gazetteer(memory.NormalizeTerm(a.surface(from, n.cto))); g == nil {
			return -1
		}
	}
	var words []string
	for k := from; k < n.cto; {
		if ni := a.nameAt[k]; ni != 0 {
			s := a.names[ni-1]
			words = append(words, a.surface(k, s.to))
			k = s.to
			continue
		}
		if k == n.cto-1 {
			words = append(words, hs)
		} else {
			words = append(words, a.low(k))
		}
		k++
	}
	name := strings.Join(words, " ")
	if len(words) == 1 && genericNouns[name] {
		return -1
	}
	var types []string
	if key != "" {
		types = categories[key]
		if types == nil {
			types = categories[en.Singular(key)]
		}
		// A plural common noun is not a person ("AI models", "the
		// teachers"): only relatives and what someone owns are ("my
		// parents").
		if hs != head && n.owner == "" && !relationNouns[hs] && slices.Contains(types, "person") {
			types = nil
			if len(words) > 1 {
				types = []string{hs}
			}
		}
	} else if g := gazetteer(memory.NormalizeTerm(name)); g != nil {
		types = g
	} else if len(words) > 1 {
		types = []string{hs} // the head names the kind: "support group" is a group
	}
	e := a.ents.add(name, types, a.rng(from, n.cto))
	if e < 0 {
		return -1
	}
	person := a.ents.hasType(e, "person")
	if n.owner != "" {
		switch {
		case relationNouns[hs] || relationNouns[head]:
			a.ents.addFacet(e, memory.Facet{Name: "relation", Value: hs + " of " + n.owner})
		case owned(types):
			a.ents.addFacet(e, memory.Facet{Name: "owner", Value: n.owner})
			if a.ents.hasType(e, "animal") {
				a.ents.addType(e, "pet")
			}
		}
	}
	if n.hasCount && n.count > 1 {
		a.ents.addFacet(e, memory.Facet{Name: "count", Value: formatNum(n.count), Quantity: &memory.Quantity{Amount: n.count}})
	}
	if person {
		a.personAt(n.cfrom, name)
	}
	return e
}

func owned(types []string) bool {
	for _, t := range types {
		if ownedKinds[t] {
			return true
		}
	}
	return false
}

// isWordy reports whether s has a letter.
func isWordy(s string) bool {
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r > 127 {
			return true
		}
	}
	return false
}

// npText is what an action names a noun phrase by: its entity's name, a
// resolved pronoun, a measure, or its words.
func (a *analysis) npText(n np, e int) string {
	switch {
	case e >= 0:
		return a.ents.list[e].Name
	case n.pron != "":
		return n.ref
	case n.measure != "":
		return a.surface(n.cfrom, n.cto)
	case n.time != 0:
		return a.timeValue(n.time)
	}
	from := n.cfrom
	for from < n.cto && (adjectives[a.low(from)] || genericNouns[a.low(from)]) {
		from++
	}
	if from >= n.cto || (n.cto-from == 1 && genericNouns[a.low(n.cto-1)]) {
		return ""
	}
	return strings.ToLower(a.surface(from, n.cto))
}

// timeValue is the text of a time span without its leading preposition.
func (a *analysis) timeValue(t int) string {
	s := a.times[t-1]
	return a.surface(s.valueFrom, s.to)
}
