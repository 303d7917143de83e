// The tools and the middleware against the real memoryd (AGENTMEM_URL, set by
// scripts/clients-test.sh), driven by the AI SDK itself with its own mock
// language model: generateText runs the tool calls the mock asks for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { generateText, stepCountIs, wrapLanguageModel } from "ai";
import { MockLanguageModelV2 } from "ai/test";
import { AgentMemClient } from "@agentmem/client";
import { memoryMiddleware, memoryTools, lastUserText } from "../src/index.js";

const url = process.env.AGENTMEM_URL;
const skip = url ? false : "AGENTMEM_URL is not set: run scripts/clients-test.sh";
const client = () => new AgentMemClient({ baseUrl: url, apiKey: "clients-test-agent-x-key-001" });
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A mock that asks for the given tool calls, one per step, then answers "done". */
function scripted(calls) {
  let step = 0;
  return new MockLanguageModelV2({
    doGenerate: async () => {
      const c = calls[step++];
      if (!c) return { content: [{ type: "text", text: "done" }], finishReason: "stop", usage, warnings: [] };
      return {
        content: [{ type: "tool-call", toolCallId: `call-${step}`, toolName: c.tool, input: JSON.stringify(c.input) }],
        finishReason: "tool-calls", usage, warnings: [],
      };
    },
  });
}

test("remember, recall and getContext through generateText", { skip }, async () => {
  const u = randomUUID().slice(0, 8);
  const c = client();
  const fact = `user ${u} is allergic to peanuts`;
  const res = await generateText({
    model: scripted([
      { tool: "remember", input: { text: fact } },
      { tool: "recall", input: { query: `what is user ${u} allergic to` } },
      { tool: "getContext", input: { query: `allergies of user ${u}` } },
    ]),
    tools: memoryTools(c),
    stopWhen: stepCountIs(5),
    prompt: "remember and recall",
  });
  const results = res.steps.flatMap((s) => s.toolResults);
  assert.equal(results.length, 3);
  const [stored, recalled, context] = results.map((r) => r.output);
  assert.match(stored.id, /.+/);
  assert.match(recalled, new RegExp(`^1\\. \\[${stored.id}\\] ${fact}`));
  assert.ok(context.includes(fact), `context has the fact: ${context}`);
  assert.equal(res.text, "done");
});

test("the middleware puts the context before the prompt", { skip }, async () => {
  const u = randomUUID().slice(0, 8);
  const c = client();
  await c.create({ content: { text: `the project codename of team ${u} is Bluefin` }, type: "fact" });
  let seen;
  const model = wrapLanguageModel({
    model: new MockLanguageModelV2({
      doGenerate: async (opts) => {
        seen = opts.prompt;
        return { content: [{ type: "text", text: "ok" }], finishReason: "stop", usage, warnings: [] };
      },
    }),
    middleware: memoryMiddleware(c),
  });
  await generateText({ model, prompt: `what is the codename of team ${u}?` });
  assert.equal(seen[0].role, "system");
  assert.ok(seen[0].content.includes("Bluefin"), seen[0].content);
  assert.equal(seen.at(-1).role, "user");
});

test("lastUserText", () => {
  const cases = [
    [[], ""],
    [[{ role: "system", content: "s" }], ""],
    [[{ role: "user", content: [{ type: "text", text: "a" }] }, { role: "assistant", content: [] }], "a"],
    [[{ role: "user", content: [{ type: "text", text: "a" }, { type: "file", data: "", mediaType: "x" }, { type: "text", text: "b" }] }], "a\nb"],
  ];
  for (const [prompt, want] of cases) assert.equal(lastUserText(prompt), want);
});
