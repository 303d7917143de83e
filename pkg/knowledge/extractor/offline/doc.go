// Package offline is a knowledge extractor that needs no model: fast,
// deterministic rules over the text of a memory, after the knowledge
// schema of TypeAgent's KnowPro (entities with types and facets, actions
// with verbs, tense, subject, object, indirect object and parameters,
// topics).
//
// For each source it gives:
//
//   - metadata knowledge (Metadata): the speaker and each listener as a
//     person, and KnowPro's "speaker say listener" action unless
//     Options.OmitSayActions. It never depends on the text;
//   - names: runs of capitalized words ("New York", "Lord of the Rings",
//     "Dr. Silva"), not counting a capital that only starts a sentence
//     unless the word is otherwise known; quoted titles after a cue word
//     or in title case; mentions of the speaker and listeners in any case.
//     Their types come from principled cues: the participants, honorifics,
//     organization and place head words ("Inc", "University", "Lake"), a
//     gazetteer of countries, continents, US states and well-known world
//     cities, languages and nationalities, verbs of speech after a name,
//     a relative before it ("my friend Ana"), a greeting or vocative comma,
//     work cues before a title ("reading", "the movie"), prepositions of
//     place ("in", "from", "moved to") and of work ("works at");
//   - common nouns of a small general type lexicon (animals, sports,
//     instruments, food and drink, hobbies, vehicles, media, places,
//     events, groups, clothing, plants, devices, relatives and
//     occupations): "my puppy" is an entity "puppy" of types dog, animal
//     and pet with a facet owner; "my sister" a person with a facet
//     relation "sister of <speaker>"; "three kids" a count facet; a
//     compound whose head is in the lexicon takes the head's types
//     ("dinosaur exhibit" is an event);
//   - actions of simple clauses: a subject (I, me, my, we, our resolve to
//     the speaker; you to the only listener; he and she to the one third
//     person named before in the same memory; or a noun phrase), an
//     auxiliary chain giving tense and negation (will, 'll, going to,
//     gonna: future; did, was, had, -ed and irregular past forms: past),
//     the lemma of the verb (irregular forms and -ed/-ing/-s inflections),
//     catenative verbs ("want to learn" gives the verbs want and learn),
//     phrasal particles ("pick up"), an object, a recipient ("gave me a
//     book"), prepositional phrases (the first of to/in/at/from/on is the
//     indirect object, others parameters named by their preposition), and
//     time parameters ("last summer", "yesterday", "in May 2023",
//     "3 weeks ago", "every Sunday", "for 3 years" as a duration);
//     coordinated predicates share the subject ("went home and slept");
//     a passive takes the subject as object ("I was invited");
//   - facets: age ("I am 32", "my dog is 3 years old"), "my favorite X is
//     Y", status adjectives ("vegetarian", "married"), allergies, origin
//     ("I'm from Brazil"), occupation ("I'm a nurse", "I work as"), likes
//     and dislikes as the action's subject facet ("I love jazz", "I can't
//     stand noise", negated likes), wishes ("I'd love to", "I want to"),
//     "I'm into X", "a fan of X", "afraid of X", "good at X";
//   - topics: noun phrases of content words (no function words, verbs,
//     adverbs, evaluative adjectives or times), at most three words, the
//     most frequent first, and only nouns when alone.
//
// Every item carries the byte range of the text it came from
// (Knowledge.EntityRanges, ActionRanges, TopicRanges); metadata items
// cover the whole memory.
//
// What it misses, by design: coreference beyond I/me/my/we/you and a
// single earlier he/she (it, they, this, that, and names across memories
// are not resolved); implicit subjects and ellipsis ("Went hiking." has
// no subject); relations that span sentences; questions and conditions
// (their clauses state nothing and are skipped); sarcasm, irony,
// hypotheticals and reported speech (taken literally or dropped);
// complex syntax (relative clauses, long coordination, subordinate
// clauses with inverted order); the meaning of verbs beyond their lemma
// (no synonyms or inverse actions); abstract nouns as entities (they only
// become topics); names that start a sentence and appear nowhere else;
// text in other languages than English; and anything whose case carries
// no information (all capitals or all lower case, where only known names
// and places are found). Quality is preferred over recall: when a rule is
// unsure it leaves the item out.
package offline
