// Error parsing and the retry policy, on canned responses (no server).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as net from "node:net";
import {
  AgentMemClient, BadRequestError, ConnectionError, InternalServerError, NotFoundError, PermissionDeniedError,
  PreconditionFailedError, RateLimitError, ServiceUnavailableError, TimeoutError, errorFromResponse, parseRetryAfter,
} from "../src/index.js";

test("error shapes", () => {
  const cases: [string, number, Record<string, string>, string, Function, string, string, string | undefined][] = [
    ["earlier shape", 404, { "x-request-id": "r1" }, '{"error":{"code":"not_found","message":"memory \\"x\\" not found"}}',
      NotFoundError, "not_found", 'memory "x" not found', "r1"],
    ["problem with code", 412, { "x-request-id": "hdr" },
      '{"type":"urn:agentmem:problem:precondition_failed","title":"Precondition failed","status":412,"detail":"If-Match: stale","instance":"/v1/memories/m1","code":"precondition_failed","requestId":"r2"}',
      PreconditionFailedError, "precondition_failed", "If-Match: stale", "r2"],
    ["problem, code from the type", 400, {}, '{"type":"urn:agentmem:problem:invalid","title":"Invalid request","status":400,"detail":"k: at most 100"}',
      BadRequestError, "invalid", "k: at most 100", undefined],
    ["quota", 403, {}, '{"type":"about:blank","title":"Quota exceeded","status":403,"code":"quota_exceeded"}',
      PermissionDeniedError, "quota_exceeded", "Quota exceeded", undefined],
    ["a proxy's text", 502, {}, "Bad Gateway", InternalServerError, "internal", "Bad Gateway", undefined],
    ["empty 503", 503, {}, "", ServiceUnavailableError, "unavailable", "", undefined],
  ];
  for (const [name, status, headers, body, cls, code, detail, requestId] of cases) {
    const err = errorFromResponse(status, new Headers(headers), body);
    assert.ok(err instanceof cls, `${name}: ${err.name}`);
    assert.deepEqual([err.status, err.code, err.detail, err.requestId], [status, code, detail, requestId], name);
  }
  const p = errorFromResponse(412, new Headers(), '{"type":"urn:agentmem:problem:precondition_failed","title":"T","instance":"/i","code":"precondition_failed"}');
  assert.deepEqual([p.type, p.title, p.instance, p.isStale], ["urn:agentmem:problem:precondition_failed", "T", "/i", true]);
});

test("Retry-After", () => {
  const now = Date.UTC(2026, 0, 1);
  const cases: [string | null, number | undefined][] = [
    [null, undefined], ["", undefined], ["2", 2000], ["0.5", 500], ["-1", undefined], ["soon", undefined],
    [new Date(now + 10_000).toUTCString(), 10_000], [new Date(now - 10_000).toUTCString(), undefined],
  ];
  for (const [v, want] of cases) assert.equal(parseRetryAfter(v, now), want, String(v));
});

/** A fetch answering the given statuses in turn, then 201; it records the requests. */
function replies(...rs: [number, Record<string, string>][]) {
  const seen: { url: string; init: RequestInit }[] = [];
  const f = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    seen.push({ url: String(url), init: init ?? {} });
    const r = rs.shift();
    if (r) return new Response(JSON.stringify({ type: "about:blank", title: "x", status: r[0] }), { status: r[0], headers: r[1] });
    return new Response('{"id":"m1","duplicate":false}', { status: 201 });
  };
  return { fetch: f as typeof fetch, seen };
}

test("retries keep the Idempotency-Key and the body", async () => {
  const cases: [string, [number, Record<string, string>][], number, Function | undefined, number][] = [
    ["503 twice then success", [[503, {}], [503, {}]], 3, undefined, 3],
    ["429 with Retry-After then success", [[429, { "Retry-After": "0.01" }]], 3, undefined, 2],
    ["retries exhausted", [[503, {}], [503, {}], [503, {}]], 2, ServiceUnavailableError, 3],
    ["400 is not retried", [[400, {}]], 3, BadRequestError, 1],
    ["a Retry-After past the cap fails at once", [[429, { "Retry-After": "3600" }]], 3, RateLimitError, 1],
    ["retries off", [[429, { "Retry-After": "0.01" }]], 0, RateLimitError, 1],
  ];
  for (const [name, rs, maxRetries, wantErr, wantSent] of cases) {
    const r = replies(...rs);
    const c = new AgentMemClient({ baseUrl: "http://test", apiKey: "key", maxRetries, retryBaseMs: 1, retryMaxMs: 5, fetch: r.fetch });
    if (wantErr) await assert.rejects(c.create("hello"), (e: unknown) => e instanceof wantErr, name);
    else assert.deepEqual(await c.create("hello"), { id: "m1", duplicate: false }, name);
    assert.equal(r.seen.length, wantSent, name);
    const keys = new Set(r.seen.map((s) => (s.init.headers as Record<string, string>)["Idempotency-Key"]));
    assert.equal(keys.size, 1, name);
    assert.ok([...keys][0], name);
    for (const s of r.seen) assert.equal(s.init.body, '{"content":{"text":"hello"}}', name);
  }
});

test("one Idempotency-Key per call; If-Match on PATCH", async () => {
  const r = replies();
  const c = new AgentMemClient({ baseUrl: "http://test/", apiKey: "key", fetch: r.fetch });
  await c.create("a");
  await c.create("a");
  await c.create("a", { idempotencyKey: "mine" });
  await c.update("m1", { importance: 0.9 }, { ifMatch: 7 });
  await c.search({ query: "q" });
  await c.addMessages([{ entityId: "a", content: { text: "a" } }]);
  await c.uploadDocument({ name: "a.md", content: "a" });
  const h = (i: number) => r.seen[i].init.headers as Record<string, string>;
  assert.equal(h(4)["Idempotency-Key"], undefined, "a search stores nothing: no key");
  assert.ok(h(5)["Idempotency-Key"] && h(6)["Idempotency-Key"]);
  assert.ok(h(0)["Idempotency-Key"] && h(1)["Idempotency-Key"] && h(0)["Idempotency-Key"] !== h(1)["Idempotency-Key"]);
  assert.equal(h(2)["Idempotency-Key"], "mine");
  assert.equal(h(3)["Idempotency-Key"], undefined);
  assert.equal(h(3)["If-Match"], '"7"');
  assert.equal(h(0).Authorization, "Bearer key");
  assert.equal(r.seen[3].url, "http://test/v1/memories/m1");
});

test("an abort during the wait before a retry ends the call", async () => {
  const r = replies([503, { "Retry-After": "20" }]);
  const c = new AgentMemClient({ baseUrl: "http://test", apiKey: "key", fetch: r.fetch });
  const ac = new AbortController();
  const p = c.count({}, { signal: ac.signal });
  setImmediate(() => ac.abort(new Error("stop")));
  await assert.rejects(p, /stop/);
  assert.equal(r.seen.length, 1);
});

test("a silent server times out; a closed port is a ConnectionError", async () => {
  const sockets: net.Socket[] = [];
  const silent = net.createServer((s) => sockets.push(s));
  await new Promise<void>((res) => silent.listen(0, "127.0.0.1", res));
  const port = (silent.address() as net.AddressInfo).port;
  try {
    const c = new AgentMemClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "key", timeoutMs: 200 });
    await assert.rejects(c.count(), (e: unknown) => e instanceof TimeoutError);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((res) => silent.close(res));
  }
  const c = new AgentMemClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "key" });
  await assert.rejects(c.count(), (e: unknown) => e instanceof ConnectionError && !(e instanceof TimeoutError));
});

test("the constructor rejects bad arguments", () => {
  for (const [baseUrl, apiKey] of [["", "k"], ["ftp://x", "k"], ["http://x", ""]]) {
    assert.throws(() => new AgentMemClient({ baseUrl, apiKey }), TypeError);
  }
});

test("put answers: bare, wrapped, or naming the memory only", async () => {
  const cases: [number, unknown, string, boolean, string][] = [
    [201, { id: "m1", content: { text: "a" } }, "m1", true, "a"],
    [200, { id: "m1", content: { text: "a" } }, "m1", false, "a"],
    [200, { memory: { id: "m2", content: { text: "a" } }, created: true }, "m2", true, "a"],
    [200, { id: "m3", duplicate: true }, "m3", false, "read back"],
  ];
  for (const [status, body, id, created, text] of cases) {
    const f = (async (_url: string, init?: RequestInit) => init?.method === "PUT"
      ? new Response(JSON.stringify(body), { status })
      : new Response(JSON.stringify({ id, content: { text: "read back" } }), { status: 200 })) as unknown as typeof fetch;
    const c = new AgentMemClient({ baseUrl: "http://test", apiKey: "key", fetch: f });
    const got = await c.putByKey("k", "a");
    assert.deepEqual([got.memory.id, got.created, got.memory.content.text], [id, created, text], JSON.stringify(body));
  }
});
