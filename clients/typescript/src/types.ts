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

/** Who in the org reads a memory: shared (the org), world (the rooms of worldId), room (roomId), user (one end user, userId, in every room), agent (one agent; ElizaOS's "private"). */
export type Visibility = "shared" | "world" | "room" | "user" | "agent";

/** A memory to store; only content.text is required. */
export type NewMemory = {
  content: Content;
  /** "org" writes an agent-bound key's memory to the org scope; also "agent" and ElizaOS's names. */
  scope?: "org" | "agent" | "shared" | "private" | "room" | "world" | "user";
  /** Who reads it (default: a message with a roomId stays in its room; anything else is the agent's or shared). */
  visibility?: Visibility | "private" | "org";
  /** The end user it belongs to (an entity id): what is learnt from it is that user's. */
  userId?: string;
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
  pending?: boolean;
  visibility?: Visibility;
  /** The end user the memory belongs to. */
  userId?: string;
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

/**
 * Selects memories; start and end are ms since the epoch or RFC 3339.
 * roomId, worldId and userId also say whom the read serves: it then sees
 * shared and agent memories as the key allows, and only the room, world and
 * user memories of those (roomId and worldId narrow as well; userId narrows
 * nothing else). Naming none keeps an org key's admin view.
 */
export type Filter = {
  type?: string[];
  kind?: string[];
  roomId?: string;
  worldId?: string;
  /** The end user served (an entity id). */
  userId?: string;
  /** Only memories whose metadata.sessionKey is this. */
  sessionKey?: string;
  entityId?: string;
  sessionId?: string;
  /** An agent's scope, or "_org" for the org scope only. */
  agentId?: string;
  documentId?: string;
  durability?: Durability;
  start?: number | string;
  end?: number | string;
  includeArchived?: boolean;
  /** Equality on the memories' metadata (KEY: value); in a search's filters a list of values is `in`. */
  metadata?: Record<string, string | number | boolean | Array<string | number | boolean>>;
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
  /** The edge's id (deleteRelation). */
  id?: string;
  orgId?: string;
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
  /** The conversation served: its recent turns lead, and every section sees only what it may see. */
  roomId?: string;
  /** The end user served: every section sees that user's memories and no other user's. */
  userId?: string;
  /** The world served (default: the room's). */
  worldId?: string;
  budgetTokens?: number;
  /** A workstream whose memory block the context carries (section "block"). */
  workstreamId?: string;
  /** The sections and their order (default: core, block, recent, knowledge, facts). */
  providers?: ContextProvider[];
  /** Tokens of the budget left to the caller's own system prompt and current message. */
  reserveTokens?: number;
  /** The message the context is for: the same request again is answered from the cache until a write. */
  messageId?: string;
};

/** The providers a context can be composed from. */
export type ContextProvider = "core" | "block" | "recent" | "knowledge" | "facts" | "documents" | "relations";

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
  /** The provider that filled it. */
  provider: string;
  tokens: number;
  items: ContextItem[] | null;
};

/** An assembled prompt context and how the budget was spent. */
export type PromptContext = {
  context: string;
  budgetTokens: number;
  usedTokens: number;
  reserveTokens?: number;
  sections: ContextSection[] | null;
  /** Answered from the cache: an identical earlier request (same messageId), nothing written since. */
  cached?: boolean;
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
  /** A query expression: a KnowledgeQuery, or any JSON object. */
  query?: KnowledgeQuery | Record<string, unknown>;
  text?: string;
  limit?: number;
  filters?: Filter;
};

/**
 * A knowledge query expression (docs/structured-rag.md): select (a boolean tree of entity, action, topic
 * leaves) or terms, at least one; time bounds it, scope narrows it.
 */
export type KnowledgeQuery = {
  select?: Record<string, unknown>;
  terms?: string[];
  time?: Record<string, unknown>;
  scope?: KnowledgeScope;
  /** Expands the terms with related terms (default true). */
  relatedTerms?: boolean;
  limit?: number;
  /** A question about when something happened. */
  askTime?: boolean;
};

/**
 * Narrows a knowledge query within what the caller may see (docs/topics-and-scopes.md): a room, session, agent
 * or document; a range of a document's positions (needs documentId); a range of a session's messages (needs
 * sessionId); the stretches of conversation about a topic. The parts combine.
 */
export type KnowledgeScope = {
  roomId?: string;
  sessionId?: string;
  agentId?: string;
  documentId?: string;
  /** The first and last fragment positions kept (inclusive). */
  fromPosition?: number;
  toPosition?: number;
  /** The first and last messages of the range (included); they exclude fromTime and toTime. */
  fromMessageId?: string;
  toMessageId?: string;
  /** RFC 3339: the messages from fromTime (included) and before toTime (excluded). */
  fromTime?: string;
  toTime?: string;
  /** A topic description: the stretches whose turns' topic sentences share at least half of its content words. */
  topic?: string;
};

/** A request being typed (text), with the most memories and completions. */
export type KnowledgePrefetchRequest = {
  text: string;
  limit?: number;
  termLimit?: number;
  filters?: Filter;
};

/** What a request being typed already finds: completions of its last word, the terms fetched, their memories. */
export type KnowledgePrefetchResponse = {
  completions: TermHint[];
  terms: string[];
  /** The memories of the complete terms (null when there are none). */
  memories: Array<{ memory: Memory; score: number; terms: string[] | null }> | null;
  tookMs: number;
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
  /** A turn's topic sentence rather than a noun-phrase topic. */
  sentence?: boolean;
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

/** A turn in OpenAI's chat shape; the speaker is name, else the request's userId for a user turn, else the role. */
export type ChatMessage = {
  role: "user" | "assistant" | "system" | "tool" | "developer";
  content: string | { type?: string; text?: string }[];
  name?: string;
};

/** A conversation to store: turns in this API's shape (entityId required) or OpenAI's, and the fields every turn without its own takes. */
export type MessagesRequest = {
  messages: (NewMemory | ChatMessage)[];
  roomId?: string;
  worldId?: string;
  /** The end user whose conversation it is: the facts learnt from it are that user's. */
  userId?: string;
  sessionId?: string;
  agentId?: string;
  scope?: string;
};

/** Asks for an end-user token. */
export type TokenRequest = {
  /** The end user the token is bound to (an entity id). */
  userId: string;
  roomId?: string;
  worldId?: string;
  /** read, write, delete, each held by the minting key; default read. */
  grants?: ("read" | "write" | "delete")[];
  /** Lifetime: default 900, at most 86400. */
  ttlSeconds?: number;
};

/** A minted end-user token (shown once) and what it is bound to. */
export type Token = {
  token: string;
  expiresAt: string;
  orgId: string;
  agentId?: string;
  userId: string;
  roomId?: string;
  worldId?: string;
  grants: ("read" | "write" | "delete")[];
};

/** Who owns a registry item: "org" (org-level keys only) or "agent"; agentId an agent. */
type Owner = { scope?: "org" | "agent"; agentId?: string };

/** A person, an agent or anything the org knows by name (names[0] is the display name). */
export type Entity = {
  id: string;
  agentId?: string;
  names: string[];
  metadata?: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  version: number;
};

/** An entity to register; id is made when absent. */
export type NewEntity = Owner & { id?: string; names: string[]; metadata?: Record<string, unknown> };

/** A change to an entity. */
export type EntityPatch = { names?: string[]; metadata?: Record<string, unknown> };

/** A group of rooms (a server, a workspace). */
export type World = {
  id: string;
  agentId?: string;
  name?: string;
  serverId?: string;
  metadata?: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  version: number;
};

/** A world to register; id is made when absent. */
export type NewWorld = Owner & { id?: string; name?: string; serverId?: string; metadata?: Record<string, unknown> };

/** A change to a world ("" removes a field). */
export type WorldPatch = { name?: string; serverId?: string; metadata?: Record<string, unknown> };

/** One conversation, in at most one world, with its participants (entity ids). */
export type Room = {
  id: string;
  agentId?: string;
  name?: string;
  worldId?: string;
  source?: string;
  type?: string;
  participants?: string[];
  metadata?: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  version: number;
};

/** A room to register; id is made when absent, worldId must exist. */
export type NewRoom = Owner & {
  id?: string;
  name?: string;
  worldId?: string;
  source?: string;
  type?: string;
  participants?: string[];
  metadata?: Record<string, unknown>;
};

/** A change to a room ("" removes a field; worldId "" takes it out of its world). */
export type RoomPatch = { name?: string; worldId?: string; source?: string; type?: string; metadata?: Record<string, unknown> };

export type EntityPage = { entities: Entity[]; nextCursor: string };
export type WorldPage = { worlds: World[]; nextCursor: string };
export type RoomPage = { rooms: Room[]; nextCursor: string };

/** A room's participants and its version. */
export type Participants = { participants: string[]; version: number };

/** A registry page: limit items (1 to 1000, 100 by default) after cursor. */
export type PageOptions = { limit?: number; cursor?: string };

/**
 * Whom a read serves, as a Filter's userId, roomId and worldId do for the reads of memories: a workstream of a
 * user, room or world audience is seen only by a read that serves it. None named: the key's own view (an org key
 * keeps the admin view).
 */
export type Acting = { userId?: string; roomId?: string; worldId?: string };

/** What the knowledge listings read: the memories the filter selects (its type is their memory type), and a page. */
export type KnowledgeListOptions = Filter & {
  /** The entity type (person, city...). */
  entityType?: string;
  prefix?: string;
  name?: string;
  limit?: number;
  cursor?: string;
};

/** An extracted entity or topic: refs mentions in memories memories. */
export type KnowledgeListItem = {
  /** entity, action, topic, tag, or sentence (a turn's topic sentence, listed beside the topics). */
  kind: string;
  name: string;
  types?: string[];
  facets?: Record<string, unknown>[];
  refs: number;
  memories: number;
  firstAt?: number;
  lastAt?: number;
};

/** A term completion and how many memories hold it. */
export type TermHint = { term: string; count: number; kind?: string; role?: string };

/** How many of the org's memories wait for their knowledge (GET /v1/knowledge/status): pending up to 10,000, more beyond. */
export type KnowledgeStatus = { pending: number; more: boolean };

/** What an export streams: the org or agentId's scope, for whom (roomId, worldId, userId). */
export type ExportOptions = { agentId?: string; roomId?: string; worldId?: string; userId?: string; embeddings?: boolean };

/** One export line: kind says which of memory, relation or record it holds. */
export type ExportLine = {
  kind: string;
  memory?: Memory;
  embedding?: number[];
  embeddingModel?: string;
  relation?: Record<string, unknown>;
  record?: Record<string, unknown>;
};

/** One note of a memory block; summary marks one a compaction wrote, pinned one that says "remember". */
export type WorkstreamEntry = {
  seq: number;
  role: string;
  text: string;
  importance: number;
  at: number;
  repeats?: number;
  summary?: boolean;
  folded?: number[];
  pinned?: boolean;
};

/** One compaction of a block: what it merged and folded, word for word, and its summary. */
export type WorkstreamCompaction = {
  version: number;
  at: number;
  method: "offline" | "llm";
  before: number;
  after: number;
  merged?: { entry: WorkstreamEntry; into: number }[];
  replaced: WorkstreamEntry[];
  summary?: WorkstreamEntry;
};

/** A memory block: role-labelled notes, compacted past its limit; placed as a memory. */
export type Workstream = {
  id: string;
  name?: string;
  agentId?: string;
  visibility: Visibility;
  roomId?: string;
  worldId?: string;
  userId?: string;
  limit: number;
  /** The block, oldest first (absent from a list). */
  entries?: WorkstreamEntry[] | null;
  nextSeq: number;
  compactedAt?: number[];
  createdAt: number;
  updatedAt: number;
  version: number;
};

/** A workstream with its compaction history. */
export type WorkstreamBlock = Workstream & { entries: WorkstreamEntry[] | null; history: WorkstreamCompaction[] };

/** A page of workstreams. */
export type WorkstreamList = { workstreams: Workstream[]; nextCursor?: string };

/** A workstream to create: id made when absent, limit 15 by default; placed as a memory. */
export type NewWorkstream = {
  id?: string;
  name?: string;
  limit?: number;
  scope?: string;
  visibility?: Visibility;
  agentId?: string;
  roomId?: string;
  worldId?: string;
  userId?: string;
};

/** A note to append; importance 0..1, 0.5 when absent. */
export type NewWorkstreamEntry = { role: string; text: string; importance?: number };

/** The types of an edge between memories. */
export type RelationType =
  | "supports" | "contradicts" | "supersedes" | "part_of" | "caused_by" | "depends_on" | "enriches" | "implements" | "relates_to";

/** An edge to store between two memories the key sees; confidence 1 when absent. */
export type NewRelation = { fromId: string; toId: string; type: RelationType; confidence?: number };

/** An erasure request: the memories matching every field given (at least one) are deleted, with what was drawn from them. */
export type ForgetRequest = {
  /** An entity's name. */
  entity?: string;
  sessionId?: string;
  roomId?: string;
  /** ms since the epoch. */
  start?: number;
  end?: number;
  /** Narrows an org-level key's erasure to one agent, or to the org scope with "_org". */
  agentId?: string;
};

/** What an erasure removed. */
export type ForgetReport = {
  matched: number;
  memories: number;
  facts: number;
  contextsRewritten: number;
  referencesRemoved: number;
  byType: Record<string, number> | null;
  relations: number;
  knowledgeRefs: number;
};

/** What an erasure removed, and the audit entry that records it. */
export type ForgetResult = ForgetReport & { auditId: string };

/** One kind of import line, counted by outcome. */
export type ImportCounts = { created: number; existing: number; duplicate?: number; failed: number };

/** What an import did; errors lists the lines it could not take. */
export type ImportReport = {
  lines: number;
  memories: ImportCounts;
  relations: ImportCounts;
  records: ImportCounts;
  errors: { line: number; code: string; message: string }[];
  errorsTruncated?: boolean;
};

/** One version of a memory: the operation, when (ms), by whom, and the memory as it left it. */
export type Revision = {
  version: number;
  op: "create" | "update" | "import" | "redact" | "archive" | "restore";
  at: number;
  by: { keyId?: string; agentId?: string };
  memory?: Memory | null;
};

/** Each version of a memory, oldest first. */
export type MemoryHistory = { id: string; versions: Revision[] };

/** What the key (or token) is bound to and may do, and the endpoint groups the server serves. */
export type Whoami = {
  orgId: string;
  agentId?: string;
  grants: string[];
  features: Record<string, boolean>;
  binding?: { userId?: string; roomId?: string; worldId?: string };
};

/** A new API key of the org: bound to agentId when given, with at least one grant. */
export type KeyRequest = { name?: string; agentId?: string; grants: ("read" | "write" | "delete" | "delete:org" | "admin" | "write:org")[] };

/** A stored API key, without its secret (prefix is the secret's start). */
export type APIKey = {
  id: string;
  orgId: string;
  agentId?: string;
  name?: string;
  grants: string[];
  prefix: string;
  createdAt: string;
  revokedAt?: string;
};

/** A new key and its secret, shown once. */
export type CreatedKey = { key: APIKey; secret: string };

/** What an org stores, or its limits (0 is unlimited). */
export type OrgUsage = { memories: number; bytes: number; documents: number };

/** The org's usage and quotas. */
export type Usage = { orgId: string; usage: OrgUsage; limits: OrgUsage };

/** One entry of the org's audit log (an erasure and its report). */
export type AuditEntry = {
  id: string;
  action: string;
  at: number;
  doneAt?: number;
  orgId: string;
  agentId?: string;
  keyId?: string;
  requestId?: string;
  filter: Record<string, unknown>;
  status: string;
  report: ForgetReport;
  error?: string;
};

/** A page of the audit log, newest first. */
export type AuditPage = { entries: AuditEntry[] | null; nextCursor: string };

/** What a consolidation run did. */
export type ConsolidationReport = {
  orgId: string;
  startedAt: number;
  finishedAt?: number;
  /** Where an interrupted run resumes. */
  cursor?: string;
  scanned: number;
  decayed: number;
  archived: number;
  deleted: number;
  merged: number;
  contradictionsResolved: number;
  contested: number;
  /** Set on the runs that check messages' contexts, until one has finished over the org. */
  checkContexts?: boolean;
  /** Messages whose context the run re-threaded (see checkContexts). */
  contextsRewritten?: number;
};

/** The org's settings of fact extraction. */
export type ExtractionSettings = {
  instructions?: string;
  keepKinds?: Kind[];
  dropKinds?: Kind[];
  keepCategories?: string[];
  dropCategories?: string[];
  language?: string;
  orgFactsFromAgents?: boolean;
  dualWriteOrgFacts?: boolean;
  /**
   * Metadata keys read as structure by knowledge extraction, each with its role ("none": a key the service reads
   * by default, not read). At most 32, stored in lower case.
   */
  providedKeys?: Record<string, "from" | "to" | "subject" | "location" | "property" | "none">;
};

/** The extraction settings as stored, with their version (ifMatch of the next put). */
export type StoredSettings = { settings: ExtractionSettings; version: number };
