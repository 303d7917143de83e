// agentmem: the TypeScript client of the agentmem long-term memory service.
export { AgentMemClient } from "./client.js";
export type { ClientOptions, RequestOptions, UpdateOptions } from "./client.js";
export * from "./errors.js";
export type * from "./types.js";
