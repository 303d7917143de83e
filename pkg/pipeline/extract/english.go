package extract

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/agentmem/agentmem/pkg/text/en"
)

// This file turns what a speaker says into standalone third-person
// statements: clauses are split off, discourse markers dropped, a leading
// time moved to the end, and "I", "my", "me" rewritten to name the speaker
// with the verb agreeing ("I've been learning guitar" by Ana: "Ana has
// been learning guitar"). The rules are general English grammar, not
// phrases of any data set.

// statement is one clause rewritten in the third person.
type statement struct {
	subject string // "Ana", "Ana's sister", "Li", "the company", "Ana and others"
	// id, when set, is who the statement is about when that is not its
	// grammatical subject: "we" includes the speaker, so "Ana and others
	// went hiking" is about Ana (a subject id names one person or thing).
	id     string
	self   bool   // the speaker speaks of themself (first person)
	plural bool   // the subject is plural ("Ana and others"): the verb agrees with it
	pred   string // the predicate in the third person: "loves jazz"
	when   string // a time moved from the front ("last week")
	quote  string // the clause as said
	// whole, when set, is the statement's text as a whole, for clauses
	// whose grammatical subject is not what they are about ("Dance is my
	// stress relief": about the speaker, said of dance).
	whole string
}

// about is the subject id of the statement's fact.
func (s statement) about() string {
	if s.id != "" {
		return s.id
	}
	return s.subject
}

// text is the statement as a sentence without final punctuation.
func (s statement) text() string {
	t := s.subject + " " + s.pred
	if s.whole != "" {
		t = s.whole
	}
	if s.when != "" {
		t += " " + s.when
	}
	return upperFirst(strings.TrimSpace(t))
}

var (
	// A clause boundary inside a sentence: ";", a dash between words, "but",
	// and "and"/"so" when a new subject follows ("..., and I live in Lisbon").
	clauseSplitRe = regexp.MustCompile(`(?i)\s*;\s*|\s+[-–—]+\s+|,?\s+but\s+|,\s*(?:and\s+)?(?:so\s+)?(?:then\s+)?(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|she|he|she's|he's)\s+|\s+(?:and|so)\s+(?:i|i'm|i've|i'd|i'll|my|she|he|she's|he's)\s+`)
	// What a subject-led split consumed is put back ("and I live" -> "I live").
	splitSubjectRe = regexp.MustCompile(`(?i)(i|i'm|i've|i'd|i'll|my|we|we're|we've|she|he|she's|he's)\s+$`)

	markerRe = regexp.MustCompile(`(?i)^(?:oh|ah|aw+|wow|yeah|yes|yep|yup|no|nope|well|so|and|but|plus|also|actually|honestly|anyway|anyways|btw|by the way|lol|haha+|hey|hi|hello|ok|okay|sure|right|totally|definitely|absolutely|omg|ugh|hmm+|um+|uh+|cool|great|awesome|nice|thanks|thank you|guess what|fun fact|you know what|you know|in fact|luckily|sadly|unfortunately|fortunately|funny enough|speaking of which|speaking of \w+|as for me|for me|personally|to be honest|tbh|now|then|still|though|also)\b[,!.:]?\s+`)
	// A vocative at the front: "Gina, ..." (a capitalized name and a comma).
	vocativeRe = regexp.MustCompile(`^[A-Z][a-z]+,\s+`)

	timeWords  = `(?:yesterday|today|tonight|tomorrow|recently|lately|earlier|this (?:morning|afternoon|evening|week|weekend|month|year|summer|spring|fall|autumn|winter)|(?:last|next) (?:night|week|weekend|month|year|summer|spring|fall|autumn|winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday|time)|(?:a|one|two|three|four|five|six|a few|a couple of|several) (?:days?|weeks?|months?|years?) ago|(?:on|this|last|next) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:in|since) (?:january|february|march|april|may|june|july|august|september|october|november|december|\d{4})|the other day|over the weekend|last \w+ ago)`
	leadTimeRe = regexp.MustCompile(`(?i)^(` + timeWords + `),?\s+`)
	// A date or time in a plan ("in March", "next week", "on 14 July").
	dateRe = regexp.MustCompile(`(?i)\b(?:` + timeWords + `|(?:in|by|on|until|from|after|before) (?:the )?(?:january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|fall|autumn|winter|\d{1,2}(?:st|nd|rd|th)?|a few (?:days|weeks|months)|two weeks|the (?:fall|spring|summer|winter))|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}|soon|someday|one day|this coming \w+)\b`)

	// Elided subjects of casual speech: "Lost my job yesterday", "Been to
	// Rome once", "Started hitting the gym last week".
	// The opening word of a clause whose subject was dropped: a past
	// form, a present participle, or an adjective of feeling.
	openingWordRe   = regexp.MustCompile(`^[A-Za-z]+`)
	gerundSubjectRe = regexp.MustCompile(`(?i)\b(?:is|was|has been|makes|made|feels|felt|can be|gives|keeps|brings|helps)\b`)

	// Pronouns and contractions of the first person after the subject.
	firstPersonRe = regexp.MustCompile(`\b(?:I'm|I am|I've|I'd|I'll|I was|I|me|my|mine|myself|we're|we've|we'll|we were|we are|we|us|our|ours|ourselves)\b`)

	secondPersonRe = regexp.MustCompile(`(?i)\b(?:you|your|yours|yourself|u|ya)\b`)
	// Second person that only fills ("you know", "if you ask me").
	youFillerRe = regexp.MustCompile(`(?i),?\s*\b(?:you know|you see|if you ask me|if you know what i mean|thank you|believe me|trust me|mind you)\b,?`)
)

// Word lists for verb agreement.
var (
	adverbs = set("really", "also", "just", "still", "actually", "recently", "finally", "always", "never", "usually", "often",
		"sometimes", "totally", "definitely", "even", "already", "now", "mostly", "kinda", "absolutely", "truly", "honestly",
		"literally", "only", "seriously", "currently", "once", "rarely", "hardly", "generally", "normally", "mainly",
		"especially", "probably", "certainly", "personally", "gradually", "slowly", "officially", "proudly", "happily",
		"sorta", "so", "super", "def", "lately")
	modals = set("can", "could", "will", "would", "shall", "should", "may", "might", "must", "cannot")
)

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// thirdPerson conjugates a verb for a singular third-person subject:
// "love" -> "loves", "go" -> "goes", "study" -> "studies", "have" -> "has";
// past forms and modals are kept.
func thirdPerson(word string) string {
	// Conjugate the letters, keep what follows them ("agree," -> "agrees,").
	end := len(word)
	for end > 0 && !unicode.IsLetter(rune(word[end-1])) {
		end--
	}
	v, tail := word[:end], word[end:]
	if strings.ContainsAny(v, "-'") || v == "" {
		return word
	}
	return conjugate(v) + tail
}

func conjugate(v string) string {
	l := strings.ToLower(v)
	switch {
	case l == "are":
		return "is"
	case l == "were":
		return "was"
	case l == "don't":
		return "doesn't"
	case l == "" || modals[l] || en.PastVerbForm(l) || strings.HasSuffix(l, "ed"):
		return v
	case l == "be" || l == "am":
		return "is"
	case l == "have":
		return "has"
	case l == "do":
		return "does"
	case l == "go":
		return "goes"
	case strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss"):
		return v // already agrees, or not a verb
	case strings.HasSuffix(l, "ss"), strings.HasSuffix(l, "sh"), strings.HasSuffix(l, "ch"),
		strings.HasSuffix(l, "x"), strings.HasSuffix(l, "z"), strings.HasSuffix(l, "o"):
		return v + "es"
	case len(l) > 2 && strings.HasSuffix(l, "y") && !strings.ContainsRune("aeiou", rune(l[len(l)-2])):
		return v[:len(v)-1] + "ies"
	}
	return v + "s"
}

// subjectForms are the first-person openings and what follows the
// speaker's name instead; "" means conjugate the next verb.
var subjectForms = []struct {
	re   *regexp.Regexp
	verb string
}{
	{regexp.MustCompile(`(?i)^i(?:'m| am) not\s+`), "is not"},
	{regexp.MustCompile(`(?i)^i(?:'m| am) gonna\s+`), "is going to"},
	{regexp.MustCompile(`(?i)^i(?:'m| am)\s+`), "is"},
	{regexp.MustCompile(`(?i)^i was not\s+|^i wasn't\s+`), "was not"},
	{regexp.MustCompile(`(?i)^i was\s+`), "was"},
	{regexp.MustCompile(`(?i)^i(?:'ve| have) not\s+|^i haven't\s+`), "has not"},
	{regexp.MustCompile(`(?i)^i(?:'ve| have) got to\s+|^i(?:'ve)? gotta\s+`), "has to"},
	{regexp.MustCompile(`(?i)^i(?:'ve| have)\s+`), "has"},
	{regexp.MustCompile(`(?i)^i had not\s+|^i hadn't\s+`), "had not"},
	{regexp.MustCompile(`(?i)^i had\s+`), "had"},
	{regexp.MustCompile(`(?i)^i(?:'ll| will) not\s+|^i won't\s+`), "will not"},
	{regexp.MustCompile(`(?i)^i(?:'ll| will)\s+`), "will"},
	{regexp.MustCompile(`(?i)^i(?:'d| would) not\s+|^i wouldn't\s+`), "would not"},
	{regexp.MustCompile(`(?i)^i'd\s+(?:been|gone|had|done|seen|never|already|just|\w+ed)\b`), "@had"},
	{regexp.MustCompile(`(?i)^i(?:'d| would)\s+`), "would"},
	{regexp.MustCompile(`(?i)^i (?:do not|don't|dont)\s+`), "does not"},
	{regexp.MustCompile(`(?i)^i (?:did not|didn't|didnt)\s+`), "did not"},
	{regexp.MustCompile(`(?i)^i (?:cannot|can not|can't|cant)\s+`), "cannot"},
	{regexp.MustCompile(`(?i)^i (?:could not|couldn't)\s+`), "could not"},
	{regexp.MustCompile(`(?i)^i wanna\s+`), "wants to"},
	{regexp.MustCompile(`(?i)^i\s+`), ""},
}

// conjugateFirst rewrites the rest of a clause whose subject "I" was just
// removed: "really love jazz" -> "really loves jazz".
func conjugateFirst(rest string) string {
	words := strings.Fields(rest)
	for i, w := range words {
		if adverbs[strings.ToLower(strings.Trim(w, ",."))] || !unicode.IsLetter(rune(w[0])) {
			continue
		}
		words[i] = thirdPerson(w)
		break
	}
	return strings.Join(words, " ")
}

// otherPronouns rewrites the first-person words in a predicate: about the
// speaker themself, "my" is "their" and "I" "they"; in a statement about
// someone else, they name the speaker ("Li is my manager": "Li is Ana's
// manager").
func otherPronouns(s, speaker string, self bool) string {
	return replaceWords(firstPersonRe, s, func(w string) string {
		if self {
			switch w {
			case "I'm", "I am", "we're", "we are":
				return "they are"
			case "I've", "we've":
				return "they have"
			case "I'd":
				return "they would"
			case "I'll", "we'll":
				return "they will"
			case "I was", "we were":
				return "they were"
			case "I", "we":
				return "they"
			case "me", "us":
				return "them"
			case "my", "our":
				return "their"
			case "mine", "ours":
				return "theirs"
			case "myself", "ourselves":
				return "themselves"
			}
			return w
		}
		switch w {
		case "I'm", "I am":
			return speaker + " is"
		case "I've":
			return speaker + " has"
		case "I'd":
			return speaker + " would"
		case "I'll":
			return speaker + " will"
		case "I was":
			return speaker + " was"
		case "I", "me", "myself":
			return speaker
		case "my", "mine":
			return speaker + "'s"
		case "we're", "we are":
			return speaker + " and others are"
		case "we've":
			return speaker + " and others have"
		case "we'll":
			return speaker + " and others will"
		case "we were":
			return speaker + " and others were"
		case "we", "us", "ourselves":
			return speaker + " and others"
		case "our", "ours":
			return speaker + "'s"
		}
		return w
	})
}

var (
	weCompanyRe     = regexp.MustCompile(`(?i)^(?:we as an? (?:company|organi[sz]ation|business|firm)|as an? (?:company|organi[sz]ation|business|firm),? we)\s+`)
	ourCompanyRe    = regexp.MustCompile(`(?i)^our (?:company|organi[sz]ation|org|firm|business)\s+`)
	weRe            = regexp.MustCompile(`(?i)^we(?:'re|'ve|'ll| are| were| have| had| will| did| do| just| also| really| finally| went| got| made| took| started| decided| spent| visited| had| saw| found| ate| tried| moved| bought| adopted| love| like| enjoy| use| used| own| live| play| switched)\b`)
	isMyRe          = regexp.MustCompile(`(?i)^[a-z][\w' -]{1,40}? (?:is|are|was|were) my\b`)
	demonstrativeRe = regexp.MustCompile(`(?i)^(?:it|this|that|these|those|there|here|which|what)\b`)
	lowerIRe        = regexp.MustCompile(`\bi\b`)
	gonnaRe         = regexp.MustCompile(`(?i)\bgonna\b`)
	wannaRe         = regexp.MustCompile(`(?i)\bwanna\b`)
	causeRe         = regexp.MustCompile(`(?i)'cause\b|\bcuz\b|\bcos\b`)
)

// replaceWords is re.ReplaceAllStringFunc for whole words only: a match
// joined to its neighbour by a hyphen ("me-time") is kept.
func replaceWords(re *regexp.Regexp, s string, fn func(string) string) string {
	var b strings.Builder
	last := 0
	for _, loc := range re.FindAllStringIndex(s, -1) {
		if (loc[0] > 0 && s[loc[0]-1] == '-') || (loc[1] < len(s) && s[loc[1]] == '-') {
			continue
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(fn(s[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// cleanClause normalizes apostrophes and the spellings of casual speech,
// and drops emoji.
var casualSpellings = map[string]string{"im": "I'm", "ive": "I've", "dont": "don't", "didnt": "didn't", "doesnt": "doesn't",
	"cant": "can't", "isnt": "isn't", "wasnt": "wasn't", "havent": "haven't", "wouldnt": "wouldn't",
	"couldnt": "couldn't", "shouldnt": "shouldn't"}

var casualRe = regexp.MustCompile(`(?i)\b(im|ive|dont|didnt|doesnt|cant|isnt|wasnt|havent|wouldnt|couldnt|shouldnt)\b`)

func cleanClause(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "&", "and").Replace(stripEmoji(s))
	s = casualRe.ReplaceAllStringFunc(s, func(w string) string {
		l := strings.ToLower(w)
		return casualSpellings[l]
	})
	s = lowerIRe.ReplaceAllString(s, "I")
	s = gonnaRe.ReplaceAllString(s, "going to")
	s = wannaRe.ReplaceAllString(s, "want to")
	s = causeRe.ReplaceAllString(s, "because")
	return multiSpaceRe.ReplaceAllString(strings.TrimSpace(s), " ")
}

// clauses splits a sentence into its statements, each cleaned of markers,
// with a leading time expression set apart.
func clauses(sentence string) []statementSource {
	s := cleanClause(strings.TrimRight(sentence, ".!?… "))
	var parts []string
	last := 0
	for _, loc := range clauseSplitRe.FindAllStringIndex(s, -1) {
		parts = append(parts, s[last:loc[0]])
		sep := s[loc[0]:loc[1]]
		// Keep the subject a split consumed.
		if m := splitSubjectRe.FindStringSubmatch(sep); m != nil {
			parts = append(parts, "")
			last = loc[1] - len(m[0])
			continue
		}
		last = loc[1]
	}
	parts = append(parts, s[last:])
	var out []statementSource
	for _, p := range parts {
		p = strings.Trim(p, " ,:")
		if p == "" {
			continue
		}
		when := ""
		for i := 0; i < 4; i++ {
			before := p
			p = markerRe.ReplaceAllString(p, "")
			p = vocativeRe.ReplaceAllString(p, "")
			if m := leadTimeRe.FindStringSubmatch(p); m != nil {
				when = strings.TrimSpace(strings.ToLower(m[1]))
				p = p[len(m[0]):]
			}
			if p == before {
				break
			}
		}
		if p = strings.Trim(p, " ,:"); p != "" {
			out = append(out, statementSource{text: p, when: when})
		}
	}
	return out
}

// statementSource is a clause before rewriting.
type statementSource struct {
	text, when string
}

var (
	// A person's name: one or two capitalized words.
	nameWord = regexp.MustCompile(`^[A-Z][a-z]+$`)
	// "she"/"he" opening a clause, with a contraction.
	pronounRe = regexp.MustCompile(`(?i)^(?:she|he)('s|’s)?\b`)
)

// feelings are adjectives that open a clause without their "I'm".
var feelings = set("excited", "tired", "interested", "bored", "scared", "worried", "thrilled", "amazed", "pleased",
	"stressed", "obsessed", "relieved", "surprised", "blessed", "inspired", "motivated", "determined", "overwhelmed",
	"stoked", "happy", "glad", "proud", "grateful", "thankful", "sad", "lucky", "busy", "exhausted", "nervous")

// notParticiples are words in -ing that are not verbs.
var notParticiples = set("nothing", "something", "everything", "anything", "thing", "morning", "evening", "spring",
	"king", "ring", "string", "wing", "ceiling", "wedding", "building", "meeting", "during", "bring", "sing", "swing",
	"sling", "sibling", "darling", "pudding", "stuffing", "clothing", "feeling", "ending", "beginning", "funding")

// elided says which subject a clause said without one needs: "I" before a
// past form ("Lost my job yesterday"), "I'm" before a participle or a
// feeling ("Finishing the mural next week", "Excited for my trip"), "" when
// the clause has a subject or is not about the speaker. A past form or a
// participle counts only with "my" or a date in the clause, and a
// participle only when it is not the subject ("Dancing is my life").
func elided(c string) string {
	w := strings.ToLower(openingWordRe.FindString(c))
	if w == "" || len(w) < 3 {
		return ""
	}
	lower := strings.ToLower(c)
	anchored := strings.Contains(lower, "my ") || dateRe.MatchString(c)
	switch {
	case feelings[w]:
		return "I'm"
	case w == "been" || w == "just" || w == "finally" || en.PastVerbForm(w) || strings.HasSuffix(w, "ed"):
		if anchored && !imperatives[w] {
			return "I"
		}
	case strings.HasSuffix(w, "ing") && !notParticiples[w]:
		if anchored && !gerundSubjectRe.MatchString(c) && !strings.HasPrefix(lower[len(w):], "'s ") {
			return "I'm"
		}
	}
	return ""
}

// thirdPersonSubject finds a named subject at the front of a clause:
// "Maya", "Ana Souza", or a possession of one, "Maya's sister", "Li's
// old car", followed by a verb. rest is the clause from the verb on.
func thirdPersonSubject(c string) (subject, rest string, ok bool) {
	w := strings.Fields(c)
	var name []string
	i, poss := 0, false
	for ; i < len(w) && i < 2 && !poss; i++ {
		word, found := strings.CutSuffix(w[i], "'s")
		if !nameWord.MatchString(word) || notNames[word] || closedClass(word) || imperatives[strings.ToLower(word)] || strings.HasSuffix(word, "ing") {
			break
		}
		name, poss = append(name, word), found
	}
	if len(name) == 0 || i >= len(w) {
		return "", "", false
	}
	subject = strings.Join(name, " ")
	if !poss {
		if verbLike(w[i]) {
			return subject, strings.Join(w[i:], " "), true
		}
		return "", "", false
	}
	// A possession: one or two lower-case words, then the verb.
	for n := 1; n <= 2 && i+n < len(w); n++ {
		np := strings.Join(w[i:i+n], " ")
		if strings.ToLower(np) != np {
			break
		}
		if v := w[i+n]; verbLike(v) || v == "are" || v == "were" || v == "have" || v == "love" || v == "like" {
			return subject + "'s " + np, strings.Join(w[i+n:], " "), true
		}
	}
	return "", "", false
}

// notNames are capitalized words that open clauses without being names.
var notNames = set("It", "This", "That", "There", "Here", "What", "Which", "Who", "Whoever", "The", "A", "An", "He", "She",
	"They", "We", "You", "I", "My", "Your", "His", "Her", "Our", "Their", "Its", "Everything", "Nothing", "Something",
	"Someone", "Everyone", "Anyone", "Nobody", "Life", "Thanks", "Yes", "No", "Wow", "Oh", "Well", "So", "And", "But",
	"Or", "If", "When", "While", "After", "Before", "Because", "Since", "Although", "Though", "Just", "Also", "Plus",
	"Maybe", "Sometimes", "Today", "Yesterday", "Tomorrow", "These", "Those", "Some", "Many", "Most", "All", "Both",
	"Each", "Every", "Any", "Such", "Being", "Having", "Getting", "Going", "Let", "Please", "Not", "Never", "Always",
	"Family", "People", "Things", "Work", "School", "Love", "Friends", "Kids", "Home", "Everybody", "Somebody",
	"Sounds", "Looks", "Seems", "Feels", "Good", "Great", "Nice", "Cool", "Awesome", "Amazing", "Sorry", "Congrats",
	"Definitely", "Totally", "Absolutely", "Really", "Actually", "Honestly", "Hope", "Glad", "Happy", "Hey", "Hi")

// functionWords are the closed classes of English: prepositions,
// determiners, numerals, pronouns, conjunctions and auxiliaries. Such a
// word is capitalized only because it opens a sentence ("In the end ...",
// "One is more adventurous ..."), so it is never a name.
var functionWords = set("in", "on", "at", "by", "for", "with", "from", "about", "into", "onto", "over", "after", "before",
	"under", "through", "during", "without", "within", "around", "near", "across", "behind", "beyond", "like", "unlike",
	"upon", "toward", "towards", "among", "between", "despite", "until", "till", "since", "against", "along", "via", "per",
	"of", "to", "off", "out", "up", "down", "as", "than", "then", "the", "a", "an", "this", "that", "these", "those",
	"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "first", "second", "another", "other",
	"others", "more", "less", "few", "several", "none", "neither", "either", "whatever", "whenever", "wherever",
	"however", "nor", "yet", "or", "and", "but", "so", "if", "unless", "whether", "once", "be", "been", "being", "am",
	"is", "are", "was", "were", "do", "does", "did", "have", "has", "had", "gotta", "gonna", "wanna", "even", "ever",
	"there", "here", "where", "why", "how", "when", "what", "who", "whom", "whose", "which", "not", "no", "yes")

// closedClass reports whether a capitalized word belongs to a closed
// class of English (functionWords), or is an adverb or a modal verb:
// "Probably", "Mostly", "Could" open sentences and are never names.
func closedClass(word string) bool {
	l := strings.ToLower(word)
	return functionWords[l] || adverbs[l] || modals[l]
}

// imperatives are verbs that open commands and advice ("Gather documents
// first"), never names.
var imperatives = set("gather", "check", "take", "make", "keep", "try", "let", "remember", "look", "find", "get", "give",
	"go", "do", "be", "stay", "enjoy", "have", "call", "send", "read", "watch", "listen", "think", "start", "stop", "focus",
	"believe", "follow", "hang", "push", "dance", "bring", "put", "use", "ask", "tell", "show", "help", "join", "come",
	"wait", "hold", "talk", "write", "play", "see", "imagine", "consider", "trust", "treat", "grab", "pick", "share",
	"celebrate", "embrace", "remind", "reach", "build", "set", "plan", "prepare", "research", "visit", "learn", "practice",
	"love", "like", "feel", "need", "want", "hope", "wish", "congrats", "cheers", "bless", "mind", "note", "sounds",
	"looks", "seems", "means", "makes", "takes", "gets", "goes", "keeps", "gives", "thanks")

// verbLike reports whether w can be the verb after a third-person subject.
func verbLike(w string) bool {
	l := strings.ToLower(strings.Trim(w, ",."))
	switch l {
	case "is", "was", "has", "had", "does", "doesn't", "did", "didn't", "will", "would", "can", "can't", "cannot",
		"could", "isn't", "wasn't", "never", "always", "just", "also", "really", "still", "recently", "finally", "won't":
		return true
	}
	return len(l) > 3 && (strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss") || strings.HasSuffix(l, "ed")) || en.PastVerbForm(l)
}

// rewrite turns a clause said by speaker into a third-person statement;
// ok is false when the clause states nothing about a person (it has no
// subject the rules know, addresses the listener, or only reacts).
func rewrite(src statementSource, speaker, lastName string) (statement, bool) {
	c := src.text
	st := statement{when: src.when, quote: src.text}
	// Statements to the listener are about the listener and the moment
	// ("I'm so proud of you"): skipped.
	if secondPersonRe.MatchString(youFillerRe.ReplaceAllString(c, "")) {
		return st, false
	}
	c = strings.TrimSpace(youFillerRe.ReplaceAllString(c, ""))
	var lower string
	// Casual speech drops the subject: "Lost my job yesterday", "Finishing
	// the choreography next month", "Excited for my trip".
	switch elided(c) {
	case "I":
		c = "I " + lowerFirst(c)
	case "I'm":
		c = "I'm " + lowerFirst(c)
	}
	lower = strings.ToLower(c)
	switch {
	case weCompanyRe.MatchString(c):
		rest := weCompanyRe.ReplaceAllString(c, "")
		st.subject, st.pred = "The company", otherPronouns(conjugateWe(rest), speaker, true)
		return st, true
	case ourCompanyRe.MatchString(c):
		rest := ourCompanyRe.ReplaceAllString(c, "")
		st.subject, st.pred = "The company", otherPronouns(rest, speaker, true)
		return st, true
	case strings.HasPrefix(lower, "i ") || strings.HasPrefix(lower, "i'"):
		for _, f := range subjectForms {
			loc := f.re.FindStringIndex(c)
			if loc == nil {
				continue
			}
			rest := c[loc[1]:]
			verb := f.verb
			if verb == "@had" {
				verb, rest = "had", c[strings.Index(c, " ")+1:]
			}
			if verb == "" {
				rest = conjugateFirst(rest)
			} else {
				rest = verb + " " + rest
			}
			st.subject, st.self = speaker, true
			st.pred = otherPronouns(rest, speaker, true)
			return st, true
		}
	case strings.HasPrefix(lower, "my ") || strings.HasPrefix(lower, "our "):
		// "my sister lives in Porto": the subject is the speaker's sister;
		// "our team uses Jira" the team the speaker is part of.
		words := strings.Fields(c)
		np := []string{}
		i := 1
		for ; i < len(words) && len(np) < 3; i++ {
			w := words[i]
			if len(np) > 0 && (verbLike(w) || w == "are" || w == "were" || w == "have" || w == "do" || w == "love" || w == "like") {
				break
			}
			np = append(np, w)
		}
		if i >= len(words) || len(np) == 0 {
			return st, false
		}
		st.subject = speaker + "'s " + strings.Join(np, " ")
		st.pred = otherPronouns(strings.Join(words[i:], " "), speaker, false)
		return st, true
	case weRe.MatchString(c):
		st.subject, st.id, st.self, st.plural = speaker+" and others", speaker, true, true
		rest := strings.TrimSpace(c[2:])
		rest = strings.NewReplacer("'re ", "are ", "'ve ", "have ", "'ll ", "will ").Replace(rest)
		st.pred = otherPronouns(rest, speaker, true)
		return st, true
	}
	// Third person: "Li works at Acme", "Maya's sister lives in Porto";
	// "she" and "he" stand for the last person named in the turn.
	if m := pronounRe.FindStringSubmatch(c); m != nil && lastName != "" {
		c = lastName + " " + map[string]string{"'s": "is", "’s": "is"}[m[1]] + c[len(m[0]):]
		c = strings.Replace(c, lastName+"  ", lastName+" ", 1)
	}
	if subject, rest, ok := thirdPersonSubject(c); ok {
		st.subject = subject
		st.pred = otherPronouns(rest, speaker, false)
		return st, true
	}
	// "Dance is my stress relief": a statement about something of the speaker's.
	if strings.Contains(lower, " my ") && isMyRe.MatchString(c) && !demonstrativeRe.MatchString(c) {
		st.subject, st.self = speaker, true
		st.whole = otherPronouns(c, speaker, false)
		st.pred = st.whole
		return st, true
	}
	return st, false
}

// conjugateWe turns a first-person plural verb phrase into one agreeing
// with "the company": "are hiring" -> "is hiring", "plan to" -> "plans to".
func conjugateWe(rest string) string {
	switch {
	case strings.HasPrefix(rest, "are "):
		return "is " + rest[4:]
	case strings.HasPrefix(rest, "were "):
		return "was " + rest[5:]
	case strings.HasPrefix(rest, "have "):
		return "has " + rest[5:]
	case strings.HasPrefix(rest, "don't "):
		return "does not " + rest[6:]
	case strings.HasPrefix(rest, "do not "):
		return "does not " + rest[7:]
	}
	return conjugateFirst(rest)
}

// lowerFirst lower-cases the first letter of s.
func lowerFirst(s string) string {
	for i, r := range s {
		return string(unicode.ToLower(r)) + s[i+len(string(r)):]
	}
	return s
}

// upperFirst upper-cases the first letter of s.
func upperFirst(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}
