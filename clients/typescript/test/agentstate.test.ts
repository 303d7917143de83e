// Agent state against the real memoryd (scripts/clients-test.sh):
// workstreams, relations, restore, and the context's providers and cache.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { AgentMemClient, NotFoundError } from "../src/index.js";

const URL_ = process.env.AGENTMEM_URL;
const KEY_AGENT_X = "clients-test-agent-x-key-001";
const KEY_AGENT_Y = "clients-test-agent-y-key-001";
const KEY_ORG_B = "clients-test-org-b-key-0001";
const skip = URL_ ? false : "AGENTMEM_URL is not set: run scripts/clients-test.sh";
const client = (apiKey: string) => new AgentMemClient({ baseUrl: URL_!, apiKey });
const uniq = () => randomUUID().slice(0, 12);

test("workstreams: create, append past the limit, get, list, isolation, context, delete", { skip }, async () => {
  const x = client(KEY_AGENT_X);
  const id = "ws-" + uniq();
  const created = await x.createWorkstream({ id, name: "Launch", limit: 5 });
  assert.deepEqual([created.id, created.limit, created.visibility], [id, 5, "agent"]);
  let block = created;
  for (const [i, text] of ["ship on Friday", "freeze the schema", "book the room", "print the badges", "order the cake", "test the demo"].entries()) {
    block = await x.appendWorkstreamEntry(id, { role: "chief", text, importance: i === 0 ? 0.9 : undefined });
  }
  assert.ok(block.entries!.length <= 5);
  assert.equal(block.entries!.at(-1)!.text, "test the demo");
  const got = await x.getWorkstream(id);
  assert.ok(got.history.length > 0);
  assert.ok((await x.listWorkstreams({ limit: 1000 })).workstreams!.some((w) => w.id === id));
  for (const key of [KEY_AGENT_Y, KEY_ORG_B]) {
    await assert.rejects(client(key).getWorkstream(id), NotFoundError);
  }
  const ctx = await x.context({ query: "", workstreamId: id, providers: ["block"], budgetTokens: 600, reserveTokens: 500 });
  assert.deepEqual(ctx.sections!.map((s) => s.provider), ["block"]);
  assert.ok(ctx.usedTokens <= 100 && ctx.context.includes("test the demo"));
  await x.deleteWorkstream(id);
  await assert.rejects(x.getWorkstream(id), NotFoundError);
});

test("relations, archive and restore, and the context's cache", { skip }, async () => {
  const x = client(KEY_AGENT_X);
  const u = uniq();
  const a = (await x.create({ type: "fact", content: { text: `the launch is Friday ${u}` } })).id;
  const v = (await x.create({ type: "fact", content: { text: `the venue holds forty ${u}` } })).id;
  const rel = await x.createRelation({ fromId: a, toId: v, type: "depends_on" });
  assert.ok(rel.id);
  assert.equal(rel.confidence, 1);
  await assert.rejects(client(KEY_AGENT_Y).createRelation({ fromId: v, toId: a, type: "supports" }), NotFoundError);
  assert.deepEqual((await x.listRelations(a)).map((r) => r.id), [rel.id]);
  await x.deleteRelation(rel.id!);
  assert.deepEqual(await x.listRelations(a), []);

  assert.equal((await x.archiveMemory(v, "stale")).archived, true);
  assert.equal((await x.restoreMemory(v)).archived, false);

  const req = { query: `when is the launch ${u}`, budgetTokens: 800, reserveTokens: 500,
    providers: ["core", "facts", "recent"] as ("core" | "facts" | "recent")[], messageId: "msg-" + u };
  const first = await x.context(req);
  assert.deepEqual(first.sections!.map((s) => s.provider), ["core", "facts", "recent"]);
  assert.ok(first.usedTokens <= 300 && !first.cached);
  assert.equal((await x.context(req)).cached, true);
  await x.create({ content: { text: `a write ${u}` } });
  assert.ok(!(await x.context(req)).cached);
});
