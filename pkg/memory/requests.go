package memory

import "encoding/json"

// The requests and results of the memory service that its two faces share:
// callers (the transports) and the pipelines, which declare the part of the
// service they use with these types and so need not import it.

// NewMemory is what a caller sends to create a  Scope and AgentID
// choose the agent scope (see Caller.WriteScope); the org is never taken
// from it. The service validates it into a Memory (service.Create).
type NewMemory struct {
	// Scope is the agent scope (org, agent) or, with ElizaOS's names, the
	// visibility (shared, private, room, world, user); Visibility names the
	// visibility alone (see WriteScopeOf and Caller.Place).
	Scope      string `json:"scope,omitempty"`
	Visibility string `json:"visibility,omitempty"`
	AgentID    string `json:"agentId,omitempty"`
	// UserID is the end user the memory belongs to (an entity id).
	UserID string `json:"userId,omitempty"`
	Type   Type   `json:"type,omitempty"`
	Kind   Kind   `json:"kind,omitempty"`
	// ExternalID is the client's key for the memory, unique per scope: a
	// second create with the same one is a duplicate (its result carries
	// the existing id), whatever the content. Messages are deduplicated by
	// it alone.
	ExternalID string          `json:"externalId,omitempty"`
	Content    Content         `json:"content"`
	EntityID   string          `json:"entityId,omitempty"`
	RoomID     string          `json:"roomId,omitempty"`
	WorldID    string          `json:"worldId,omitempty"`
	SessionID  string          `json:"sessionId,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Importance *float64        `json:"importance,omitempty"`
	Durability Durability      `json:"durability,omitempty"`
	Confidence *float64        `json:"confidence,omitempty"`
	DocumentID string          `json:"documentId,omitempty"`
	Position   *int            `json:"position,omitempty"`
	// CreatedAt (ms) lets callers import history; default now.
	CreatedAt int64 `json:"createdAt,omitempty"`
}

// SearchResult is one ranked memory. Score is the score of the final order:
// the reranker's relevance when reranked, the fused RRF score when several
// lists ran, the list's own score (BM25, cosine...) when one did. Scores
// holds each list's score and rank, and the rerank stage's; Keyword and
// Semantic repeat those two lists' (where clients have read them).
type SearchResult struct {
	Memory   *Memory               `json:"memory"`
	Score    float64               `json:"score"`
	Scores   map[string]*ModeScore `json:"scores,omitempty"`
	Keyword  *ModeScore            `json:"keyword,omitempty"`
	Semantic *ModeScore            `json:"semantic,omitempty"`
	// RelatedTo is set on a memory added by ExpandRelations: the result it
	// is related to and how.
	RelatedTo *Relation `json:"relatedTo,omitempty"`
}

// SimilarRequest asks for the memories closest in meaning to a stored text.
// The pipelines compare a memory with memories, where similarity must be
// symmetric for their duplicate thresholds to mean the same under every
// embedder: Text is embedded as a stored text (PurposeDocument), never as a
// question (bge-small puts an instruction before questions, which moves a
// text's vector to cosine about 0.92 with itself). Vector, when set, is a
// stored memory's own embedding, used instead of embedding Text again.
type SimilarRequest struct {
	Text   string
	Vector []float32
	Filter Filter
	K      int
}

// CommitResult is what committing a staged document published and removed.
type CommitResult struct {
	Committed int // staged memories made visible
	Retired   int // visible memories of the replaced version, deleted
}

// Forgotten counts what one deletion removed or rewrote. It carries ids and
// counts, never content, so it can be logged and audited.
type Forgotten struct {
	Memories int `json:"memories"` // memories deleted, dependent facts included
	// Facts is how many of Memories were facts whose only sources were
	// deleted.
	Facts int `json:"facts"`
	// ContextsRewritten counts following turns whose Context held deleted
	// text and was recomputed.
	ContextsRewritten int `json:"contextsRewritten"`
	// ReferencesRemoved counts facts that kept other sources and lost the
	// reference to a deleted one.
	ReferencesRemoved int `json:"referencesRemoved"`
}

// DeleteOptions qualify the delete of one memory.
type DeleteOptions struct {
	// IfVersion, when non-zero, makes the delete conditional: the memory
	// must be at that version (EPRECONDITION otherwise). The check and the
	// delete are two steps: a change landing between them is deleted too.
	IfVersion int64
}
