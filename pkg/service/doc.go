// Package service is the memory use case: create, read, update and delete
// memories, search them through the retrieval pipeline, build prompt
// context, keep relations, forget (the delete cascade and erasure) and
// rebuild an index from the store. Every method takes the authenticated
// memory.Caller and derives the org from it. Service is the callers' face;
// the pipelines drive a second one, Worker (Service.Pipelines): staging and
// committing documents, Similar, Orgs, Now, SetImportance.
package service
