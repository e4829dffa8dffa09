/**
 * corral/ai with the real `ai` package: generateText and the SDK's own mock
 * language model (`ai/test`) drive tool calls through aiTools(host): two ok
 * calls in one step, a tool failure as the SDK's tool error, the SDK's
 * validation refusing bad arguments before anything runs, and what goes
 * back to the model. Node 22+ only (ai 7).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { aiTools } from "../../src/adapters/ai/index.js";
import { toolSource, withHost } from "../helpers/host.js";
import { skipBelowNode22 } from "./node-version.js";

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const toolCall = (id: string, name: string, input: unknown) => ({ type: "tool-call" as const, toolCallId: id, toolName: name, input: JSON.stringify(input) });

describe("corral/ai with the AI SDK", { skip: skipBelowNode22("ai 7"), timeout: 120_000 }, () => {
  it("generateText runs the model's tool calls through the host and answers it their outputs", async () => {
    const ai = await import("ai");
    const { MockLanguageModelV4 } = await import("ai/test");
    await withHost(async (host) => {
      assert.ok((await host.load({ source: "agent:add", code: toolSource({ name: "add", input: "z.object({ a: z.number(), b: z.number() })", run: "return { sum: input.a + input.b };" }) })).ok);
      assert.ok((await host.load({ source: "agent:explode", code: toolSource({ name: "explode", run: 'throw new Error("boom");' }) })).ok);
      const ran: string[] = [];
      host.on((event) => {
        if (event.type === "tool_running") ran.push(event.tool);
      });
      const tools = aiTools(host, { ai });
      assert.deepEqual(Object.keys(tools).sort(), ["add", "explode"]);

      const steps = [
        { content: [toolCall("t1", "add", { a: 1, b: 2 }), toolCall("t2", "add", { a: 30, b: 4 }), toolCall("t3", "explode", {}), toolCall("t4", "add", { a: "one" })], finishReason: { unified: "tool-calls" as const, raw: undefined } },
        { content: [{ type: "text" as const, text: "3 and 34." }], finishReason: { unified: "stop" as const, raw: undefined } },
      ];
      let step = 0;
      const model = new MockLanguageModelV4({
        doGenerate: async () => ({ ...(steps[step++] as (typeof steps)[number]), usage: USAGE, warnings: [] }),
      });
      const result = await ai.generateText({ model, tools, prompt: "Add twice.", stopWhen: ai.isStepCount(3) });

      assert.equal(result.text, "3 and 34.");
      const first = result.steps[0];
      assert.deepEqual(first?.toolResults.map((r) => [r.toolCallId, (r.output as { structured: unknown }).structured]), [["t1", { sum: 3 }], ["t2", { sum: 34 }]]);
      const errors = first?.content.filter((part) => part.type === "tool-error") ?? [];
      assert.deepEqual(errors.map((part) => part.toolCallId).sort(), ["t3", "t4"]);
      assert.deepEqual(ran.sort(), ["add", "add", "explode"], "the SDK's validation refused t4 before the host ran anything");

      const toolMessage = model.doGenerateCalls[1]?.prompt.find((message) => message.role === "tool");
      const outputs = Object.fromEntries(
        (toolMessage?.content ?? []).flatMap((part) => (part.type === "tool-result" ? [[part.toolCallId, part.output]] : [])),
      );
      assert.deepEqual(outputs.t1, { type: "json", value: { sum: 3 } });
      assert.match(JSON.stringify(outputs.t3), /tool_error: /);
    });
  });
});
