// Every operation of the OpenAPI document has a method of AgentMemClient,
// except those the document marks x-agentmem-no-client (a page, a script,
// MCP). An operation's method is its operationId, a leading patch becoming
// update, unless ALIASES names it otherwise. The Go
// (pkg/client/coverage_test.go) and Python (clients/python/tests/
// test_coverage.py) clients keep the same rule in their own styles. Needs
// no server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { AgentMemClient } from "../src/index.js";

// From dist/test/, where the compiled test runs.
const OPENAPI = new URL("../../../../pkg/transport/contract/openapi.json", import.meta.url);

/** The leading verbs the client names otherwise: a PATCH is an update. */
const VERBS: Record<string, string> = { patch: "update" };

/** The operations whose method is named otherwise, each with its reason. */
const ALIASES: Record<string, string> = {
  health: "healthz", // after its path, /v1/healthz
  createMemories: "create", // memories are the client's noun (createBatch sends several)
  listMemories: "list", // one page; memories() iterates over all of them
  countMemories: "count", // memories are the client's noun
  deleteMemories: "deleteWhere", // deletes what a filter selects, beside delete of one id
  getMemory: "get", // memories are the client's noun
  patchMemory: "update", // memories are the client's noun
  deleteMemory: "delete", // memories are the client's noun
  putMemoryByKey: "putByKey", // memories are the client's noun
  getMemoryByKey: "getByKey", // as putByKey
  deleteMemoryByKey: "deleteByKey", // as putByKey
  memoryRelations: "listRelations", // as listEntities, listRooms...
  exportMemories: "export", // memories are the client's noun
  createDocument: "uploadDocument", // the client sends the document's bytes
};

/** The name of an operation's method in the TypeScript client. */
function tsMethod(operationId: string): string {
  if (operationId in ALIASES) return ALIASES[operationId]!;
  for (const [verb, method] of Object.entries(VERBS)) {
    const rest = operationId.slice(verb.length);
    if (operationId.startsWith(verb) && /^[A-Z]/.test(rest)) return method + rest;
  }
  return operationId;
}

type Operation = { id: string; route: string; noClient: string };

function operations(): Operation[] {
  const doc = JSON.parse(readFileSync(OPENAPI, "utf8")) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "put", "post", "delete", "patch", "head", "options", "trace"].includes(method)) continue;
      out.push({ id: op.operationId as string, route: `${method.toUpperCase()} ${path}`, noClient: (op["x-agentmem-no-client"] as string) ?? "" });
    }
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

test("every OpenAPI operation has a method", () => {
  const proto = AgentMemClient.prototype as unknown as Record<string, unknown>;
  const missing: string[] = [];
  let covered = 0;
  for (const o of operations()) {
    if (o.noClient) continue;
    const name = tsMethod(o.id);
    if (typeof proto[name] !== "function") missing.push(`${o.id} (${o.route}): want AgentMemClient.${name}`);
    else covered++;
  }
  console.log(`AgentMemClient: ${covered} operations with a method, ${missing.length} missing`);
  assert.deepEqual(missing, [], "no method:\n" + missing.join("\n"));
});

test("the aliases name operations the clients cover", () => {
  const ids = new Set(operations().filter((o) => !o.noClient).map((o) => o.id));
  assert.deepEqual(Object.keys(ALIASES).filter((id) => !ids.has(id)), []);
});

test("one naming style: methods are camelCase", () => {
  const names = Object.getOwnPropertyNames(AgentMemClient.prototype).filter((n) => n !== "constructor");
  assert.deepEqual(names.filter((n) => !/^[a-z][a-zA-Z0-9]*$/.test(n)), []);
});

test("the naming rule", () => {
  for (const [id, want] of [["getEntity", "getEntity"], ["patchRoom", "updateRoom"], ["whoami", "whoami"],
    ["getMemory", "get"], ["patchy", "patchy"], ["importMemories", "importMemories"]]) {
    assert.equal(tsMethod(id!), want, id);
  }
});
