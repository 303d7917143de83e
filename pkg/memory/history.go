package memory

import "context"

// The operations a memory's history records.
const (
	OpCreate  = "create"  // the memory was created (version 1)
	OpUpdate  = "update"  // a caller or a pipeline changed it
	OpImport  = "import"  // it was read from an export (POST /v1/import)
	OpArchive = "archive" // it was archived (it left search)
	OpRestore = "restore" // it was restored from the archive
	// OpRedact is an update that removes a forgotten memory's content
	// from this one (a message's context, a fact's sources): the store
	// deletes every earlier version, which still holds that content.
	OpRedact = "redact"
)

// Actor is who made a change: the API key and the agent it is bound to.
// Both are empty for the service's own pipelines (consolidation,
// extraction) and for keys configured without an id.
type Actor struct {
	KeyID   string `json:"keyId,omitempty"`
	AgentID string `json:"agentId,omitempty"`
}

// Change describes the write that makes a memory's next version. The
// service sets it on the memory it passes to Store.Create and Store.Update;
// a HistoryStore records it with the version. Nil is an unattributed
// create or update.
type Change struct {
	Op string
	By Actor
}

// Revision is one version of a memory in its history.
type Revision struct {
	Version int64  `json:"version"`
	Op      string `json:"op"`
	// At is when the version was written (ms).
	At int64 `json:"at"`
	By Actor `json:"by"`
	// Memory is the memory as that version left it (without embedding).
	Memory *Memory `json:"memory"`
}

// HistoryStore is a Store that keeps every version of a memory, written in
// the same transaction as the version itself. Deleting a memory deletes
// its history with it: no copy of a forgotten memory's content remains.
type HistoryStore interface {
	// History returns the recorded versions of memory id, oldest first;
	// ENOTFOUND when the memory is absent from the org.
	History(ctx context.Context, orgID, id string) ([]Revision, error)
}

// ChangeBy returns the Change of op made by c.
func ChangeBy(c Caller, op string) *Change {
	return &Change{Op: op, By: Actor{KeyID: c.KeyID, AgentID: c.AgentID}}
}
