// Package en is the one home of the English the service's text analysis
// shares, in the spirit of bleve's analysis/lang/en: the irregular verbs,
// a verb lemmatizer (Lemma), noun singulars (Singular) and the Snowball
// English stop list of the keyword indexes (SnowballStopWords). The
// offline knowledge extractor, the knowledge query translators and the
// OpenSearch index read it here instead of keeping copies.
//
// Words are given in lower case. It imports nothing of the project.
package en
