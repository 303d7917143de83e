// Serving end users against the real memoryd (scripts/clients-test.sh):
// acting for a user, end-user tokens and the registries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { AgentMemClient, APIError, AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError } from "../src/index.js";
import type { Memory, SearchMode } from "../src/index.js";

const URL_ = process.env.AGENTMEM_URL;
const KEY_ORG_A = "clients-test-org-a-key-0001";
const skip = URL_ ? false : "AGENTMEM_URL is not set: run scripts/clients-test.sh";
const uniq = () => randomUUID().slice(0, 12);

/** Alice and Bob, one org key's end users in rooms of their own, and what each said. */
async function seed(org: AgentMemClient) {
  const u = uniq();
  const p = { u, alice: `alice-${u}`, bob: `bob-${u}`, roomA: `room-alice-${u}`, roomB: `room-bob-${u}` };
  await org.createRoom({ id: p.roomA, participants: [p.alice] });
  const turns = await org.postMessages({ roomId: p.roomB, userId: p.bob,
    messages: [{ role: "user", content: `I am allergic to peanuts, remember that ${u}` }] });
  const bobMsg = turns.memories![0].id;
  const bobMem = (await org.create({ visibility: "user", userId: p.bob, entityId: p.bob,
    content: { text: `I live at 12 Elm Street, Springfield ${u}` } })).id;
  const aliceMem = (await org.create({ visibility: "user", userId: p.alice, entityId: p.alice,
    content: { text: `I love hiking in the Alps ${u}` } })).id;
  const shared = (await org.create({ visibility: "shared", content: { text: `The Springfield clinic closes at six ${u}` } })).id;
  const msg = await org.get(bobMsg);
  assert.deepEqual([msg.type, msg.visibility, msg.entityId, msg.roomId], ["message", "room", p.bob, p.roomB]);
  return { ...p, bobMsg, bobMem, aliceMem, shared };
}

type People = Awaited<ReturnType<typeof seed>>;
const isBobs = (p: People, m: Memory) => m.userId === p.bob || m.entityId === p.bob;

test("acting for Alice (userId, her room) returns nothing of Bob's on every read", { skip }, async () => {
  const org = new AgentMemClient({ baseUrl: URL_!, apiKey: KEY_ORG_A });
  const p = await seed(org);
  const query = `allergic peanuts Elm Street Springfield hiking Alps ${p.u}`;
  for (const mode of ["keyword", "semantic", "hybrid", "full"] as SearchMode[]) {
    const res = await org.search({ query, mode, k: 100, filters: { userId: p.alice } });
    assert.ok(!res.results.some((r) => isBobs(p, r.memory)), mode);
    if (mode === "keyword") {
      const ids = res.results.map((r) => r.memory.id);
      assert.ok(ids.includes(p.aliceMem) && ids.includes(p.shared), `${mode}: ${ids}`);
    }
  }
  const admin = (await org.search({ query, mode: "keyword", k: 100 })).results.map((r) => r.memory.id);
  assert.ok(admin.includes(p.bobMem) && admin.includes(p.bobMsg));

  const listed = (await org.list({ userId: p.alice, limit: 1000 })).memories;
  assert.ok(listed.some((m) => m.id === p.aliceMem) && !listed.some((m) => isBobs(p, m)));
  assert.equal(await org.count({ userId: p.alice, entityId: p.bob }), 0);
  assert.equal(await org.count({ roomId: p.roomA, entityId: p.bob }), 0);
  assert.ok((await org.count({ userId: p.bob, entityId: p.bob })) >= 2);

  const question = `What am I allergic to, and where do I live? ${p.u}`;
  const ctx = await org.context({ query: question, userId: p.alice, roomId: p.roomA, budgetTokens: 2000 });
  // Bob's words carry this run's marker; other tests' shared memories of the
  // org may mention peanuts too, and Alice may see those.
  const bobs = [`allergic to peanuts, remember that ${p.u}`, `12 Elm Street, Springfield ${p.u}`];
  assert.ok(!bobs.some((b) => ctx.context.includes(b)) && !ctx.context.includes(p.bobMsg) && !ctx.context.includes(p.bobMem), ctx.context);
  assert.ok((await org.context({ query: question, userId: p.bob, budgetTokens: 2000 })).context.includes("Elm Street"));

  const ks = await org.knowledgeSearch({ text: "Who is allergic to peanuts?", filters: { userId: p.alice }, limit: 100 });
  assert.ok(!(ks.memories ?? []).some((m) => isBobs(p, m.memory)));
  assert.deepEqual((await org.knowledgeEntities({ userId: p.alice, prefix: "bob-" })).items, []);
  // Other suites' shared memories of the org may name peanuts; none of Bob's terms (his marker) may show.
  assert.deepEqual((await org.knowledgeTerms({ userId: p.alice, prefix: "peanu" })).filter((t) => t.term.includes(p.u)), []);
  assert.equal(typeof (await org.knowledgeTopics({ userId: p.alice, limit: 5 })).nextCursor, "string");

  const exported = (await org.export({ userId: p.alice })).filter((l) => l.kind === "memory").map((l) => l.memory!);
  assert.ok(exported.some((m) => m.id === p.aliceMem) && !exported.some((m) => isBobs(p, m)));
});

test("a token minted for Alice sees only Alice, cannot widen, mint or be tampered with", { skip }, async () => {
  const org = new AgentMemClient({ baseUrl: URL_!, apiKey: KEY_ORG_A });
  const p = await seed(org);
  const tok = await org.createToken({ userId: p.alice, grants: ["read", "write"], ttlSeconds: 600 });
  assert.deepEqual([tok.userId, tok.orgId, tok.grants], [p.alice, "org-a", ["read", "write"]]);
  assert.throws(() => new AgentMemClient({ baseUrl: URL_!, apiKey: KEY_ORG_A, token: tok.token }), TypeError);
  const alice = new AgentMemClient({ baseUrl: URL_!, token: tok.token });
  const ids = (await alice.search({ query: `peanuts Elm Street hiking Alps ${p.u}`, mode: "keyword", k: 100 })).results.map((r) => r.memory.id);
  assert.ok(ids.includes(p.aliceMem) && !ids.includes(p.bobMem) && !ids.includes(p.bobMsg), `${ids}`);
  await assert.rejects(alice.get(p.bobMem), NotFoundError);
  await assert.rejects(alice.list({ userId: p.bob }), PermissionDeniedError);
  await assert.rejects(alice.createToken({ userId: p.bob }), PermissionDeniedError);
  const mine = await alice.create({ visibility: "user", content: { text: `My passport ends in 42 ${p.u}` } });
  assert.equal((await org.get(mine.id)).userId, p.alice);
  const bad = tok.token.slice(0, -2) + (tok.token.endsWith("AA") ? "BB" : "AA");
  await assert.rejects(new AgentMemClient({ baseUrl: URL_!, token: bad }).count(), AuthenticationError);
});

test("registries: entities, worlds, rooms and participants", { skip }, async () => {
  const org = new AgentMemClient({ baseUrl: URL_!, apiKey: KEY_ORG_A });
  const u = uniq();
  const e = await org.createEntity({ id: `dana-${u}`, names: ["Dana", "D."], metadata: { tier: "gold" } });
  assert.deepEqual([e.names, e.version], [["Dana", "D."], 1]);
  assert.deepEqual((await org.getEntity(e.id)).metadata, { tier: "gold" });
  const e2 = await org.updateEntity(e.id, { names: ["Dana", "Danielle"] }, { ifMatch: e.version });
  assert.equal(e2.version, 2);
  await assert.rejects(org.updateEntity(e.id, { names: ["Dee"] }, { ifMatch: e.version }), (x: unknown) => x instanceof APIError && x.isStale);
  assert.ok((await org.listEntities({ limit: 1000 })).entities.some((x) => x.id === e.id));

  const w = await org.createWorld({ name: `Guild ${u}`, serverId: `guild-${u}` });
  assert.equal((await org.updateWorld(w.id, { name: `Renamed ${u}` })).name, `Renamed ${u}`);
  assert.equal((await org.getWorld(w.id)).serverId, `guild-${u}`);
  assert.ok((await org.listWorlds({ limit: 1000 })).worlds.some((x) => x.id === w.id));

  const r = await org.createRoom({ id: `general-${u}`, worldId: w.id, participants: [e.id] });
  assert.deepEqual((await org.listRooms({ worldId: w.id })).rooms.map((x) => x.id), [r.id]);
  assert.deepEqual(new Set((await org.addParticipant(r.id, `eli-${u}`)).participants), new Set([e.id, `eli-${u}`]));
  assert.deepEqual((await org.removeParticipant(r.id, e.id)).participants, [`eli-${u}`]);
  assert.deepEqual((await org.listParticipants(r.id)).participants, [`eli-${u}`]);
  assert.equal((await org.updateRoom(r.id, { type: "DM" })).type, "DM");
  assert.equal((await org.getRoom(r.id)).worldId, w.id);
  await assert.rejects(org.createRoom({ worldId: `no-such-world-${u}` }), (x: unknown) => x instanceof BadRequestError && x.message.includes("worldId"));

  await org.deleteRoom(r.id);
  await org.deleteWorld(w.id);
  await org.deleteEntity(e.id, { ifMatch: e2.version });
  await assert.rejects(org.getRoom(r.id), NotFoundError);
  await assert.rejects(org.getWorld(w.id), NotFoundError);
  await assert.rejects(org.getEntity(e.id), NotFoundError);
});
