package offline

import (
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

var (
	particles  = set(`up out off down back away over`)
	lightVerbs = set(`be have do get go come make take let keep put say see know think want need like try seem
		feel mean guess hope wish can`)
	possessVerbs = set(`have own adopt buy get rescue foster`)
	// clause openers before which a subject is not an action's ("if I go").
	hypothetical = set(`if whether unless wonder`)
	// "interested in", "fan of": a liking said with an adjective.
	likeAdjectives = map[string]string{"interested": "in", "passionate": "about", "obsessed": "with",
		"crazy": "about", "addicted": "to", "fond": "of", "keen": "on", "into": "", "nuts": "about"}
	fearAdjectives  = map[string]string{"afraid": "of", "scared": "of", "terrified": "of", "frightened": "of"}
	skillAdjectives = map[string]string{"good": "at", "great": "at", "bad": "at", "skilled": "at", "talented": "at"}
)

// subject is the subject of a clause: its name (resolved), its entity,
// and where it is.
type subject struct {
	name    string
	ent     int
	from    int
	end     int
	pron    string // pronoun class, "" for a noun phrase
	n       np
	isNP    bool
	thirdSg bool
}

// parseSentence finds the clauses of sentence si and what they say.
func (a *analysis) parseSentence(si int, s sentence) {
	a.favorites(s)
	firstAction := len(a.acts)
	for i := s.from; i < s.to; {
		subj, ok := a.parseSubject(i, s)
		if !ok {
			i++
			continue
		}
		end := a.parsePredicate(subj, s, vpState{})
		if end <= i {
			end = i + 1
		}
		i = end
	}
	// a time at the head of the sentence ("Last week, I ...") dates its
	// first action.
	if len(a.acts) > firstAction {
		for i := s.from; i < s.to; {
			t := a.timeAt[i]
			if t == 0 {
				if a.toks[i].kind == tWord && !interjections[a.low(i)] && a.low(i) != "so" && a.low(i) != "and" {
					break
				}
				i++
				continue
			}
			a.addParam(firstAction, memory.ActionParam{Name: a.times[t-1].kind, Value: a.timeValue(t)})
			i = a.times[t-1].to
		}
	}
}

// parseSubject reads a clause subject at i.
func (a *analysis) parseSubject(i int, s sentence) (subject, bool) {
	sub := subject{ent: -1, from: i}
	w := a.low(i)
	if i > s.from {
		p := a.low(i - 1)
		if !pronounSubject(w) && (prepositions[p] && p != "like" || determiners[p] || a.verbAt[i-1]) {
			return sub, false
		}
	}
	switch w {
	case "i", "we":
		sub.name, sub.pron, sub.end = a.speaker, "1", i+1
	case "you", "u":
		sub.name, sub.pron, sub.end = a.listener, "2", i+1
	case "he", "she":
		sub.name, sub.pron, sub.end, sub.thirdSg = a.thirdPerson(i), "3", i+1, true
	case "they":
		sub.pron, sub.end = "3p", i+1
	default:
		if !(a.nameAt[i] != 0 || possessives[w] || w == "her" || w == "the" || w == "this") {
			return sub, false
		}
		if w == "this" {
			if n := a.low(i + 1); n == "'s" || beForms[n] || functionWord(n) {
				return sub, false
			}
		}
		n, ok := a.parseNP(i, s.to)
		if !ok || n.pron != "" || n.time != 0 || n.measure != "" || n.cto <= n.cfrom {
			return sub, false
		}
		// "the ..." only with a plain verb after it.
		if w == "the" || w == "this" {
			_, f, known := lemmaVerb(a.low(n.to))
			if !(known && (f == vPast || f == v3sg)) && !beForms[a.low(n.to)] && !modals[a.low(n.to)] &&
				!haveForms[a.low(n.to)] && a.low(n.to) != "'s" {
				return sub, false
			}
		}
		sub.n, sub.isNP, sub.end = n, true, n.to
		sub.thirdSg = !strings.HasSuffix(a.low(n.cto-1), "s") || a.nameAt[n.cto-1] != 0
	}
	if sub.pron == "1" && w == "we" {
		sub.thirdSg = false
	}
	return sub, true
}

// vpState is what a coordinated predicate inherits ("I will go and see").
type vpState struct {
	future, past bool
	modal        string
	neg          bool
}

// predicate is the state of reading one verb phrase: what its auxiliaries
// said, its main verb, and the action being built from it.
type predicate struct {
	sub subject
	s   sentence
	st  vpState
	k   int // the next token to read
	// be, perfect, do and would: the auxiliaries met ("was", "have
	// been", "did", "would"); wanna: "wanna" stood for "want to".
	be, perfect, do, would, wanna bool
	times                         []int // time expressions met, as indexes+1 into a.times
	w, lemma                      string
	// w and lemma are the last verb's word and lemma, f and known the main
	// verb's form and whether it is a known verb.
	f       vform
	known   bool
	verbs   []string
	act     memory.Action
	subjEnt int
	// the direct and indirect objects, when there are
	obj, ind       np
	hasObj, hasInd bool
	objEnt         int
}

// parsePredicate reads the verb phrase after sub, adds the action or the
// facets it states, and returns where it ends. Its steps: the
// auxiliaries, the main verb (or a copula, a passive, a clause that
// states nothing), the verb chain, the subject and tense, the objects and
// prepositional phrases, what the action says of its subject and objects,
// and a coordinated predicate after it.
func (a *analysis) parsePredicate(sub subject, s sentence, inh vpState) int {
	p := &predicate{sub: sub, s: s, st: inh, objEnt: -1}
	p.k = a.auxiliaries(p, sub.end)
	if p.k >= s.to {
		return p.k
	}
	isVerb := a.mainVerb(p)
	if end, done := a.notAnAction(p, isVerb); done {
		return end
	}
	a.verbChain(p)
	a.actionSubject(p)
	p.act.Tense = p.tense()
	a.directObject(p)
	a.prepPhrases(p)
	a.objects(p)
	p.subjectFacet()
	a.possession(p)
	a.keepAction(p)
	return a.coordinated(p)
}

// auxiliaries reads the negations, adverbs, modals and auxiliaries from
// k, noting them in p, and returns where the main verb may start.
func (a *analysis) auxiliaries(p *predicate, k int) int {
	s, st := p.s, &p.st
	for k < s.to {
		w := a.low(k)
		if t := a.timeAt[k]; t != 0 {
			p.times = append(p.times, t)
			k = a.times[t-1].to
			continue
		}
		switch {
		case negations[w] && w != "no":
			st.neg = true
		case w == "no" && a.low(k+1) == "longer":
			st.neg = true
			k++
		case adverbs[w] && !particles[w] && w != "so" && w != "home":
		case w == "will" || w == "shall" || w == "gonna" || (w == "'ll"):
			st.future = true
		case w == "'d" || w == "would":
			if _, f, known := lemmaVerb(a.low(a.skipAdv(k + 1))); w == "'d" && known && f == vPast {
				st.past = true
			} else {
				p.would = true
			}
		case w == "wanna":
			p.wanna = true
			return k + 1
		case modals[w]:
			st.modal = w
		case beForms[w] || (w == "'s" && p.sub.thirdSg && !a.possessiveS(k)):
			p.be = true
			if w == "was" || w == "were" {
				st.past = true
			}
		case haveForms[w]:
			nx := a.skipAdv(k + 1)
			if a.low(nx) == "to" {
				st.modal = "have to"
				k = nx + 1
				continue
			}
			_, f, known := lemmaVerb(a.low(nx))
			if a.low(nx) == "been" || (f == vPast || f == vAmbig) && (known || f == vPast) && a.nameAt[nx] == 0 {
				p.perfect = true
				if w == "had" {
					st.past = true
				}
				break
			}
			return k
		case doForms[w] && w != "done" && w != "doing":
			nx := a.skipAdv(k + 1)
			if _, f, known := lemmaVerb(a.low(nx)); (known && (f == vBase || f == vAmbig)) || (a.toks[min(nx, len(a.toks)-1)].kind == tWord && f == vNone && !knownWord(a.low(nx)) && a.nameAt[min(nx, len(a.toks)-1)] == 0 && nx < s.to) {
				p.do = true
				if w == "did" {
					st.past = true
				}
				break
			}
			return k
		case w == "going" && a.low(k+1) == "to" && a.baseVerbAt(k+2, s):
			st.future = true
			k++
		case w == "used" && a.low(k+1) == "to" && a.baseVerbAt(k+2, s):
			st.past = true
			k++
		case w == "about" && a.low(k+1) == "to" && p.be && a.baseVerbAt(k+2, s):
			st.future = true
			k++
		default:
			return k
		}
		k++
	}
	return k
}

// mainVerb reads the word at p.k as the main verb: its lemma and form,
// and whether it is a verb at all (not a name, a function word, a state).
func (a *analysis) mainVerb(p *predicate) (isVerb bool) {
	k, sub, st := p.k, p.sub, &p.st
	w := a.low(k)
	lemma, f, known := lemmaVerb(w)
	if p.wanna {
		lemma, f, known = "want", vBase, true
		k-- // the verb after "wanna" is read as an infinitive below
	}
	switch {
	case a.toks[k].kind != tWord || a.nameAt[k] != 0 || functionWord(w) && !haveForms[w] && !doForms[w] && !beForms[w] && w != "like":
	case beForms[w] || w == "'s":
		p.be, isVerb = true, false
		if w == "was" || w == "were" {
			st.past = true
		}
		k++
	case adjectives[w] || statusAdjectives[w] && f != vPast:
		// "amazing", "excited": a state, not an action
	case known:
		isVerb = !(inCategory(w) && !baseVerbs[w] && f == vBase && !p.be) || sub.pron != ""
	case f == vPast || f == vIng:
		isVerb = sub.pron != "" || p.be || p.perfect || st.modal != "" || st.future || f == vPast
	case sub.pron != "" && sub.pron != "3" && f == vNone && a.toks[k].kind == tWord && !a.toks[k].cap &&
		!knownWord(w) && isWordy(w) && !p.be:
		isVerb, lemma, f = true, w, vBase // an unknown verb: "I adore ..."
	case sub.thirdSg && f == vNone && strings.HasSuffix(w, "s") && len(w) > 3 && !knownWord(w) && !a.toks[k].cap && !p.be:
		isVerb, lemma, f = true, strings.TrimSuffix(w, "s"), v3sg
	}
	p.k, p.w, p.lemma, p.f, p.known = k, w, lemma, f, known
	return isVerb
}

// notAnAction handles the predicates that add no action of their own: a
// question or a condition, a copula, a passive, no verb. It returns
// where such a predicate ends, and whether it was one.
func (a *analysis) notAnAction(p *predicate, isVerb bool) (end int, done bool) {
	sub, s, k, w := p.sub, p.s, p.k, p.w
	if s.question || hypothetical[a.low(sub.from-1)] {
		// questions and conditions state nothing: skip the clause.
		if isVerb {
			a.verbAt[k] = true
			return k + 1, true
		}
		return max(k, sub.end), true
	}
	if p.be && !isVerb {
		return a.copula(sub, s, k, p.st), true
	}
	if p.be && isVerb && p.f == vPast && p.lemma != "born" {
		if adjectives[w] || statusAdjectives[w] || !p.known || a.low(k+1) == "to" && a.baseVerbAt(k+2, s) {
			// "excited", "determined to": a state
			return a.copula(sub, s, k, p.st), true
		}
		return a.passive(sub, s, k, p.lemma, p.st, p.times), true
	}
	if !isVerb {
		return k, true
	}
	return 0, false
}

// verbChain reads the main verb, its particle, and the verbs it governs
// ("want to learn", "started to paint") into p.verbs.
func (a *analysis) verbChain(p *predicate) {
	s, k := p.s, p.k
	a.verbAt[k] = true
	verbs := []string{p.lemma}
	k++
	if particles[a.low(k)] && a.timeAt[k] == 0 && !(a.low(k) == "over" && a.npStartAt(k+1, s.to)) {
		verbs[0] += " " + a.low(k)
		k++
	}
	// catenatives: "want to learn", "started to paint"
	wanna := p.wanna
	for len(verbs) < 3 && (catenatives[p.w] || catenatives[p.lemma] || wanna) {
		to := k
		if !wanna {
			if a.low(k) != "to" {
				break
			}
			to = k + 1
		}
		wanna = false
		if !a.baseVerbAt(to, s) {
			break
		}
		l2, _, _ := lemmaVerb(a.low(to))
		a.verbAt[to] = true
		verbs = append(verbs, l2)
		p.w, p.lemma = a.low(to), l2
		k = to + 1
		if particles[a.low(k)] && a.timeAt[k] == 0 {
			verbs[len(verbs)-1] += " " + a.low(k)
			k++
		}
	}
	p.k, p.verbs, p.wanna = k, verbs, wanna
}

// actionSubject starts the action with its verbs, subject and negation,
// and finds the subject's entity.
func (a *analysis) actionSubject(p *predicate) {
	sub := p.sub
	p.act = memory.Action{Verbs: p.verbs, Subject: sub.name, Negated: p.st.neg}
	p.subjEnt = sub.ent
	if sub.isNP {
		p.subjEnt = a.entity(sub.n)
		p.act.Subject = a.npText(sub.n, p.subjEnt)
	} else if sub.name != "" {
		p.subjEnt = a.ents.find(sub.name)
	}
}

// tense is the action's tense from its auxiliaries and main verb.
func (p *predicate) tense() string {
	st := p.st
	switch {
	case st.future:
		return memory.TenseFuture
	case p.perfect && p.f == vIng && !st.past:
		return memory.TensePresent // "have been playing": still going on
	case st.past || p.perfect || p.f == vPast && !p.be:
		return memory.TensePast
	case p.f == vAmbig && p.sub.thirdSg && !p.do && st.modal == "":
		return memory.TensePast
	default:
		return memory.TensePresent
	}
}

// directObject reads the noun phrase after the verbs: the object, or an
// indirect object and then the object ("bought me a bike"), or a measure.
func (a *analysis) directObject(p *predicate) {
	s, k := p.s, p.k
	if k < s.to && !prepositions[a.low(k)] && a.timeAt[k] == 0 && !conjunctions[a.low(k)] && !subjectOnly(a.low(k)) {
		if n, ok := a.parseNP(k, s.to); ok && n.measure == "" && n.time == 0 {
			p.obj, p.hasObj = n, true
			k = n.to
			if ditransitives[p.lemma] && a.personish(n) && k < s.to && !prepositions[a.low(k)] && a.npStartAt(k, s.to) {
				if n2, ok := a.parseNP(k, s.to); ok && n2.time == 0 && n2.measure == "" {
					p.ind, p.hasInd, p.obj = p.obj, true, n2
					k = n2.to
				}
			}
		} else if ok && n.measure != "" {
			a.pendingParam(&p.act, memory.ActionParam{Name: n.measureKey, Value: a.surface(n.cfrom, n.cto)})
			k = n.to
		}
	}
	p.k = k
}

// prepPhrases reads up to four prepositional phrases after the object:
// times, measures, a gerund ("thinking about adopting a cat"), the
// indirect object, and the other phrases as the action's parameters.
func (a *analysis) prepPhrases(p *predicate) {
	s, k := p.s, p.k
	for pp := 0; pp < 4 && k < s.to; {
		if t := a.timeAt[k]; t != 0 {
			p.times = append(p.times, t)
			k = a.times[t-1].to
			continue
		}
		w := a.low(k)
		if adverbs[w] && !particles[w] {
			k++
			continue
		}
		if !prepositions[w] || w == "like" && p.hasObj {
			break
		}
		// a gerund: "thinking about adopting a cat"
		if l, f, known := lemmaVerb(a.low(k + 1)); f == vIng && known && !inCategory(a.low(k+1)) && !p.hasObj &&
			len(p.verbs) < 3 && w != "like" && a.nameAt[k+1] == 0 {
			a.verbAt[k+1] = true
			p.verbs = append(p.verbs, l)
			k += 2
			if n, ok := a.parseNP(k, s.to); ok && n.time == 0 && n.measure == "" && !subjectOnly(a.low(k)) {
				p.obj, p.hasObj = n, true
				k = n.to
			}
			continue
		}
		n, ok := a.parseNP(k+1, s.to)
		if !ok {
			break
		}
		pp++
		k = n.to
		a.prepPhrase(p, w, n)
	}
	p.k = k
}

// prepPhrase adds what the phrase of preposition w and noun phrase n
// says to the action: a time, a measure, the indirect object, a parameter.
func (a *analysis) prepPhrase(p *predicate, w string, n np) {
	if n.time != 0 {
		p.times = append(p.times, n.time)
		return
	}
	if n.measure != "" {
		name := n.measureKey
		if w != "for" && name == "duration" {
			name = w
		}
		a.pendingParam(&p.act, memory.ActionParam{Name: name, Value: a.surface(n.cfrom, n.cto)})
		return
	}
	e := a.entity(n)
	if e >= 0 && a.ents.list[e].Types != nil && len(a.ents.list[e].Types) == 0 && w == "in" || e >= 0 && w == "from" && len(a.ents.list[e].Types) == 0 {
		a.ents.addType(e, "place")
	}
	text := a.npText(n, e)
	if text == "" {
		return
	}
	switch {
	case !p.hasInd && (w == "to" || w == "into" || w == "onto" || w == "at" || w == "in" || w == "from" || w == "on" || w == "toward" || w == "towards"):
		p.ind, p.hasInd = n, true
		p.act.IndirectObject = text
	default:
		a.pendingParam(&p.act, memory.ActionParam{Name: w, Value: text})
		if w == "as" && p.lemma == "work" && p.subjEnt >= 0 && !p.st.neg {
			a.ents.addFacet(p.subjEnt, memory.Facet{Name: "occupation", Value: text})
		}
	}
}

// objects completes the action: its verbs, its objects' entities and
// text, and the times met, which may also set its tense.
func (a *analysis) objects(p *predicate) {
	act, obj := &p.act, p.obj
	act.Verbs = p.verbs
	if p.hasObj && copulaLike[p.w] && len(p.verbs) == 1 && obj.pron == "" && obj.cto-obj.cfrom == 1 && !inCategory(a.low(obj.cfrom)) &&
		a.nameAt[obj.cfrom] == 0 && obj.from == obj.cfrom {
		p.hasObj = false // "I feel alive": a state
	}
	if p.hasObj {
		p.objEnt = a.entity(obj)
		act.Object = a.npText(obj, p.objEnt)
	}
	if p.hasInd && act.IndirectObject == "" {
		act.IndirectObject = a.npText(p.ind, a.entity(p.ind))
	}
	for _, t := range p.times {
		a.pendingParam(act, memory.ActionParam{Name: a.times[t-1].kind, Value: a.timeValue(t)})
		if act.Tense == memory.TensePresent && !p.perfect {
			if c := a.times[t-1].tense; c != "" {
				act.Tense = c
			}
		}
	}
}

// subjectFacet sets what the action says about its subject: what it
// likes, dislikes or wants.
func (p *predicate) subjectFacet() {
	act, st, verbs := &p.act, p.st, p.verbs
	value := act.Object
	if len(verbs) > 1 {
		value = strings.TrimSpace(strings.Join(verbs[1:], " ") + " " + act.Object)
	}
	first := verbs[0]
	if value == "" {
		return
	}
	switch {
	case (likeVerbs[first] || likeVerbs[p.w] && len(verbs) == 1) && p.would:
		act.SubjectFacet = &memory.Facet{Name: "wants", Value: value}
	case likeVerbs[first] && st.neg:
		act.SubjectFacet = &memory.Facet{Name: "dislikes", Value: value}
	case likeVerbs[first]:
		act.SubjectFacet = &memory.Facet{Name: "likes", Value: value}
	case first == "stand" && st.neg && (st.modal == "can" || st.modal == "could"):
		act.SubjectFacet = &memory.Facet{Name: "dislikes", Value: value} // "can't stand"
	case dislikeVerbs[first] && !st.neg:
		act.SubjectFacet = &memory.Facet{Name: "dislikes", Value: value}
	case wantVerbs[first] && !st.neg:
		act.SubjectFacet = &memory.Facet{Name: "wants", Value: value}
	}
}

// possession reads ownership and kinship from the action: "I have a
// dog", "we adopted two cats", "Mom bought me a bike".
func (a *analysis) possession(p *predicate) {
	act, st, verbs := p.act, p.st, p.verbs
	if !(possessVerbs[verbs[0]] && len(verbs) == 1 && p.objEnt >= 0 && act.Subject != "" && !st.neg && !p.would &&
		act.Tense != memory.TenseFuture && st.modal == "") {
		return
	}
	e := a.ents.list[p.objEnt]
	owner := act.Subject
	if p.hasInd && ditransitives[p.lemma] && act.IndirectObject != "" {
		owner = act.IndirectObject // "Mom bought me a bike": mine
	}
	hs := en.Singular(memory.NormalizeTerm(e.Name))
	switch {
	case relationNouns[hs] && verbs[0] == "have":
		a.ents.addFacet(p.objEnt, memory.Facet{Name: "relation", Value: hs + " of " + act.Subject})
	case owned(e.Types):
		a.ents.addFacet(p.objEnt, memory.Facet{Name: "owner", Value: owner})
		if a.ents.hasType(p.objEnt, "animal") {
			a.ents.addType(p.objEnt, "pet")
		}
	}
}

// keepAction types a subject doing what people do as a person, and adds
// the action when it says something of someone.
func (a *analysis) keepAction(p *predicate) {
	sub, act, w := p.sub, p.act, p.w
	// a name doing what people do is a person.
	if sub.isNP && p.subjEnt >= 0 && len(a.ents.list[p.subjEnt].Types) == 0 && (personVerbs[w] || likeVerbs[w] ||
		dislikeVerbs[w] || wantVerbs[w] || humanVerbs[p.lemma]) {
		a.ents.addType(p.subjEnt, "person")
		a.personAt(sub.from, a.ents.list[p.subjEnt].Name)
	}
	keep := act.Object != "" || act.IndirectObject != "" || (!lightVerbs[p.verbs[0]] && act.Subject != "") || act.SubjectFacet != nil
	if (sub.pron == "3" || sub.pron == "3p") && act.Subject == "" {
		keep = false // "they saw it": whose action is unknown
	}
	if keep && (act.Subject != "" || act.Object != "" || act.IndirectObject != "") {
		a.addAction(act, a.rng(sub.from, p.k))
	}
}

// coordinated reads a predicate coordinated with this one ("... and then
// played soccer"), with the same subject, and returns where the last
// ends.
func (a *analysis) coordinated(p *predicate) int {
	k, st := p.k, p.st
	if k < p.s.to && (a.low(k) == "and" || a.low(k) == "then" || a.low(k) == "&" || a.low(k) == "but") {
		nx := k + 1
		if a.low(nx) == "then" || a.low(nx) == "also" {
			nx++
		}
		if _, f, known := lemmaVerb(a.low(nx)); known && (f == vPast || f == v3sg || f == vBase && (st.future || st.modal != "")) &&
			a.nameAt[nx] == 0 && !inCategory(a.low(nx)) {
			next := p.sub
			next.end = nx
			inh := vpState{future: st.future, modal: st.modal}
			return a.parsePredicate(next, p.s, inh)
		}
	}
	return k
}

// subjectOnly reports whether w is a pronoun that cannot be an object.
func subjectOnly(w string) bool {
	return w != "you" && pronounSubject(w)
}

var humanVerbs = set(`adopt marry date graduate study learn teach decide plan paint sing dance cook bake hike
	volunteer retire apologize cry laugh smile meet visit travel move text call write read watch work live`)

// skipAdv returns the first token at or after i that is not an adverb or
// a negation.
func (a *analysis) skipAdv(i int) int {
	for i < len(a.toks) && (adverbs[a.low(i)] || negations[a.low(i)]) && a.low(i) != "no" {
		i++
	}
	return i
}

// baseVerbAt reports whether token i is a verb in its base form.
func (a *analysis) baseVerbAt(i int, s sentence) bool {
	if i >= s.to || a.toks[i].kind != tWord || a.nameAt[i] != 0 || a.timeAt[i] != 0 {
		return false
	}
	w := a.low(i)
	if functionWord(w) || a.toks[i].cap && i > s.from {
		return false
	}
	_, f, known := lemmaVerb(w)
	return known && (f == vBase || f == vAmbig) && !(inCategory(w) && !baseVerbs[w])
}

// personish reports whether a noun phrase is plainly a person.
func (a *analysis) personish(n np) bool {
	if n.pron == "1" || n.pron == "2" || n.pron == "3" || n.pron == "3p" {
		return true
	}
	if ni := a.nameAt[n.cfrom]; ni != 0 && n.cto == a.names[ni-1].to {
		return a.ents.hasType(a.names[ni-1].ent, "person") || len(a.ents.list[a.names[ni-1].ent].Types) == 0
	}
	return n.cto > n.cfrom && relationNouns[en.Singular(a.low(n.cto-1))]
}

// pendingParam adds a parameter to an action being built.
func (a *analysis) pendingParam(act *memory.Action, p memory.ActionParam) {
	if memory.NormalizeTerm(p.Value) == "" || len(act.Params) >= 8 {
		return
	}
	for _, x := range act.Params {
		if x == p {
			return
		}
	}
	act.Params = append(act.Params, p)
}

// addParam adds a parameter to the action at index i.
func (a *analysis) addParam(i int, p memory.ActionParam) {
	for _, x := range a.acts[i].Params {
		if x.Name == p.Name {
			return
		}
	}
	a.pendingParam(&a.acts[i], p)
	if a.acts[i].Tense == memory.TensePresent {
		for _, t := range a.times {
			if a.surface(t.valueFrom, t.to) == p.Value && t.tense != "" {
				a.acts[i].Tense = t.tense
			}
		}
	}
}

func (a *analysis) addAction(act memory.Action, r memory.TextRange) {
	if len(a.acts) >= a.o.MaxActions {
		return
	}
	for _, x := range a.acts {
		if sameAction(x, act) {
			return
		}
	}
	a.acts = append(a.acts, act)
	a.actRanges = append(a.actRanges, r)
}

func sameAction(x, y memory.Action) bool {
	return strings.Join(x.Verbs, " ") == strings.Join(y.Verbs, " ") && x.Subject == y.Subject && x.Object == y.Object &&
		x.IndirectObject == y.IndirectObject && x.Negated == y.Negated && x.Tense == y.Tense
}

// passive handles "I was invited to a wedding": the subject is the object.
func (a *analysis) passive(sub subject, s sentence, k int, lemma string, st vpState, times []int) int {
	a.verbAt[k] = true
	act := memory.Action{Verbs: []string{lemma}, Negated: st.neg, Tense: memory.TensePresent}
	if st.past {
		act.Tense = memory.TensePast
	}
	if st.future {
		act.Tense = memory.TenseFuture
	}
	from := sub.from
	if sub.isNP {
		act.Object = a.npText(sub.n, a.entity(sub.n))
	} else {
		act.Object = sub.name
	}
	k++
	for pp := 0; pp < 3 && k < s.to; {
		if t := a.timeAt[k]; t != 0 {
			times = append(times, t)
			k = a.times[t-1].to
			continue
		}
		w := a.low(k)
		if !prepositions[w] {
			break
		}
		n, ok := a.parseNP(k+1, s.to)
		if !ok {
			break
		}
		pp++
		k = n.to
		if n.time != 0 {
			times = append(times, n.time)
			continue
		}
		text := a.npText(n, a.entity(n))
		switch {
		case text == "":
		case w == "by" && act.Subject == "":
			act.Subject = text
		case act.IndirectObject == "" && w != "by" && w != "with":
			act.IndirectObject = text
		default:
			a.pendingParam(&act, memory.ActionParam{Name: w, Value: text})
		}
	}
	for _, t := range times {
		a.pendingParam(&act, memory.ActionParam{Name: a.times[t-1].kind, Value: a.timeValue(t)})
	}
	if act.Object != "" && !s.question {
		a.addAction(act, a.rng(from, k))
	}
	return k
}

// copula handles "X is/am/are ...": facets of the subject.
func (a *analysis) copula(sub subject, s sentence, k int, st vpState) int {
	if sub.isNP {
		for m := sub.n.cfrom; m < sub.n.cto; m++ {
			if w := a.low(m); w == "favorite" || w == "favourite" || w == "fave" {
				return k // "my favorite X is Y": read by favorites
			}
		}
	}
	e := sub.ent
	if sub.isNP {
		e = a.entity(sub.n)
	} else if sub.name != "" {
		e = a.ents.find(sub.name)
	}
	if k >= s.to || st.neg || st.past || st.future || st.modal != "" {
		return k // "I was a kid", "I'd be a nurse": no lasting facet
	}
	person := e >= 0 && (a.ents.hasType(e, "person") || a.ents.hasType(e, "animal"))
	w := a.low(k)
	// "I am 32", "my son is 5 years old"
	if v, ok := isNumberWord(a.toks[k]); ok && (a.toks[k].kind == tNum || numberWords[w] > 1) && person {
		unit, end := "years", k+1
		if u := timeUnits[a.low(k+1)]; u != "" && a.low(k+2) == "old" {
			unit, end = u+"s", k+3
		} else if !(end >= s.to || a.toks[end].kind == tPunct || a.low(end) == "and" || a.low(end) == "now" || a.low(end) == "today") {
			return k + 1
		}
		if v > 0 && v < 130 {
			a.ents.addFacet(e, memory.Facet{Name: "age", Value: formatNum(v) + " " + unit, Quantity: &memory.Quantity{Amount: v, Units: unit}})
		}
		return end
	}
	if e < 0 {
		return k + 1
	}
	switch {
	case statusAdjectives[w] && person:
		a.ents.addFacet(e, memory.Facet{Name: "status", Value: w})
		if w == "allergic" && a.low(k+1) == "to" {
			if n, ok := a.parseNP(k+2, s.to); ok {
				if v := a.npText(n, a.entity(n)); v != "" {
					a.ents.addFacet(e, memory.Facet{Name: "allergy", Value: v})
				}
				return n.to
			}
		}
		return k + 1
	case w == "from" && person:
		if n, ok := a.parseNP(k+1, s.to); ok {
			pe := a.entity(n)
			if pe >= 0 && len(a.ents.list[pe].Types) == 0 {
				a.ents.addType(pe, "place")
			}
			if v := a.npText(n, pe); v != "" {
				a.ents.addFacet(e, memory.Facet{Name: "from", Value: v})
			}
			return n.to
		}
	}
	// "I'm into jazz", "interested in", "a big fan of", "afraid of", "good at"
	j := a.skipAdv(k)
	if w := a.low(j); person {
		prep, like := likeAdjectives[w]
		fprep, fear := fearAdjectives[w]
		sprep, skill := skillAdjectives[w]
		name := ""
		switch {
		case like && (prep == "" || a.low(j+1) == prep):
			name = "likes"
		case fear && a.low(j+1) == fprep:
			name, prep = "afraid of", fprep
		case skill && a.low(j+1) == sprep:
			name, prep = "good at", sprep
			if w == "bad" {
				name = "bad at"
			}
		}
		if name == "" && (w == "a" || w == "an" || w == "the" || w == "such") {
			// "a (huge) fan of"
			m := j + 1
			for m < s.to && (adjectives[a.low(m)] || adverbs[a.low(m)]) {
				m++
			}
			if (a.low(m) == "fan" || a.low(m) == "lover") && a.low(m+1) == "of" {
				name, prep, j = "likes", "of", m
			}
		}
		if name != "" {
			at := j + 1
			if prep != "" {
				at = j + 2
			}
			if n, ok := a.parseNP(at, s.to); ok {
				if v := a.npText(n, a.entity(n)); v != "" {
					a.ents.addFacet(e, memory.Facet{Name: name, Value: v})
				}
				return n.to
			}
			return at
		}
	}
	// "Ana is my sister", "I'm a nurse", "Lisbon is a beautiful city"
	n, ok := a.parseNP(k, s.to)
	if !ok || n.pron != "" || n.time != 0 || n.measure != "" {
		return k + 1
	}
	for m := n.from; m < n.to; m++ {
		a.usedAt[m] = true
	}
	head := en.Singular(a.low(n.cto - 1))
	if a.nameAt[n.cto-1] != 0 {
		// "my name is Ana", "that's Ana"
		return n.to
	}
	switch {
	case relationNouns[head] && n.owner != "":
		a.ents.addType(e, "person")
		a.ents.addFacet(e, memory.Facet{Name: "relation", Value: head + " of " + n.owner})
		a.personAt(sub.from, a.ents.list[e].Name)
	case person && occupations[head]:
		a.ents.addFacet(e, memory.Facet{Name: "occupation", Value: a.npText(n, -1)})
	case person && (n.from < n.cfrom && (a.low(n.from) == "a" || a.low(n.from) == "an")):
		if v := a.npText(n, -1); v != "" {
			a.ents.addFacet(e, memory.Facet{Name: "role", Value: v})
		}
	case !person && (n.from < n.cfrom && (a.low(n.from) == "a" || a.low(n.from) == "an")) && !genericNouns[head] && isWordy(head):
		a.ents.addType(e, head)
	}
	return n.to
}

// favorites reads "my favorite X is Y" and "Y is my favorite X".
func (a *analysis) favorites(s sentence) {
	for i := s.from; i < s.to; i++ {
		w := a.low(i)
		if w != "favorite" && w != "favourite" && w != "fave" && w != "favorites" && w != "favourites" {
			continue
		}
		owner := a.possessor(i - 1)
		if owner == "" || i+1 >= s.to {
			continue
		}
		oe := a.ents.find(owner)
		if oe < 0 {
			continue
		}
		// X: the words up to the verb
		j := i + 1
		for j < s.to && j < i+4 && a.toks[j].kind == tWord && !beForms[a.low(j)] && !functionWord(a.low(j)) && a.low(j) != "'s" {
			j++
		}
		if j == i+1 {
			continue
		}
		what := strings.ToLower(a.surface(i+1, j))
		for m := i; m < j; m++ {
			a.usedAt[m] = true
		}
		var value string
		if beForms[a.low(j)] || a.low(j) == "'s" {
			// my favorite X is Y
			if n, ok := a.parseNP(j+1, s.to); ok {
				value = a.npText(n, a.entity(n))
			}
		} else if i >= 3 && beForms[a.low(i-2)] || i >= 3 && a.low(i-2) == "'s" {
			// Y is my favorite X
			if sub, ok := a.subjectBefore(i-2, s); ok {
				value = sub
			}
		}
		if value != "" {
			a.ents.addFacet(oe, memory.Facet{Name: "favorite " + singularPhrase(what), Value: value})
		}
	}
}

// subjectBefore returns the noun phrase ending just before token i.
func (a *analysis) subjectBefore(i int, s sentence) (string, bool) {
	if ni := a.nameAt[i-1]; i > s.from && ni != 0 {
		return a.ents.list[a.names[ni-1].ent].Name, true
	}
	for j := i - 1; j >= s.from && j >= i-4; j-- {
		if n, ok := a.parseNP(j, i); ok && n.to == i && n.pron == "" && n.time == 0 {
			if j > s.from && !(a.toks[j-1].kind != tWord || functionWord(a.low(j-1))) {
				continue
			}
			v := a.npText(n, a.entity(n))
			return v, v != ""
		}
	}
	return "", false
}

func singularPhrase(p string) string {
	f := strings.Fields(p)
	if len(f) == 0 {
		return p
	}
	f[len(f)-1] = en.Singular(f[len(f)-1])
	return strings.Join(f, " ")
}

func formatNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
