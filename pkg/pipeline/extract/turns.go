package extract

import (
	"regexp"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The importance of a turn comes first: a turn that only greets, thanks,
// acknowledges, asks or fills is transient, and no fact is looked for in
// it. A turn is transient when every one of its sentences is:
//
//   - a greeting or farewell ("hi", "hey Ana!", "good morning", "see you");
//   - thanks or an acknowledgement ("thanks so much", "ok", "got it",
//     "sounds good", "that's great!", "lol yes");
//   - a filler or reaction without content ("wow", "haha", "oh no", "hmm");
//   - a question (a question asks, it does not tell: "how have you been?",
//     "what's your favourite food?");
//   - or fewer than three words.
//
// A turn with one sentence that tells something ("Thanks! I moved to
// Berlin last week.") is kept whole.

// filler is one greeting, thanks, acknowledgement or reaction, or a name
// (capitalized) after one.
const filler = fillerWords + `|(?-i:[A-Z][\w-]*)`

// fillerWords are the greetings, thanks, acknowledgements and reactions.
const fillerWords = `` +
	// greetings and farewells
	`(?:hi|hello|hey|hiya|howdy|yo|good (?:morning|afternoon|evening|night)|bye|goodbye|see (?:you|ya)(?: (?:soon|later|tomorrow|then))?|take care|talk (?:to you )?(?:soon|later)|cheers|long time no see|(?:(?:it's |it is )?(?:so |really )?(?:good|nice|great|glad|lovely) to (?:see|hear from|meet|talk to|chat with|catch up with) you(?: again| too)?))` +
	// thanks and acknowledgements
	`|(?:thanks|thank you|thx|ty|much appreciated|appreciate it|ok|okay|k|kk|sure|yes|yeah|yep|yup|no|nope|nah|right|true|exactly|absolutely|definitely|totally|of course|got it|gotcha|makes sense|sounds (?:good|great|fun|awesome|amazing|cool|like a plan)|will do|no problem|no worries|np|agreed|same|me too|you too|indeed|fair enough|for sure|i see|i know|i agree|i understand|i bet|good (?:idea|point|luck|to know|call)|congrats|congratulations|so much|a lot|a bunch|again|man|buddy|dude)` +
	// reactions and fillers
	`|(?:wow|whoa|woah|omg|oh(?: my god| no| wow| nice)?|ah|aw+|ugh|hmm+|um+|uh+|haha+|hehe|lol|lmao|nice|cool|great|awesome|amazing|wonderful|fantastic|sweet|neat|perfect|love it|yay|woohoo|oops|damn|yikes)` +
	// "that's great", "that sounds amazing", "so cool", "how nice"
	`|(?:(?:that|this|it)(?:'s| is| was| sounds| looks)|so|how|what a|such a)(?: \w+)?? (?:great|good|cool|awesome|amazing|nice|fun|lovely|wonderful|fantastic|exciting|interesting|sweet|beautiful|fair|true|right|sad|tough|rough|hard|funny|crazy|wild|impressive|inspiring|incredible)(?: (?:news|idea|stuff|one|thing|day|time))?`

var (
	fillerRe = regexp.MustCompile(`(?i)^(?:` + filler + `)(?: (?:` + filler + `))*$`)
	// reactionRe is fillers alone, without a name: "haha", "thanks so much".
	reactionRe   = regexp.MustCompile(`(?i)^(?:` + fillerWords + `)(?: (?:` + fillerWords + `))*$`)
	multiSpaceRe = regexp.MustCompile(`\s+`)
	// A two-word statement about the speaker ("I'm exhausted"), but not a
	// reply's "I'm good" or "I'm fine".
	shortStatementRe = regexp.MustCompile(`(?i)^(?:i'm|im|i am) (?:[a-z]{3,}|\d{1,3})$`)
	shortReplyRe     = regexp.MustCompile(`(?i)^(?:i'm|im|i am) (?:good|fine|ok|okay|well|great|here|back|in|down|sorry|sure|excited|glad|happy|done|ready|alright|afraid|kidding|jealous|confused|lost|serious|all ears|so)$`)
)

// transientSentence reports whether one sentence carries nothing to keep.
func transientSentence(s string) bool {
	if strings.HasSuffix(s, "?") {
		return true
	}
	t := strings.TrimSpace(strings.Trim(stripEmoji(s), ".!?,:;~ "))
	t = multiSpaceRe.ReplaceAllString(t, " ")
	if len(strings.Fields(t)) < 3 {
		// "I'm tired", "I'm vegan" tell something in two words.
		return !shortStatementRe.MatchString(t) || shortReplyRe.MatchString(t)
	}
	// Drop the punctuation between fillers ("Thanks, Ana, so much").
	return fillerRe.MatchString(strings.NewReplacer(",", "", "!", "", "…", "").Replace(t))
}

// Transient reports whether a turn is small talk to skip: every sentence
// is a greeting, thanks, an acknowledgement, a filler, a question or
// shorter than three words.
func Transient(text string) bool {
	for _, s := range memory.Sentences(text) {
		if !transientSentence(s) {
			return false
		}
	}
	return true
}

// Useful returns the turns worth extracting from, in order: those with a
// speaker that are not Transient, each with the question just before it,
// if any, which an answer needs to be understood ("How long have you been
// married?" before "Five years in June!"). A short answer that completes
// the question before it ("Where are you from?" / "Porto!") is useful
// too.
func Useful(turns []Turn) []Turn {
	var out []Turn
	for i, t := range turns {
		if t.Speaker == "" {
			continue
		}
		if !Transient(t.Text) || i > 0 && answers(turns[i-1], t) {
			out = append(out, t)
			continue
		}
		if next := i + 1; next < len(turns) && asks(t.Text) && turns[next].Speaker != "" && turns[next].Speaker != t.Speaker &&
			(!Transient(turns[next].Text) || answers(t, turns[next])) {
			out = append(out, t)
		}
	}
	return out
}

// asks reports whether a turn ends with a question.
func asks(text string) bool {
	return strings.HasSuffix(strings.TrimSpace(stripEmoji(text)), "?")
}

// stripEmoji removes pictographs, dingbats and their joiners.
func stripEmoji(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0x2600 && r <= 0x27BF, r >= 0x2B00 && r <= 0x2BFF, r >= 0x1F000 && r <= 0x1FAFF,
			r == 0xFE0F, r == 0x200D:
			return -1
		}
		return r
	}, s)
}
