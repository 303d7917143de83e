package en

// The stop lists below differ on purpose: each serves one reader. Two are
// part of what is stored, TermStopWord (the terms a knowledge ref is
// indexed under) and EmbedStopWord (the vectors of the hashing embedder),
// so their content must not change, or data directories and indexes
// built before would no longer agree with the code that reads them;
// TestStoredListsAreFrozen holds them. Snowball's list (SnowballStopWords,
// stop.go) is the keyword indexes', held equal to bleve's.

// termStop: see TermStopWord.
var termStop = set(`
	a an the and or but of to in on at for with by from as is are was were be been being it its this that these
	those my your his her their our me him them us i you he she we they about into over than then so very just
	not no do does did have has had will would can could should what which who whom whose when where why how all
	any some each more most other such own same too
`)

// TermStopWord reports whether w (normalized, lower case) is a function
// word that a knowledge ref is not indexed by on its own: the words of a
// multi-word name, value or topic are indexed one by one, but not these
// (memory.SemanticRef.Terms). The knowledge extractors and the query
// translators skip the same words, so that what a question looks up is
// what was indexed. Its content is stored data: do not change it.
func TermStopWord(w string) bool { return termStop[w] }

// questionStop: see QuestionStopWord.
var questionStop = set(`
	am be been being is are was were do does did done doing have has had having will would shall should can
	could may might must i me my mine you your yours he him his she her hers it its we us our ours they them
	their theirs myself yourself himself herself ourselves themselves someone somebody anyone anybody everyone
	everybody what which who whom whose when where why how whatever whenever wherever tell told say said says
	saying mention mentioned mentions talk talked talking talks discuss discussed discussion conversation chat
	chatted topic topics subject remember recall know knew think ever also really much many lot lots thing
	things something anything everything nothing stuff kind kinds type types sort sorts else there here way
	please yes ok okay got get gets getting one ones
`)

// QuestionStopWord reports whether a normalized word of a question is no
// search term: a TermStopWord, or an auxiliary, a pronoun, a question word
// or a word about the conversation itself ("mention", "talk", "remember").
// It is wider than TermStopWord because a question's words only look
// terms up: dropping "remember" from "what do you remember about Ana"
// loses nothing, while dropping it from an indexed name would.
func QuestionStopWord(w string) bool { return termStop[w] || questionStop[w] }

// embedStop: see EmbedStopWord.
var embedStop = set(`
	a an and are as at be but by for from has have he her his i in is it its me my of on or our she so that the
	their them they this to was we were what when where which who will with you your do did does am been being
	than then there these those us
`)

// EmbedStopWord reports whether the hashing embedder drops w (lower case)
// before hashing a text's words: the most frequent function words, which
// carry no topic and would make short texts match on "the" and "is". It
// keeps words TermStopWord drops ("about", "not", "no") and drops a few it
// keeps ("there"), because the vectors it shapes are stored: its content
// is stored data, do not change it.
func EmbedStopWord(w string) bool { return embedStop[w] }

// chatStop: see ChatStopWord.
var chatStop = set(`
	a an the and or but if so of to in on at by for with from about as into like through over after before under
	again further then once here there when where why how all any both each few more most other some such no nor
	not only own same than too very can will just don should now is am are was were be been being have has had
	having do does did doing would could might must shall may it its it's this that these those they them their
	theirs themselves he him his she her hers i me my we us our you your what which who whom whose also really
	still even ever never always much many lot lots thing things stuff something anything everything nothing way
	kind sort bit pretty quite get gets got getting go goes going went make makes made one ones time times day
	days today yesterday tomorrow week month year last next new good great nice cool awesome amazing fun happy
	glad sure totally definitely absolutely gonna wanna gotta yeah yes oh wow lol haha okay ok well because
	since while though although until unless whether said says say tell told know knows think thinks feel feels
	felt love loves likes want wants need needs see sees ago back out up down off around there's that's what's
`)

// ChatStopWord reports whether w (lower case) carries no content of its
// own in casual conversation: function words, and also fillers ("yeah",
// "lol"), vague nouns ("stuff", "thing"), times ("today"), evaluations
// ("awesome") and the verbs of saying, knowing and liking. The local fact
// extractor counts a fact's content words without them, to drop facts
// that say nothing ("really loves it"). It is the widest list because it
// judges whether a whole statement is worth keeping, not which words to
// index or look up.
func ChatStopWord(w string) bool { return chatStop[w] }
