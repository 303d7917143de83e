// A real ElizaOS AgentRuntime whose database adapter is agentmem's, against
// the real memoryd (AGENTMEM_URL, set by scripts/clients-test.sh): the
// runtime's own initialize and ensureConnection create the agent's entity,
// world, room and participants through it, then createMemory,
// searchMemories, getMemories by room with count, deleteMemory. No model
// provider is registered: none of these calls uses a model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { AgentRuntime, ChannelType, stringToUuid } from "@elizaos/core";
import { AgentMemClient } from "@agentmem/client";
import { agentmemPlugin, InMemoryDelegate } from "../src/index.js";

const url = process.env.AGENTMEM_URL;
const skip = url ? false : "AGENTMEM_URL is not set: run scripts/clients-test.sh";

async function runtime() {
  const client = new AgentMemClient({ baseUrl: url, apiKey: "clients-test-agent-x-key-001" });
  const plugin = agentmemPlugin({ client, delegate: new InMemoryDelegate() });
  const rt = new AgentRuntime({ character: { name: `tester-${randomUUID().slice(0, 8)}`, bio: ["a test agent"] }, plugins: [plugin], logLevel: "error" });
  await rt.initialize({ skipMigrations: true });
  return { rt, client, plugin };
}

async function connection(rt) {
  const u = randomUUID();
  const ids = { entityId: stringToUuid(`user-${u}`), roomId: stringToUuid(`room-${u}`), worldId: stringToUuid(`world-${u}`) };
  await rt.ensureConnection({ ...ids, userName: "ada", name: "Ada", source: "test", type: ChannelType.GROUP, messageServerId: stringToUuid(`server-${u}`) });
  return ids;
}

test("AgentRuntime round trip: entities, rooms, memories through agentmem", { skip }, async () => {
  const { rt, client } = await runtime();
  const { entityId, roomId, worldId } = await connection(rt);

  // The runtime's connection landed in agentmem's registries.
  assert.equal((await client.getRoom(roomId)).worldId, worldId);
  assert.ok((await rt.getParticipantsForRoom(roomId)).includes(entityId));
  // ensureConnection makes the user and the agent participants.
  assert.deepEqual((await rt.getEntitiesForRoom(roomId)).map((e) => e.id).sort(), [entityId, rt.agentId].sort());

  const texts = ["Ada's favourite language is OCaml", "Ada runs marathons in spring", "Ada keeps bees on her roof"];
  const ids = [];
  for (const t of texts) {
    ids.push(await rt.createMemory({ entityId, agentId: rt.agentId, roomId, worldId, content: { text: t, source: "test" } }, "messages"));
  }
  assert.equal(ids.length, 3);
  const got = await rt.getMemoryById(ids[0]);
  assert.equal(got.id, ids[0]);
  assert.deepEqual(got.content, { text: texts[0], source: "test" }, "ElizaOS content comes back whole");

  const listed = await rt.getMemories({ tableName: "messages", roomId, count: 2 });
  assert.equal(listed.length, 2, "count bounds getMemories");
  assert.ok(listed.every((m) => m.roomId === roomId && ids.includes(m.id)));
  assert.equal(await rt.countMemories(roomId, false, "messages"), 3);

  const found = await rt.searchMemories({ tableName: "messages", roomId, query: "which programming language does Ada like", embedding: [], count: 3 });
  assert.ok(found.length > 0);
  assert.equal(found[0].id, ids[0]);

  await rt.deleteMemory(ids[0]);
  assert.equal(await rt.getMemoryById(ids[0]), null);
  assert.equal((await rt.getMemories({ tableName: "messages", roomId })).length, 2);
});

test("REMEMBER, RECALL, FORGET and the context provider", { skip }, async () => {
  const { rt, plugin } = await runtime();
  const { entityId, roomId } = await connection(rt);
  const action = (name) => plugin.actions.find((a) => a.name === name);
  const u = randomUUID().slice(0, 8);
  const msg = (t) => ({ id: randomUUID(), entityId, agentId: rt.agentId, roomId, content: { text: t } });
  const said = [];
  const callback = async (c) => { said.push(c.text); return []; };

  const m = msg(`remember that project ${u} ships on Friday`);
  assert.equal(await action("REMEMBER").validate(rt, m), true);
  assert.equal(await action("RECALL").validate(rt, m), false);
  const stored = await action("REMEMBER").handler(rt, m, undefined, {}, callback);
  assert.equal(stored.success, true);

  const recalled = await action("RECALL").handler(rt, msg(`recall when project ${u} ships`), undefined, {}, callback);
  assert.match(recalled.text, new RegExp(`1\\. project ${u} ships on Friday`));

  const ctx = await plugin.providers[0].get(rt, msg(`when does project ${u} ship?`), {});
  assert.ok(ctx.text.includes(`project ${u} ships on Friday`), ctx.text);

  const forgot = await action("FORGET").handler(rt, msg(`forget project ${u} ships on Friday`), undefined, {}, callback);
  assert.equal(forgot.data.id, stored.data.id);
  const again = await action("RECALL").handler(rt, msg(`recall project ${u}`), undefined, {}, callback);
  assert.ok(!again.text.includes("Friday"), again.text);
  assert.equal(said.length, 4);
});
