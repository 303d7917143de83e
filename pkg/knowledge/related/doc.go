// Package related finds the related terms of a query term in an org's
// vocabulary, after KnowPro's related-terms index: the narrower types and
// names a broad type stands for, an entity's aliases and other names, and
// its nearest neighbours by embedding (synonyms, near spellings, other
// forms of a word). It implements query.RelatedTerms for the knowledge use
// case, and what it keeps is derived data: rebuilt from the term index,
// forgotten with it.
//
// A query term stands also for the terms related to it, each with a
// similarity in (0, 1] that the lists scale below an exact match
// (query.RelatedWeight). Three sources, merged by their best similarity:
//
//   - the is-a table of this package (types.go): "people" stands for
//     "artist", "sister"..., similarity 1;
//   - what the extractors supplied: a type stands for the names of the
//     entities typed with it ("sport" for "fencing" when a memory's entity
//     "fencing" is a sport), and an entity's name and its aliases (facets
//     named alias, aka, nickname...) stand for each other, similarity 1;
//   - the nearest vocabulary terms by embedding, with the service's
//     embedder: cosine similarity at or above the org's noise cut-off (see
//     Quantile), at most MaxPerTerm of them.
//
// The vocabulary's vectors are computed once per term, kept in process per
// org and, when the store keeps records, in the store (VectorKind),
// so that a restart or another process does not embed them again: derived
// data, rebuilt from the term index. No lookup waits for their upkeep but
// an org's first in a process (and one after Forgot), which lists the
// vocabulary and loads or embeds its vectors:
//
//   - the new terms of a write are embedded in the background (Observe);
//   - forgetting drops at once, in process and in the store, the vectors
//     of the terms no memory is indexed under any more (DropTerms);
//   - the vocabulary is listed again in the background once MaxAge has
//     passed (other processes' writes and forgets).
package related
