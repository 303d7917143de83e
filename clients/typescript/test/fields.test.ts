// The fields the API gained, against the real memoryd (scripts/clients-test.sh):
// workstream reads acting for an end user, and a knowledge query scoped to a
// range of a session's messages.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { AgentMemClient, BadRequestError, NotFoundError, type Acting, type KnowledgeScope } from "../src/index.js";

const URL_ = process.env.AGENTMEM_URL;
const KEY_ORG_A = "clients-test-org-a-key-0001";
const skip = URL_ ? false : "AGENTMEM_URL is not set: run scripts/clients-test.sh";
const client = (apiKey: string) => new AgentMemClient({ baseUrl: URL_!, apiKey });
const uniq = () => randomUUID().slice(0, 12);

/** Every page of the workstreams org lists acting as `as`. */
async function allWorkstreams(org: AgentMemClient, as: Acting): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await org.listWorkstreams({ limit: 1000, cursor, ...as });
    ids.push(...(page.workstreams ?? []).map((w) => w.id));
    cursor = page.nextCursor || undefined;
  } while (cursor);
  return ids;
}

test("workstreams acting for a user: another user's block is neither listed nor read", { skip }, async () => {
  const org = client(KEY_ORG_A);
  const u = uniq();
  const alice = "alice-ws-" + u, bob = "bob-ws-" + u;
  const blocks = { alice: "ws-alice-" + u, bob: "ws-bob-" + u, shared: "ws-shared-" + u };
  for (const [id, userId] of [[blocks.alice, alice], [blocks.bob, bob]]) {
    const got = await org.createWorkstream({ id, visibility: "user", userId });
    assert.deepEqual([got.visibility, got.userId], ["user", userId]);
  }
  await org.createWorkstream({ id: blocks.shared, visibility: "shared" });
  try {
    const cases: { as: Acting; seen: string[]; hidden: string[] }[] = [
      { as: { userId: alice }, seen: [blocks.alice, blocks.shared], hidden: [blocks.bob] },
      { as: { userId: bob }, seen: [blocks.bob, blocks.shared], hidden: [blocks.alice] },
      { as: {}, seen: Object.values(blocks), hidden: [] }, // an org key acting for nobody: the admin view
    ];
    for (const { as, seen, hidden } of cases) {
      const listed = await allWorkstreams(org, as);
      for (const id of seen) {
        assert.ok(listed.includes(id), `${id} listed acting as ${JSON.stringify(as)}`);
        assert.equal((await org.getWorkstream(id, as)).id, id);
      }
      for (const id of hidden) {
        assert.ok(!listed.includes(id), `${id} not listed acting as ${JSON.stringify(as)}`);
        await assert.rejects(org.getWorkstream(id, as), NotFoundError);
      }
    }
  } finally {
    for (const id of Object.values(blocks)) await org.deleteWorkstream(id);
  }
});

test("knowledge query scoped to a range of a session's messages", { skip }, async () => {
  const org = client(KEY_ORG_A);
  const u = uniq();
  const sessionId = "sess-" + u;
  const base = (Math.floor(Date.now() / 1000) - 3600) * 1000;
  const ids: string[] = [];
  for (const [i, text] of ["Ana booked a hike in the Dolomites", "Bo packed boots for the Dolomites",
    "Cy bought maps of the Dolomites", "Di printed tickets for the Dolomites"].entries()) {
    const res = await org.create({ type: "message", sessionId, entityId: "speaker-" + u, createdAt: base + i * 60_000,
      content: { text: `${text} ${u}` } });
    ids.push(res.id);
  }
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, "Z");
  const cases: [KnowledgeScope, string[]][] = [
    [{ sessionId }, ids],
    [{ sessionId, fromMessageId: ids[1], toMessageId: ids[2] }, ids.slice(1, 3)],
    [{ sessionId, fromMessageId: ids[2] }, ids.slice(2)],
    [{ sessionId, fromTime: iso(base + 60_000), toTime: iso(base + 180_000) }, ids.slice(1, 3)],
  ];
  for (const [scope, want] of cases) {
    const out = await org.knowledgeSearch({ query: { select: { entity: { name: "Dolomites" } }, scope, limit: 50 } });
    assert.deepEqual((out.memories ?? []).map((m) => m.memory.id).sort(), [...want].sort(), JSON.stringify(scope));
  }
  // Each turn has a topic sentence, listed beside the topics.
  const topics = await org.knowledgeTopics({ sessionId, limit: 100 });
  assert.ok(topics.items.some((t) => t.kind === "sentence"), JSON.stringify(topics.items));
  await assert.rejects(org.knowledgeSearch({ query: { terms: ["dolomites"], scope: { fromPosition: 1 } } }),
    (e) => e instanceof BadRequestError && /scope/.test(e.message));
});
