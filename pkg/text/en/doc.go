// Package en is the one home of the English the service's text analysis
// shares, in the spirit of bleve's analysis/lang/en: the irregular verbs,
// a verb lemmatizer (Lemma), noun singulars (Singular), the past forms two
// readers were tuned with (PastVerbForm, CommonIrregularPast), and the
// stop lists, one for each reader, named for it: the Snowball list of the
// keyword indexes (SnowballStopWords), the words a knowledge ref is not
// indexed by (TermStopWord), a question's words that are no search terms
// (QuestionStopWord), the hashing embedder's (EmbedStopWord) and the words
// of chat without content (ChatStopWord). The domain (memory's term
// rules), the knowledge extractors and query translators, the fact
// extractor, the hashing embedder and the OpenSearch index read it here
// instead of keeping copies; stoplists.go says why the lists differ.
//
// Words are given in lower case. It imports nothing of the project, and
// it sits in the domain's layer, since the domain's rules use it.
package en
