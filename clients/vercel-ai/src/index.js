// agentmem for the Vercel AI SDK (ai 5): memory tools a model calls
// (remember, recall, getContext) and a middleware that puts the context for
// the user's last message in front of every call.

import { tool } from "ai";
import { z } from "zod";

/**
 * @typedef {import("@agentmem/client").AgentMemClient} AgentMemClient
 * @typedef {{ roomId?: string, userId?: string, worldId?: string }} Serving whom reads and writes serve
 */

/**
 * The memory tools: remember (stores a fact), recall (ranks memories for a
 * query, numbered lines with ids) and getContext (the prompt context itself).
 * serving (roomId, userId, worldId) applies to every call, so a model cannot
 * reach another room's or user's memories by naming them.
 * @param {AgentMemClient} client
 * @param {Serving & { k?: number, budgetTokens?: number }} [opts]
 */
export function memoryTools(client, opts = {}) {
  const { k = 5, budgetTokens, ...serving } = opts;
  const filters = clean(serving);
  return {
    remember: tool({
      description: "Store a fact worth remembering about the user or the conversation, in one sentence.",
      inputSchema: z.object({ text: z.string().min(1).describe("The fact, one self-contained sentence.") }),
      execute: async ({ text }) => {
        const r = await client.create({ content: { text }, type: "fact", ...filters });
        return { id: r.id, stored: text };
      },
    }),
    recall: tool({
      description: "Search long-term memory for what is relevant to a query.",
      inputSchema: z.object({ query: z.string().min(1), k: z.number().int().min(1).max(20).optional() }),
      execute: async ({ query, k: n }) => {
        const res = await client.search({ query, k: n ?? k, filters });
        return res.results.map((r, i) => `${i + 1}. [${r.memory.id}] ${r.memory.content.text}`).join("\n") || "(nothing remembered)";
      },
    }),
    getContext: tool({
      description: "Get the assembled memory context (facts, recent turns, entities) for a query.",
      inputSchema: z.object({ query: z.string().min(1) }),
      execute: async ({ query }) => (await client.context({ query, budgetTokens, ...filters })).context,
    }),
  };
}

/**
 * A language model middleware that asks agentmem for the context of the
 * prompt's last user message and adds it as a system message before the
 * conversation. A call with no user text goes through unchanged.
 * @param {AgentMemClient} client
 * @param {Serving & { budgetTokens?: number, header?: string }} [opts]
 * @returns {import("ai").LanguageModelMiddleware}
 */
export function memoryMiddleware(client, opts = {}) {
  const { budgetTokens, header = "What you remember (long-term memory):", ...serving } = opts;
  return {
    transformParams: async ({ params }) => {
      const query = lastUserText(params.prompt);
      if (!query) return params;
      const { context } = await client.context({ query, budgetTokens, ...clean(serving) });
      if (!context.trim()) return params;
      return { ...params, prompt: [{ role: "system", content: `${header}\n${context}` }, ...params.prompt] };
    },
  };
}

/** The text of the prompt's last user message, "" when there is none. */
export function lastUserText(prompt) {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i];
    if (m.role !== "user") continue;
    return m.content.filter((p) => p.type === "text").map((p) => p.text).join("\n").trim();
  }
  return "";
}

function clean(o) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ""));
}
