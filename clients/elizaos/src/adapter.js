// The database adapter: ElizaOS's memory, entity, room, world and participant
// methods served by agentmem; everything else (agents, cache, tasks, logs,
// components, relationships) by a delegate adapter, @elizaos/plugin-sql's in
// production or InMemoryDelegate in tests.

import { randomUUID } from "node:crypto";

/** ElizaOS table names and agentmem memory types; any other table is type custom with its name in metadata. */
export const TABLE_TYPES = { messages: "message", facts: "fact", documents: "document", fragments: "fragment", knowledge: "fragment", descriptions: "description" };

const typeOf = (table) => TABLE_TYPES[table] ?? "custom";
const isNotFound = (e) => e?.status === 404;
const orNull = (p) => p.catch((e) => { if (isNotFound(e)) return null; throw e; });
const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

/**
 * Serves an ElizaOS IDatabaseAdapter from agentmem. Construct it with an
 * AgentMemClient (an agent's key: the agent's memories and registry items
 * are its own) and a delegate adapter for the methods agentmem does not
 * cover. The object returned answers every IDatabaseAdapter method: the ones
 * below, and the delegate's for the rest.
 */
export class AgentMemDatabaseAdapter {
  /** @param {{ client: import("@agentmem/client").AgentMemClient, delegate: object }} opts */
  constructor({ client, delegate }) {
    if (!client) throw new TypeError("client: required");
    if (!delegate) throw new TypeError("delegate: required (an adapter for agents, cache, tasks, logs...)");
    this.client = client;
    this.delegate = delegate;
    return new Proxy(this, {
      get(target, prop, receiver) {
        if (prop in target) return Reflect.get(target, prop, receiver);
        const v = delegate[prop];
        return typeof v === "function" ? v.bind(delegate) : v;
      },
    });
  }

  // Memories. An ElizaOS memory id is the agentmem memory's externalId
  // (written by PUT by-key, an upsert) and its metadata.elizaId, so ElizaOS
  // keeps the ids it chose. Reads find it by metadata.elizaId: GET by-key
  // does not find a memory with an audience (a room's, a world's, a user's)
  // on this server version.

  /** The agentmem memory of ElizaOS id id, or null. */
  async find(id) {
    const page = await this.client.list({ metadata: { elizaId: id }, limit: 1 });
    return page.memories[0] ?? null;
  }

  /** Stores memory in tableName; returns its ElizaOS id. */
  async createMemory(memory, tableName, unique) {
    const id = memory.id ?? randomUUID();
    await this.client.putByKey(id, toNew({ ...memory, id }, tableName, unique));
    return id;
  }

  async getMemoryById(id) {
    const m = await this.find(id);
    return m && fromAgentMem(m);
  }

  async getMemoriesByIds(ids, tableName) {
    const all = await Promise.all(ids.map((id) => this.getMemoryById(id)));
    return all.filter((m) => m && (!tableName || m.metadata?.tableName === tableName));
  }

  /** Memories of tableName, newest first, narrowed by room, world, entity, time; count bounds them. */
  async getMemories({ tableName, roomId, worldId, entityId, count, offset = 0, unique, start, end }) {
    const want = count === undefined ? Infinity : count + offset;
    const out = [];
    for await (const m of this.client.memories({ type: typeOf(tableName), roomId, worldId, entityId, start, end, limit: Math.min(100, want) })) {
      if (m.metadata?.elizaTable !== tableName) continue;
      if (unique && !m.metadata?.elizaUnique) continue;
      out.push(fromAgentMem(m));
      if (out.length >= want) break;
    }
    return out.slice(offset);
  }

  async getMemoriesByRoomIds({ tableName, roomIds, limit }) {
    const per = await Promise.all(roomIds.map((roomId) => this.getMemories({ tableName, roomId, count: limit })));
    return per.flat().sort((a, b) => b.createdAt - a.createdAt).slice(0, limit ?? Infinity);
  }

  async getMemoriesByWorldId({ worldId, count, tableName }) {
    return this.getMemories({ tableName: tableName ?? "messages", worldId, count });
  }

  /** Ranks tableName's memories: by the query text when given, else by the caller's embedding. */
  async searchMemories({ embedding, query, count = 10, tableName, roomId, worldId, entityId, match_threshold }) {
    const req = { k: Math.min(count, 100), filters: defined({ type: [typeOf(tableName)], roomId, worldId, entityId }) };
    if (query) req.query = query;
    else req.embedding = embedding;
    if (match_threshold) req.threshold = match_threshold;
    const res = await this.client.search(req);
    return res.results
      .filter((r) => r.memory.metadata?.elizaTable === tableName)
      .map((r) => ({ ...fromAgentMem(r.memory), similarity: r.score }));
  }

  async updateMemory(memory) {
    const cur = await this.getMemoryById(memory.id);
    if (!cur) return false;
    const next = { ...cur, ...memory, content: memory.content ?? cur.content, metadata: { ...cur.metadata, ...memory.metadata } };
    await this.client.putByKey(memory.id, toNew(next, cur.metadata?.tableName ?? "messages", cur.unique));
    return true;
  }

  async deleteMemory(id) {
    const m = await this.find(id);
    if (m) await this.client.delete(m.id).catch((e) => { if (!isNotFound(e)) throw e; });
  }

  async deleteManyMemories(ids) {
    for (const id of ids) await this.deleteMemory(id);
  }

  async deleteAllMemories(roomId, tableName) {
    const ids = (await this.getMemories({ tableName, roomId })).map((m) => m.id);
    await this.deleteManyMemories(ids);
  }

  async countMemories(roomId, unique, tableName = "messages") {
    if (!unique && TABLE_TYPES[tableName]) return this.client.count({ roomId, type: typeOf(tableName) });
    return (await this.getMemories({ tableName, roomId, unique })).length;
  }

  // Entities.

  async createEntities(entities) {
    for (const e of entities) await this.client.createEntity(defined({ id: e.id, names: e.names, metadata: e.metadata }));
    return true;
  }

  async getEntitiesByIds(ids) {
    const all = await Promise.all(ids.map((id) => orNull(this.client.getEntity(id))));
    return all.filter(Boolean).map((e) => ({ id: e.id, names: e.names ?? [], metadata: e.metadata ?? {}, agentId: e.agentId }));
  }

  async getEntitiesForRoom(roomId) {
    return this.getEntitiesByIds(await this.getParticipantsForRoom(roomId));
  }

  async updateEntity(e) {
    await this.client.updateEntity(e.id, defined({ names: e.names, metadata: e.metadata }));
  }

  // Worlds.

  async createWorld(w) {
    const id = w.id ?? randomUUID();
    await this.client.createWorld(defined({ id, name: w.name, serverId: w.messageServerId ?? w.serverId, metadata: w.metadata }));
    return id;
  }

  async getWorld(id) {
    const w = await orNull(this.client.getWorld(id));
    return w && fromWorld(w);
  }

  async getAllWorlds() {
    return (await pages((cursor) => this.client.listWorlds({ cursor, limit: 1000 }), "worlds")).map(fromWorld);
  }

  async updateWorld(w) {
    await this.client.updateWorld(w.id, defined({ name: w.name, metadata: w.metadata }));
  }

  async removeWorld(id) {
    await this.client.deleteWorld(id);
  }

  // Rooms.

  async createRooms(rooms) {
    const ids = [];
    for (const r of rooms) {
      const id = r.id ?? randomUUID();
      const metadata = { ...r.metadata, ...defined({ channelId: r.channelId, messageServerId: r.messageServerId }) };
      await this.client.createRoom(defined({ id, name: r.name, worldId: r.worldId, source: r.source, type: r.type, metadata }));
      ids.push(id);
    }
    return ids;
  }

  async getRoomsByIds(ids) {
    const all = await Promise.all(ids.map((id) => orNull(this.client.getRoom(id))));
    return all.filter(Boolean).map(fromRoom);
  }

  async getRoomsByWorld(worldId) {
    return (await pages((cursor) => this.client.listRooms({ worldId, cursor, limit: 1000 }), "rooms")).map(fromRoom);
  }

  async updateRoom(r) {
    await this.client.updateRoom(r.id, defined({ name: r.name, worldId: r.worldId, source: r.source, type: r.type, metadata: r.metadata }));
  }

  async deleteRoom(id) {
    await this.client.deleteRoom(id);
  }

  async deleteRoomsByWorldId(worldId) {
    for (const r of await this.getRoomsByWorld(worldId)) await this.deleteRoom(r.id);
  }

  // Participants.

  async addParticipantsRoom(entityIds, roomId) {
    for (const id of entityIds) await this.client.addParticipant(roomId, id);
    return true;
  }

  async removeParticipant(entityId, roomId) {
    await this.client.removeParticipant(roomId, entityId);
    return true;
  }

  async getParticipantsForRoom(roomId) {
    const p = await orNull(this.client.listParticipants(roomId));
    return p?.participants ?? [];
  }

  async isRoomParticipant(roomId, entityId) {
    return (await this.getParticipantsForRoom(roomId)).includes(entityId);
  }

  async getRoomsForParticipant(entityId) {
    return this.getRoomsForParticipants([entityId]);
  }

  async getRoomsForParticipants(entityIds) {
    const rooms = await pages((cursor) => this.client.listRooms({ cursor, limit: 1000 }), "rooms");
    return rooms.filter((r) => (r.participants ?? []).some((p) => entityIds.includes(p))).map((r) => r.id);
  }

  async getParticipantsForEntity(entityId) {
    return (await this.getRoomsForParticipant(entityId)).map((roomId) => ({ id: `${roomId}:${entityId}`, entity: { id: entityId }, roomId }));
  }
}

/** An ElizaOS memory as a put-by-key body: the whole ElizaOS content and metadata kept in agentmem's metadata. */
function toNew(m, tableName, unique) {
  return defined({
    type: typeOf(tableName),
    content: { text: m.content?.text || "(no text)" },
    entityId: m.entityId,
    roomId: m.roomId,
    worldId: m.worldId,
    createdAt: m.createdAt,
    metadata: defined({ elizaId: m.id, elizaTable: tableName, elizaUnique: unique || m.unique || undefined, elizaContent: m.content, elizaMetadata: m.metadata }),
  });
}

/** An agentmem memory as ElizaOS's Memory. */
export function fromAgentMem(m) {
  const md = m.metadata ?? {};
  return defined({
    id: m.externalId ?? m.id,
    entityId: m.entityId,
    agentId: m.agentId,
    roomId: m.roomId,
    worldId: m.worldId,
    content: md.elizaContent ?? m.content,
    createdAt: m.createdAt,
    unique: Boolean(md.elizaUnique),
    metadata: { ...md.elizaMetadata, tableName: md.elizaTable },
  });
}

const fromWorld = (w) => defined({ id: w.id, name: w.name, agentId: w.agentId, messageServerId: w.serverId, metadata: w.metadata ?? {} });
const fromRoom = (r) => defined({
  id: r.id, name: r.name, worldId: r.worldId, source: r.source ?? "agentmem", type: r.type, agentId: r.agentId,
  channelId: r.metadata?.channelId, messageServerId: r.metadata?.messageServerId, metadata: r.metadata,
});

/** Every item of a paged registry listing. */
async function pages(list, field) {
  const out = [];
  let cursor;
  do {
    const page = await list(cursor);
    out.push(...(page[field] ?? []));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
