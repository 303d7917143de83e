// Package query is the knowledge query language of the Structured RAG
// layer, in the spirit of TypeAgent KnowPro's search query schema: a JSON
// expression (Expr, Parse), its evaluation over a term index (Evaluator),
// and two translators from natural language (Translator, offline, and
// LLMTranslator, with a model).
//
// # The language
//
// An expression is a JSON object:
//
//	{
//	  "select": NODE,             // a boolean tree whose leaves match semantic refs
//	  "terms": ["sports", "climbing"], // free terms, OR'ed, in any role
//	  "time": TIME,               // bounds the memories' creation time
//	  "scope": {"roomId": "r1", "sessionId": "s1", "agentId": "a1"}, // also ranges and topics, below
//	  "relatedTerms": true,       // expand terms with related terms (default true)
//	  "limit": 20,                // memories returned, 1..100 (default 20)
//	  "askTime": true             // the question asks "when": prefer timed actions
//	}
//
// Select or terms is required; everything else is optional. A NODE holds
// exactly one of:
//
//	{"and": [NODE, ...]}          // each child matches the memory
//	{"or": [NODE, ...]}           // some child matches the memory
//	{"not": NODE}                 // the child does not match the memory
//	{"entity": {"name": "Ana", "types": ["person"], "facets": [{"name": "color", "value": "blue"}]}}
//	{"action": {"verbs": ["move"], "subject": "Ana", "object": "", "indirectObject": "Lisbon", "tense": "past"}}
//	{"topic": "travel"}
//	{"term": "fencing"}
//	{"property": {"name": "diet", "value": "vegetarian"}}
//
// An entity leaf needs a name, types or facets; a facet needs a name, and
// its value may be left out ("has a favorite band"). An action leaf needs
// verbs, a subject, an object or an indirect object; its tense is past,
// present or future. A property needs a name and a value. An empty string
// is the same as an absent field, and null the same as an absent member.
//
// TIME is either a range, either end open,
//
//	{"start": "2023-05-01T00:00:00Z", "end": "2023-06-01T00:00:00Z"}
//
// (RFC 3339; start inclusive, end exclusive), or an expression resolved
// when the query runs, against the evaluator's clock,
//
//	{"expression": "last month"}
//
// and, with either or alone, a relation to an anchor event,
//
//	{"relation": "before", "anchor": ["trip", "lisbon"]}
//
// Time expressions (case does not matter; "in", "on", "during", "around",
// "over", "within", "throughout" and "of" may precede a point, and "at" the
// weekend, a holiday or a part of a span: at Christmas, at the end of May):
//
//   - days: yesterday, today, tonight, tomorrow, last night, last evening,
//     this morning, the day before yesterday, earlier today, later today,
//     the other day (the week before today); a part of the day after a day
//     keeps the day (yesterday morning, Friday night, last Saturday
//     evening);
//   - calendar units: last/this/next week, month, year (weeks start on
//     Monday), the previous week, last/this/next weekend, the weekend (the
//     latest begun: over the weekend), the past weekend, the week (month,
//     year, weekend) before last, earlier/later this week/month/year;
//   - rolling windows ending now: the past week, the last 3 days, past two
//     months, over the past few weeks, the past fortnight;
//   - ago: 3 days ago (that day), two weeks ago (that calendar week), a
//     month ago, a few/a couple of/several years ago (a window: a couple is
//     2 to 3, a few 2 to 5, several 3 to 7); "back" for "ago" (a few days
//     back); a fortnight is two weeks;
//   - ahead: in 3 days (that day), in two weeks (that calendar week), in a
//     few months, a week from now, two days from today;
//   - thirds of a span of a week or longer: early June, mid-May, mid-2022,
//     late last year, the beginning (start, middle, end) of May, of the
//     month, of next week;
//   - holidays: Christmas (Eve, Day), Boxing Day, New Year's (Eve, Day),
//     Valentine's Day, Halloween, Independence Day, the Fourth of July,
//     Easter (Western), and the United States' Thanksgiving, Mother's Day
//     and Father's Day (New Year's with its apostrophe: "a new year" is
//     none); bare, the latest begun; last, this, next, or of a year
//     (Christmas 2022);
//   - dates: 2023-05-08, 2023-05, 8 May 2023, the 8th of May, May 8th,
//     May 8, 2023, May 2023, May of 2023, May, 2022, last May, this May,
//     next May, Monday, last Monday, next Friday;
//   - seasons (meteorological, northern hemisphere; winter of 2023 is
//     December 2023 to February 2024): the summer of 2023, summer 2023,
//     in the summer (the latest begun), last/this/next summer;
//   - relations: before X, after X, since X, until X, till X, by (the end
//     of) X, between X and Y, from X to Y, from X.
//
// A date without a year is the latest one that has begun ("in May" asked
// in March 2024 is May 2023). "Last May" is the latest May that has ended,
// "last summer" the latest summer that has ended, "last Monday" the latest
// Monday before today. Time is calendar time in the clock's location.
//
// Limits: the tree at most 8 levels deep and 64 leaves
// (memory.MaxQueryTerms), 64 free terms, 8 verbs, types, facets or anchor
// terms per list, terms of at most 256 bytes once normalized, the JSON at
// most 64 KiB. Every term is normalized by memory.NormalizeTerm and verbs
// are lemmatized (Lemma: "moved" → "move"), as the extractors index them.
// Parse rejects unknown fields, duplicate keys and wrong types; every
// error is EINVALID and names the part at fault as a JSON path:
//
//	select.and[2].entity.facets[0].name: required
//	time.start: not RFC 3339 (2023-05-01T00:00:00Z)
//	select: exactly one of and, or, not, entity, action, topic, term, property
//	select.or[1].entity.nme: unknown field
//
// # Examples
//
// What sports has Ana tried?
//
//	{"select": {"or": [
//	   {"entity": {"name": "ana"}},
//	   {"entity": {"types": ["sport"]}},
//	   {"action": {"verbs": ["try"], "subject": "ana"}}]},
//	 "terms": ["sports"]}
//
// Restaurants mentioned last year, except Italian ones:
//
//	{"select": {"and": [
//	   {"entity": {"types": ["restaurant"]}},
//	   {"not": {"property": {"name": "cuisine", "value": "italian"}}}]},
//	 "time": {"expression": "last year"}}
//
// When did Ana move to Lisbon?
//
//	{"select": {"action": {"verbs": ["move"], "subject": "Ana", "indirectObject": "Lisbon"}},
//	 "askTime": true}
//
// Who is vegetarian, in one room:
//
//	{"select": {"entity": {"types": ["person"], "facets": [{"name": "status", "value": "vegetarian"}]}},
//	 "scope": {"roomId": "kitchen"}}
//
// What did Bo buy before the move?
//
//	{"select": {"action": {"verbs": ["buy"], "subject": "Bo"}},
//	 "time": {"relation": "before", "anchor": ["move"]}}
//
// # Semantics
//
// A leaf matches semantic refs, and every given part of a leaf must match
// the same ref: an action leaf with a verb and a subject needs one ref
// indexed under the verb (role verb) and the subject (role subject). Parts
// map to term roles (memory.Role*):
//
//   - entity name: role name (also subject when the leaf has facets, so
//     that the facet an action implies about its subject counts: "Ana
//     likes jazz" matches {"name": "ana", "facets": [{"name": "likes",
//     "value": "jazz"}]});
//   - entity types: role type, any of them;
//   - facet with a value: the property index (name, value); facet name
//     alone: role facet;
//   - action verbs: role verb, any of them; subject: role subject; object
//     and indirect object: role object; tense: checked on the loaded ref
//     when the index can load refs (RefLoader), else ignored; a ref
//     without a tense passes;
//   - topic: role topic; term, and free terms: any role; property: the
//     property index.
//
// A memory matches a leaf when one of its refs does. Nodes combine sets of
// memories: a memory matches "and" when each child matches some ref of it
// (not necessarily the same one), "or" when one child does, "not" when its
// child does not. A "not" needs a positive sibling in an "and" (or free
// terms beside the select): a select that only excludes is invalid.
//
// Free terms score: with a select, the memories are those the select
// matches and free terms add to their scores; without one, the memories
// are those matching any free term.
//
// Scores: every matched term contributes weight × idf, where idf =
// log(1 + N/df), N is the number of distinct memories in all the postings
// the evaluation read, and df the number of distinct memories in the
// term's postings (for its roles). A query term weighs 1; a related term
// weighs its similarity × 0.5 (RelatedWeight). A part of a leaf scores its
// best matching term; a ref scores the sum of the parts of each leaf it
// matches, plus the free terms it matches; a memory scores, for each leaf
// not under a "not" and each free term, the score of its best ref. With
// askTime, a matched action ref that carries a time parameter has its score
// multiplied by 1.5 (TimeBoost), and its memory gains the difference (the
// largest such gain among its refs); this needs a RefLoader. Ties rank the
// newer memory first, then by id.
//
// Related terms (relatedTerms, default on) expand free terms, term and
// topic leaves, entity types and verbs, through the RelatedTerms hook, at
// most 10 per term (MaxRelatedPerTerm). They match in the roles of the
// term they stand for, except that types expand to types and names ("sport"
// to the entity named "fencing"). Names, subjects, objects, facets and
// properties are never expanded. Under a "not", related terms widen what
// is excluded.
//
// Time and scope go into the memory.Filter of every lookup. The caller's
// filter (org, viewer, and its own narrowing) is the base; the
// expression's scope fills its empty fields, and a scope that contradicts
// it, or a time range outside its own, gives an empty result. An anchor
// event is found first: the anchor terms are looked up in any role,
// within the scope but not the time range, and the event's time is the
// creation time of the earliest memory that matches the most anchor terms
// (its first mention). "before" keeps memories created before it, "after"
// those created after it. An anchor that matches nothing leaves the time
// unbounded.
//
// A scope can also name a range or a topic (scope.go): documentId with
// fromPosition and toPosition (the fragments' positions, inclusive); a
// message range of sessionId, from fromMessageId or fromTime to
// toMessageId (included) or toTime (excluded); and a topic description,
// topic, that keeps the stretches of conversation whose turns' topic
// sentences share at least half of its content words (a run of matching
// turns survives one turn between them that does not match). The
// Evaluator's ScopeResolver (knowledge.Explorer) resolves them to a set of
// memories within the caller's filter, whose time bounds are pushed into
// the lookups and whose postings alone are kept; without a resolver they
// are rejected.
//
// The evaluator reads the newest postings of each term, at most
// Evaluator.Postings (memory.DefaultTermPostings); older ones are not seen.
// A result holds the best memories, at most limit, each with its score and
// the terms (query terms or related terms) that matched it, and the
// matched refs of those memories, best first.
//
// # Natural language
//
// Translator.Translate turns a question into an expression without a
// model: content words (stop words, question words, auxiliaries, pronouns
// and words about the conversation itself removed) become terms, each with
// its singular and, for an inflected verb, its lemma, plus pairs of
// adjacent content words ("support group"). Proper names (capitalized
// words inside a sentence, joined by "of", "the", "de"...; or words
// Translator.Known says are names, in any case) become entity leaves.
// "Who" adds an entity leaf of type person, "where" types place, city and
// country, "what X" and "which X" (also "what kind of X") the type X in
// the singular. "aux Name verb [prep] [object]" ("did Ana move to Lisbon")
// adds an action leaf. Names, types, actions and terms are OR'ed, since
// questions over-specify. The first time expression becomes the time
// range; "before" or "after" followed by words that are not a time make an
// anchor event (relation and anchor terms, removed from the other terms).
// "When", "what year/month/day/date/time" and "how long ago" set askTime.
//
// LLMTranslator asks a model through memory.LLM with the forced tool
// search_query (SearchQueryTool), validates the answer with Parse, and
// falls back to the offline translator when the model fails or answers
// with an invalid expression.
package query
