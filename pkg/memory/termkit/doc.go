// Package termkit is the kit the adapters of memory.TermIndex share, so
// that every store indexes, counts and lists knowledge alike: the checks of
// a write (ValidPut, ValidMemoryIDs), the vocabulary counters and which
// filters they answer (VocabularyDelta, VocabularyScopes), the folding of
// a listed name's refs into its item (KnowledgeBuilder), and the typed
// property postings that push comparisons down to key ranges
// (StoredProperties, Ranges, MergePropertyPostings).
//
// Typed postings: beside each property posting (name, value), a store
// keeps one under the typed name TypedPropertyName(type, name) whose value
// starts with memory.ValueTypeOf's key, which sorts in the type's order
// (TypedProperties), so that every comparison of a memory.PropertyLookup
// is one or two key ranges of one partition (Ranges); the postings read
// are merged back into the lookup's order, untyped (MergePropertyPostings).
//
// It is support, not a port: the use cases speak to memory.TermIndex and
// never import it.
package termkit
