// The API's JSON shapes, in one file so that they can be checked against
// the OpenAPI document (npm run types:check; see spec/compat.ts). They are
// type aliases, not interfaces, so that they are assignable to the open
// objects (additionalProperties) a spec may declare.

/** A memory's type. */
export type MemoryType = "message" | "document" | "fragment" | "fact" | "description" | "custom";

/** How long a memory is kept and how it ranks in a prompt context. */
export type Durability = "core" | "standard" | "ephemeral";

/** A fact's kind. */
export type Kind = "fact" | "preference" | "interaction" | "summary" | "user_request" | "entity" | "interest";

/** A search mode: which ranked lists are fused. */
export type SearchMode = "full" | "hybrid" | "keyword" | "semantic" | "knowledge";

/** A file or link attached to a memory's content. */
export type Attachment = {
  id?: string;
  url?: string;
  title?: string;
  source?: string;
  description?: string;
  text?: string;
  contentType?: string;
};

/** What a memory says. */
export type Content = {
  text: string;
  source?: string;
  url?: string;
  action?: string;
  attachments?: Attachment[];
};

/** A memory to store; only content.text is required. */
export type NewMemory = {
  content: Content;
  /** "org" writes an agent-bound key's memory to the org scope. */
  scope?: "org";
  /** Writes an org-level key's memory to that agent's scope. */
  agentId?: string;
  type?: MemoryType;
  kind?: Kind;
  /** The client's own key, unique per scope. */
  externalId?: string;
  entityId?: string;
  roomId?: string;
  worldId?: string;
  sessionId?: string;
  metadata?: Record<string, unknown>;
  importance?: number;
  durability?: Durability;
  confidence?: number;
  documentId?: string;
  position?: number;
  /** Milliseconds since the epoch; default now. */
  createdAt?: number;
};

/** A stored memory; version is the If-Match token. */
export type Memory = {
  id: string;
  orgId: string;
  agentId?: string;
  type: string;
  kind?: string;
  externalId?: string;
  content: Content;
  entityId?: string;
  roomId?: string;
  worldId?: string;
  sessionId?: string;
  metadata?: Record<string, unknown>;
  context?: string;
  importance: number;
  durability: string;
  confidence: number;
  documentId?: string;
  position?: number;
  contentHash: string;
  createdAt: number;
  ingestedAt?: number;
  updatedAt: number;
  lastAccessedAt?: number;
  accessCount: number;
  archived: boolean;
  version: number;
};

/** A stored memory's id; duplicate when it was already stored. */
export type CreateResult = {
  id: string;
  duplicate: boolean;
};

/** A change to a memory; absent fields are left as they are. */
export type Patch = {
  content?: Content;
  metadata?: Record<string, unknown>;
  importance?: number;
  durability?: Durability;
};

/** Selects memories; start and end are ms since the epoch or RFC 3339. */
export type Filter = {
  type?: string[];
  kind?: string[];
  roomId?: string;
  entityId?: string;
  sessionId?: string;
  /** An agent's scope, or "_org" for the org scope only. */
  agentId?: string;
  documentId?: string;
  durability?: Durability;
  start?: number | string;
  end?: number | string;
  includeArchived?: boolean;
};

/** Selects and pages a list of memories (newest first). */
export type ListOptions = Filter & {
  /** Page size (default 50, at most 1000). */
  limit?: number;
  cursor?: string;
};

/** One page of memories; nextCursor is empty on the last. */
export type MemoryPage = {
  memories: Memory[];
  nextCursor: string;
};

/** A search; mode and lists are exclusive. */
export type SearchRequest = {
  query: string;
  mode?: SearchMode;
  lists?: string[];
  /** How many results (at most 100). */
  k?: number;
  threshold?: number;
  filters?: Filter;
  expandRelations?: boolean;
  rerank?: boolean;
};

/** A result's score and rank in one ranked list. */
export type ListScore = {
  score: number;
  rank: number;
};

/** A link between two memories. */
export type Relation = {
  fromId: string;
  type: string;
  toId: string;
  confidence: number;
  provenance?: string[];
  createdAt: number;
};

/** One ranked memory with its final score and each list's. */
export type SearchResult = {
  memory: Memory;
  score: number;
  scores?: Record<string, ListScore>;
  keyword?: ListScore;
  semantic?: ListScore;
  relatedTo?: Relation;
};

/** A search's results and how they were ranked. */
export type SearchResponse = {
  mode: string;
  /** The ranked lists that were fused (null when none ran). */
  lists: string[] | null;
  results: SearchResult[];
  reranked: boolean;
  rerankError?: string;
  tookMs: number;
  degraded?: string;
};

/** Asks for a prompt context within a token budget. */
export type ContextRequest = {
  query: string;
  roomId?: string;
  budgetTokens?: number;
};

/** A memory placed in a context, or an entity or topic (kind, name). */
export type ContextItem = {
  id?: string;
  type?: string;
  kind?: string;
  name?: string;
  tokens: number;
  score?: number;
};

/** One part of a prompt context. */
export type ContextSection = {
  name: string;
  tokens: number;
  items: ContextItem[] | null;
};

/** An assembled prompt context and how the budget was spent. */
export type PromptContext = {
  context: string;
  budgetTokens: number;
  usedTokens: number;
  sections: ContextSection[] | null;
};

/** A document to ingest: text, or bytes (PDF, DOCX) sent as base64. */
export type DocumentUpload = {
  name: string;
  content: string | Uint8Array;
  scope?: "org";
  agentId?: string;
};

/** A document's ingestion status. */
export type Document = {
  id: string;
  orgId: string;
  agentId?: string;
  key: string;
  name: string;
  state: "pending" | "indexed" | "failed" | string;
  reason?: string;
  bytes: number;
  etag?: string;
  fragments: number;
  startedAt: number;
  finishedAt?: number;
  loadMs: number;
  indexMs: number;
};

/** One page of documents. */
export type DocumentPage = {
  documents: Document[];
  nextCursor: string;
};

/** The stored turns' ids, and whether extraction was queued. */
export type MessagesResult = {
  memories: CreateResult[] | null;
  extractionQueued: boolean;
};

/** A Structured RAG search: an expression (query) or a question (text). */
export type KnowledgeSearchRequest = {
  query?: Record<string, unknown>;
  text?: string;
  limit?: number;
  filters?: Filter;
};

/** A memory an item was found in, with the sentence. */
export type KnowledgeSource = {
  memoryId: string;
  type: string;
  snippet: string;
  range: { start: number; end: number };
  roomId?: string;
  sessionId?: string;
  entityId?: string;
  agentId?: string;
  createdAt: number;
};

/** What matched entities, topics and actions share. */
export type KnowledgeItem = {
  score: number;
  terms: string[] | null;
  sourceCount: number;
  sources: KnowledgeSource[] | null;
};

/** A matched entity. */
export type KnowledgeEntity = KnowledgeItem & {
  name: string;
  types: string[] | null;
  facets?: { name: string; value: string }[];
};

/** A matched topic or tag. */
export type KnowledgeTopic = KnowledgeItem & {
  topic: string;
  tag?: boolean;
};

/** A matched action. */
export type KnowledgeAction = KnowledgeItem & {
  verbs: string[] | null;
  tense?: string;
  subject?: string;
  object?: string;
  indirectObject?: string;
  negated?: boolean;
};

/** A memory a knowledge search matched. */
export type KnowledgeMemory = {
  memory: Memory;
  score: number;
  terms: string[] | null;
};

/** A knowledge search's answer; expression is what ran. */
export type KnowledgeSearchResponse = {
  expression: Record<string, unknown> | null;
  entities: KnowledgeEntity[] | null;
  topics: KnowledgeTopic[] | null;
  actions: KnowledgeAction[] | null;
  memories: KnowledgeMemory[] | null;
  tookMs: number;
};

/** An RFC 9457 problem (application/problem+json) with the API's code. */
export type Problem = {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  code?: string;
  requestId?: string;
};

/** The error body servers answered before problem+json. */
export type LegacyErrorBody = {
  error: { code: string; message: string };
};
