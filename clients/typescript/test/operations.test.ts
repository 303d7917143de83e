// The operations the coverage test holds the client to, over the wire
// (scripts/clients-test.sh): history, erasure with its audit entry, export
// and import, whoami, a registry, a workstream and the admin calls. The
// suites share one org: each test looks for its own unique marker.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { APIError, AgentMemClient, AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError } from "../src/index.js";
import type { AuditEntry } from "../src/index.js";

const URL_ = process.env.AGENTMEM_URL;
const KEY_ORG_A = "clients-test-org-a-key-0001";
const KEY_AGENT_X = "clients-test-agent-x-key-001";
const KEY_ORG_B = "clients-test-org-b-key-0001";
const skip = URL_ ? false : "AGENTMEM_URL is not set: run scripts/clients-test.sh";
const client = (apiKey: string) => new AgentMemClient({ baseUrl: URL_!, apiKey });
const uniq = () => randomUUID().slice(0, 12);

test("memory history, by key", { skip }, async () => {
  const org = client(KEY_ORG_A);
  const u = uniq();
  const key = "history-" + u;
  const { memory: m, created } = await org.putByKey(key, "first words " + u);
  assert.ok(created);
  await org.update(m.id, { content: { text: "second words " + u } });
  await org.archiveMemory(m.id, "coverage test");
  await org.restoreMemory(m.id);
  const h = await org.memoryHistory(m.id);
  assert.equal(h.id, m.id);
  assert.deepEqual(h.versions.map((v) => v.op), ["create", "update", "archive", "restore"]);
  assert.equal(h.versions[0]!.memory!.content.text, "first words " + u);
  await org.deleteByKey(key);
  await assert.rejects(org.memoryHistory(m.id), NotFoundError);
});

test("forget, and its audit entry", { skip }, async () => {
  const org = client(KEY_ORG_A);
  const session = "forget-" + uniq();
  for (const text of ["the locker code is 4411 " + session, "the spare key is under the mat " + session]) {
    await org.create({ type: "message", sessionId: session, entityId: "dana", content: { text } });
  }
  const report = await org.forget({ sessionId: session });
  assert.equal(report.memories, 2);
  assert.ok(report.auditId);
  assert.equal(await org.count({ sessionId: session }), 0);
  await assert.rejects(org.forget({}), BadRequestError);
  let mine: AuditEntry | undefined;
  let cursor: string | undefined;
  for (let i = 0; i < 20 && !mine; i++) {
    const page = await org.auditLog({ limit: 50, cursor });
    mine = (page.entries ?? []).find((e) => e.id === report.auditId);
    if (!(cursor = page.nextCursor)) break;
  }
  assert.ok(mine, "the erasure's audit entry");
  assert.deepEqual([mine.orgId, mine.report.memories], ["org-a", 2]);
});

test("export from one org, import into another", { skip }, async () => {
  const [a, b] = [client(KEY_ORG_A), client(KEY_ORG_B)];
  const u = uniq();
  const texts = ["the harbour ferry leaves at nine " + u, "the lighthouse keeper is Ines " + u];
  for (const text of texts) await a.create({ type: "fact", content: { text } });
  const lines = (await a.export()).filter((l) => l.kind === "memory" && l.memory!.content.text.includes(u));
  assert.equal(lines.length, 2);
  const report = await b.importMemories(lines);
  assert.deepEqual([report.lines, report.memories.created, report.errors.length], [2, 2, 0]);
  const again = await b.importMemories(lines.map((l) => JSON.stringify(l) + "\n").join(""));
  assert.equal(again.memories.created, 0);
  assert.equal(again.memories.existing + (again.memories.duplicate ?? 0), 2);
  const hits = (await b.search({ query: texts[1]!, mode: "keyword", k: 5 })).results;
  assert.equal(hits[0]?.memory.content.text, texts[1]);
  assert.equal(hits[0]?.memory.orgId, "org-b");
});

test("whoami and the document", { skip }, async () => {
  const me = await client(KEY_ORG_A).whoami();
  assert.equal(me.orgId, "org-a");
  assert.equal(me.agentId, undefined);
  assert.ok(me.grants.includes("admin"));
  assert.equal((await client(KEY_AGENT_X).whoami()).agentId, "x");
  assert.match(String((await client(KEY_ORG_A).openapi()).openapi), /^3\.1\./);
});

test("a registry and a workstream", { skip }, async () => {
  const x = client(KEY_AGENT_X);
  const u = uniq();
  const e = await x.createEntity({ id: "ent-" + u, names: ["Ines " + u] });
  assert.deepEqual((await x.getEntity(e.id)).names, ["Ines " + u]);
  const upd = await x.updateEntity(e.id, { names: ["Ines " + u, "the keeper"] }, { ifMatch: e.version });
  assert.equal(upd.names[1], "the keeper");
  await x.deleteEntity(e.id);
  await assert.rejects(x.getEntity(e.id), NotFoundError);

  const ws = await x.createWorkstream({ id: "ws-" + u, name: "launch", limit: 5 });
  const block = await x.appendWorkstreamEntry(ws.id, { role: "plan", text: "ship the beta on friday " + u });
  assert.deepEqual(block.entries!.map((en) => en.text), ["ship the beta on friday " + u]);
  assert.ok((await x.listWorkstreams({ limit: 100 })).workstreams!.some((w) => w.id === ws.id));
  await x.deleteWorkstream(ws.id);
});

test("admin: keys and usage", { skip }, async () => {
  const org = client(KEY_ORG_A);
  const name = "coverage-" + uniq();
  const made = await org.createKey({ name, agentId: "x", grants: ["read"] });
  assert.ok(made.secret.startsWith(made.key.prefix));
  assert.equal(made.key.orgId, "org-a");
  assert.ok((await org.listKeys()).some((k) => k.id === made.key.id && k.name === name));
  const fresh = client(made.secret);
  const me = await fresh.whoami();
  assert.deepEqual([me.agentId, me.grants], ["x", ["read"]]);
  await assert.rejects(fresh.listKeys(), PermissionDeniedError);
  assert.ok((await org.revokeKey(made.key.id)).revokedAt);
  await assert.rejects(fresh.whoami(), AuthenticationError);
  const usage = await org.usage();
  assert.equal(usage.orgId, "org-a");
  assert.ok(usage.limits.memories > 0);
});

test("admin: extraction settings and consolidation", { skip }, async () => {
  // Org B's: the suites that share the server keep their data in org A.
  const b = client(KEY_ORG_B);
  const cur = await b.getExtractionSettings();
  const want = { ...cur.settings, instructions: "coverage " + uniq(), providedKeys: { Ticket: "subject", assignee: "to" } as const };
  const put = await b.putExtractionSettings(want, { ifMatch: cur.version });
  assert.equal(put.settings.instructions, want.instructions);
  assert.deepEqual(put.settings.providedKeys, { ticket: "subject", assignee: "to" }); // stored in lower case
  assert.ok(put.version > cur.version);
  await assert.rejects(b.putExtractionSettings(want, { ifMatch: put.version + 5 }), (e) => e instanceof APIError && e.isStale);
  const run = await b.consolidate();
  assert.equal(run.orgId, "org-b");
  assert.ok((await b.lastConsolidation()).startedAt >= run.startedAt);
});
