"""The API's JSON shapes as TypedDicts (keys as on the wire, camelCase).

A list the server may send as null (an empty one, from some endpoints) is
typed ``list[...] | None``, as the OpenAPI document has it."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required, TypedDict

MemoryType = Literal["message", "document", "fragment", "fact", "description", "custom"]
Visibility = Literal["shared", "world", "room", "user", "agent"]
SearchMode = Literal["full", "hybrid", "keyword", "semantic", "knowledge"]


class Attachment(TypedDict, total=False):
    """A file or link attached to a memory's content."""

    id: str
    url: str
    title: str
    source: str
    description: str
    text: str
    contentType: str


class Content(TypedDict, total=False):
    """What a memory says; text is required."""

    text: Required[str]
    source: str
    url: str
    action: str
    attachments: list[Attachment]


class NewMemory(TypedDict, total=False):
    """A memory to store; only content.text is required."""

    content: Required[Content]
    # scope: "org" / "agent", or a visibility with ElizaOS's names.
    scope: Literal["org", "agent", "shared", "private", "room", "world", "user"]
    # visibility: who in the org reads it (default: a message with a roomId
    # stays in its room; anything else is the agent's or shared).
    visibility: Literal["shared", "world", "room", "user", "agent", "private", "org"]
    # userId: the end user it belongs to (an entity id).
    userId: str
    agentId: str
    type: MemoryType
    kind: str
    externalId: str
    entityId: str
    roomId: str
    worldId: str
    sessionId: str
    metadata: dict[str, Any]
    importance: float
    durability: Literal["core", "standard", "ephemeral"]
    confidence: float
    documentId: str
    position: int
    createdAt: int


class Memory(TypedDict):
    """A stored memory; version is the If-Match token."""

    id: str
    orgId: str
    agentId: NotRequired[str]
    type: str
    kind: NotRequired[str]
    externalId: NotRequired[str]
    content: Content
    entityId: NotRequired[str]
    roomId: NotRequired[str]
    worldId: NotRequired[str]
    sessionId: NotRequired[str]
    metadata: NotRequired[dict[str, Any]]
    context: NotRequired[str]
    importance: float
    durability: str
    confidence: float
    documentId: NotRequired[str]
    position: NotRequired[int]
    contentHash: str
    createdAt: int
    ingestedAt: NotRequired[int]
    updatedAt: int
    lastAccessedAt: NotRequired[int]
    accessCount: int
    archived: bool
    version: int
    pending: NotRequired[bool]
    visibility: NotRequired[Visibility]
    userId: NotRequired[str]


class CreateResult(TypedDict):
    """A stored memory's id; duplicate when it was already stored."""

    id: str
    duplicate: bool


class Patch(TypedDict, total=False):
    """A change to a memory; absent keys are left as they are."""

    content: Content
    metadata: dict[str, Any]
    importance: float
    durability: Literal["core", "standard", "ephemeral"]


class Filters(TypedDict, total=False):
    """Selects memories in search and knowledge search (start/end: ms or RFC 3339).

    roomId, worldId and userId also say whom the read serves: it then sees
    shared and agent memories as the key allows, and only the room, world
    and user memories of those (roomId and worldId narrow as well; userId
    narrows nothing else). Naming none keeps an org key's admin view."""

    type: list[str]
    kind: list[str]
    roomId: str
    worldId: str
    userId: str
    sessionKey: str
    metadata: dict[str, Any]
    entityId: str
    sessionId: str
    agentId: str
    documentId: str
    durability: str
    start: int | str
    end: int | str
    includeArchived: bool


class MemoryPage(TypedDict):
    """One page of a list; nextCursor is empty on the last."""

    memories: list[Memory]
    nextCursor: str


class ListScore(TypedDict):
    """A result's score and rank in one ranked list."""

    score: float
    rank: int


class Relation(TypedDict, total=False):
    """A link between two memories; id is the edge's (delete_relation)."""

    id: str
    orgId: str
    fromId: str
    type: str
    toId: str
    confidence: float
    createdAt: int


class SearchResult(TypedDict):
    """One ranked memory with its final score and each list's."""

    memory: Memory
    score: float
    scores: NotRequired[dict[str, ListScore]]
    keyword: NotRequired[ListScore]
    semantic: NotRequired[ListScore]
    relatedTo: NotRequired[Relation]


class SearchResponse(TypedDict):
    """A search's results and how they were ranked."""

    mode: str
    lists: list[str] | None
    results: list[SearchResult]
    reranked: bool
    rerankError: NotRequired[str]
    tookMs: float
    degraded: NotRequired[str]


class ContextItem(TypedDict):
    """A memory (id) or, in the structured section, an entity or topic (kind, name)."""

    tokens: int
    id: NotRequired[str]
    type: NotRequired[str]
    kind: NotRequired[str]
    name: NotRequired[str]
    score: NotRequired[float]


class ContextSection(TypedDict):
    """One part of a prompt context, and the provider that filled it."""

    name: str
    provider: str
    tokens: int
    items: list[ContextItem] | None


class PromptContext(TypedDict):
    """An assembled prompt context and how the budget was spent."""

    context: str
    budgetTokens: int
    usedTokens: int
    reserveTokens: NotRequired[int]
    sections: list[ContextSection] | None
    cached: NotRequired[bool]


class Document(TypedDict):
    """A document's ingestion status (state: pending, indexed, failed)."""

    id: str
    orgId: str
    agentId: NotRequired[str]
    key: str
    name: str
    state: str
    reason: NotRequired[str]
    bytes: int
    etag: NotRequired[str]
    fragments: int
    startedAt: int
    finishedAt: NotRequired[int]
    loadMs: int
    indexMs: int


class DocumentPage(TypedDict):
    """One page of documents."""

    documents: list[Document]
    nextCursor: str


class MessagesResult(TypedDict):
    """The stored turns' ids, and whether extraction was queued."""

    memories: list[CreateResult] | None
    extractionQueued: bool


class KnowledgeSource(TypedDict, total=False):
    """A memory an item was found in, with the sentence."""

    memoryId: str
    type: str
    snippet: str
    range: dict[str, int]
    roomId: str
    sessionId: str
    entityId: str
    agentId: str
    createdAt: int


class KnowledgeEntity(TypedDict, total=False):
    """A matched entity."""

    name: str
    types: list[str]
    facets: list[dict[str, Any]]
    score: float
    terms: list[str]
    sourceCount: int
    sources: list[KnowledgeSource]


class KnowledgeTopic(TypedDict, total=False):
    """A matched topic or tag; sentence marks a turn's topic sentence rather than a noun-phrase topic."""

    topic: str
    tag: bool
    sentence: bool
    score: float
    terms: list[str]
    sourceCount: int
    sources: list[KnowledgeSource]


class KnowledgeAction(TypedDict, total=False):
    """A matched action."""

    verbs: list[str]
    tense: str
    subject: str
    object: str
    indirectObject: str
    negated: bool
    score: float
    terms: list[str]
    sourceCount: int
    sources: list[KnowledgeSource]


class KnowledgeScope(TypedDict, total=False):
    """Narrows a knowledge query within what the caller may see (docs/topics-and-scopes.md): a room,
    session, agent or document; a range of a document's positions (fromPosition, toPosition, inclusive:
    needs documentId); a range of a session's messages (fromMessageId or fromTime, included, to
    toMessageId, included, or toTime, excluded: needs sessionId); the stretches about a topic. Times are
    RFC 3339. The parts combine."""

    roomId: str
    sessionId: str
    agentId: str
    documentId: str
    fromPosition: int
    toPosition: int
    fromMessageId: str
    toMessageId: str
    fromTime: str
    toTime: str
    topic: str


class KnowledgeQuery(TypedDict, total=False):
    """A knowledge query expression (docs/structured-rag.md): select (a boolean tree of entity, action,
    topic leaves) or terms, at least one; time bounds it, scope narrows it."""

    select: dict[str, Any]
    terms: list[str]
    time: dict[str, Any]
    scope: KnowledgeScope
    relatedTerms: bool
    limit: int
    askTime: bool


class KnowledgeMemory(TypedDict):
    """A memory a knowledge search matched."""

    memory: Memory
    score: float
    terms: list[str] | None


class KnowledgeSearchResponse(TypedDict):
    """A knowledge search's answer; expression is what ran."""

    expression: dict[str, Any] | None
    entities: list[KnowledgeEntity] | None
    topics: list[KnowledgeTopic] | None
    actions: list[KnowledgeAction] | None
    memories: list[KnowledgeMemory] | None
    tookMs: float


class KnowledgePrefetchResponse(TypedDict):
    """What a request being typed already finds: the completions of its last
    word, the terms whose memories were fetched, and those memories."""

    completions: list[TermHint]
    terms: list[str]
    memories: list[KnowledgeMemory]
    tookMs: float


class ChatMessage(TypedDict, total=False):
    """A turn in OpenAI's chat shape; the speaker is name, else the request's
    userId for a user turn, else the role."""

    role: Required[Literal["user", "assistant", "system", "tool", "developer"]]
    content: Required[str | list[dict[str, Any]]]
    name: str


class Entity(TypedDict):
    """A person, an agent or anything the org knows by name (names[0] is the display name)."""

    id: str
    agentId: NotRequired[str]
    names: list[str]
    metadata: NotRequired[dict[str, Any]]
    createdAt: int
    updatedAt: int
    version: int


class NewEntity(TypedDict, total=False):
    """An entity to register; id is made when absent."""

    id: str
    names: Required[list[str]]
    metadata: dict[str, Any]
    scope: Literal["org", "agent"]
    agentId: str


class World(TypedDict):
    """A group of rooms (a server, a workspace)."""

    id: str
    agentId: NotRequired[str]
    name: NotRequired[str]
    serverId: NotRequired[str]
    metadata: NotRequired[dict[str, Any]]
    createdAt: int
    updatedAt: int
    version: int


class NewWorld(TypedDict, total=False):
    """A world to register; id is made when absent."""

    id: str
    name: str
    serverId: str
    metadata: dict[str, Any]
    scope: Literal["org", "agent"]
    agentId: str


class Room(TypedDict):
    """One conversation, in at most one world, with its participants (entity ids)."""

    id: str
    agentId: NotRequired[str]
    name: NotRequired[str]
    worldId: NotRequired[str]
    source: NotRequired[str]
    type: NotRequired[str]
    participants: NotRequired[list[str]]
    metadata: NotRequired[dict[str, Any]]
    createdAt: int
    updatedAt: int
    version: int


class NewRoom(TypedDict, total=False):
    """A room to register; id is made when absent, worldId must exist."""

    id: str
    name: str
    worldId: str
    source: str
    type: str
    participants: list[str]
    metadata: dict[str, Any]
    scope: Literal["org", "agent"]
    agentId: str


class EntityPage(TypedDict):
    entities: list[Entity]
    nextCursor: str


class WorldPage(TypedDict):
    worlds: list[World]
    nextCursor: str


class RoomPage(TypedDict):
    rooms: list[Room]
    nextCursor: str


class Participants(TypedDict):
    """A room's participants and its version."""

    participants: list[str]
    version: int


class Token(TypedDict):
    """A minted end-user token (token is shown once) and what it is bound to."""

    token: str
    expiresAt: str
    orgId: str
    agentId: NotRequired[str]
    userId: str
    roomId: NotRequired[str]
    worldId: NotRequired[str]
    grants: list[str]


class KnowledgeListItem(TypedDict, total=False):
    """An extracted entity or topic: refs mentions in memories memories. kind is entity, action, topic,
    tag, or sentence (a turn's topic sentence, listed beside the topics)."""

    kind: str
    name: str
    types: list[str]
    facets: list[dict[str, Any]]
    refs: int
    memories: int
    firstAt: int
    lastAt: int


class TermHint(TypedDict, total=False):
    """A term completion and how many memories hold it."""

    term: str
    count: int
    kind: str
    role: str


class WorkstreamEntry(TypedDict):
    """One note of a memory block; summary marks one a compaction wrote, pinned one that says "remember"."""

    seq: int
    role: str
    text: str
    importance: float
    at: int
    repeats: NotRequired[int]
    summary: NotRequired[bool]
    folded: NotRequired[list[int]]
    pinned: NotRequired[bool]


class Workstream(TypedDict):
    """A memory block: role-labelled notes, compacted past its limit."""

    id: str
    name: NotRequired[str]
    agentId: NotRequired[str]
    visibility: str
    roomId: NotRequired[str]
    worldId: NotRequired[str]
    userId: NotRequired[str]
    limit: int
    entries: list[WorkstreamEntry] | None
    nextSeq: int
    compactedAt: NotRequired[list[int]]
    createdAt: int
    updatedAt: int
    version: int


class WorkstreamBlock(Workstream):
    """A workstream with its compaction history (what each compaction merged and folded, word for word)."""

    history: list[dict[str, Any]]


class WorkstreamList(TypedDict):
    """A page of workstreams."""

    workstreams: list[Workstream]
    nextCursor: NotRequired[str]


class NewWorkstream(TypedDict, total=False):
    """A workstream to create: id is made when absent, limit is 15 by default; placed as a memory."""

    id: str
    name: str
    limit: int
    scope: str
    visibility: Visibility
    agentId: str
    roomId: str
    worldId: str
    userId: str


class ForgetReport(TypedDict):
    """What an erasure removed, and the audit entry that records it (auditId)."""

    matched: int
    memories: int
    facts: int
    contextsRewritten: int
    referencesRemoved: int
    byType: dict[str, int] | None
    relations: int
    knowledgeRefs: int
    auditId: NotRequired[str]


class ImportCounts(TypedDict):
    """One kind of import line, counted by outcome."""

    created: int
    existing: int
    duplicate: NotRequired[int]
    failed: int


class ImportReport(TypedDict):
    """What an import did; errors lists the lines it could not take."""

    lines: int
    memories: ImportCounts
    relations: ImportCounts
    records: ImportCounts
    errors: list[dict[str, Any]]
    errorsTruncated: NotRequired[bool]


class Revision(TypedDict):
    """One version of a memory: the operation, when (ms), who ({"keyId", "agentId"}), the memory as it left it."""

    version: int
    op: str
    at: int
    by: dict[str, str]
    memory: NotRequired[Memory | None]


class MemoryHistory(TypedDict):
    """Each version of a memory, oldest first."""

    id: str
    versions: list[Revision]


class Whoami(TypedDict):
    """What the key (or token) is bound to and may do, and the endpoint groups the server serves."""

    orgId: str
    agentId: NotRequired[str]
    grants: list[str]
    features: dict[str, bool]
    binding: NotRequired[dict[str, str]]


class APIKey(TypedDict):
    """A stored API key, without its secret (prefix is the secret's start)."""

    id: str
    orgId: str
    agentId: NotRequired[str]
    name: NotRequired[str]
    grants: list[str]
    prefix: str
    createdAt: str
    revokedAt: NotRequired[str]


class CreatedKey(TypedDict):
    """A new key and its secret, shown once."""

    key: APIKey
    secret: str


class OrgUsage(TypedDict):
    """What an org stores, or its limits (0 is unlimited)."""

    memories: int
    bytes: int
    documents: int


class Usage(TypedDict):
    """The org's usage and quotas."""

    orgId: str
    usage: OrgUsage
    limits: OrgUsage


class AuditEntry(TypedDict):
    """One entry of the org's audit log (an erasure and its report)."""

    id: str
    action: str
    at: int
    doneAt: NotRequired[int]
    orgId: str
    agentId: NotRequired[str]
    keyId: NotRequired[str]
    requestId: NotRequired[str]
    filter: dict[str, Any]
    status: str
    report: ForgetReport
    error: NotRequired[str]


class AuditPage(TypedDict):
    """A page of the audit log, newest first."""

    entries: list[AuditEntry] | None
    nextCursor: str


class ConsolidationReport(TypedDict):
    """What a consolidation run did."""

    orgId: str
    startedAt: int
    finishedAt: NotRequired[int]
    cursor: NotRequired[str]
    scanned: int
    decayed: int
    archived: int
    deleted: int
    merged: int
    contradictionsResolved: int
    contested: int
    checkContexts: NotRequired[bool]
    contextsRewritten: NotRequired[int]


class ExtractionSettings(TypedDict, total=False):
    """The org's settings of fact extraction."""

    instructions: str
    keepKinds: list[str]
    dropKinds: list[str]
    keepCategories: list[str]
    dropCategories: list[str]
    language: str
    orgFactsFromAgents: bool
    dualWriteOrgFacts: bool
    # Metadata keys read as structure by knowledge extraction, each with its role: from, to, subject,
    # location, property, or none (a key the service reads by default, not read). Stored in lower case.
    providedKeys: dict[str, str]


class StoredSettings(TypedDict):
    """The extraction settings as stored, with their version (if_match of the next put)."""

    settings: ExtractionSettings
    version: int
