// InMemoryDelegate: the rest of ElizaOS's database adapter (agents, cache,
// tasks, logs, components, relationships, participant states) in memory, for
// tests and a quick start. In production give AgentMemDatabaseAdapter the
// adapter of @elizaos/plugin-sql instead; this one forgets on restart.

import { randomUUID } from "node:crypto";

export class InMemoryDelegate {
  agents = new Map();
  cache = new Map();
  tasks = new Map();
  logs = [];
  components = new Map();
  relationships = new Map();
  states = new Map();
  db = this;

  async init() {}
  async initialize() {}
  async isReady() { return true; }
  async close() {}
  async getConnection() { return this; }
  async ensureEmbeddingDimension() {}
  async runPluginMigrations() {}
  async withEntityContext(_id, fn) { return fn(); }

  async getAgent(id) { return this.agents.get(id) ?? null; }
  async getAgents() { return [...this.agents.values()]; }
  async createAgent(a) { this.agents.set(a.id, { ...a }); return true; }
  async updateAgent(id, a) { this.agents.set(id, { ...this.agents.get(id), ...a }); return true; }
  async deleteAgent(id) { return this.agents.delete(id); }

  async getCache(k) { return this.cache.get(k); }
  async setCache(k, v) { this.cache.set(k, v); return true; }
  async deleteCache(k) { return this.cache.delete(k); }

  async createTask(t) { const id = t.id ?? randomUUID(); this.tasks.set(id, { ...t, id }); return id; }
  async getTasks({ roomId, tags, entityId } = {}) {
    return [...this.tasks.values()].filter((t) => (!roomId || t.roomId === roomId) && (!entityId || t.entityId === entityId) &&
      (!tags || tags.every((g) => t.tags?.includes(g))));
  }
  async getTask(id) { return this.tasks.get(id) ?? null; }
  async getTasksByName(name) { return [...this.tasks.values()].filter((t) => t.name === name); }
  async updateTask(id, t) { this.tasks.set(id, { ...this.tasks.get(id), ...t }); }
  async deleteTask(id) { this.tasks.delete(id); }

  async log(p) { this.logs.push({ id: randomUUID(), createdAt: new Date(), ...p }); }
  async getLogs({ entityId, roomId, type, count, offset = 0 } = {}) {
    return this.logs.filter((l) => (!entityId || l.entityId === entityId) && (!roomId || l.roomId === roomId) && (!type || l.type === type))
      .slice(offset, count === undefined ? undefined : offset + count);
  }
  async deleteLog(id) { this.logs = this.logs.filter((l) => l.id !== id); }

  async getComponent(entityId, type, worldId, sourceEntityId) {
    return [...this.components.values()].find((c) => c.entityId === entityId && c.type === type &&
      (!worldId || c.worldId === worldId) && (!sourceEntityId || c.sourceEntityId === sourceEntityId)) ?? null;
  }
  async getComponents(entityId) { return [...this.components.values()].filter((c) => c.entityId === entityId); }
  async createComponent(c) { this.components.set(c.id, c); return true; }
  async updateComponent(c) { this.components.set(c.id, c); }
  async deleteComponent(id) { this.components.delete(id); }

  async createRelationship(r) { const id = randomUUID(); this.relationships.set(id, { id, ...r }); return true; }
  async updateRelationship(r) { this.relationships.set(r.id, r); }
  async getRelationship({ sourceEntityId, targetEntityId }) {
    return [...this.relationships.values()].find((r) => r.sourceEntityId === sourceEntityId && r.targetEntityId === targetEntityId) ?? null;
  }
  async getRelationships({ entityId }) {
    return [...this.relationships.values()].filter((r) => r.sourceEntityId === entityId || r.targetEntityId === entityId);
  }

  async getParticipantUserState(roomId, entityId) { return this.states.get(`${roomId}:${entityId}`) ?? null; }
  async setParticipantUserState(roomId, entityId, state) { this.states.set(`${roomId}:${entityId}`, state); }

  async getCachedEmbeddings() { return []; }
}
