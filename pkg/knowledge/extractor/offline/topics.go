package offline

import (
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// topic is a key noun phrase of the text, with how often it occurs.
type topic struct {
	text  string
	r     memory.TextRange
	count int
}

// lexiconEntities adds the nouns of the type lexicon the clauses did not
// reach: "swamped with the kids & work" still names the kids.
func (a *analysis) lexiconEntities() {
	for i := 0; i < len(a.toks); i++ {
		t := a.toks[i]
		if t.kind != tWord || a.usedAt[i] || a.verbAt[i] || a.nameAt[i] != 0 || a.timeAt[i] != 0 {
			continue
		}
		w := t.low
		if !inCategory(w) {
			continue
		}
		prev := a.low(i - 1)
		// a verb use: "I paint", "to cook", "we fish"
		if _, f, known := lemmaVerb(w); known && (f == vBase || f == v3sg || f == vPast || f == vAmbig) && baseVerbs[en.Singular(w)] {
			if _, p := pronouns[prev]; (p && !possessives[prev]) || prev == "to" || modals[prev] || doForms[prev] {
				continue
			}
		}
		if _, f, _ := lemmaVerb(w); f == vIng && a.npStartAt(i+1, len(a.toks)) && !inCategory(w+" "+en.Singular(a.low(i+1))) {
			continue // a gerund with an object: "running my own business"
		}
		from := i
		if i+1 < len(a.toks) && a.toks[i+1].kind == tWord && inCategory(w+" "+en.Singular(a.low(i+1))) && a.nameAt[i+1] == 0 {
			i++
		}
		n := np{from: from, to: i + 1, cfrom: from, cto: i + 1}
		if possessives[prev] || prev == "her" || prev == "'s" {
			n.owner = a.possessor(from - 1)
		}
		a.entity(n)
	}
}

// findTopics collects noun phrases made of content words: runs without
// function words, verbs, adverbs, evaluative adjectives or times, at most
// three words, ending in a noun.
func (a *analysis) findTopics() {
	seen := map[string]int{}
	for _, s := range a.sents {
		i := s.from
		for i < s.to {
			if !a.topicWord(i, s) {
				i++
				continue
			}
			j := i
			for j < s.to && a.topicWord(j, s) {
				if ni := a.nameAt[j]; ni != 0 {
					j = a.names[ni-1].to
					continue
				}
				j++
			}
			a.addTopic(i, j, seen)
			i = j
		}
	}
}

// topicWord reports whether token i can be part of a topic phrase.
func (a *analysis) topicWord(i int, s sentence) bool {
	t := a.toks[i]
	if t.kind != tWord || a.timeAt[i] != 0 || a.verbAt[i] {
		return false
	}
	if a.nameAt[i] != 0 {
		return true
	}
	w := t.low
	if functionWord(w) || en.TermStopWord(w) || adverbs[w] || adjectives[w] || interjections[w] ||
		strings.HasPrefix(w, "'") || len(w) < 2 || !isWordy(w) {
		return false
	}
	if _, ok := numberWords[w]; ok {
		return false
	}
	if inCategory(w) || occupations[w] {
		return true
	}
	_, f, known := lemmaVerb(w)
	switch f {
	case vIng:
		// "inspiring stories", "the painting", "grand opening": a modifier or a noun
		return i+1 < s.to && a.toks[i+1].kind == tWord && !functionWord(a.low(i+1)) && !adverbs[a.low(i+1)] ||
			i > s.from && (determiners[a.low(i-1)] || possessives[a.low(i-1)] ||
				a.toks[i-1].kind == tWord && !functionWord(a.low(i-1)) && !adverbs[a.low(i-1)] && !a.verbAt[i-1] && a.timeAt[i-1] == 0 && !interjections[a.low(i-1)])
	case vPast:
		return false
	case vBase, v3sg, vAmbig:
		if known {
			// a noun after a determiner or adjective: "a walk", "my work"
			p := a.low(i - 1)
			return i > s.from && (nounDeterminers[p] || possessives[p] || adjectives[p])
		}
	}
	return true
}

// addTopic adds tokens [i, j) as a topic: its last three words, without
// generic words at its ends.
func (a *analysis) addTopic(i, j int, seen map[string]int) {
	for j > i && (genericNouns[a.low(j-1)] && a.nameAt[j-1] == 0) {
		j--
	}
	for i < j && genericNouns[a.low(i)] && a.nameAt[i] == 0 {
		i++
	}
	if j <= i {
		return
	}
	// only a name: it is an entity already.
	if ni := a.nameAt[i]; ni != 0 && a.names[ni-1].from == i && a.names[ni-1].to == j {
		return
	}
	if j-i > 3 {
		i = j - 3
		for i < j && a.nameAt[i] != 0 && a.names[a.nameAt[i]-1].from < i {
			i++
		}
	}
	// a single word must look like a noun: a lexicon noun, a noun suffix,
	// or a determiner, possessive, adjective, number or preposition before it.
	if j-i == 1 && a.nameAt[i] == 0 && !a.nounLike(i) {
		return
	}
	text := a.surface(i, j)
	key := memory.NormalizeTerm(text)
	if key == "" || len(key) > memory.MaxTermBytes {
		return
	}
	if k, ok := seen[key]; ok {
		a.topics[k].count++
		return
	}
	seen[key] = len(a.topics)
	a.topics = append(a.topics, topic{text: text, r: a.rng(i, j), count: 1})
}

// nounDeterminers are the determiners that plainly start a noun phrase
// ("that" and "all" also introduce clauses and float).
var nounDeterminers = set(`a an the this these those every each another some any no my your his our their its`)

var nounSuffixes = []string{"tion", "sion", "ment", "ness", "ity", "ism", "ship", "hood", "ance", "ence", "ist",
	"ology", "ure", "dom", "age", "ery", "cy"}

func (a *analysis) nounLike(i int) bool {
	w := a.low(i)
	if len(w) < 3 {
		return false
	}
	if inCategory(w) || occupations[w] {
		return true
	}
	if _, f, _ := lemmaVerb(w); f == vIng {
		return false
	}
	for _, suf := range nounSuffixes {
		if len(w) > len(suf)+2 && strings.HasSuffix(en.Singular(w), suf) {
			return true
		}
	}
	p := a.low(i - 1)
	if i > 0 && a.toks[i-1].kind == tNum {
		return true
	}
	_, num := numberWords[p]
	return determiners[p] || possessives[p] || p == "her" || prepositions[p] || adjectives[p] || num || p == "'s" && a.possessiveS(i-1)
}
