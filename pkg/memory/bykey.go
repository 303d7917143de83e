package memory

import "context"

// DedupLookup is a Store that finds a memory by its DedupKey: the by-key
// endpoints find a client's memory by its ExternalID this way (the key of
// a memory with an ExternalID is its scope and that id). Errors: ENOTFOUND
// when no memory of the org holds the key.
type DedupLookup interface {
	GetByDedupKey(ctx context.Context, orgID, dedupKey string) (*Memory, error)
}
