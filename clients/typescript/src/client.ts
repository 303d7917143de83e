// The client: fetch, retries on 429 and 503, one Idempotency-Key per POST,
// AbortSignal on every call.
import { APIError, ConnectionError, TimeoutError, errorFromResponse } from "./errors.js";
import type {
  Acting, ContextRequest, CreateResult, Document, DocumentPage, DocumentUpload, Entity, EntityPage, EntityPatch, ExportLine,
  ExportOptions, Filter, KnowledgeListItem, KnowledgeListOptions, KnowledgePrefetchRequest, KnowledgePrefetchResponse, KnowledgeSearchRequest, KnowledgeSearchResponse, KnowledgeStatus,
  ListOptions, Memory, MemoryPage, MessagesRequest, MessagesResult, NewEntity, NewMemory, NewRoom, NewWorld, PageOptions,
  Participants, Patch, PromptContext, Room, RoomPage, RoomPatch, SearchRequest, SearchResponse, TermHint, Token,
  TokenRequest, World, WorldPage, WorldPatch, NewRelation, NewWorkstream, NewWorkstreamEntry, Relation, WorkstreamBlock,
  WorkstreamList, APIKey, AuditPage, ConsolidationReport, CreatedKey, ExtractionSettings, ForgetRequest, ForgetResult,
  ImportReport, KeyRequest, MemoryHistory, StoredSettings, Usage, Whoami,
} from "./types.js";

/** How a client is built. */
export interface ClientOptions {
  /** The server, e.g. "http://127.0.0.1:8080". */
  baseUrl: string;
  /** An API key; or, instead, token. */
  apiKey?: string;
  /**
   * An end-user token (createToken's token) instead of a key: every read
   * serves its user, and request fields cannot widen that.
   */
  token?: string;
  /** Retries of a request answered 429 or 503 (default 3; 0 turns them off). */
  maxRetries?: number;
  /** Base and ceiling (ms) of the jittered backoff used without a Retry-After (200, 5000). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** The longest Retry-After (ms) the client waits for (30000); a longer one fails at once. */
  maxRetryAfterMs?: number;
  /** Each request's timeout in ms (60000; 0: none). */
  timeoutMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
}

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call, and any wait before a retry. */
  signal?: AbortSignal;
  /** Replaces the client's timeout for this call (ms). */
  timeoutMs?: number;
  /** Replaces the key generated for a POST. */
  idempotencyKey?: string;
}

/** Options of a conditional update. */
export interface UpdateOptions extends RequestOptions {
  /** Applies the patch only over this version (Memory.version). */
  ifMatch?: number;
}

interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  /** A POST that stores something: it carries an Idempotency-Key (generated unless given), so a retry cannot store it twice. */
  write?: boolean;
  /** The body is returned as text (NDJSON), not parsed. */
  raw?: boolean;
  /** Sent as the body as it is (an import's NDJSON), instead of body as JSON. */
  ndjson?: string;
}

function ifMatch(o: UpdateOptions): Record<string, string> {
  return o.ifMatch ? { "If-Match": `"${o.ifMatch}"` } : {};
}

// The filters as query parameters; roomId, worldId and userId also say
// whom the read serves (the acting fields).
const FILTER_KEYS: (keyof Filter)[] = ["type", "kind", "roomId", "worldId", "userId", "sessionKey", "entityId",
  "sessionId", "agentId", "documentId", "durability", "start", "end", "includeArchived"];

function filterQuery(f: Filter): Record<string, string> {
  const q: Record<string, string> = {};
  for (const k of FILTER_KEYS) {
    const v = f[k];
    if (v === undefined || v === null || v === "") continue;
    q[k] = Array.isArray(v) ? v.join(",") : String(v);
  }
  for (const [k, v] of Object.entries(f.metadata ?? {})) {
    // metadata.KEY=value; a list (the `in` form, the parameter repeated) has no place in this record.
    if (Array.isArray(v)) throw new TypeError(`metadata.${k}: a list of values is only for a search's filters`);
    q["metadata." + k] = String(v);
  }
  return q;
}

/** The knowledge listings' query: the memories' type is memoryType there (type is the entity type). */
function knowledgeQuery(o: KnowledgeListOptions): Record<string, string> {
  const { type, ...rest } = o;
  const q = filterQuery(rest);
  if (type?.length) q.memoryType = type.join(",");
  for (const [k, v] of [["type", o.entityType], ["prefix", o.prefix], ["name", o.name], ["cursor", o.cursor]] as const) {
    if (v) q[k] = v;
  }
  if (o.limit !== undefined) q.limit = String(o.limit);
  return q;
}

/** Whom a read serves, as query parameters. */
function actingQuery(a: Acting): Record<string, string> {
  const q: Record<string, string> = {};
  for (const k of ["userId", "roomId", "worldId"] as const) if (a[k]) q[k] = a[k]!;
  return q;
}

function pageQuery(p: PageOptions): Record<string, string> {
  const q: Record<string, string> = {};
  if (p.limit !== undefined) q.limit = String(p.limit);
  if (p.cursor) q.cursor = p.cursor;
  return q;
}

function seg(s: string): string {
  return encodeURIComponent(s);
}

function toBase64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A client of one agentmem server with one API key (or an end-user token). */
export class AgentMemClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(opts: ClientOptions) {
    if (!/^https?:\/\/./.test(opts.baseUrl ?? "")) throw new TypeError(`baseUrl ${JSON.stringify(opts.baseUrl)}: an http or https URL is required`);
    if (!opts.apiKey === !opts.token) throw new TypeError("apiKey or token: exactly one is required");
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.apiKey = (opts.apiKey || opts.token)!;
    this.maxRetries = opts.maxRetries ?? 3;
    this.retryBaseMs = opts.retryBaseMs ?? 200;
    this.retryMaxMs = opts.retryMaxMs ?? 5000;
    this.maxRetryAfterMs = opts.maxRetryAfterMs ?? 30000;
    this.timeoutMs = opts.timeoutMs ?? 60000;
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Sends c, retrying 429 and 503, and returns the response and its parsed body. */
  private async send<T>(c: Call, o: RequestOptions = {}): Promise<{ status: number; data: T }> {
    let url = this.baseUrl + c.path;
    if (c.query && Object.keys(c.query).length) url += "?" + new URLSearchParams(c.query).toString();
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.apiKey}`, Accept: "application/json, application/problem+json", ...c.headers,
    };
    if (c.body !== undefined) headers["Content-Type"] = "application/json";
    if (c.ndjson !== undefined) headers["Content-Type"] = "application/x-ndjson";
    if (o.idempotencyKey) headers["Idempotency-Key"] = o.idempotencyKey;
    else if (c.write) headers["Idempotency-Key"] = crypto.randomUUID();
    const body = c.ndjson ?? (c.body === undefined ? undefined : JSON.stringify(c.body));
    const timeoutMs = o.timeoutMs ?? this.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const signals: AbortSignal[] = [];
      if (o.signal) signals.push(o.signal);
      const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
      if (timeout) signals.push(timeout);
      let res: Response;
      let text: string;
      try {
        res = await this.fetchFn(url, { method: c.method, headers, body, signal: signals.length ? AbortSignal.any(signals) : undefined });
        text = await res.text();
      } catch (e) {
        if (o.signal?.aborted) throw o.signal.reason;
        if (timeout?.aborted) throw new TimeoutError(`${c.method} ${c.path}: timed out after ${timeoutMs} ms`, { cause: e });
        throw new ConnectionError(`${c.method} ${c.path}: ${(e as Error).message}`, { cause: e });
      }
      if (res.status < 400) {
        return { status: res.status, data: (c.raw ? text : text ? JSON.parse(text) : undefined) as T };
      }
      const err = errorFromResponse(res.status, res.headers, text);
      const delay = this.delay(attempt, err);
      if (delay === undefined) throw err;
      await sleep(delay, o.signal);
    }
  }

  /** Milliseconds before retry number attempt, undefined to give up. */
  private delay(attempt: number, err: APIError): number | undefined {
    if ((err.status !== 429 && err.status !== 503) || attempt > this.maxRetries) return undefined;
    if (err.retryAfterMs !== undefined && err.retryAfterMs > 0) {
      return err.retryAfterMs <= this.maxRetryAfterMs ? err.retryAfterMs : undefined;
    }
    return Math.random() * Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** (attempt - 1));
  }

  private async data<T>(c: Call, o?: RequestOptions): Promise<T> {
    return (await this.send<T>(c, o)).data;
  }

  /** The server's health report. */
  healthz(o?: RequestOptions): Promise<Record<string, unknown>> {
    return this.data({ method: "GET", path: "/v1/healthz" }, o);
  }

  /** Stores one memory (a string is its text); a duplicate returns the existing id. */
  create(memory: NewMemory | string, o?: RequestOptions): Promise<CreateResult> {
    const body = typeof memory === "string" ? { content: { text: memory } } : memory;
    return this.data({ method: "POST", path: "/v1/memories", body, write: true }, o);
  }

  /** Stores up to 100 memories, all or nothing, results in order. */
  async createBatch(memories: NewMemory[], o?: RequestOptions): Promise<CreateResult[]> {
    return (await this.data<{ memories: CreateResult[] }>({ method: "POST", path: "/v1/memories", body: { memories }, write: true }, o)).memories;
  }

  /** Creates or replaces the memory keyed key in the caller's scope; created tells whether it was new. */
  async putByKey(key: string, memory: NewMemory | string, o?: RequestOptions): Promise<{ memory: Memory; created: boolean }> {
    if (!key) throw new TypeError("key: required");
    const body = typeof memory === "string" ? { content: { text: memory } } : memory;
    const res = await this.send<Record<string, unknown>>({ method: "PUT", path: "/v1/memories/by-key/" + seg(key), body }, o);
    const created = typeof res.data.created === "boolean" ? res.data.created : res.status === 201;
    let m = (typeof res.data.memory === "object" && res.data.memory ? res.data.memory : res.data) as unknown as Memory;
    // An answer that names the memory without showing it: read it.
    if (!("content" in m) && !("contentHash" in m)) m = await this.get((m as { id: string }).id, o);
    return { memory: m, created };
  }

  /** The memory keyed key (its externalId) in the caller's scope; NotFoundError when none is. */
  getByKey(key: string, o?: RequestOptions): Promise<Memory> {
    if (!key) return Promise.reject(new TypeError("key: required"));
    return this.data({ method: "GET", path: "/v1/memories/by-key/" + seg(key) }, o);
  }

  /** Deletes the memory keyed key in the caller's scope. */
  async deleteByKey(key: string, o?: RequestOptions): Promise<void> {
    if (!key) throw new TypeError("key: required");
    await this.send({ method: "DELETE", path: "/v1/memories/by-key/" + seg(key) }, o);
  }

  /** A memory; another org's or agent's is NotFoundError, as a missing one. */
  get(id: string, o?: RequestOptions): Promise<Memory> {
    return this.data({ method: "GET", path: "/v1/memories/" + seg(id) }, o);
  }

  /** Applies patch; with ifMatch only over that version (else an APIError whose isStale is true). */
  update(id: string, patch: Patch, o: UpdateOptions = {}): Promise<Memory> {
    return this.data({ method: "PATCH", path: "/v1/memories/" + seg(id), body: patch, headers: ifMatch(o) }, o);
  }

  /** Deletes a memory and everything derived from it. */
  async delete(id: string, o?: RequestOptions): Promise<void> {
    await this.send({ method: "DELETE", path: "/v1/memories/" + seg(id) }, o);
  }

  /** Deletes the memories f selects (at least one field); returns how many. */
  async deleteWhere(f: Filter, o?: RequestOptions): Promise<number> {
    return (await this.data<{ deleted: number }>({ method: "DELETE", path: "/v1/memories", query: filterQuery(f) }, o)).deleted;
  }

  /** One page of memories, newest first. */
  list(opts: ListOptions = {}, o?: RequestOptions): Promise<MemoryPage> {
    const query = filterQuery(opts);
    if (opts.limit !== undefined) query.limit = String(opts.limit);
    if (opts.cursor) query.cursor = opts.cursor;
    return this.data({ method: "GET", path: "/v1/memories", query }, o);
  }

  /** Every memory opts select, newest first, page after page (opts.limit per page). */
  async *memories(opts: ListOptions = {}, o?: RequestOptions): AsyncGenerator<Memory, void, undefined> {
    let cursor = opts.cursor;
    for (;;) {
      const page = await this.list({ ...opts, cursor }, o);
      yield* page.memories;
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  /** Counts the memories f selects. */
  async count(f: Filter = {}, o?: RequestOptions): Promise<number> {
    return (await this.data<{ count: number }>({ method: "GET", path: "/v1/memories/count", query: filterQuery(f) }, o)).count;
  }

  /** Ranks the memories the key sees for req.query; each result carries every list's score and rank. */
  search(req: SearchRequest, o?: RequestOptions): Promise<SearchResponse> {
    return this.data({ method: "POST", path: "/v1/search", body: req }, o);
  }

  /** A prompt context for req.query within the token budget. */
  context(req: ContextRequest, o?: RequestOptions): Promise<PromptContext> {
    return this.data({ method: "POST", path: "/v1/context", body: req }, o);
  }

  /** A Structured RAG search by expression (query) or question (text). */
  knowledgeSearch(req: KnowledgeSearchRequest, o?: RequestOptions): Promise<KnowledgeSearchResponse> {
    if ((req.query === undefined) === (req.text === undefined)) {
      return Promise.reject(new TypeError("knowledgeSearch: give query (an expression) or text (a question), exactly one"));
    }
    return this.data({ method: "POST", path: "/v1/knowledge/search", body: req }, o);
  }

  /** Prefetches a request being typed: the completions of its partial last word and the memories of its terms. */
  knowledgePrefetch(req: KnowledgePrefetchRequest, o?: RequestOptions): Promise<KnowledgePrefetchResponse> {
    return this.data({ method: "POST", path: "/v1/knowledge/prefetch", body: req }, o);
  }

  /** Stores conversation turns (entityId, the speaker, required) and queues fact extraction. */
  addMessages(messages: NewMemory[], o?: RequestOptions): Promise<MessagesResult> {
    return this.postMessages({ messages }, o);
  }

  /**
   * Stores a conversation: turns in this API's shape or OpenAI's ({role, content, name}), mixed freely; req's
   * roomId, userId... apply to every turn without its own, and the facts learnt from a conversation with a
   * userId are that user's. The turns are queued for fact extraction.
   */
  postMessages(req: MessagesRequest, o?: RequestOptions): Promise<MessagesResult> {
    return this.data({ method: "POST", path: "/v1/messages", body: req, write: true }, o);
  }

  /** A page of the entities extracted from the memories o selects (o.roomId, o.userId... say whom it serves). */
  async knowledgeEntities(o: KnowledgeListOptions = {}, r?: RequestOptions): Promise<{ items: KnowledgeListItem[]; nextCursor: string }> {
    const res = await this.data<{ entities: KnowledgeListItem[] | null; nextCursor: string }>(
      { method: "GET", path: "/v1/knowledge/entities", query: knowledgeQuery(o) }, r);
    return { items: res.entities ?? [], nextCursor: res.nextCursor };
  }

  /** A page of the topics extracted from the memories o selects. */
  async knowledgeTopics(o: KnowledgeListOptions = {}, r?: RequestOptions): Promise<{ items: KnowledgeListItem[]; nextCursor: string }> {
    const res = await this.data<{ topics: KnowledgeListItem[] | null; nextCursor: string }>(
      { method: "GET", path: "/v1/knowledge/topics", query: knowledgeQuery({ ...o, entityType: undefined }) }, r);
    return { items: res.topics ?? [], nextCursor: res.nextCursor };
  }

  /** Completions of o.prefix among the terms of the memories o selects. */
  async knowledgeTerms(o: KnowledgeListOptions = {}, r?: RequestOptions): Promise<TermHint[]> {
    const q = knowledgeQuery({ ...o, entityType: undefined, name: undefined, cursor: undefined });
    return (await this.data<{ terms: TermHint[] | null }>({ method: "GET", path: "/v1/knowledge/terms", query: q }, r)).terms ?? [];
  }

  /** How many of the org's memories wait for their knowledge (an org-level key only). */
  async knowledgeStatus(r?: RequestOptions): Promise<KnowledgeStatus> {
    return this.data<KnowledgeStatus>({ method: "GET", path: "/v1/knowledge/status" }, r);
  }

  /**
   * The export's lines (kind memory, relation or document): the org or o.agentId's scope, for whom o.roomId,
   * o.worldId and o.userId say. A stream cut short (a line of kind error) rejects with its APIError.
   */
  async export(o: ExportOptions = {}, r?: RequestOptions): Promise<ExportLine[]> {
    const q: Record<string, string> = {};
    for (const k of ["agentId", "roomId", "worldId", "userId"] as const) if (o[k]) q[k] = o[k]!;
    if (o.embeddings) q.embeddings = "true";
    const text = await this.data<string>({ method: "GET", path: "/v1/export", query: q, raw: true }, r);
    const lines: ExportLine[] = [];
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      const rec = JSON.parse(line) as ExportLine & { code?: string; message?: string };
      if (rec.kind === "error") throw errorFromResponse(500, new Headers(), JSON.stringify({ code: rec.code, detail: rec.message }));
      lines.push(rec);
    }
    return lines;
  }

  /** Mints an end-user token with the client's key (a client made with a token cannot: 403). */
  createToken(req: TokenRequest, o?: RequestOptions): Promise<Token> {
    if (!req.userId) return Promise.reject(new TypeError("userId: required"));
    return this.data({ method: "POST", path: "/v1/tokens", body: req }, o);
  }

  // The registries: entities, worlds, rooms and participants. ifMatch (an
  // item's version) makes an update or delete apply only over that version.

  /** Registers an entity (names[0] the display name, the others aliases). */
  createEntity(e: NewEntity, o?: RequestOptions): Promise<Entity> {
    return this.data({ method: "POST", path: "/v1/entities", body: e, write: true }, o);
  }

  getEntity(id: string, o?: RequestOptions): Promise<Entity> {
    return this.data({ method: "GET", path: "/v1/entities/" + seg(id) }, o);
  }

  listEntities(p: PageOptions = {}, o?: RequestOptions): Promise<EntityPage> {
    return this.data({ method: "GET", path: "/v1/entities", query: pageQuery(p) }, o);
  }

  updateEntity(id: string, patch: EntityPatch, o: UpdateOptions = {}): Promise<Entity> {
    return this.data({ method: "PATCH", path: "/v1/entities/" + seg(id), body: patch, headers: ifMatch(o) }, o);
  }

  async deleteEntity(id: string, o: UpdateOptions = {}): Promise<void> {
    await this.send({ method: "DELETE", path: "/v1/entities/" + seg(id), headers: ifMatch(o) }, o);
  }

  /** Registers a world (a group of rooms). */
  createWorld(w: NewWorld, o?: RequestOptions): Promise<World> {
    return this.data({ method: "POST", path: "/v1/worlds", body: w, write: true }, o);
  }

  getWorld(id: string, o?: RequestOptions): Promise<World> {
    return this.data({ method: "GET", path: "/v1/worlds/" + seg(id) }, o);
  }

  listWorlds(p: PageOptions = {}, o?: RequestOptions): Promise<WorldPage> {
    return this.data({ method: "GET", path: "/v1/worlds", query: pageQuery(p) }, o);
  }

  updateWorld(id: string, patch: WorldPatch, o: UpdateOptions = {}): Promise<World> {
    return this.data({ method: "PATCH", path: "/v1/worlds/" + seg(id), body: patch, headers: ifMatch(o) }, o);
  }

  async deleteWorld(id: string, o: UpdateOptions = {}): Promise<void> {
    await this.send({ method: "DELETE", path: "/v1/worlds/" + seg(id), headers: ifMatch(o) }, o);
  }

  /** Registers a room (in a world the caller has, with its participants). */
  createRoom(r: NewRoom, o?: RequestOptions): Promise<Room> {
    return this.data({ method: "POST", path: "/v1/rooms", body: r, write: true }, o);
  }

  getRoom(id: string, o?: RequestOptions): Promise<Room> {
    return this.data({ method: "GET", path: "/v1/rooms/" + seg(id) }, o);
  }

  /** A page of rooms, of p.worldId only when given. */
  listRooms(p: PageOptions & { worldId?: string } = {}, o?: RequestOptions): Promise<RoomPage> {
    const query = pageQuery(p);
    if (p.worldId) query.worldId = p.worldId;
    return this.data({ method: "GET", path: "/v1/rooms", query }, o);
  }

  updateRoom(id: string, patch: RoomPatch, o: UpdateOptions = {}): Promise<Room> {
    return this.data({ method: "PATCH", path: "/v1/rooms/" + seg(id), body: patch, headers: ifMatch(o) }, o);
  }

  async deleteRoom(id: string, o: UpdateOptions = {}): Promise<void> {
    await this.send({ method: "DELETE", path: "/v1/rooms/" + seg(id), headers: ifMatch(o) }, o);
  }

  listParticipants(roomId: string, o?: RequestOptions): Promise<Participants> {
    return this.data({ method: "GET", path: "/v1/rooms/" + seg(roomId) + "/participants" }, o);
  }

  addParticipant(roomId: string, entityId: string, o?: RequestOptions): Promise<Participants> {
    return this.data({ method: "POST", path: "/v1/rooms/" + seg(roomId) + "/participants", body: { entityId }, write: true }, o);
  }

  removeParticipant(roomId: string, entityId: string, o?: RequestOptions): Promise<Participants> {
    return this.data({ method: "DELETE", path: "/v1/rooms/" + seg(roomId) + "/participants/" + seg(entityId) }, o);
  }

  // Agent state (docs/agent-state.md): memory blocks, relations, restore.

  /** Creates a workstream (a memory block). */
  createWorkstream(w: NewWorkstream, o?: RequestOptions): Promise<WorkstreamBlock> {
    return this.data({ method: "POST", path: "/v1/workstreams", body: w, write: true }, o);
  }

  /**
   * A workstream's block, its entries oldest first, and its compaction history; o.userId, o.roomId and o.worldId
   * say whom the read serves (a block of another audience is a 404).
   */
  getWorkstream(id: string, o: Acting & RequestOptions = {}): Promise<WorkstreamBlock> {
    return this.data({ method: "GET", path: "/v1/workstreams/" + seg(id), query: actingQuery(o) }, o);
  }

  /** A page of the workstreams the key sees; p.userId, p.roomId and p.worldId say whom the read serves. */
  listWorkstreams(p: PageOptions & Acting = {}, o?: RequestOptions): Promise<WorkstreamList> {
    return this.data({ method: "GET", path: "/v1/workstreams", query: { ...pageQuery(p), ...actingQuery(p) } }, o);
  }

  async deleteWorkstream(id: string, o?: RequestOptions): Promise<void> {
    await this.send({ method: "DELETE", path: "/v1/workstreams/" + seg(id) }, o);
  }

  /** Appends a note and returns the block as written (compacted past its limit). */
  appendWorkstreamEntry(id: string, e: NewWorkstreamEntry, o?: RequestOptions): Promise<WorkstreamBlock> {
    return this.data({ method: "POST", path: "/v1/workstreams/" + seg(id) + "/entries", body: e, write: true }, o);
  }

  /** Stores an edge between two memories the key sees; the answer carries its id. */
  createRelation(r: NewRelation, o?: RequestOptions): Promise<Relation> {
    return this.data({ method: "POST", path: "/v1/relations", body: r, write: true }, o);
  }

  /** The edges of a memory, both directions, whose other end the key sees. */
  async listRelations(memoryId: string, o?: RequestOptions): Promise<Relation[]> {
    const res: { relations: Relation[] } = await this.data({ method: "GET", path: "/v1/memories/" + seg(memoryId) + "/relations" }, o);
    return res.relations;
  }

  async deleteRelation(id: string, o?: RequestOptions): Promise<void> {
    await this.send({ method: "DELETE", path: "/v1/relations/" + seg(id) }, o);
  }

  /** Archives a memory: out of search and lists until restored. */
  archiveMemory(id: string, reason?: string, o?: RequestOptions): Promise<Memory> {
    return this.data({ method: "POST", path: "/v1/memories/" + seg(id) + "/archive", body: reason ? { reason } : {} }, o);
  }

  /** Un-archives a memory (recorded in its history). */
  restoreMemory(id: string, o?: RequestOptions): Promise<Memory> {
    return this.data({ method: "POST", path: "/v1/memories/" + seg(id) + "/restore" }, o);
  }

  /** Ingests a document: text, or bytes sent as base64; the name's extension picks the loader. */
  uploadDocument(d: DocumentUpload, o?: RequestOptions): Promise<Document> {
    const body: Record<string, unknown> = { name: d.name };
    if (typeof d.content === "string") body.content = d.content;
    else body.contentBase64 = toBase64(d.content);
    if (d.scope) body.scope = d.scope;
    if (d.agentId) body.agentId = d.agentId;
    return this.data({ method: "POST", path: "/v1/documents", body, write: true }, o);
  }

  /** A document's ingestion status. */
  getDocument(id: string, o?: RequestOptions): Promise<Document> {
    return this.data({ method: "GET", path: "/v1/documents/" + seg(id) }, o);
  }

  /** One page of the documents the key sees. */
  listDocuments(page: { limit?: number; cursor?: string } = {}, o?: RequestOptions): Promise<DocumentPage> {
    const query: Record<string, string> = {};
    if (page.limit !== undefined) query.limit = String(page.limit);
    if (page.cursor) query.cursor = page.cursor;
    return this.data({ method: "GET", path: "/v1/documents", query }, o);
  }

  /** Every document the key sees, page after page. */
  async *documents(page: { limit?: number } = {}, o?: RequestOptions): AsyncGenerator<Document, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const p = await this.listDocuments({ limit: page.limit, cursor }, o);
      yield* p.documents;
      if (!p.nextCursor) return;
      cursor = p.nextCursor;
    }
  }

  /** Deletes a document and its fragments. */
  async deleteDocument(id: string, o?: RequestOptions): Promise<void> {
    await this.send({ method: "DELETE", path: "/v1/documents/" + seg(id) }, o);
  }

  // The key, the document, history, erasure, import and administration
  // (/v1/admin: org-level keys with the admin grant).

  /** The server's OpenAPI document. */
  openapi(o?: RequestOptions): Promise<Record<string, unknown>> {
    return this.data({ method: "GET", path: "/v1/openapi.json" }, o);
  }

  /** What the client's key (or token) is bound to and may do; any valid key may ask. */
  whoami(o?: RequestOptions): Promise<Whoami> {
    return this.data({ method: "GET", path: "/v1/whoami" }, o);
  }

  /** Each version of a memory, oldest first: the operation, when, by whom, and the memory as it left it. */
  memoryHistory(id: string, o?: RequestOptions): Promise<MemoryHistory> {
    return this.data({ method: "GET", path: "/v1/memories/" + seg(id) + "/history" }, o);
  }

  /** Erases the memories matching every field of req (at least one), with what was drawn from them; audited. */
  forget(req: ForgetRequest, o?: RequestOptions): Promise<ForgetResult> {
    return this.data({ method: "POST", path: "/v1/forget", body: req, write: true }, o);
  }

  /**
   * Reads an export back into the key's org, idempotently: NDJSON (a string or bytes), or the lines export
   * returns. Lines it cannot take are listed in the report's errors.
   */
  importMemories(lines: string | Uint8Array | Iterable<unknown>, o?: RequestOptions): Promise<ImportReport> {
    let ndjson: string;
    if (typeof lines === "string") ndjson = lines;
    else if (lines instanceof Uint8Array) ndjson = new TextDecoder().decode(lines);
    else ndjson = Array.from(lines, (l) => JSON.stringify(l) + "\n").join("");
    return this.data({ method: "POST", path: "/v1/import", ndjson, write: true }, o);
  }

  /** A page of the org's audit log (the erasures), newest first. */
  auditLog(p: PageOptions = {}, o?: RequestOptions): Promise<AuditPage> {
    return this.data({ method: "GET", path: "/v1/admin/audit", query: pageQuery(p) }, o);
  }

  /** The report of the org's last consolidation (NotFoundError before the first). */
  lastConsolidation(o?: RequestOptions): Promise<ConsolidationReport> {
    return this.data({ method: "GET", path: "/v1/admin/consolidation" }, o);
  }

  /** Runs a consolidation of the org now and returns its report. */
  consolidate(o?: RequestOptions): Promise<ConsolidationReport> {
    return this.data({ method: "POST", path: "/v1/admin/consolidate" }, o);
  }

  /** The org's extraction settings and their version. */
  getExtractionSettings(o?: RequestOptions): Promise<StoredSettings> {
    return this.data({ method: "GET", path: "/v1/admin/settings/extraction" }, o);
  }

  /** Replaces the org's extraction settings; with ifMatch only over that version. */
  putExtractionSettings(settings: ExtractionSettings, o: UpdateOptions = {}): Promise<StoredSettings> {
    return this.data({ method: "PUT", path: "/v1/admin/settings/extraction", body: settings, headers: ifMatch(o) }, o);
  }

  /** Creates an API key of the org (bound to req.agentId when given); its secret is shown once. */
  createKey(req: KeyRequest, o?: RequestOptions): Promise<CreatedKey> {
    return this.data({ method: "POST", path: "/v1/admin/keys", body: req }, o);
  }

  /** The org's stored keys, without their secrets. */
  async listKeys(o?: RequestOptions): Promise<APIKey[]> {
    return (await this.data<{ keys: APIKey[] | null }>({ method: "GET", path: "/v1/admin/keys" }, o)).keys ?? [];
  }

  /** Revokes a key (by its id, not its secret) and returns it. */
  async revokeKey(id: string, o?: RequestOptions): Promise<APIKey> {
    return (await this.data<{ key: APIKey }>({ method: "DELETE", path: "/v1/admin/keys/" + seg(id) }, o)).key;
  }

  /** The org's usage and quotas (0 is unlimited). */
  usage(o?: RequestOptions): Promise<Usage> {
    return this.data({ method: "GET", path: "/v1/admin/usage" }, o);
  }
}
