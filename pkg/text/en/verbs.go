package en

import "strings"

// irregularVerbs: base, past, participle (alternatives split by "/").
var irregularVerbs = []string{
	"be was/were been", "have had had", "do did done", "go went gone", "get got got/gotten", "make made made",
	"say said said", "see saw seen", "come came come", "take took taken", "know knew known", "think thought thought",
	"give gave given", "find found found", "tell told told", "become became become", "leave left left",
	"feel felt felt", "bring brought brought", "begin began begun", "keep kept kept", "hold held held",
	"write wrote written", "stand stood stood", "hear heard heard", "let let let", "mean meant meant",
	"set set set", "meet met met", "run ran run", "pay paid paid", "sit sat sat", "speak spoke spoken",
	"lie lay lain", "lead led led", "read read read", "grow grew grown", "lose lost lost", "fall fell fallen",
	"send sent sent", "build built built", "understand understood understood", "draw drew drawn",
	"break broke broken", "spend spent spent", "cut cut cut", "rise rose risen", "drive drove driven",
	"buy bought bought", "wear wore worn", "choose chose chosen", "seek sought sought", "throw threw thrown",
	"catch caught caught", "deal dealt dealt", "win won won", "forget forgot forgotten", "sell sold sold",
	"fight fought fought", "teach taught taught", "eat ate eaten", "sing sang sung", "swim swam swum",
	"drink drank drunk", "fly flew flown", "ride rode ridden", "hide hid hidden", "shake shook shaken",
	"steal stole stolen", "wake woke woken", "bite bit bitten", "blow blew blown", "freeze froze frozen",
	"forgive forgave forgiven", "hang hung hung", "shoot shot shot", "shut shut shut", "sleep slept slept",
	"slide slid slid", "spin spun spun", "stick stuck stuck", "strike struck struck", "swear swore sworn",
	"sweep swept swept", "swing swung swung", "tear tore torn", "bear bore born/borne", "bend bent bent",
	"bet bet bet", "bind bound bound", "bleed bled bled", "breed bred bred", "burn burnt burnt",
	"cling clung clung", "creep crept crept", "dig dug dug", "dream dreamt dreamt", "feed fed fed",
	"flee fled fled", "grind ground ground", "hit hit hit", "hurt hurt hurt", "kneel knelt knelt",
	"lay laid laid", "lean leant leant", "leap leapt leapt", "learn learnt learnt", "lend lent lent",
	"light lit lit", "put put put", "quit quit quit", "ring rang rung", "shine shone shone", "show showed shown", "shrink shrank shrunk", "sink sank sunk", "smell smelt smelt",
	"spell spelt spelt", "spill spilt spilt", "split split split", "spread spread spread", "spring sprang sprung",
	"sting stung stung", "stink stank stunk", "string strung strung", "undertake undertook undertaken",
	"upset upset upset", "weave wove woven", "weep wept wept", "wind wound wound", "withdraw withdrew withdrawn",
	"overcome overcame overcome", "rebuild rebuilt rebuilt", "babysit babysat babysat", "oversleep overslept overslept",
}

// The table's look-ups, built before any init function runs (Lemma's
// reads them).
var irregularBase, irregularPast, irregularBases = buildIrregular()

// buildIrregular returns every form of the table mapped to its base (each
// base to itself), the past and participle forms, and the bases in the
// table's order.
func buildIrregular() (base map[string]string, past map[string]bool, bases []string) {
	base, past = map[string]string{}, map[string]bool{}
	for _, v := range irregularVerbs {
		f := strings.Fields(v)
		base[f[0]] = f[0]
		bases = append(bases, f[0])
		for _, form := range f[1:] {
			for _, x := range strings.Split(form, "/") {
				base[x] = f[0]
				past[x] = true
			}
		}
	}
	// A form shared by two verbs goes to the later entry of the table:
	// "lay" is the base of lay, not lie's past.
	base["born"] = "born" // "was born in", not "bear"
	return base, past, bases
}

// IrregularVerb returns the base of w (lower case) when w is a form of an
// irregular verb ("went" → "go"; a base gives itself). "born" is its own
// base ("was born in"), though it is also a past form (IrregularPast).
func IrregularVerb(w string) (base string, ok bool) {
	base, ok = irregularBase[w]
	return base, ok
}

// IrregularPast reports whether w is the past or the participle of an
// irregular verb ("went", "gone", "read").
func IrregularPast(w string) bool { return irregularPast[w] }

// IrregularBases returns the bases of the irregular verbs, in the order of
// the table. The caller must not change it.
func IrregularBases() []string { return irregularBases }
