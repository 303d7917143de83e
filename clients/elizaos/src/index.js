// agentmem for ElizaOS (1.7): a plugin whose database adapter serves the
// agent's memories, entities, rooms, worlds and participants from agentmem,
// with REMEMBER, RECALL and FORGET actions and an AGENTMEM_CONTEXT provider.

import { AgentMemDatabaseAdapter } from "./adapter.js";

export { AgentMemDatabaseAdapter, TABLE_TYPES, fromAgentMem } from "./adapter.js";
export { InMemoryDelegate } from "./delegate.js";

const text = (message) => (message?.content?.text ?? "").trim();
// The words after the verb: "remember that X" → "X".
const after = (s, verbs) => s.replace(new RegExp(`^\\s*(${verbs})\\b[:,]?\\s*(that\\s+)?`, "i"), "").trim();

/**
 * The plugin: give it an AgentMemClient (an agent's key) and the delegate
 * adapter for what agentmem does not keep (plugin-sql's, or InMemoryDelegate).
 * @param {{ client: import("@agentmem/client").AgentMemClient, delegate: object, budgetTokens?: number }} opts
 */
export function agentmemPlugin({ client, delegate, budgetTokens }) {
  const reply = async (callback, t, data) => {
    if (callback) await callback({ text: t });
    return { success: true, text: t, data };
  };
  return {
    name: "agentmem",
    description: "Long-term memory in agentmem: memories, entities, rooms and worlds, recall and a context provider",
    adapter: new AgentMemDatabaseAdapter({ client, delegate }),
    actions: [
      {
        name: "REMEMBER",
        similes: ["SAVE_MEMORY", "NOTE"],
        description: "Store a fact the user asks to be remembered.",
        validate: async (_rt, message) => /^\s*(remember|note)\b/i.test(text(message)),
        handler: async (_rt, message, _state, _opts, callback) => {
          const fact = after(text(message), "remember|note");
          const r = await client.create(Object.fromEntries(Object.entries({
            content: { text: fact }, type: "fact", roomId: message.roomId, entityId: message.entityId, worldId: message.worldId,
          }).filter(([, v]) => v)));
          return reply(callback, `I'll remember: ${fact}`, { id: r.id });
        },
        examples: [],
      },
      {
        name: "RECALL",
        similes: ["SEARCH_MEMORY"],
        description: "Search long-term memory for the user's question.",
        validate: async (_rt, message) => /^\s*(recall|what do you remember)\b/i.test(text(message)),
        handler: async (_rt, message, _state, _opts, callback) => {
          const query = after(text(message), "recall|what do you remember( about)?") || text(message);
          const res = await client.search({ query, k: 5, filters: message.roomId ? { roomId: message.roomId } : undefined });
          const lines = res.results.map((r, i) => `${i + 1}. ${r.memory.content.text}`).join("\n");
          return reply(callback, lines || "I remember nothing about that.", { ids: res.results.map((r) => r.memory.id) });
        },
        examples: [],
      },
      {
        name: "FORGET",
        similes: ["ERASE_MEMORY"],
        description: "Forget the memory that best matches what the user asks to forget.",
        validate: async (_rt, message) => /^\s*forget\b/i.test(text(message)),
        handler: async (_rt, message, _state, _opts, callback) => {
          const query = after(text(message), "forget");
          const res = await client.search({ query, k: 1, filters: { type: ["fact"] } });
          const hit = res.results[0]?.memory;
          if (!hit) return reply(callback, "I had nothing like that to forget.", {});
          await client.delete(hit.id);
          return reply(callback, `Forgotten: ${hit.content.text}`, { id: hit.id });
        },
        examples: [],
      },
    ],
    providers: [
      {
        name: "AGENTMEM_CONTEXT",
        description: "What agentmem remembers that bears on the current message",
        get: async (_rt, message) => {
          const query = text(message);
          if (!query) return { text: "" };
          const ctx = await client.context(Object.fromEntries(Object.entries({ query, roomId: message.roomId, budgetTokens }).filter(([, v]) => v)));
          return { text: ctx.context, values: { agentmemContext: ctx.context }, data: { sections: ctx.sections } };
        },
      },
    ],
  };
}
