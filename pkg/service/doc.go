// Package service is the memory use case: create, read, update and delete
// memories, search them through the retrieval pipeline, build prompt
// context, keep relations, forget (the delete cascade and erasure) and
// rebuild an index from the store. Every method takes the authenticated
// memory.Caller and derives the org from it; the pipelines call it through
// their own explicit methods (Similar, Orgs, Now, Archive, SetImportance).
package service
