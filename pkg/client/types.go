package client

import (
	"encoding/json"
	"time"
)

// Content is what a memory says.
type Content struct {
	Text        string       `json:"text"`
	Source      string       `json:"source,omitempty"`
	URL         string       `json:"url,omitempty"`
	Action      string       `json:"action,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
}

// Attachment is a file or link attached to a memory's content.
type Attachment struct {
	ID          string `json:"id,omitempty"`
	URL         string `json:"url,omitempty"`
	Title       string `json:"title,omitempty"`
	Source      string `json:"source,omitempty"`
	Description string `json:"description,omitempty"`
	Text        string `json:"text,omitempty"`
	ContentType string `json:"contentType,omitempty"`
}

// Memory is a stored memory as the API shows it. AgentID empty means the
// memory belongs to the whole org.
type Memory struct {
	ID             string          `json:"id"`
	OrgID          string          `json:"orgId"`
	AgentID        string          `json:"agentId,omitempty"`
	Type           string          `json:"type"`
	Kind           string          `json:"kind,omitempty"`
	ExternalID     string          `json:"externalId,omitempty"`
	Content        Content         `json:"content"`
	EntityID       string          `json:"entityId,omitempty"`
	RoomID         string          `json:"roomId,omitempty"`
	WorldID        string          `json:"worldId,omitempty"`
	SessionID      string          `json:"sessionId,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
	Context        string          `json:"context,omitempty"`
	Importance     float64         `json:"importance"`
	Durability     string          `json:"durability"`
	Confidence     float64         `json:"confidence"`
	DocumentID     string          `json:"documentId,omitempty"`
	Position       *int            `json:"position,omitempty"`
	ContentHash    string          `json:"contentHash"`
	CreatedAt      int64           `json:"createdAt"`
	IngestedAt     int64           `json:"ingestedAt,omitempty"`
	UpdatedAt      int64           `json:"updatedAt"`
	LastAccessedAt int64           `json:"lastAccessedAt,omitempty"`
	AccessCount    int64           `json:"accessCount"`
	Archived       bool            `json:"archived"`
	// Pending marks a fragment of a document still being ingested.
	Pending bool `json:"pending,omitempty"`
	// Visibility is who in the org may read it: shared, world, room,
	// user (UserID) or agent.
	Visibility string `json:"visibility,omitempty"`
	// UserID is the end user the memory belongs to (an entity id).
	UserID string `json:"userId,omitempty"`
	// Version is the optimistic concurrency token (the ETag): pass it as
	// RequestOptions.IfMatch to update only over this version.
	Version int64 `json:"version"`
}

// NewMemory is a memory to store. Only Content.Text is required.
type NewMemory struct {
	// Scope "org" writes an agent-bound key's memory to the org scope;
	// it also takes "agent" and ElizaOS's names (shared, private, room,
	// world, user).
	Scope string `json:"scope,omitempty"`
	// Visibility is who in the org reads the memory: shared, world (the
	// rooms of WorldID), room (RoomID), user (UserID, in every room) or
	// agent ("private" is accepted). Default: a message with a RoomID
	// stays in its room; anything else is the agent's or shared.
	Visibility string `json:"visibility,omitempty"`
	// UserID is the end user the memory belongs to (an entity id): what
	// is learnt from it is that user's.
	UserID string `json:"userId,omitempty"`
	// AgentID writes an org-level key's memory to that agent's scope.
	AgentID string `json:"agentId,omitempty"`
	// Type is message, document, fragment, fact, description or custom
	// (the default).
	Type string `json:"type,omitempty"`
	// Kind qualifies a fact: fact, preference, interaction, summary,
	// user_request, entity, interest.
	Kind string `json:"kind,omitempty"`
	// ExternalID is the client's own key, unique per scope: a second
	// create with it is a duplicate.
	ExternalID string          `json:"externalId,omitempty"`
	Content    Content         `json:"content"`
	EntityID   string          `json:"entityId,omitempty"`
	RoomID     string          `json:"roomId,omitempty"`
	WorldID    string          `json:"worldId,omitempty"`
	SessionID  string          `json:"sessionId,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Importance *float64        `json:"importance,omitempty"`
	Durability string          `json:"durability,omitempty"`
	Confidence *float64        `json:"confidence,omitempty"`
	DocumentID string          `json:"documentId,omitempty"`
	Position   *int            `json:"position,omitempty"`
	// CreatedAt (ms since the epoch) imports history; default now.
	CreatedAt int64 `json:"createdAt,omitempty"`
}

// CreateResult is the outcome of storing one memory: its id, and whether
// it was already stored (the id is then the existing memory's).
type CreateResult struct {
	ID        string `json:"id"`
	Duplicate bool   `json:"duplicate"`
}

// Patch changes a memory; nil fields are left as they are.
type Patch struct {
	Content    *Content         `json:"content,omitempty"`
	Metadata   *json.RawMessage `json:"metadata,omitempty"`
	Importance *float64         `json:"importance,omitempty"`
	Durability *string          `json:"durability,omitempty"`
	// Redact also drops the memory's earlier versions from its history,
	// and every fact derived from it, as forgetting does.
	Redact bool `json:"redact,omitempty"`
}

// Filter selects memories; zero fields select everything. Start and End
// are milliseconds since the epoch, [Start, End) on createdAt.
//
// RoomID, WorldID and UserID also say whom a read serves (the acting
// fields): a read that names any of them sees shared and agent memories as
// the key allows, and only the room, world and user memories of those. An
// org key that names none keeps the admin view of everything.
type Filter struct {
	Type []string `json:"type,omitempty"`
	Kind []string `json:"kind,omitempty"`
	// RoomID narrows to one room's memories, and is the room served.
	RoomID string `json:"roomId,omitempty"`
	// WorldID narrows to one world's memories, and is the world served
	// (default: the room's).
	WorldID string `json:"worldId,omitempty"`
	// UserID is the end user served: the read sees that user's memories
	// and no other user's. It narrows nothing else.
	UserID string `json:"userId,omitempty"`
	// SessionKey narrows to the memories whose metadata.sessionKey is it.
	SessionKey string `json:"sessionKey,omitempty"`
	EntityID   string `json:"entityId,omitempty"`
	SessionID  string `json:"sessionId,omitempty"`
	// AgentID narrows to one agent's scope, or "_org" to the org scope.
	AgentID         string `json:"agentId,omitempty"`
	DocumentID      string `json:"documentId,omitempty"`
	Durability      string `json:"durability,omitempty"`
	Start           int64  `json:"start,omitempty"`
	End             int64  `json:"end,omitempty"`
	IncludeArchived bool   `json:"includeArchived,omitempty"`
	// Metadata narrows on the memories' metadata: each key's values, any
	// of which matches (one value: equality).
	Metadata map[string][]string `json:"metadata,omitempty"`
}

// ListOptions select and page a list of memories (newest first).
type ListOptions struct {
	Filter
	// Limit is the page size (default 50, at most 1000).
	Limit int
	// Cursor is a page's NextCursor, to read the next page.
	Cursor string
	// Unique keeps one memory per distinct content, the newest (ElizaOS's
	// getMemories({unique})); the pages of one cursor chain never repeat
	// a content.
	Unique bool
}

// MemoryPage is one page of a list; NextCursor is empty on the last.
type MemoryPage struct {
	Memories   []*Memory `json:"memories"`
	NextCursor string    `json:"nextCursor"`
}

// SearchRequest is a search. Mode and Lists are exclusive.
type SearchRequest struct {
	// Query is the text searched for; it may be empty when Embedding is
	// given (then only the semantic list runs).
	Query string `json:"query,omitempty"`
	// Embedding is the query's vector, of the service's embedding model
	// and dimension, used by the semantic list instead of embedding Query
	// (ElizaOS's searchMemories({embedding})).
	Embedding []float32 `json:"embedding,omitempty"`
	// Mode is full (the default), hybrid, keyword, semantic or knowledge.
	Mode string `json:"mode,omitempty"`
	// Lists names the ranked lists to fuse, in order of trust.
	Lists []string `json:"lists,omitempty"`
	// K is how many results (at most 100).
	K int `json:"k,omitempty"`
	// Threshold (0..1) drops weak semantic and keyword candidates.
	Threshold float64 `json:"threshold,omitempty"`
	// MinScore (0..1) drops results only the semantic list found below
	// this cosine (the relevance floor); unset keeps every result.
	MinScore *float64 `json:"minScore,omitempty"`
	Filters  *Filter  `json:"filters,omitempty"`
	// ExpandRelations appends the memories related to the results.
	ExpandRelations bool `json:"expandRelations,omitempty"`
	// Rerank, when false, turns the rerank stage off for this search.
	Rerank *bool `json:"rerank,omitempty"`
}

// ListScore is a result's score and rank in one ranked list.
type ListScore struct {
	Score float64 `json:"score"`
	Rank  int     `json:"rank"`
}

// Relation links two memories.
type Relation struct {
	// ID is the edge's id (DeleteRelation).
	ID         string   `json:"id,omitempty"`
	OrgID      string   `json:"orgId"`
	FromID     string   `json:"fromId"`
	Type       string   `json:"type"`
	ToID       string   `json:"toId"`
	Confidence float64  `json:"confidence"`
	Provenance []string `json:"provenance,omitempty"`
	CreatedAt  int64    `json:"createdAt"`
}

// SearchResult is one ranked memory: its final score and each list's.
type SearchResult struct {
	Memory *Memory `json:"memory"`
	Score  float64 `json:"score"`
	// Scores holds each list's (and the rerank stage's) score and rank.
	Scores   map[string]ListScore `json:"scores,omitempty"`
	Keyword  *ListScore           `json:"keyword,omitempty"`
	Semantic *ListScore           `json:"semantic,omitempty"`
	// RelatedTo is set on a memory added by ExpandRelations.
	RelatedTo *Relation `json:"relatedTo,omitempty"`
}

// SearchResponse is a search's results and how they were ranked.
type SearchResponse struct {
	Mode        string         `json:"mode"`
	Lists       []string       `json:"lists"`
	Results     []SearchResult `json:"results"`
	Reranked    bool           `json:"reranked"`
	RerankError string         `json:"rerankError,omitempty"`
	TookMs      float64        `json:"tookMs"`
	// Degraded says what is degraded while the server re-embeds.
	Degraded string `json:"degraded,omitempty"`
}

// ContextRequest asks for a prompt context within a token budget. RoomID,
// UserID and WorldID say whom it serves: every section sees only what
// that room, user and world may see.
type ContextRequest struct {
	Query string `json:"query"`
	// RoomID is the conversation served: its recent turns lead.
	RoomID string `json:"roomId,omitempty"`
	// UserID is the end user served.
	UserID string `json:"userId,omitempty"`
	// WorldID is the world served (default: the room's).
	WorldID      string `json:"worldId,omitempty"`
	BudgetTokens int    `json:"budgetTokens,omitempty"`
	// WorkstreamID adds that workstream's memory block (section "block").
	WorkstreamID string `json:"workstreamId,omitempty"`
	// Providers names the sections and their order: core, block, recent,
	// knowledge, facts, documents, relations (empty: the default).
	Providers []string `json:"providers,omitempty"`
	// ReserveTokens of the budget are left to the caller's own prompt.
	ReserveTokens int `json:"reserveTokens,omitempty"`
	// MessageID caches the composed context: the same request again is
	// answered from the cache (PromptContext.Cached) until a write.
	MessageID string `json:"messageId,omitempty"`
	// MinScore is the relevance floor of the relevant memories (nil: the
	// service's calibrated floor; 0 keeps every result).
	MinScore *float64 `json:"minScore,omitempty"`
}

// ContextItem is one memory placed in a context, or in the structured
// section one entity or topic (Kind and Name set, ID empty).
type ContextItem struct {
	ID     string  `json:"id,omitempty"`
	Type   string  `json:"type,omitempty"`
	Kind   string  `json:"kind,omitempty"`
	Name   string  `json:"name,omitempty"`
	Tokens int     `json:"tokens"`
	Score  float64 `json:"score,omitempty"`
}

// ContextSection is one part of a context and its share of the budget.
type ContextSection struct {
	Name string `json:"name"`
	// Provider is the provider that filled it.
	Provider string        `json:"provider"`
	Tokens   int           `json:"tokens"`
	Items    []ContextItem `json:"items"`
}

// PromptContext is an assembled context for a prompt.
type PromptContext struct {
	Context      string `json:"context"`
	BudgetTokens int    `json:"budgetTokens"`
	UsedTokens   int    `json:"usedTokens"`
	// ReserveTokens is the request's.
	ReserveTokens int              `json:"reserveTokens,omitempty"`
	Sections      []ContextSection `json:"sections"`
	// Cached is true when an identical earlier request's context answered.
	Cached bool `json:"cached,omitempty"`
}

// DocumentUpload is a document to ingest: text in Content, or binary
// bytes (PDF, DOCX) in Data, sent as base64. Name's extension selects the
// loader; posting a name again replaces the document.
type DocumentUpload struct {
	Name    string
	Content string
	Data    []byte
	// Scope "org" or AgentID place it as for a memory.
	Scope   string
	AgentID string
}

// Document is a document's ingestion status.
type Document struct {
	ID      string `json:"id"`
	OrgID   string `json:"orgId"`
	AgentID string `json:"agentId,omitempty"`
	Key     string `json:"key"`
	Name    string `json:"name"`
	// State is pending, indexed or failed (Reason says why).
	State      string `json:"state"`
	Reason     string `json:"reason,omitempty"`
	Bytes      int    `json:"bytes"`
	ETag       string `json:"etag,omitempty"`
	Fragments  int    `json:"fragments"`
	StartedAt  int64  `json:"startedAt"`
	FinishedAt int64  `json:"finishedAt,omitempty"`
	LoadMs     int64  `json:"loadMs"`
	IndexMs    int64  `json:"indexMs"`
}

// DocumentPage is one page of documents; NextCursor is empty on the last.
type DocumentPage struct {
	Documents  []Document `json:"documents"`
	NextCursor string     `json:"nextCursor"`
}

// Turn is one turn of a conversation for PostMessages: a NewMemory (its
// EntityID, the speaker, required) or a ChatMessage.
type Turn interface{ turn() }

func (NewMemory) turn()   {}
func (ChatMessage) turn() {}

// ChatMessage is a turn in OpenAI's chat shape, as agent frameworks
// produce it. The speaker is Name, else the request's UserID for a user
// turn, else the role.
type ChatMessage struct {
	// Role is user, assistant, system, tool or developer.
	Role    string `json:"role"`
	Content string `json:"content"`
	Name    string `json:"name,omitempty"`
}

// MessagesRequest is a conversation to store: its turns, and the fields
// that apply to every turn that does not set its own.
type MessagesRequest struct {
	Messages []Turn `json:"messages"`
	RoomID   string `json:"roomId,omitempty"`
	WorldID  string `json:"worldId,omitempty"`
	// UserID is the end user whose conversation it is: the facts learnt
	// from it are that user's.
	UserID    string `json:"userId,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	AgentID   string `json:"agentId,omitempty"`
	// Scope or visibility of the turns, as NewMemory.Scope.
	Scope string `json:"scope,omitempty"`
}

// MessagesResult is the answer to AddMessages: each turn's id, and whether
// they were queued for fact extraction.
type MessagesResult struct {
	Memories         []CreateResult `json:"memories"`
	ExtractionQueued bool           `json:"extractionQueued"`
}

// KnowledgeSearchRequest is a Structured RAG search: an expression
// (Query: a KnowledgeQuery, or any JSON object) or a question (Text),
// exactly one.
type KnowledgeSearchRequest struct {
	Query   any     `json:"query,omitempty"`
	Text    string  `json:"text,omitempty"`
	Limit   int     `json:"limit,omitempty"`
	Filters *Filter `json:"filters,omitempty"`
}

// KnowledgeQuery is a knowledge query expression (docs/structured-rag.md):
// Select (a boolean tree of entity, action, topic leaves) or Terms, at
// least one; Time bounds it in time, Scope narrows it.
type KnowledgeQuery struct {
	Select any             `json:"select,omitempty"`
	Terms  []string        `json:"terms,omitempty"`
	Time   any             `json:"time,omitempty"`
	Scope  *KnowledgeScope `json:"scope,omitempty"`
	// RelatedTerms expands the terms with related terms; nil is true.
	RelatedTerms *bool `json:"relatedTerms,omitempty"`
	Limit        int   `json:"limit,omitempty"`
	// AskTime marks a question about when something happened.
	AskTime bool `json:"askTime,omitempty"`
}

// KnowledgeScope narrows a knowledge query within what the caller may see
// (docs/topics-and-scopes.md): to a room, session, agent or document, to
// a range of a document's positions (needs DocumentID), to a range of a
// session's messages (needs SessionID: from FromMessageID or FromTime, to
// ToMessageID or ToTime, either end open), or to the stretches of
// conversation about Topic. The parts combine.
type KnowledgeScope struct {
	RoomID     string `json:"roomId,omitempty"`
	SessionID  string `json:"sessionId,omitempty"`
	AgentID    string `json:"agentId,omitempty"`
	DocumentID string `json:"documentId,omitempty"`
	// FromPosition and ToPosition are the first and last fragment
	// positions kept (inclusive); nil is open.
	FromPosition *int `json:"fromPosition,omitempty"`
	ToPosition   *int `json:"toPosition,omitempty"`
	// FromMessageID and ToMessageID are the first and last messages of
	// the range (included); they exclude FromTime and ToTime.
	FromMessageID string `json:"fromMessageId,omitempty"`
	ToMessageID   string `json:"toMessageId,omitempty"`
	// FromTime (included) and ToTime (excluded) bound the range in time.
	FromTime *time.Time `json:"fromTime,omitempty"`
	ToTime   *time.Time `json:"toTime,omitempty"`
	// Topic is a topic description: the stretches whose turns' topic
	// sentences share at least half of its content words.
	Topic string `json:"topic,omitempty"`
}

// KnowledgePrefetchRequest is a request as typed so far (Text), with the
// most memories (Limit, default 10) and completions (TermLimit, default
// 10).
type KnowledgePrefetchRequest struct {
	Text      string  `json:"text"`
	Limit     int     `json:"limit,omitempty"`
	TermLimit int     `json:"termLimit,omitempty"`
	Filters   *Filter `json:"filters,omitempty"`
}

// KnowledgePrefetchResponse is what a partial request already finds: the
// completions of its last word, the terms whose memories were fetched, and
// those memories, the ones matching more terms first.
type KnowledgePrefetchResponse struct {
	Completions []TermHint        `json:"completions"`
	Terms       []string          `json:"terms"`
	Memories    []KnowledgeMemory `json:"memories"`
	TookMs      float64           `json:"tookMs"`
}

// KnowledgeSource is a memory an item was found in, with the sentence.
type KnowledgeSource struct {
	MemoryID string `json:"memoryId"`
	Type     string `json:"type"`
	Snippet  string `json:"snippet"`
	Range    struct {
		Start int `json:"start"`
		End   int `json:"end"`
	} `json:"range"`
	RoomID    string `json:"roomId,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	EntityID  string `json:"entityId,omitempty"`
	AgentID   string `json:"agentId,omitempty"`
	CreatedAt int64  `json:"createdAt"`
}

// KnowledgeItem is what entities, topics and actions share.
type KnowledgeItem struct {
	Score       float64           `json:"score"`
	Terms       []string          `json:"terms"`
	SourceCount int               `json:"sourceCount"`
	Sources     []KnowledgeSource `json:"sources"`
}

// Facet is a named property of an entity, with its quantity when it is
// measured ("age: 3 years").
type Facet struct {
	Name     string    `json:"name"`
	Value    string    `json:"value"`
	Quantity *Quantity `json:"quantity,omitempty"`
}

// Quantity is a measured facet value.
type Quantity struct {
	Amount float64 `json:"amount"`
	Units  string  `json:"units,omitempty"`
}

// ActionParam is a named argument of an action ("at: the cafe").
type ActionParam struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// KnowledgeEntity is a matched entity.
type KnowledgeEntity struct {
	// ID is the registered entity the name resolved to, when one did.
	ID     string   `json:"id,omitempty"`
	Name   string   `json:"name"`
	Types  []string `json:"types"`
	Facets []Facet  `json:"facets,omitempty"`
	KnowledgeItem
}

// KnowledgeTopic is a matched topic or tag; Sentence marks a turn's topic
// sentence rather than a noun-phrase topic.
type KnowledgeTopic struct {
	Topic    string `json:"topic"`
	Tag      bool   `json:"tag,omitempty"`
	Sentence bool   `json:"sentence,omitempty"`
	KnowledgeItem
}

// KnowledgeAction is a matched action.
type KnowledgeAction struct {
	Verbs          []string      `json:"verbs"`
	Tense          string        `json:"tense,omitempty"`
	Subject        string        `json:"subject,omitempty"`
	Object         string        `json:"object,omitempty"`
	IndirectObject string        `json:"indirectObject,omitempty"`
	Params         []ActionParam `json:"params,omitempty"`
	// SubjectFacet is the subject's facet the action states.
	SubjectFacet *Facet `json:"subjectFacet,omitempty"`
	Negated      bool   `json:"negated,omitempty"`
	KnowledgeItem
}

// KnowledgeMemory is a memory a knowledge search matched.
type KnowledgeMemory struct {
	Memory *Memory  `json:"memory"`
	Score  float64  `json:"score"`
	Terms  []string `json:"terms"`
}

// KnowledgeSearchResponse is a knowledge search's answer, each list best
// first; Expression is the expression that ran (the translation of Text).
type KnowledgeSearchResponse struct {
	Expression json.RawMessage   `json:"expression"`
	Entities   []KnowledgeEntity `json:"entities"`
	Topics     []KnowledgeTopic  `json:"topics"`
	Actions    []KnowledgeAction `json:"actions"`
	Memories   []KnowledgeMemory `json:"memories"`
	TookMs     float64           `json:"tookMs"`
}
