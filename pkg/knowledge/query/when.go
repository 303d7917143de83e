package query

import (
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/text/en"
)

// Questions that ask when, and memories that say when. A question such as
// "When did Ana move to Lisbon?" is answered by the memory that tells the
// move and says when it happened ("we moved last May", "I've lived here
// for two years"): the date is that memory's own time shifted by what it
// says. Among the memories that match the question's words, the ones that
// state a time are the likely answers. The retrieval pipeline's when list
// (retrieval.WhenList) ranks them by these two tests.

// whenOpeners are the question words that ask for a time or a duration
// ("which year", "how long ago", "since when"...), as word pairs; "when"
// alone asks too.
var whenOpeners = map[[2]string]bool{
	{"what", "time"}: true, {"what", "date"}: true, {"what", "day"}: true, {"what", "year"}: true,
	{"what", "month"}: true, {"what", "week"}: true, {"what", "season"}: true, {"which", "year"}: true,
	{"which", "month"}: true, {"which", "day"}: true, {"which", "week"}: true, {"which", "season"}: true,
	{"what", "weekend"}: true, {"which", "weekend"}: true, {"what", "decade"}: true, {"which", "decade"}: true,
	{"how", "long"}: true, {"since", "when"}: true, {"how", "recently"}: true, {"how", "soon"}: true,
}

// AsksWhen reports whether text is a question about a time or a duration:
// it opens a clause with "when", or has "what year", "which month", "how
// long", "how many years" and the like. "When I was a kid, what did I like?" does not ask
// when: a "when" followed by a subject pronoun opens a clause of time, not
// a question.
func AsksWhen(text string) bool {
	toks := tokenize(text)
	for i, t := range toks {
		if t.punct != 0 {
			continue
		}
		next := ""
		if i+1 < len(toks) && toks[i+1].punct == 0 {
			next = toks[i+1].low
		}
		if t.low == "when" {
			switch next {
			case "i", "you", "we", "he", "she", "they", "it", "my", "our", "his", "her", "their":
				continue // "when I was young": a clause of time
			}
			return true
		}
		if whenOpeners[[2]string{t.low, next}] {
			return true
		}
		// "How many years...", "how many weeks ago...", "how much time...":
		// a count of a duration's units; not a rate ("how many days a
		// week", "how many hours per day"), which asks how often.
		if t.low == "how" && (next == "many" || next == "much") && i+2 < len(toks) && toks[i+2].punct == 0 &&
			(durationUnits[toks[i+2].low] || next == "much" && toks[i+2].low == "time") && !rate(toks, i+3) {
			return true
		}
	}
	return false
}

// rate reports whether toks[i:] opens with "a", "an", "per", "each" or
// "every" before a unit of time: the "a week" of "how many days a week".
func rate(toks []token, i int) bool {
	if i+1 >= len(toks) || toks[i].punct != 0 || toks[i+1].punct != 0 {
		return false
	}
	switch toks[i].low {
	case "a", "an", "per", "each", "every":
		return durationUnits[toks[i+1].low]
	}
	return false
}

// StatesTime reports whether text states a time or a duration: a time
// expression that FindTime reads ("yesterday", "last Fri", "two weekends
// ago", "on 8 May"), a count of units ("for 4 years", "seven months
// now"), or the speaker's own present: "just" before a simple past ("I
// just got accepted", "just teamed up", not "I just love it"), a subject
// that "recently" did something ("we recently moved"), or "currently".
// Those tell of the time the memory was said, which is
// its date: the answer to "When did Gina get the internship?" is the
// turn "I just got accepted for a fashion internship!".
func StatesTime(text string) bool {
	p := timeParser{toks: tokenize(text), now: statesTimeNow, strict: true}
	for i := range p.toks {
		if p.toks[i].punct != 0 {
			continue
		}
		if _, _, ok := p.at(i); ok {
			return true
		}
		if _, _, n, ok := p.count(i); ok && durationUnits[p.low(i+n)] {
			return true
		}
		if p.low(i) == "currently" || subjects[p.low(i)] && p.low(i+1) == "recently" {
			return true
		}
		// "I just got accepted", "Just got back from Rome", "and just
		// teamed up": not "I just love it", "I just wanted to say".
		if p.low(i) == "just" && pastTense(p.low(i+1)) {
			return true
		}
	}
	return false
}

// subjects are the subject pronouns that "just" or "recently" follows in
// a statement of the speaker's present ("I just...", "we've recently...").
var subjects = map[string]bool{"i": true, "we": true, "he": true, "she": true, "they": true,
	"i've": true, "we've": true, "he's": true, "she's": true, "they've": true}

// pastTense reports whether a word is a verb's simple past: an irregular
// one, or a word in -ed that is not a feeling ("just wanted to say",
// "I'm just amazed"), which tells no event.
func pastTense(w string) bool {
	if en.CommonIrregularPast(w) {
		return true
	}
	return len(w) > 4 && strings.HasSuffix(w, "ed") && !feelings[w]
}

// feelings are words in -ed that tell a state of mind, not an event.
var feelings = map[string]bool{"wanted": true, "needed": true, "loved": true, "liked": true, "hoped": true,
	"wished": true, "wondered": true, "tired": true, "excited": true, "thrilled": true, "amazed": true,
	"stoked": true, "pleased": true, "blessed": true, "scared": true, "worried": true, "bored": true,
	"surprised": true, "interested": true, "inspired": true, "obsessed": true, "pumped": true, "relieved": true}

// statesTimeNow is the reference time StatesTime parses against: any fixed
// time serves, since it asks only whether an expression is there.
var statesTimeNow = time.Date(2000, 6, 15, 12, 0, 0, 0, time.UTC)

// durationUnits are the units a duration counts.
var durationUnits = map[string]bool{"minute": true, "minutes": true, "hour": true, "hours": true, "day": true,
	"days": true, "night": true, "nights": true, "week": true, "weeks": true, "weekend": true, "weekends": true,
	"month": true, "months": true, "year": true, "years": true, "decade": true, "decades": true}
