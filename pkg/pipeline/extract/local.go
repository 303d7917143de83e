package extract

import (
	"context"
	"regexp"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// Local is the extractor that needs no model. It reads each turn that is
// not Transient sentence by sentence and clause by clause (split at ";",
// dashes, "but", and "and"/"so" before a new subject), rewrites every
// clause that states something about a person as a standalone
// third-person sentence ("I've been learning guitar" by Ana: "Ana has been
// learning guitar"; "my sister lives in Porto": "Ana's sister lives in
// Porto"; "Li works at Acme" stays), and then gives it a slot, a value, a
// polarity, a kind, an importance and a durability by the rules of
// slots.go: identity (name, age, birthday, origin, home, occupation,
// employer), relationships ("my manager is Li", "my wife Ana"), health and
// allergies, diet and negation ("does not eat gluten", "never drinks"),
// preferences (love, like, enjoy, hate, prefer, favourite), interests,
// activities and hobbies, pets, education, plans with or without a date,
// decisions, feelings, opinions and transient states.
//
// It skips what a clause says to the listener ("I'm so proud of you"),
// reactions without content ("I love it"), questions, and statements with
// fewer than two content words.
//
// An answer that is only a fragment ("Utrecht, near the Dom tower") is read
// with the question before it ("Where do you live now?"): see answer.
//
// It misses what needs understanding rather than grammar: facts implied
// across turns in other ways ("5 years already!"), pronouns that
// point back to an earlier sentence ("she", "it"), irony, third-person
// statements whose subject is not a capitalized name ("the kids love the
// beach"), and dates relative to the conversation ("yesterday" stays
// "yesterday"). An LLM extractor is the one for production.
type Local struct{}

// Name implements Extractor.
func (Local) Name() string { return "local-patterns-v2" }

var (
	changeRe = regexp.MustCompile(`(?i)\b(now|anymore|any more|no longer|these days|switched to|instead|changed (?:my|their) mind|not anymore|from now on|moved to|used to)\b`)
	// Epistemic openings dropped before a first-person clause: "I think I'll
	// try pottery" states "I'll try pottery".
	epistemicRe  = regexp.MustCompile(`(?i)^i (?:think|guess|believe|feel like|reckon|suppose|bet|know|hope|mean|swear|figure|realized|realised|have to say|must say|gotta say|can say) (?:that )?`)
	leadAdverbRe = regexp.MustCompile(`(?i)^(?:(?:\d+%|really|also|just|still|actually|recently|finally|even|already|totally|definitely|absolutely|kinda|so|super|now|currently|officially|lately|truly|seriously|honestly|literally|only|sometimes|usually|often|mostly|proudly|happily|once) )+`)
	skipPredRe   = regexp.MustCompile(`^(?:knows|agrees|understands|means|appreciates|guesses|bets|wonders|supposes|sees|hears|gets it|is sure|is not sure|is afraid|doubts|promises|swears|admits|can imagine|cannot imagine|can tell|feels the same|is the same|is with them|has to say|must say|would say|is just saying|hopes (?:so|that|it|this|everything|all)|wishes (?:that|it|this|everything|all|they)|was wondering|is wondering|was thinking|was just thinking|can relate|totally agrees|remembers that|thinks so|is kidding|is joking|might |may |could )`)
)

// rule is one predicate pattern of the offline extractor: it matches the
// third-person predicate (lower case, leading adverbs dropped) and names
// the slot family, the qualifier and the value.
type rule struct {
	re *regexp.Regexp
	// family of the slot ("" for a fact without one); keyed families take
	// the qualifier from the group named by qual (1-based, 0 none).
	family string
	qual   int
	// value is the group holding the value (0 none).
	value int
	// neg makes the fact negated, change a stated change.
	neg, change bool
	// importance and durability override the family's when set.
	importance float64
	durability memory.Durability
	kind       memory.Kind
	// lone lets the rule stand with one content word ("is vegan").
	lone bool
	// aspiration marks plans that are wishes rather than arrangements.
	aspiration bool
}

const (
	objectGroup = `(.+)`
	occupations = `teacher|nurse|doctor|engineer|developer|programmer|designer|student|lawyer|accountant|chef|cook|baker|farmer|pilot|driver|mechanic|electrician|plumber|carpenter|artist|painter|writer|author|musician|singer|dancer|actor|actress|photographer|journalist|editor|scientist|researcher|professor|lecturer|consultant|manager|director|founder|entrepreneur|banker|analyst|architect|pharmacist|dentist|therapist|counselor|counsellor|psychologist|psychiatrist|surgeon|paramedic|firefighter|police officer|cop|soldier|veteran|volunteer|coach|trainer|athlete|barista|waiter|waitress|bartender|cashier|clerk|secretary|assistant|receptionist|librarian|social worker|caregiver|nanny|tutor|instructor|freelancer|contractor|intern|retiree|homemaker|stay-at-home (?:mom|dad|parent)|vet|veterinarian|midwife|[a-z]{3,}(?:ist|ician|ologist|grapher|eer)`
	healthTerms = `asthma|diabetes|cancer|arthritis|migraines?|depression|anxiety|adhd|autism|epilepsy|celiac(?: disease)?|coeliac(?: disease)?|crohn'?s(?: disease)?|ibs|covid(?:-19)?|the flu|flu|a cold|hypertension|high blood pressure|low blood pressure|insomnia|(?:chronic |lower )?back pain|a heart condition|heart disease|ptsd|ocd|bipolar(?: disorder)?|eczema|psoriasis|lupus|multiple sclerosis|dyslexia|a concussion|pneumonia|long covid|endometriosis|fibromyalgia|sleep apnea|tinnitus|scoliosis|anemia|(?:a |an )?(?:\w+ )?(?:condition|disease|disorder|syndrome|infection|injury|illness)`
	petKinds    = `dogs?|cats?|pupp(?:y|ies)|kittens?|birds?|parrots?|rabbits?|bunn(?:y|ies)|hamsters?|guinea pigs?|fish|goldfish|turtles?|tortoises?|snakes?|lizards?|geckos?|horses?|pon(?:y|ies)|ferrets?|chickens?|goats?`
	relations   = `husband|wife|spouse|partner|boyfriend|girlfriend|fianc[eé]e?|son|sons|daughter|daughters|kids?|children|child|baby|babies|brother|brothers|sister|sisters|siblings?|twins?|mom|mum|mother|dad|father|parents|grandma|grandmother|grandpa|grandfather|grandparents|grandchildren|grandkids|aunt|uncle|cousin|cousins|niece|nephew|best friend|friend|roommate|flatmate|neighbor|neighbour|boss|manager|coworker|co-worker|colleague|mentor|therapist|doctor|stepmom|stepdad|stepson|stepdaughter|in-laws`
	diets       = `vegetarian|vegan|pescatarian|gluten[- ]free|dairy[- ]free|lactose[- ]intolerant|keto|paleo|kosher|halal|teetotal|sober|plant[- ]based`
)

var rules = []rule{
	// Health and allergies.
	{re: ci(`^(?:is|was|has been) (?:severely |very |deathly |highly )?allergic to ` + objectGroup), family: "allergy", qual: 1, value: 1, lone: true},
	{re: ci(`^(?:has|had|has had|has got) (?:an? |a severe |severe )?([\w -]+?) allerg(?:y|ies)\b`), family: "allergy", qual: 1, value: 1, lone: true},
	{re: ci(`^(?:was|has been|got|just got) diagnosed with ` + objectGroup), family: "health", qual: 1, value: 1, lone: true},
	{re: ci(`^(?:has|had|has had|suffers from|is suffering from|is recovering from|is being treated for|deals with|struggles with|lives with|is living with|is fighting|beat) (` + healthTerms + `)\b`), family: "health", qual: 1, value: 1, lone: true},
	{re: ci(`^(?:is|was|got) (pregnant|diabetic|asthmatic|epileptic|hospitali[sz]ed|in the hospital|in hospital)\b`), family: "health", qual: 1, value: 1, lone: true},
	{re: ci(`^(?:broke|sprained|injured|hurt|fractured|twisted|tore|dislocated) (?:their|a|her|his) (\w+(?: \w+)?)`), family: "health", qual: 1, value: 1, importance: 0.7, durability: memory.DurabilityStandard, lone: true},
	{re: ci(`^(?:had|has had|is having|will have|is going to have|got) (?:a |an |\w+ )?(surgery|operation)\b`), family: "health", qual: 1, value: 1, importance: 0.7, durability: memory.DurabilityStandard, lone: true},
	// Diet.
	{re: ci(`^(?:does not|doesn't|never|cannot|can't|won't|no longer|will not|did not|didn't|tries not to) (?:eat|drink|touch|consume|have)s? ` + objectGroup), family: "diet", qual: 1, value: 1, neg: true, lone: true},
	{re: ci(`^(?:stopped|quit|gave up|has given up|has stopped|has quit|cut out|has cut out) (?:eating |drinking )` + objectGroup), family: "diet", qual: 1, value: 1, neg: true, change: true, lone: true},
	{re: ci(`^(?:is|has become|became|went|has gone|is going|is now|has been) (?:a |fully |strictly |mostly |completely )?(` + diets + `)\b`), family: "diet", qual: 1, value: 1, lone: true},
	{re: ci(`^is on an? ([\w -]+?) diet\b`), family: "diet", qual: 1, value: 1, lone: true},
	{re: ci(`^avoids (?:eating |drinking )?` + objectGroup), family: "diet", qual: 1, value: 1, neg: true, lone: true},
	{re: ci(`^(?:eats|drinks) ` + objectGroup), family: "diet", qual: 1, value: 1, importance: 0.6, lone: true},
	// Work.
	{re: ci(`^(?:lost|quit|left|is leaving|will leave|has left|has quit) (?:their |a |the )?(?:job|position|role|gig)(?: as (?:an? )?[\w -]+?)?(?: (?:at|with) (.+))?$`), family: "employer", value: 1, neg: true, change: true, lone: true},
	{re: ci(`^(?:was|got|has been) (?:fired|laid off|let go)(?: from (.+))?`), family: "employer", value: 1, neg: true, change: true, lone: true},
	{re: ci(`^(?:works|is working|has been working|has worked|is employed|is an? \w+) (?:at|for|with) ((?:the )?[A-Z][\w&.'-]*(?: [A-Z&][\w&.'-]*)*)`), family: "employer", value: 1, lone: true},
	{re: ci(`^(?:starts|started|will start|is starting|is going to start|has started|joined|is joining|will join|got a (?:new )?job (?:at|with)|landed a (?:new )?job (?:at|with)|accepted (?:a|an) (?:job|offer|position) (?:at|with|from)|got hired (?:at|by)|was hired (?:at|by)) (?:work |a new job |their new job )?(?:at |with )?((?:the )?[A-Z][\w&.'-]*(?: [A-Z&][\w&.'-]*)*)(?: (?:as|in|on|next|this|tomorrow|soon)\b.*)?$`), family: "employer", value: 1, change: true, lone: true},
	{re: ci(`^(?:works|is working|has been working|is employed|worked) as (?:an? |the )?` + objectGroup), family: "occupation", value: 1, lone: true},
	{re: ci(`^(?:is|has become|became|is now|has been|is training to be|is studying to be) (?:an? |the )(?:[a-z-]+ )?(` + occupations + `)\b`), family: "occupation", value: 1, lone: true},
	{re: ci(`^runs (?:a|an|their own|their) ` + objectGroup), family: "occupation", value: 1, importance: 0.7, lone: true},
	// Home and origin.
	{re: ci(`^(?:lives|is living|has lived|has been living|resides|is based|is staying|lived) in ` + objectGroup), family: "home", value: 1, lone: true},
	{re: ci(`^(?:moved|relocated|has moved|has relocated) (?:back )?(?:to|into) ` + objectGroup), family: "home", value: 1, change: true, lone: true},
	{re: ci(`^(?:is moving|will move|is going to move|is relocating|plans to move|is planning to move|hopes to move|wants to move) (?:back )?(?:to|into) ` + objectGroup), family: "plan:move", value: 1, lone: true},
	{re: ci(`^(?:is|comes) (?:originally )?from ([A-Z].*)`), family: "origin", value: 1, lone: true},
	{re: ci(`^(?:grew up|was born|was raised) in ` + objectGroup), family: "origin", value: 1, lone: true},
	{re: ci(`^was born on ` + objectGroup), family: "birthday", value: 1, lone: true},
	// Age.
	{re: ci(`^is (\d{1,3})(?: years old| yrs old| years)?$`), family: "age", value: 1, lone: true},
	{re: ci(`^(?:turned|is turning|will turn|will be) (\d{1,3})\b`), family: "age", value: 1, change: true, lone: true},
	// Relationships.
	{re: ci(`^is (?:happily )?married(?: to ([A-Z]\w+))?`), family: "relationship:spouse", value: 1, lone: true},
	{re: ci(`^has been (?:happily )?married (?:for )?` + objectGroup), family: "relationship:spouse", lone: true},
	{re: ci(`^(?:got|is getting|just got|will get) (married|engaged)\b(?: to ([A-Z]\w+))?`), family: "relationship:spouse", value: 2, change: true, lone: true},
	{re: ci(`^(?:got|is getting|just got) (divorced|separated)\b`), family: "relationship:spouse", neg: true, change: true, lone: true},
	{re: ci(`^is (?:dating|seeing|engaged to|in a relationship with) ([A-Z]\w+)`), family: "relationship:partner", value: 1, lone: true},
	{re: ci(`^is (?:a |now a )?(single|divorced|widowed|single parent|single mom|single dad|single mother|single father)\b`), family: "relationship:status", value: 1, lone: true},
	{re: ci(`^(?:has|had) (?:a |an |one |two |three |four |five |\d+ |\w+ )?(?:\w+ )?(` + relations + `)\b(?: (?:named|called) ([A-Z]\w+))?`), family: "relationship", qual: 1, value: 2, lone: true},
	{re: ci(`^is (?:a |the )?(?:proud |new )?(mom|mother|dad|father|parent|grandmother|grandfather|grandma|grandpa|aunt|uncle|godmother|godfather) (?:of|to) ` + objectGroup), family: "relationship:child", value: 2, lone: true},
	// Pets.
	{re: ci(`^(?:has|had|owns) (?:a |an |one |two |three |\d+ |some )?(?:\w+ )?(` + petKinds + `)\b(?: (?:named|called) ([A-Z]\w+))?`), family: "pet", qual: 1, value: 2, lone: true},
	{re: ci(`^(?:adopted|got|rescued|bought|is adopting|is getting|will get) (?:a |an |two |\d+ )?(?:new )?(?:\w+ )?(` + petKinds + `)\b(?: (?:named|called) ([A-Z]\w+))?`), family: "pet", qual: 1, value: 2, change: true, lone: true},
	// Education.
	{re: ci(`^(?:studies|is studying|studied|majored in|is majoring in|has a degree in|got a degree in|is getting a degree in|graduated from|graduated with a degree in|is a (?:student|freshman|sophomore|junior|senior) at|goes to (?:school|college|university|uni) (?:at|in)|is enrolled (?:at|in)|is doing a (?:phd|masters?|master's|bachelor's|degree) in|finished (?:their )?(?:degree|phd|masters?|studies) (?:in|at)) ` + objectGroup), family: "education", qual: 1, value: 1, lone: true},
	// Preferences and interests.
	{re: ci(`^(?:hates|dislikes|detests|can't stand|cannot stand|is not a fan of|isn't a fan of|does not like|doesn't like|does not enjoy|doesn't enjoy|does not care for|no longer likes|no longer enjoys|never liked|is sick of|is tired of|does not really like|doesn't really like) ` + objectGroup), family: "preference", qual: 1, value: 1, neg: true},
	{re: ci(`^(?:loves|likes|enjoys|adores|prefers|is fond of|is (?:a )?(?:big |huge )?fan of|is crazy about|is obsessed with|can't get enough of|digs|has always loved|has always liked|would rather) ` + objectGroup), family: "preference", qual: 1, value: 1},
	{re: ci(`^is (?:very |so |super |quite |deeply |really )?(?:interested in|into|passionate about|fascinated by|keen on|curious about|hooked on) ` + objectGroup), family: "interest", qual: 1, value: 1},
	{re: ci(`^has (?:a |an )?(?:passion|love|interest|soft spot) for ` + objectGroup), family: "interest", qual: 1, value: 1},
	// Activities and hobbies.
	{re: ci(`^(?:has been|is|started|began|has started|has begun|will start|is starting) (?:learning|practicing|practising|training in|studying) ` + objectGroup), family: "activity", qual: 1, value: 1},
	{re: ci(`^(?:plays|played|has played|is playing|has been playing|practices|practises) (?:the )?` + objectGroup), family: "activity", qual: 1, value: 1},
	{re: ci(`^(?:took up|picked up|got into|has gotten into|has got into|signed up for|joined|enrolled in|is taking|has been taking|took|started taking) ((?:a |an |some )?[\w' -]*?(?:class|classes|lessons?|course|courses|club|team|group|league|choir|band|gym|workshop|program|programme))\b`), family: "activity", qual: 1, value: 1},
	{re: ci(`^(?:goes|went|has been going|likes going|loves going|is going) (\w+ing)\b`), family: "activity", qual: 1, value: 1},
	{re: ci(`^(?:started|began|has started|just started|has been|is) (\w+ing) (?:regularly|every \w+|again|more|daily|weekly)\b`), family: "activity", qual: 1, value: 1},
	// What one uses: tools, apps, products ("uses Jira", "switched to VS
	// Code", "does not use Neovim anymore").
	{re: ci(`^(?:does not|doesn't|did not|didn't|no longer|never|will not|won't) (?:use|uses|work with) ` + objectGroup), family: "use", qual: 1, value: 1, neg: true, lone: true},
	{re: ci(`^(?:stopped|quit|gave up|has stopped|has quit) using ` + objectGroup), family: "use", qual: 1, value: 1, neg: true, change: true, lone: true},
	{re: ci(`^(?:switched|has switched|is switching|changed|has changed|migrated|has migrated|is migrating) (?:over )?(?:to|from \S+(?: \S+)? to) ` + objectGroup), family: "use", qual: 1, value: 1, change: true, lone: true},
	{re: ci(`^(?:uses|is using|has been using|has used|relies on|is relying on|works in|writes code in|codes in) ` + objectGroup), family: "use", qual: 1, value: 1, lone: true},
	// Plans, wishes and decisions.
	{re: ci(`^(?:is|are) (?:going|planning|hoping|about|set|scheduled|trying|aiming) to ` + objectGroup), family: "plan", qual: 1, value: 1},
	{re: ci(`^(?:plans|intends|aims|is thinking of|is thinking about|is considering|is looking forward to|can't wait to|cannot wait to|will|is going to) ` + objectGroup), family: "plan", qual: 1, value: 1},
	{re: ci(`^(?:wants|would love|would like|hopes|wishes|dreams of|dreams) (?:to )?` + objectGroup), family: "plan", qual: 1, value: 1, aspiration: true},
	{re: ci(`^(?:has |have )?decided (?:to|on) ` + objectGroup), importance: 0.7},
	// Transient states and feelings.
	{re: ci(`^(?:is|was|has been|feels|is feeling|felt) (?:so |really |super |very |pretty |totally |completely |a bit |kinda |a little |quite )*(tired|exhausted|sick|ill|busy|swamped|stressed|stressed out|hungry|sleepy|bored|worn out|burnt out|burned out|drained|overwhelmed|under the weather|fine|okay|ok|well|doing (?:well|good|great|ok|okay|fine|alright))\b`), family: "state", qual: 1, value: 1, lone: true},
	{re: ci(`^(?:is|was|feels|felt|has been) (?:so |really |super |very |pretty |totally |incredibly |extremely |truly )*(?:happy|glad|excited|thrilled|stoked|proud|grateful|thankful|sorry|nervous|scared|worried|sad|lucky|blessed|pumped|psyched|eager|anxious|relieved|honored|honoured|amazed|inspired|motivated|determined|devastated|heartbroken|upset|frustrated|disappointed|bummed|touched|moved|hopeful|content|fulfilled)\b`), importance: 0.4, durability: memory.DurabilityEphemeral},
	{re: ci(`^(?:thinks|believes|feels|reckons|finds) (?:that )?` + objectGroup), importance: 0.4, kind: memory.KindFact},
}

// ci compiles a rule's pattern case-insensitively, except for its
// "[A-Z]" classes: names keep their capital ("works at Acme").
func ci(pattern string) *regexp.Regexp {
	return regexp.MustCompile("(?i)" + strings.ReplaceAll(pattern, "[A-Z]", "(?-i:[A-Z])"))
}

// possessive facts: "<subject>'s <noun> is <value>".
var (
	possessiveRe = regexp.MustCompile(`^(.+?)'s ((?:\w+ )?\w+(?: \w+)?)$`)
	isValueRe    = regexp.MustCompile(`^(?:is|was|'s) (.+)$`)
	relationRe   = regexp.MustCompile(`^(?:` + relations + `)$`)
	petRe        = regexp.MustCompile(`^(?:` + petKinds + `)$`)
	favoriteRe   = regexp.MustCompile(`^(?:favou?rite|fave|fav|top|all-time favou?rite) (\w+(?: \w+)?)$`)
	// "X is my manager", said of a named person: the speaker's relation.
	isRelationOfRe = regexp.MustCompile(`^is (.+?)'s (` + relations + `)$`)
	nameWordRe     = regexp.MustCompile(`^[A-Z][a-z]+(?: [A-Z][a-z]+)?$`)
	// A trailing name in a possessive subject: "wife Ana".
	appositionRe = regexp.MustCompile(`^(.+?) ([A-Z][a-z]+)$`)
	// Cut an object at the first word that starts a new phrase.
	objectCutRe  = regexp.MustCompile(`(?i)\s+(?:yesterday|today|tonight|tomorrow|last|next|this|ago|recently|lately|soon|in|at|on|with|for|to|from|because|since|when|while|after|before|during|so|but|and|that|which|who|where|as|like|every|each|now|anymore|any more|these days|instead|again|too|though|although|if|or|than|by|near|around|over|with)\b.*$|,.*$`)
	determinerRe = regexp.MustCompile(`(?i)^(?:the|a|an|their|his|her|some|all|this|that|these|those|any|lots of|a lot of|all kinds of|all sorts of|many|more|most|new|own|my|our|your|such)\s+`)
)

// object is the thing a predicate's object names, in short: "green tea in
// the morning" -> "green tea"; at most four words, lower case.
func object(s string) string {
	s = strings.TrimSpace(objectCutRe.ReplaceAllString(" "+strings.TrimSpace(s), ""))
	for {
		t := determinerRe.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	w := strings.Fields(strings.ToLower(strings.Trim(s, " .,!?;:\"'")))
	if len(w) > 4 {
		w = w[:4]
	}
	return strings.Join(w, " ")
}

// value is a slot value as said: the object cut at its first new phrase,
// case kept.
func value(s string) string {
	s = strings.TrimSpace(objectCutRe.ReplaceAllString(" "+strings.TrimSpace(s), ""))
	return strings.Trim(determinerRe.ReplaceAllString(s, ""), " .,!?;:\"'")
}

// contentWords counts the words of s that carry meaning.
func contentWords(s string) int {
	n := 0
	for _, w := range strings.Fields(strings.ToLower(s)) {
		w = strings.Trim(w, ".,!?;:\"'()")
		if len(w) >= 3 && !en.ChatStopWord(w) {
			n++
		}
	}
	return n
}

// auxiliaries and verbs that lead a predicate before its object.
var auxiliaries = set("is", "was", "has", "had", "have", "been", "being", "be", "does", "did", "do", "will", "would", "can",
	"could", "should", "might", "must", "may", "not", "never", "going", "to", "gonna", "just", "also", "really", "still",
	"cannot", "doesn't", "didn't", "isn't", "wasn't", "won't", "wouldn't", "hasn't", "always", "ever", "already", "so",
	"totally", "definitely", "even")

// pronounObject reports whether a predicate's object is a bare pronoun
// ("will never forget it", "is going to keep it up", "loves that"): the
// fact would not stand on its own.
func pronounObject(lp string) bool {
	w := strings.Fields(lp)
	i := 0
	for i < len(w) && auxiliaries[strings.Trim(w[i], ",.")] {
		i++
	}
	if i+1 >= len(w) {
		return false
	}
	switch strings.Trim(w[i+1], ",.!") {
	case "it", "this", "that", "them", "these", "those", "one", "so", "there", "him", "her":
		return contentWords(strings.Join(w[i+2:], " ")) < 2
	}
	return false
}

// dangling reports whether a predicate stops mid-phrase ("loves to").
func dangling(pred string) bool {
	w := strings.Fields(strings.ToLower(pred))
	if len(w) == 0 {
		return true
	}
	switch strings.Trim(w[len(w)-1], ".,") {
	case "to", "and", "of", "the", "a", "an", "for", "with", "at", "in", "on", "my", "their", "is", "was", "be", "so", "but", "or", "that", "about":
		return true
	}
	return false
}

// Extract implements Extractor.
func (Local) Extract(_ context.Context, turns []Turn) ([]Fact, error) {
	var out []Fact
	seen := map[string]bool{}
	add := func(fs []Fact) {
		for _, f := range fs {
			key := memory.NormalizeText(f.Text)
			if !seen[key] {
				seen[key] = true
				out = append(out, f)
			}
		}
	}
	for i, t := range turns {
		if t.Speaker == "" {
			continue
		}
		if Transient(t.Text) {
			// "Porto!" is short, but answers "Where are you from?".
			if s := memory.Sentences(t.Text); i > 0 && len(s) > 0 {
				add(answer(turns[i-1], t, s[0]))
			}
			continue
		}
		lastName := ""
		for j, sent := range memory.Sentences(t.Text) {
			if transientSentence(sent) {
				continue
			}
			var fs []Fact
			for _, src := range clauses(sent) {
				fs = append(fs, factsOf(src, t, &lastName)...)
			}
			if len(fs) == 0 && j == 0 && i > 0 {
				fs = answer(turns[i-1], t, sent)
			}
			add(fs)
		}
	}
	return out, nil
}

// An answer without its own subject and verb ("Utrecht, near the Dom
// tower") completes the question just before it ("Where do you live
// now?"): English leaves out what the question already said. answer
// rebuilds the first-person sentence the fragment stands for ("I now live
// in Utrecht, near the Dom tower") and reads its facts, citing both turns.
var (
	// "Where do you live now?", "Which editor do you use?", "Where are you
	// from?", "Who do you work for?"
	askYouRe = regexp.MustCompile(`(?i)^(where|what|which [a-z]+|who|when)(?: (do|are|have|will))? you ([a-z' ]+?)[?!. ]*$`)
	// "What's your favourite food?", "Where is your office?"
	askYourRe = regexp.MustCompile(`(?i)^(?:what|who|where|when|which)(?:'s| is) your ([a-z' ]+?)[?!. ]*$`)
	// A time at the end of a question goes before the verb: "live now" ->
	// "now live".
	trailingNowRe = regexp.MustCompile(`(?i)^(.+?) (now|these days|currently|nowadays)$`)
	// A fragment opening with a preposition keeps it ("near the station").
	prepositionRe = regexp.MustCompile(`(?i)^(?:in|at|on|near|from|to|by|with|for|outside|inside|around|close to|next to)\b`)
	// A finite verb that makes an answer a clause of its own ("The opening
	// is tomorrow"), not a fragment.
	finiteRe = regexp.MustCompile(`(?i)\b(?:is|are|was|were|am|has|have|had|will|would|do|does|did|can|could|should|\w+'s|\w+'re|\w+'ll)\b`)
	// A fragment that is a clause of its own: it opens with a subject.
	clauseOpenRe = regexp.MustCompile(`(?i)^(?:i|i'm|i've|i'd|i'll|my|we|we're|our|you|your|he|she|it|it's|they|they're|this|that|there|there's|yes|no|not|nothing|sure|maybe|probably)\b`)
)

// evaluationRe opens a reply that judges the question instead of
// answering it ("good question", "long story").
var evaluationRe = regexp.MustCompile(`(?i)^(?:good|great|nice|interesting|tough|hard|fair|funny|long|crazy|weird|tricky|big|same|depends)\b`)

// answers reports whether turn t is a fragment answering question q.
func answers(q, t Turn) bool {
	s := memory.Sentences(t.Text)
	return len(s) > 0 && len(answer(q, t, s[0])) > 0
}

// maxFragmentWords is the longest answer read as a fragment.
const maxFragmentWords = 8

func answer(q, t Turn, sent string) []Fact {
	if q.Speaker == "" || q.Speaker == t.Speaker || !asks(q.Text) {
		return nil
	}
	frag := strings.TrimSpace(strings.TrimRight(cleanClause(sent), ".!… "))
	frag = strings.Trim(markerRe.ReplaceAllString(frag, ""), " ,")
	if frag == "" || len(strings.Fields(frag)) > maxFragmentWords || clauseOpenRe.MatchString(frag) || finiteRe.MatchString(frag) || evaluationRe.MatchString(frag) || reactionRe.MatchString(strings.ReplaceAll(frag, ",", "")) {
		return nil
	}
	qs := memory.Sentences(q.Text)
	if len(qs) == 0 {
		return nil
	}
	ask := cleanClause(qs[len(qs)-1])
	var said string
	if m := askYourRe.FindStringSubmatch(ask); m != nil {
		said = "My " + m[1] + " is " + frag
	} else if m := askYouRe.FindStringSubmatch(ask); m != nil {
		wh, aux, rest := strings.ToLower(m[1]), strings.ToLower(m[2]), m[3]
		if t := trailingNowRe.FindStringSubmatch(rest); t != nil {
			rest = t[2] + " " + t[1]
		}
		last := strings.ToLower(rest[strings.LastIndexByte(rest, ' ')+1:])
		switch {
		case wh == "where" && !prepositionRe.MatchString(frag) && !functionWords[last]:
			frag = "in " + frag
		case wh != "where" && wh != "when" && wh != "who" && strings.HasPrefix(wh, "wh") && last == "do":
			return nil // "What do you do?": the answer names no object of a verb said
		}
		subject := "I"
		switch aux {
		case "are":
			subject = "I am"
		case "have":
			subject = "I have"
		case "will":
			subject = "I will"
		}
		said = subject + " " + rest + " " + frag
	} else {
		return nil
	}
	var out []Fact
	lastName := ""
	for _, src := range clauses(said) {
		for _, f := range factsOf(src, t, &lastName) {
			f.Sources, f.Quote = []string{t.ID, q.ID}, q.Text+" "+t.Text
			out = append(out, f)
		}
	}
	return out
}

// factsOf returns the facts of one clause of turn t.
//
// lastName is the last person named as a subject in the turn, for "she"
// and "he"; factsOf updates it.
func factsOf(src statementSource, t Turn, lastName *string) []Fact {
	if m := epistemicRe.FindString(src.text); m != "" {
		rest := src.text[len(m):]
		if l := strings.ToLower(rest); strings.HasPrefix(l, "i ") || strings.HasPrefix(l, "i'") || strings.HasPrefix(l, "my ") {
			src.text = rest
		}
	}
	if req, ok := request(src.text, t); ok {
		return []Fact{req}
	}
	st, ok := rewrite(src, t.Speaker, *lastName)
	if !ok || st.subject == "" {
		return nil
	}
	var out []Fact
	// "my wife Ana ...": the relation, then what is said of Ana.
	if m := possessiveRe.FindStringSubmatch(st.subject); m != nil && st.whole == "" {
		if a := appositionRe.FindStringSubmatch(m[2]); a != nil && (relationRe.MatchString(a[1]) || petRe.MatchString(a[1])) {
			fam, imp := "relationship:"+singular(a[1]), families["relationship"]
			text := m[1] + "'s " + a[1] + " is " + a[2]
			if petRe.MatchString(a[1]) {
				fam, imp = "pet:"+singular(a[1]), families["pet"]
				text = m[1] + " has a " + a[1] + " named " + a[2]
			}
			out = append(out, Fact{Text: text, Kind: imp.kind, Confidence: 0.85, Importance: imp.importance, Durability: imp.durability,
				Subject: m[1], Slot: fam, Value: a[2], Sources: []string{t.ID}, Quote: src.text})
			st.subject = a[2]
			st.self = false
		}
	}
	if !st.self && st.whole == "" {
		name, _, _ := strings.Cut(st.subject, "'s ")
		*lastName = name
	}
	f, ok := assess(st, t)
	if ok {
		out = append(out, f)
	}
	return out
}

// requestRe is a request to the assistant ("please always answer in
// French", "call me Annie").
var requestRe = regexp.MustCompile(`(?i)^(?:please )?(?:always |never )?(remember that|remember|call me|use|send|don't|do not|stop|answer|reply|write|speak|address me as) (.{2,80})`)

func request(c string, t Turn) (Fact, bool) {
	if !strings.HasPrefix(strings.ToLower(c), "please ") && !strings.HasPrefix(strings.ToLower(c), "call me ") && !strings.HasPrefix(strings.ToLower(c), "address me as ") {
		return Fact{}, false
	}
	m := requestRe.FindStringSubmatch(c)
	if m == nil {
		return Fact{}, false
	}
	verb, rest := strings.ToLower(m[1]), strings.TrimRight(m[2], " .!")
	fam := families["request"]
	f := Fact{Kind: fam.kind, Confidence: 0.8, Importance: fam.importance, Durability: fam.durability,
		Subject: t.Speaker, Slot: "request:" + object(rest), Value: rest, Sources: []string{t.ID}, Quote: c}
	switch verb {
	case "call me", "address me as":
		f.Text, f.Slot, f.Kind = t.Speaker+" asked to be called "+rest, "name:preferred", memory.KindUserRequest
	default:
		f.Text = t.Speaker + " asked to " + verb + " " + otherPronouns(rest, t.Speaker, true)
	}
	return f, true
}

// singular drops the plural ending of the last word of a phrase:
// "sisters" -> "sister", "puppies" -> "puppy", "pottery classes" ->
// "pottery class"; words that only look plural ("jazz", "glass", "news",
// "bus") stay.
func singular(phrase string) string {
	phrase = strings.ToLower(phrase)
	i := strings.LastIndexByte(phrase, ' ') + 1
	w := phrase[i:]
	switch {
	case w == "children":
		w = "child"
	case w == "people":
		w = "person"
	case len(w) <= 4 || strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is") || strings.HasSuffix(w, "ics"):
	case strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	return phrase[:i] + w
}

// assess gives a statement its slot, value, polarity and importance, or
// rejects it as carrying too little.
func assess(st statement, t Turn) (Fact, bool) {
	pred := strings.TrimSpace(strings.Trim(st.pred, " ,;:"))
	if w := strings.Fields(pred); len(w) > 40 {
		pred = strings.Join(w[:40], " ")
	}
	st.pred = pred
	if st.whole != "" {
		st.whole = pred
	}
	if pred == "" || dangling(pred) {
		return Fact{}, false
	}
	// The predicate without its leading adverbs, as said (lpOrig) and in
	// lower case (lp).
	lpOrig := leadAdverbRe.ReplaceAllString(pred, "")
	if st.plural {
		// The rules read singular predicates: "have a dog" as "has a dog".
		lpOrig = conjugateFirst(lpOrig)
	}
	lp := strings.ToLower(lpOrig)
	if skipPredRe.MatchString(lp) {
		return Fact{}, false
	}
	f := Fact{Text: st.text(), Kind: memory.KindFact, Confidence: 0.7, Importance: 0.5, Durability: memory.DurabilityStandard,
		Subject: st.about(), Sources: []string{t.ID}, Quote: st.quote}
	if !st.self {
		f.Confidence = 0.75
	}
	matched, lone := false, false
	// "<subject>'s <noun> is <value>": name, birthday, favourite, relation.
	if m := possessiveRe.FindStringSubmatch(st.subject); m != nil && st.whole == "" {
		if v := isValueRe.FindStringSubmatch(pred); v != nil {
			noun, val := strings.ToLower(m[2]), strings.TrimSpace(v[1])
			slot := ""
			switch {
			case noun == "name" || noun == "full name":
				slot = "name"
			case noun == "birthday" || noun == "birth date" || noun == "date of birth":
				slot = "birthday"
			case favoriteRe.MatchString(noun):
				slot = "favorite:" + favoriteRe.FindStringSubmatch(noun)[1]
			case relationRe.MatchString(noun) && nameWordRe.MatchString(val):
				slot = "relationship:" + singular(noun)
			case petRe.MatchString(noun) && nameWordRe.MatchString(val):
				slot = "pet:" + singular(noun)
			case noun == "age":
				slot = "age"
			}
			if slot != "" {
				fam := families[memory.SlotFamily(slot)]
				f.Subject, f.Slot, f.Value = m[1], slot, val
				f.Kind, f.Importance, f.Durability, f.Confidence = fam.kind, fam.importance, fam.durability, 0.9
				matched, lone = true, true
			}
		}
	}
	// "Li is my manager": the speaker's relation.
	if m := isRelationOfRe.FindStringSubmatch(pred); !matched && m != nil && nameWordRe.MatchString(st.subject) {
		fam := families["relationship"]
		f.Subject, f.Slot, f.Value = m[1], "relationship:"+singular(m[2]), st.subject
		f.Kind, f.Importance, f.Durability, f.Confidence = fam.kind, fam.importance, fam.durability, 0.85
		matched, lone = true, true
	}
	if !matched {
		for _, r := range rules {
			m := r.re.FindStringSubmatch(lpOrig)
			if m == nil {
				continue
			}
			matched, lone = true, r.lone
			group := func(i int) string {
				if i <= 0 || i >= len(m) {
					return ""
				}
				return m[i]
			}
			fam := families[memory.SlotFamily(r.family)]
			if r.family != "" {
				f.Kind, f.Importance, f.Durability = fam.kind, fam.importance, fam.durability
				f.Slot = r.family
				if r.qual > 0 {
					q := singular(object(group(r.qual)))
					if q == "" {
						return Fact{}, false
					}
					f.Slot += ":" + q
				}
				if r.value > 0 {
					f.Value = value(group(r.value))
				}
				f.Confidence = 0.85
			}
			if r.importance > 0 {
				f.Importance = r.importance
			}
			if r.durability != "" {
				f.Durability = r.durability
			}
			if r.kind != "" {
				f.Kind = r.kind
			}
			f.Negated = r.neg
			f.Change = r.change
			if r.family == "plan" {
				dated := dateRe.MatchString(st.quote + " " + st.when)
				switch {
				case r.aspiration:
					f.Importance, f.Durability = 0.5, memory.DurabilityStandard
				case dated:
					f.Importance, f.Durability = 0.6, memory.DurabilityStandard
				default:
					f.Importance, f.Durability = 0.5, memory.DurabilityEphemeral
				}
			}
			break
		}
	}
	// A first-person statement without a rule must tell enough to stand.
	need := 2
	if lone || f.Slot != "" {
		need = 1
	}
	if lone && f.Value != "" {
		need = 0 // "my manager is Li": the value is the content
	}
	if contentWords(pred) < need || pronounObject(lp) {
		return Fact{}, false
	}
	if !matched && !st.self && st.whole == "" {
		// A third-person statement the rules do not know: kept, but as
		// less certain than one about the speaker.
		f.Confidence = 0.6
	}
	// A passing state or feeling said of the moment ("I am so tired today")
	// tells nothing that outlasts the conversation.
	if (memory.SlotFamily(f.Slot) == "state" || f.Slot == "" && f.Durability == memory.DurabilityEphemeral) &&
		momentRe.MatchString(st.quote+" "+st.when) {
		return Fact{}, false
	}
	if changeRe.MatchString(st.quote) {
		f.Change = true
	}
	if !f.Negated && negatedPredRe.MatchString(lp) {
		f.Negated = true
	}
	return f, true
}

// momentRe is a time that places a state in the current day.
var momentRe = regexp.MustCompile(`(?i)\b(?:today|tonight|right now|at the moment|atm|this (?:morning|afternoon|evening))\b`)

var negatedPredRe = regexp.MustCompile(`^(?:does not|doesn't|did not|didn't|is not|isn't|was not|wasn't|has not|hasn't|never|no longer|cannot|can't|will not|won't|would not|wouldn't)\b`)
