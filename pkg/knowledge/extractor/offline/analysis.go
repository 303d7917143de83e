package offline

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
)

// analysis is the state of the extraction of one source.
type analysis struct {
	o        Options
	src      memory.KnowledgeSource
	text     string
	toks     []token
	sents    []sentence
	sentOf   []int  // token -> sentence
	caseless []bool // sentence -> capitals carry no information (headline, shouting)
	timeAt   []int  // token -> index+1 into times
	times    []timeSpan
	nameAt   []int // token -> index+1 into names
	names    []nameSpan
	verbAt   []bool // token is the verb of an action
	usedAt   []bool // token belongs to an action's subject, object or indirect object

	speaker     string
	listener    string            // the only listener, when there is one
	people      map[string]string // normalized name or first name -> canonical name (speaker, listeners)
	peopleFirst map[string]bool   // first words of the keys of people

	ents       entitySet
	speakerIdx int
	persons    []personMention // third-party persons, by position

	acts      []memory.Action
	actRanges []memory.TextRange
	topics    []topic
}

type personMention struct {
	tok  int
	name string
}

func newAnalysis(src memory.KnowledgeSource, o Options) *analysis {
	text := src.Text
	if len(text) > o.MaxTextBytes {
		cut := o.MaxTextBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	a := &analysis{o: o, src: src, text: text, speakerIdx: -1, people: map[string]string{}}
	meta := Metadata(src, o.OmitSayActions)
	for i, e := range meta.Entities {
		a.ents.add(e.Name, e.Types, meta.EntityRanges[i])
		a.people[memory.NormalizeTerm(e.Name)] = e.Name
		if f := strings.Fields(e.Name); len(f) > 1 {
			if _, taken := a.people[memory.NormalizeTerm(f[0])]; !taken {
				a.people[memory.NormalizeTerm(f[0])] = e.Name
			}
		}
	}
	a.acts, a.actRanges = meta.Actions, meta.ActionRanges
	a.speaker = cleanName(src.Speaker)
	if a.speaker != "" {
		a.speakerIdx = a.ents.find(a.speaker)
	}
	var ls []string
	for _, l := range src.Listeners {
		if l = cleanName(l); l != "" && !strings.EqualFold(l, a.speaker) {
			ls = append(ls, l)
		}
	}
	if len(ls) == 1 {
		a.listener = ls[0]
	}
	return a
}

func (a *analysis) run() {
	if strings.TrimSpace(a.text) == "" {
		return
	}
	a.toks = tokenize(a.text)
	n := len(a.toks)
	a.sents = splitSentences(a.toks)
	a.sentOf = make([]int, n)
	a.timeAt = make([]int, n)
	a.nameAt = make([]int, n)
	a.verbAt = make([]bool, n)
	a.usedAt = make([]bool, n)
	a.caseless = make([]bool, len(a.sents))
	for si, s := range a.sents {
		words, caps := 0, 0
		for i := s.from; i < s.to; i++ {
			a.sentOf[i] = si
			if t := a.toks[i]; t.kind == tWord {
				words++
				if t.cap || t.allCaps {
					caps++
				}
			}
		}
		a.caseless[si] = words >= 4 && caps*10 >= words*7
		a.times = findTimes(a.toks, s.from, s.to, a.times, a.timeAt)
	}
	a.findNames()
	for si, s := range a.sents {
		a.parseSentence(si, s)
	}
	a.lexiconEntities()
	a.findTopics()
}

// rng returns the byte range of tokens [from, to).
func (a *analysis) rng(from, to int) memory.TextRange {
	if from < 0 || to <= from || to > len(a.toks) {
		return memory.TextRange{}
	}
	return memory.TextRange{Start: a.toks[from].start, End: a.toks[to-1].end}
}

// surface returns the text of tokens [from, to) as written.
func (a *analysis) surface(from, to int) string {
	r := a.rng(from, to)
	if r.End <= r.Start {
		return ""
	}
	t := a.text[r.Start:r.End]
	for i := 0; i < len(t); i++ {
		if c := t[i]; c == '\n' || c == '\r' || c == '\t' || c == ' ' && i+1 < len(t) && t[i+1] == ' ' || c >= 0x80 {
			return strings.Join(strings.Fields(t), " ")
		}
	}
	return t
}

func (a *analysis) low(i int) string {
	if i < 0 || i >= len(a.toks) {
		return ""
	}
	return a.toks[i].low
}

// personAt records a third-party person mentioned at token i.
func (a *analysis) personAt(i int, name string) {
	if name == "" || strings.EqualFold(name, a.speaker) || strings.EqualFold(name, a.listener) {
		return
	}
	if _, meta := a.people[memory.NormalizeTerm(name)]; meta {
		return
	}
	if n := len(a.persons); n > 0 && a.persons[n-1].name == name || n >= 64 {
		return
	}
	a.persons = append(a.persons, personMention{tok: i, name: name})
}

// thirdPerson resolves he/she at token i: the one third-party person
// mentioned before it in this memory, if there is exactly one.
func (a *analysis) thirdPerson(i int) string {
	var found string
	for _, p := range a.persons {
		if p.tok >= i {
			continue
		}
		if found != "" && !strings.EqualFold(found, p.name) {
			return ""
		}
		found = p.name
	}
	return found
}

// knowledge assembles the result, within the caps.
func (a *analysis) knowledge() memory.Knowledge {
	var k memory.Knowledge
	ents, rs := a.ents.list, a.ents.ranges
	if len(ents) > a.o.MaxEntities {
		ents, rs = ents[:a.o.MaxEntities], rs[:a.o.MaxEntities]
	}
	k.Entities, k.EntityRanges = ents, rs
	acts, ars := a.acts, a.actRanges
	if len(acts) > a.o.MaxActions {
		acts, ars = acts[:a.o.MaxActions], ars[:a.o.MaxActions]
	}
	k.Actions, k.ActionRanges = acts, ars
	// topics: most frequent, then multiword, then first seen; not entity names.
	ts := make([]topic, 0, len(a.topics))
	for _, t := range a.topics {
		if a.ents.find(t.text) < 0 && a.ents.find(singularPhrase(strings.ToLower(t.text))) < 0 {
			ts = append(ts, t)
		}
	}
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].count != ts[j].count {
			return ts[i].count > ts[j].count
		}
		wi, wj := strings.Count(ts[i].text, " "), strings.Count(ts[j].text, " ")
		if (wi > 0) != (wj > 0) {
			return wi > 0
		}
		return ts[i].r.Start < ts[j].r.Start
	})
	if len(ts) > a.o.MaxTopics {
		ts = ts[:a.o.MaxTopics]
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].r.Start < ts[j].r.Start })
	for _, t := range ts {
		k.Topics = append(k.Topics, t.text)
		k.TopicRanges = append(k.TopicRanges, t.r)
	}
	// within the refs limit of one memory.
	for len(k.Entities)+len(k.Actions)+len(k.Topics) > memory.MaxRefsPerMemory {
		switch {
		case len(k.Topics) > 0:
			k.Topics, k.TopicRanges = k.Topics[:len(k.Topics)-1], k.TopicRanges[:len(k.TopicRanges)-1]
		case len(k.Actions) > 0:
			k.Actions, k.ActionRanges = k.Actions[:len(k.Actions)-1], k.ActionRanges[:len(k.ActionRanges)-1]
		default:
			k.Entities, k.EntityRanges = k.Entities[:len(k.Entities)-1], k.EntityRanges[:len(k.EntityRanges)-1]
		}
	}
	if len(k.Entities) == 0 {
		k.Entities, k.EntityRanges = nil, nil
	}
	if len(k.Actions) == 0 {
		k.Actions, k.ActionRanges = nil, nil
	}
	return k
}
