package query

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// token is a word or a punctuation mark of a question.
type token struct {
	text  string // as written, without a possessive or a contracted 's, 're...
	low   string // lower case
	cap   bool   // starts with an upper-case letter
	start bool   // first word of a sentence
	punct rune   // the mark, for punctuation; 0 for a word
	num   int    // the value of an all-digit word; -1 otherwise
	clit  bool   // held an apostrophe that was not a clitic ("didn't")
	poss  bool   // lost a possessive or contracted 's ("Ana's")
}

// tokenize splits text into words (letters and digits, with inner
// apostrophes and hyphens) and punctuation marks. Possessive and
// contracted endings ('s, 're, 've, 'll, 'd, 'm) are dropped.
func tokenize(text string) []token {
	var out []token
	start := true
	rs := []rune(text)
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case isWord(r):
			j := i + 1
			for j < len(rs) && (isWord(rs[j]) || (rs[j] == '\'' || rs[j] == '’' || rs[j] == '-') && j+1 < len(rs) && isWord(rs[j+1])) {
				j++
			}
			w := strings.ReplaceAll(string(rs[i:j]), "’", "'")
			lw := strings.ToLower(w)
			poss := false
			for _, c := range []string{"'s", "'re", "'ve", "'ll", "'d", "'m"} {
				if strings.HasSuffix(lw, c) && len(lw) > len(c) {
					w, lw, poss = w[:len(w)-len(c)], lw[:len(lw)-len(c)], c == "'s"
					break
				}
			}
			t := token{text: w, low: lw, cap: unicode.IsUpper(rs[i]), start: start, num: -1, clit: strings.Contains(lw, "'"), poss: poss}
			if len(lw) <= 9 && strings.Trim(lw, "0123456789") == "" {
				t.num, _ = strconv.Atoi(lw)
			}
			out = append(out, t)
			start = false
			i = j
		default:
			out = append(out, token{text: string(r), low: string(r), punct: r, num: -1})
			if r == '.' || r == '!' || r == '?' || r == ';' {
				start = true
			}
			i++
		}
	}
	return out
}

// auxiliaries that can open a question before its subject.
var auxiliaries = set(`do does did have has had will would is are was were can could should shall may might`)

// nameConnectors can join the capitalized words of one name ("Lord of the
// Rings", "Leonardo da Vinci").
var nameConnectors = set(`of the de da di del la le van von y`)

// determiners before the words of an anchor event.
var determiners = set(`the a an my your his her our their its this that these those she he they we i you it`)

// Translator turns a question into an expression without a model. The
// zero value is ready to use.
type Translator struct {
	// Known, when set, reports whether a normalized term is the name of an
	// entity the org knows (from its entity list): such words are names
	// even in lower case or at the start of a sentence.
	Known func(term string) bool
}

// Translate is Translator{}.Translate.
func Translate(text string, now time.Time) (*Expr, error) { return Translator{}.Translate(text, now) }

// Translate turns a question into an expression, resolving time
// expressions against now (see the package documentation for what it
// recognizes). Errors: EINVALID when the text is empty, too long, not
// UTF-8, or holds no search term.
func (tr Translator) Translate(text string, now time.Time) (*Expr, error) {
	if err := checkText(text); err != nil {
		return nil, err
	}
	q := &question{toks: tokenize(text), known: tr.Known}
	q.used = make([]bool, len(q.toks))
	x := &Expr{}
	q.times(now, x)
	q.questionWords(x)
	comparisons := q.comparisons()
	q.names()
	q.actions()
	var leaves []Node
	for _, a := range q.acts {
		leaves = append(leaves, Node{Action: a})
	}
	for _, n := range q.nameList {
		leaves = append(leaves, Node{Entity: &EntityLeaf{Name: n}})
	}
	if len(q.types) > 0 {
		leaves = append(leaves, Node{Entity: &EntityLeaf{Types: q.types}})
	}
	terms := q.contentTerms()
	if len(leaves) == 0 {
		if len(terms) > MaxTerms {
			terms = terms[:MaxTerms]
		}
		x.Terms = terms
	} else {
		for _, t := range terms {
			leaves = append(leaves, Node{Term: t})
		}
		if len(leaves) > MaxLeaves {
			leaves = leaves[:MaxLeaves]
		}
		if len(leaves) == 1 {
			x.Select = &leaves[0]
		} else {
			x.Select = &Node{Or: leaves}
		}
	}
	if len(comparisons) > 0 { // a comparison restricts: every one must hold
		and := comparisons
		switch {
		case x.Select != nil:
			and = append(and, *x.Select)
			x.Select = &Node{And: and}
		case len(x.Terms) > 0:
			var or []Node
			for _, t := range x.Terms {
				or = append(or, Node{Term: t})
			}
			x.Terms = nil
			x.Select = &Node{And: append(and, Node{Or: or})}
		case len(and) == 1:
			x.Select = &and[0]
		default:
			x.Select = &Node{And: and}
		}
	}
	if x.Select == nil && len(x.Terms) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "text: no search terms (only function words, question words or times)")
	}
	return x.Normalized()
}

// checkText checks a question: UTF-8, not blank, at most
// memory.MaxQueryBytes.
func checkText(text string) error {
	switch {
	case !utf8.ValidString(text):
		return memory.Errorf(memory.EINVALID, "text: not valid UTF-8")
	case strings.TrimSpace(text) == "":
		return memory.Errorf(memory.EINVALID, "text: required")
	case len(text) > memory.MaxQueryBytes:
		return memory.Errorf(memory.EINVALID, "text: longer than %d bytes", memory.MaxQueryBytes)
	}
	return nil
}

type question struct {
	toks     []token
	used     []bool
	known    func(string) bool
	types    []string
	nameList []string
	nameAt   map[int]string // first token of each name -> the name
	nameEnd  map[int]int    // first token of each name -> the token after it
	acts     []*ActionLeaf
}

func (q *question) word(i int) bool { return i >= 0 && i < len(q.toks) && q.toks[i].punct == 0 }

func (q *question) low(i int) string {
	if q.word(i) {
		return q.toks[i].low
	}
	return ""
}

func (q *question) stop(w string) bool { return en.QuestionStopWord(w) }

func (q *question) isKnown(t string) bool { return q.known != nil && t != "" && q.known(t) }

// times finds the first time expression (into x.Time) and marks the tokens
// of every time expression used; "before" or "after" followed by words that
// are not a date make an anchor event.
func (q *question) times(now time.Time, x *Expr) {
	p := timeParser{toks: q.toks, now: now, strict: true}
	var rng *Range
	for i := 0; i < len(q.toks); i++ {
		if !q.word(i) || q.used[i] {
			continue
		}
		if r, n, ok := p.at(i); ok {
			if rng == nil {
				rng = &r
			}
			for k := i; k < i+n; k++ {
				q.used[k] = true
			}
			i += n - 1
			continue
		}
		if w := q.low(i); (w == "before" || w == "after") && (x.Time == nil || x.Time.Relation == "") {
			if anchor := q.anchor(i + 1); len(anchor) > 0 {
				q.used[i] = true
				x.Time = &Time{Relation: w, Anchor: anchor}
			}
		}
	}
	if rng != nil {
		if x.Time == nil {
			x.Time = &Time{}
		}
		if !rng.Start.IsZero() {
			x.Time.Start = rng.Start.Format(time.RFC3339)
		}
		if !rng.End.IsZero() {
			x.Time.End = rng.End.Format(time.RFC3339)
		}
	}
}

// anchor reads the event after "before" or "after": up to four content
// words, past determiners, pronouns and prepositions, up to a mark or a
// conjunction. Its tokens are marked used.
func (q *question) anchor(i int) []string {
	var out, seen []string
	var toks []int
	for ; q.word(i) && len(seen) < 4; i++ {
		w := q.low(i)
		switch {
		case determiners[w] || w == "to" || w == "of" || w == "in" || w == "at" || w == "for" || w == "with" || w == "from":
			if len(seen) == 0 && (w == "to" || w == "of") {
				return nil // "after all", "before long" are not events
			}
			toks = append(toks, i)
			continue
		case q.stop(w) || q.toks[i].clit || q.toks[i].num >= 0:
			i = len(q.toks)
			continue
		}
		seen = append(seen, w)
		toks = append(toks, i)
		out = append(out, w)
		if en.Inflected(w) {
			out = append(out, en.Lemma(w))
		}
	}
	if len(seen) == 0 {
		return nil
	}
	for _, k := range toks {
		q.used[k] = true
	}
	return out
}

// questionWords reads what the question asks for: when (askTime), who
// (persons), where (places), what or which X (entities of type X).
func (q *question) questionWords(x *Expr) {
	for i := range q.toks {
		if !q.word(i) || q.used[i] {
			continue
		}
		switch w := q.low(i); w {
		case "when":
			x.AskTime = true
		case "who", "whom", "whose":
			q.addType("person")
		case "where":
			q.addType("place", "city", "country")
		case "how":
			if q.low(i+1) == "long" && q.low(i+2) == "ago" {
				x.AskTime = true
				q.used[i+1], q.used[i+2] = true, true
			}
		case "what", "which":
			j := i + 1
			if k := q.low(j); (k == "kind" || k == "kinds" || k == "type" || k == "types" || k == "sort" || k == "sorts") && q.low(j+1) == "of" {
				j += 2
			}
			n := q.low(j)
			switch {
			case n == "year" || n == "month" || n == "day" || n == "date" || n == "time":
				x.AskTime = true
				q.used[j] = true
			case n != "" && !q.used[j] && !q.stop(n) && !q.toks[j].clit && q.toks[j].num < 0 && !en.Inflected(n) &&
				!(q.toks[j].cap && !q.toks[j].start):
				q.addType(en.Singular(n))
			}
		}
	}
}

func (q *question) addType(ts ...string) {
	for _, t := range ts {
		if !contains(q.types, t) {
			q.types = append(q.types, t)
		}
	}
}

func contains(ts []string, t string) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// nameWord reports whether token i can be part of a name.
func (q *question) nameWord(i int) bool {
	if !q.word(i) || q.used[i] || q.toks[i].num >= 0 || q.toks[i].clit {
		return false
	}
	w := q.low(i)
	_, month := months[w]
	_, day := weekdays[w]
	return !q.stop(w) && !month && !day
}

// names finds proper names: runs of capitalized words inside a sentence
// (with connectors such as "of the"), and words or pairs Known says are
// names, in any case and position.
func (q *question) names() {
	q.nameAt, q.nameEnd = map[int]string{}, map[int]int{}
	add := func(from, to int) {
		var ws []string
		for k := from; k < to; k++ {
			ws = append(ws, q.toks[k].text)
			q.used[k] = true
		}
		n := memory.NormalizeTerm(strings.Join(ws, " "))
		q.nameAt[from], q.nameEnd[from] = n, to
		if !contains(q.nameList, n) {
			q.nameList = append(q.nameList, n)
		}
	}
	for i := 0; i < len(q.toks); i++ {
		if !q.nameWord(i) {
			continue
		}
		if q.toks[i].cap {
			j := i + 1
			for {
				if q.nameWord(j) && q.toks[j].cap {
					j++
					continue
				}
				k := j
				for q.word(k) && nameConnectors[q.low(k)] && !q.toks[k].cap && k < j+2 {
					k++
				}
				if k > j && q.nameWord(k) && q.toks[k].cap {
					j = k + 1
					continue
				}
				break
			}
			run := memory.NormalizeTerm(joinText(q.toks[i:j]))
			switch {
			case !q.toks[i].start || j-i > 1 || q.isKnown(run):
				add(i, j)
				i = j - 1
				continue
			}
		}
		if q.nameWord(i+1) && q.isKnown(q.low(i)+" "+q.low(i+1)) {
			add(i, i+2)
			i++
			continue
		}
		if q.isKnown(q.low(i)) {
			add(i, i+1)
		}
	}
}

func joinText(ts []token) string {
	var ws []string
	for _, t := range ts {
		ws = append(ws, t.text)
	}
	return strings.Join(ws, " ")
}

// actions finds "aux Name [adverb] verb [prep] [det] [object]" ("did Ana
// move to Lisbon", "has Bo ever adopted a dog"): an action leaf with the
// verb's lemma, the subject, and the name or noun after it as the object
// (after a preposition, the indirect object).
func (q *question) actions() {
	for i := 0; i+2 < len(q.toks); i++ {
		if !auxiliaries[q.low(i)] {
			continue
		}
		subj, ok := q.nameAt[i+1]
		if !ok || q.toks[q.nameEnd[i+1]-1].poss {
			continue // "are Ana's hobbies": not a subject
		}
		j := q.nameEnd[i+1]
		for j < len(q.toks) && q.word(j) && adverbs[q.low(j)] {
			j++
		}
		v := q.low(j)
		if !q.word(j) || q.used[j] || q.stop(v) || q.toks[j].clit || q.toks[j].num >= 0 {
			continue
		}
		if _, suffix := en.LemmaOnce(v); copulas[q.low(i)] && suffix != "ing" {
			continue // "is Ana married": a state, not an action
		}
		a := &ActionLeaf{Verbs: []string{en.Lemma(v)}, Subject: subj}
		k := j + 1
		prep := prepositions[q.low(k)]
		if prep {
			k++
		}
		for determiners[q.low(k)] && !q.used[k] {
			k++
		}
		o, ok := q.nameAt[k]
		if !ok && q.word(k) && !q.used[k] && !q.stop(q.low(k)) && !q.toks[k].clit && q.toks[k].num < 0 {
			o, ok = en.Singular(q.low(k)), true
		}
		switch {
		case ok && prep:
			a.IndirectObject = o
		case ok:
			a.Object = o
		}
		q.acts = append(q.acts, a)
	}
}

// copulas are the auxiliaries of the progressive ("is Ana coming").
var copulas = set(`am is are was were`)

// adverbs that can stand between a question's subject and its verb.
var adverbs = set(`ever already also really never recently actually still just first finally usually often`)

// prepositions that introduce an indirect object.
var prepositions = set(`to in at from with for on into about`)

// contentTerms are the remaining words that are not stop words, each with
// its singular and its lemma, then the pairs of adjacent content words.
func (q *question) contentTerms() []string {
	var out []string
	add := func(t string) {
		if t = memory.NormalizeTerm(t); t != "" && !contains(out, t) {
			out = append(out, t)
		}
	}
	content := func(i int) bool {
		return q.word(i) && !q.used[i] && !q.stop(q.low(i)) && !q.toks[i].clit && q.toks[i].num < 0
	}
	for i := range q.toks {
		if !content(i) {
			continue
		}
		w := q.low(i)
		add(w)
		add(en.Singular(w))
		if en.Inflected(w) {
			add(en.Lemma(w))
		}
	}
	for i := range q.toks {
		if content(i) && content(i+1) {
			add(q.low(i) + " " + en.Singular(q.low(i+1)))
		}
	}
	return out
}

// set builds a lookup set from space-separated words.
func set(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}
