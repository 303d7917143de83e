// The client against the real memoryd: scripts/clients-test.sh starts it
// and sets AGENTMEM_URL (and AGENTMEM_LIMITED_URL, a server limited to one
// request a second per key).
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  AgentMemClient, APIError, AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError, RateLimitError,
} from "../src/index.js";
import type { SearchMode } from "../src/index.js";

const URL_ = process.env.AGENTMEM_URL;
const LIMITED_URL = process.env.AGENTMEM_LIMITED_URL;
const KEY_ORG_A = "clients-test-org-a-key-0001";
const KEY_AGENT_X = "clients-test-agent-x-key-001";
const KEY_AGENT_Y = "clients-test-agent-y-key-001";
const KEY_ORG_B = "clients-test-org-b-key-0001";
const KEY_LIMITED = "clients-test-limited-key-01";

const skip = URL_ ? false : "AGENTMEM_URL is not set: run scripts/clients-test.sh";
const client = (apiKey: string) => new AgentMemClient({ baseUrl: URL_!, apiKey });
/** A token unique to the test, so suites sharing a server never deduplicate each other. */
const uniq = () => randomUUID().slice(0, 12);

test("memory lifecycle: create, duplicate, get, conditional update, delete", { skip }, async () => {
  const mem = client(KEY_ORG_A);
  const u = uniq();
  const text = `Dana prefers jasmine tea in the afternoon ${u}`;
  const res = await mem.create({ type: "fact", kind: "preference", importance: 0.8, entityId: "dana",
    content: { text }, metadata: { source: "onboarding" } });
  assert.ok(res.id);
  assert.equal(res.duplicate, false);
  assert.deepEqual(await mem.create({ type: "fact", content: { text: text.toUpperCase() } }), { id: res.id, duplicate: true });

  const m = await mem.get(res.id);
  assert.deepEqual([m.content.text, m.type, m.kind, m.importance, m.orgId, m.metadata],
    [text, "fact", "preference", 0.8, "org-a", { source: "onboarding" }]);
  const updated = await mem.update(m.id, { content: { text: `Dana prefers green tea now ${u}` } }, { ifMatch: m.version });
  assert.equal(updated.version, m.version + 1);
  await assert.rejects(mem.update(m.id, { importance: 0.1 }, { ifMatch: m.version }),
    (e: unknown) => e instanceof APIError && e.isStale && (e.status === 409 || e.status === 412));
  assert.equal((await mem.get(m.id)).importance, 0.8);

  await mem.delete(m.id);
  await assert.rejects(mem.get(m.id), (e: unknown) =>
    e instanceof NotFoundError && e.code === "not_found" && e.status === 404 && !!e.requestId);
});

test("batch, list pages and the iterator, count, bulk delete", { skip }, async () => {
  const mem = client(KEY_ORG_A);
  const room = `room-${uniq()}`;
  const res = await mem.createBatch(Array.from({ length: 7 }, (_, i) => ({
    type: "message" as const, roomId: room, entityId: "dana", content: { text: `turn ${i} of the pagination test` } })));
  const ids = new Set(res.map((r) => r.id));
  assert.equal(ids.size, 7);
  assert.ok(res.every((r) => !r.duplicate));
  const page = await mem.list({ roomId: room, limit: 3 });
  assert.equal(page.memories.length, 3);
  assert.ok(page.nextCursor);
  const seen: string[] = [];
  for await (const m of mem.memories({ roomId: room, type: ["message"], limit: 3 })) seen.push(m.id);
  assert.equal(seen.length, 7);
  assert.deepEqual(new Set(seen), ids);
  assert.equal(await mem.count({ roomId: room }), 7);
  assert.equal(await mem.deleteWhere({ roomId: room }), 7);
  assert.equal(await mem.count({ roomId: room }), 0);
});

test("search modes carry each list's score and rank", { skip }, async (t) => {
  const mem = client(KEY_ORG_A);
  const u = uniq();
  const room = `search-${u}`;
  const target = await mem.create({ type: "fact", roomId: room, content: { text: `Priya's favourite food is margherita pizza ${u}` } });
  await mem.create({ type: "fact", roomId: room, content: { text: `The quarterly report is due on Friday ${u}` } });
  const cases: [SearchMode | undefined, string[]][] = [
    ["keyword", ["keyword"]], ["semantic", ["semantic"]], ["hybrid", ["keyword", "semantic"]], [undefined, ["keyword", "semantic"]],
  ];
  for (const [mode, lists] of cases) {
    await t.test(`mode=${mode ?? "default"}`, async () => {
      const res = await mem.search({ query: "favourite food margherita pizza", mode, k: 5, filters: { roomId: room } });
      const top = res.results[0];
      assert.equal(top.memory.id, target.id);
      assert.ok(top.score > 0);
      for (const l of lists) {
        assert.ok(res.lists?.includes(l), `lists ${res.lists}`);
        assert.equal(top.scores?.[l]?.rank, 1, `${l}: ${JSON.stringify(top.scores)}`);
      }
    });
  }
  await assert.rejects(mem.search({ query: "pizza", k: 1000 }),
    (e: unknown) => e instanceof BadRequestError && e.code === "invalid" && e.status === 400 && e.detail.includes("k"));
});

test("messages and the prompt context", { skip }, async () => {
  const mem = client(KEY_ORG_A);
  const u = uniq();
  const room = `chat-${u}`;
  const res = await mem.addMessages([
    { roomId: room, entityId: "dana", content: { text: `My flight to Lisbon leaves Friday ${u}` } },
    { roomId: room, entityId: "agent", content: { text: "Noted, I will remind you Thursday." } },
  ]);
  const turns = res.memories ?? [];
  assert.equal(turns.length, 2);
  assert.equal(res.extractionQueued, true);
  assert.equal((await mem.get(turns[0].id)).type, "message");
  await assert.rejects(mem.addMessages([{ roomId: room, content: { text: "no speaker" } }]),
    (e: unknown) => e instanceof BadRequestError && e.detail.includes("entityId"));
  const ctx = await mem.context({ query: "when does the Lisbon flight leave", roomId: room, budgetTokens: 500 });
  assert.ok(ctx.context.includes(`Lisbon leaves Friday ${u}`));
  assert.ok(ctx.usedTokens > 0 && ctx.usedTokens <= 500);
  assert.ok((ctx.sections ?? []).some((s) => (s.items ?? []).some((i) => i.id === turns[0].id)));
});

test("knowledge search by expression and by question", { skip }, async () => {
  const mem = client(KEY_ORG_A);
  const room = `kn-${uniq()}`;
  const res = await mem.create({ type: "message", roomId: room, entityId: "ana", content: { text: "We are hiking the Dolomites in September" } });
  const byExpr = await mem.knowledgeSearch({ query: { select: { entity: { name: "Dolomites" } } }, filters: { roomId: room } });
  assert.equal(byExpr.memories?.[0]?.memory.id, res.id);
  assert.ok((byExpr.entities ?? []).some((e) => e.name.toLowerCase() === "dolomites" && e.sourceCount >= 1));
  const byText = await mem.knowledgeSearch({ text: "Where is the hike?", filters: { roomId: room } });
  assert.equal(byText.memories?.[0]?.memory.id, res.id);
  assert.ok(byText.expression);
  await assert.rejects(mem.knowledgeSearch({ query: { select: { entity: {} } } }),
    (e: unknown) => e instanceof BadRequestError && e.detail.includes("query.select.entity"));
  await assert.rejects(mem.knowledgeSearch({}), TypeError);
});

test("documents: upload (text and bytes), status, list, delete", { skip }, async () => {
  const mem = client(KEY_ORG_A);
  const u = uniq();
  const name = `guides/leave-${u}.md`;
  const doc = await mem.uploadDocument({ name, content: `# Leave\n\nVacation requests go to your manager ${u}.` });
  assert.ok(doc.key.endsWith("/" + name));
  const got = await mem.getDocument(doc.id);
  assert.equal(got.state, "indexed");
  assert.ok(got.fragments >= 1);
  const bin = await mem.uploadDocument({ name: `notes-${u}.txt`, content: new TextEncoder().encode(`Badge renewals happen every March ${u}`) });
  assert.notEqual(bin.state, "failed");
  const hits = await mem.search({ query: `vacation requests manager ${u}`, mode: "keyword", k: 3, filters: { documentId: doc.id } });
  assert.ok(hits.results[0].memory.content.text.includes(u));
  const listed = new Set<string>();
  for await (const d of mem.documents({ limit: 1 })) listed.add(d.id);
  assert.ok(listed.has(doc.id) && listed.has(bin.id));
  for (const d of [doc, bin]) {
    await mem.deleteDocument(d.id);
    await assert.rejects(mem.getDocument(d.id), NotFoundError);
  }
});

test("isolation: another agent and another org see nothing of agent x's", { skip }, async (t) => {
  const x = client(KEY_AGENT_X);
  for (const [name, key, visible] of [["agent y", KEY_AGENT_Y, false], ["org b", KEY_ORG_B, false], ["org a", KEY_ORG_A, true]] as const) {
    await t.test(name, async () => {
      const u = uniq();
      const room = `iso-${u}`;
      const other = client(key);
      const mine = await x.create({ roomId: room, content: { text: `Agent X: the customer's renewal is due in March ${u}` } });
      assert.equal((await x.get(mine.id)).agentId, "x");
      if (visible) assert.equal((await other.get(mine.id)).id, mine.id);
      else {
        await assert.rejects(other.get(mine.id), NotFoundError);
        await assert.rejects(other.delete(mine.id), NotFoundError);
      }
      assert.equal((await other.list({ roomId: room })).memories.length, visible ? 1 : 0);
      const found = (await other.search({ query: `customer renewal due in March ${u}`, mode: "keyword", k: 10 })).results.map((r) => r.memory.id);
      assert.equal(found.includes(mine.id), visible);
      assert.equal((await x.get(mine.id)).id, mine.id);
    });
  }
  await assert.rejects(client(KEY_AGENT_Y).list({ agentId: "x" }), (e: unknown) => e instanceof PermissionDeniedError && e.code === "forbidden");
});

test("an unknown key is unauthorized", { skip }, async () => {
  await assert.rejects(client("clients-test-not-a-key-000000").get("anything"),
    (e: unknown) => e instanceof AuthenticationError && e.status === 401 && e.code === "unauthorized");
});

test("an aborted signal ends the call", { skip }, async () => {
  const ac = new AbortController();
  ac.abort(new Error("caller gave up"));
  await assert.rejects(client(KEY_ORG_A).search({ query: "anything" }, { signal: ac.signal }), /caller gave up/);
});

test("put by key, where the server has it", { skip }, async (t) => {
  const mem = client(KEY_ORG_A);
  const key = `prefs/${uniq()}`;
  let first;
  try {
    first = await mem.putByKey(key, "theme: dark");
  } catch (e) {
    if (e instanceof APIError && (e.status === 405 || (e.status === 404 && e.detail.includes("no route")))) {
      t.skip(`the server has no PUT /v1/memories/by-key/{key}: ${e.message}`);
      return;
    }
    throw e;
  }
  assert.ok(first.created);
  assert.equal(first.memory.content.text, "theme: dark");
  const second = await mem.putByKey(key, "theme: light");
  assert.equal(second.created, false);
  assert.equal(second.memory.id, first.memory.id);
  assert.equal(second.memory.content.text, "theme: light");
  assert.equal((await mem.get(first.memory.id)).content.text, "theme: light");
  await client(KEY_ORG_B).putByKey(key, "org b's own");
  assert.equal((await mem.get(first.memory.id)).content.text, "theme: light");
});

test("rate limits: refused without retries, all served with them", { skip: LIMITED_URL ? false : "AGENTMEM_LIMITED_URL is not set" }, async () => {
  const burst = (c: AgentMemClient, n: number) => Promise.allSettled(Array.from({ length: n }, () => c.count()));
  const noRetry = new AgentMemClient({ baseUrl: LIMITED_URL!, apiKey: KEY_LIMITED, maxRetries: 0 });
  const refused = (await burst(noRetry, 6)).filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason);
  assert.ok(refused.length > 0);
  for (const e of refused) assert.ok(e instanceof RateLimitError && e.code === "rate_limited" && (e.retryAfterMs ?? 0) > 0, String(e));
  const retrying = new AgentMemClient({ baseUrl: LIMITED_URL!, apiKey: KEY_LIMITED, maxRetries: 8, retryBaseMs: 50, retryMaxMs: 1000 });
  const all = await burst(retrying, 3);
  assert.deepEqual(all.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled"]);
});
