package en

// Past forms. IrregularPast (verbs.go) knows every past and participle of
// the irregular verb table; the two lists below are shorter, hand-picked
// lists two readers were tuned with. Replacing either with IrregularPast
// would change what those readers find (it knows "lay", "bound", "ground",
// which are more often other words), so they stay as they are, named for
// what they serve.

// pastForms: see PastVerbForm.
var pastForms = set(`
	went got made saw had took came gave found knew thought told felt left kept began bought brought caught
	taught built sent spent lost won met ran wrote drove rode ate drank swam sang sat stood understood heard
	held led paid said sold slept became broke chose fell forgot flew grew hung hid hit hurt let put quit set
	shut cut threw woke wore did was were been gotten taken done seen given known spoken written begun drawn
	read learnt burnt dreamt meant lent dealt fought sought struck stuck swore tore bit shot lit fed bred bled
	fled slid spun used
`)

// PastVerbForm reports whether w (lower case) is a common past or
// participle form (mostly irregular, with "was", "were", "been" and
// "used"): the local fact extractor takes such a word, as it takes a word
// in -ed, for a verb that needs no agreement when it turns "I went" into
// "Ana went", and for the verb of a clause whose subject was left out
// ("went to Paris last week").
func PastVerbForm(w string) bool { return pastForms[w] }

// simplePasts: see CommonIrregularPast.
var simplePasts = set(`
	got went made took won had began bought found came ran saw did met left gave sent built wrote drove flew
	sold spent threw caught taught held read
`)

// CommonIrregularPast reports whether w (lower case) is one of the common
// irregular simple pasts that tell an event ("went", "bought", "met"; no
// participles, no forms of be): the query translator takes "just" before
// one ("I just got back") for a statement about the speaker's present.
func CommonIrregularPast(w string) bool { return simplePasts[w] }
