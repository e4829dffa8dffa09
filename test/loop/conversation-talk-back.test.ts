/**
 * @module test/loop/conversation-talk-back.test
 * A conversation's tools talking back, with the real Anthropic SDK against
 * a scripted Messages API on 127.0.0.1: progress and log messages reach
 * onEvent (beside the stream events, with the turn) and the program's
 * handlers; ctx.sample is one request to the conversation's own model,
 * with the tool's messages and nothing of the conversation; without the
 * sampling grant it is refused and the model is not asked.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runConversation } from "../../src/loop/index.js";
import type { ToolProgress } from "../../src/index.js";
import { baseRequest, text, toolUse, USER_MESSAGE, withConversation, type ToolSpec } from "./fixture.js";

const SAMPLER: ToolSpec = {
  name: "sampler",
  effects: ["sample_model"],
  run: `
    await ctx.progress(1, 2, "asking");
    await ctx.log("info", { step: "sample" });
    try {
      const answer = await ctx.sample({ messages: "Say hi", maxTokens: 50, systemPrompt: "brief" });
      return answer.model + " said " + answer.content.text + " (" + answer.stopReason + ")";
    } catch (error) {
      return "refused " + error.code;
    }`,
};

const SCRIPT = [
  { content: [toolUse("toolu_1", "sampler")], stop_reason: "tool_use" },
  // The tool's sample: the conversation's model answers it.
  { content: [text("hello")], stop_reason: "end_turn" },
  { content: [text("Done.")], stop_reason: "end_turn" },
];

describe("runConversation: tools that talk back", { timeout: 120_000 }, () => {
  it("sends progress and logs to onEvent and the handlers; ctx.sample asks the conversation's model alone", async () => {
    await withConversation(
      SCRIPT,
      [SAMPLER],
      async ({ server, loopHost, model }) => {
        const events: Array<{ type: string; iteration: number }> = [];
        const progress: ToolProgress[] = [];
        const result = await runConversation(model, baseRequest(), {
          host: loopHost,
          onEvent: (event, turn) => events.push({ type: event.type, iteration: turn.iteration }),
          onProgress: (p) => progress.push(p),
        });
        assert.equal(result.stopReason, "end_turn");
        const answer = result.toolCalls[0]?.result;
        assert.ok(answer?.ok, JSON.stringify(answer));
        assert.match(answer.output, /said hello \(endTurn\)$/);
        assert.deepEqual(events.filter((e) => e.type.startsWith("tool_")), [{ type: "tool_progress", iteration: 1 }, { type: "tool_log", iteration: 1 }]);
        assert.deepEqual(progress.map((p) => [p.progress, p.total, p.message, p.tool]), [[1, 2, "asking", "sampler"]]);
        // Three requests: the turn, the tool's sample, the turn after.
        assert.equal(server.requests.length, 3);
        const sample = server.requests[1]?.body as Record<string, unknown>;
        assert.equal(sample.model, "claude-test");
        assert.equal(sample.max_tokens, 50);
        assert.equal(sample.system, "brief");
        assert.deepEqual(sample.messages, [{ role: "user", content: [{ type: "text", text: "Say hi" }] }]);
        assert.equal(sample.tools, undefined, "nothing of the conversation goes with a sample");
        assert.deepEqual((server.sentMessages()[2] as unknown[])[0], USER_MESSAGE);
      },
      { effects: { agent: { sample_model: "allow" } }, capabilities: { sampling: { maxTokensPerCall: 100 } } },
    );
  });

  it("without a sampling grant the sample is refused and the model is asked nothing for it", async () => {
    const script = [SCRIPT[0], SCRIPT[2]] as typeof SCRIPT;
    await withConversation(
      script,
      [SAMPLER],
      async ({ server, loopHost, model }) => {
        const result = await runConversation(model, baseRequest(), { host: loopHost });
        const answer = result.toolCalls[0]?.result;
        assert.ok(answer?.ok && answer.output === "refused not_granted", JSON.stringify(answer));
        assert.equal(server.requests.length, 2);
      },
      { effects: { agent: { sample_model: "allow" } } },
    );
  });
});
