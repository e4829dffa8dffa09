/**
 * @module test/loop/conversation.test
 * runConversation end to end, what goes back to the model: the real
 * Anthropic SDK against a scripted Messages API server, and a real host
 * running agent tools. Asserts the exact request bodies of each turn.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runConversation } from "../../src/loop/index.js";
import { ADD_TOOL, baseRequest, text, toolUse, USER_MESSAGE, withConversation } from "./fixture.js";

describe("runConversation: tool results back to the model", { timeout: 120_000 }, () => {
  it("runs a turn's two calls and answers them in one user message, in call order", async () => {
    const script = [
      { content: [text("Adding twice."), toolUse("toolu_1", "add", { a: 1, b: 2 }), toolUse("toolu_2", "add", { a: 30, b: 4 })], stop_reason: "tool_use" },
      { content: [text("3 and 34.")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [ADD_TOOL], async ({ server, loopHost, model }) => {
      const request = baseRequest();
      const result = await runConversation(model, request, { host: loopHost });
      const assistant = { role: "assistant", content: [text("Adding twice."), toolUse("toolu_1", "add", { a: 1, b: 2 }), toolUse("toolu_2", "add", { a: 30, b: 4 })] };
      const results = {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", is_error: false, content: "3" },
          { type: "tool_result", tool_use_id: "toolu_2", is_error: false, content: "34" },
        ],
      };
      assert.deepEqual(server.sentMessages(), [[USER_MESSAGE], [USER_MESSAGE, assistant, results]]);
      assert.deepEqual(result.messages, [USER_MESSAGE, assistant, results, { role: "assistant", content: [text("3 and 34.")] }]);
      assert.equal(result.stopReason, "end_turn");
      assert.equal(result.iterations, 2);
      assert.equal(result.response.id, "msg_2");
      assert.deepEqual(request.messages, [USER_MESSAGE], "the caller's request is left as it was");
      const tools = server.requests[0]?.body.tools as Array<{ name: string; input_schema: unknown }>;
      assert.deepEqual(tools.map((t) => t.name), ["add"]);
      assert.equal(typeof tools[0]?.input_schema, "object");
      assert.equal(server.requests[0]?.body.model, "claude-test");
    });
  });

  it("answers an unknown tool, a throwing tool and invalid input as is_error results", async () => {
    const explode = { name: "explode", run: 'throw new Error("boom in the tool");' };
    const script = [
      { content: [toolUse("toolu_a", "no_such_tool"), toolUse("toolu_b", "explode"), toolUse("toolu_c", "add", { a: "one" })], stop_reason: "tool_use" },
      { content: [text("Sorry.")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [ADD_TOOL, explode], async ({ server, loopHost, model }) => {
      const result = await runConversation(model, baseRequest(), { host: loopHost });
      const sent = server.sentMessages()[1] as Array<{ content: Array<{ tool_use_id: string; is_error: boolean; content: string }> }>;
      const answers = sent[2]?.content ?? [];
      assert.deepEqual(answers.map((a) => [a.tool_use_id, a.is_error]), [["toolu_a", true], ["toolu_b", true], ["toolu_c", true]]);
      assert.match(answers[0]?.content ?? "", /^unknown_tool: .*no_such_tool/);
      assert.match(answers[1]?.content ?? "", /^tool_error: .*boom in the tool/);
      assert.match(answers[2]?.content ?? "", /^invalid_input: .*a/);
      assert.deepEqual(result.toolCalls.map((c) => (c.result.ok ? "ok" : c.result.error.kind)), ["unknown_tool", "tool_error", "invalid_input"]);
      assert.equal(result.stopReason, "end_turn");
    });
  });

  it("answers a tool that runs past its limit as an is_error timeout", async () => {
    const hang = { name: "hang", extra: "limits: { timeoutMs: 300 },", run: "return new Promise(() => {});" };
    const script = [
      { content: [toolUse("toolu_h", "hang")], stop_reason: "tool_use" },
      { content: [text("It timed out.")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [hang], async ({ server, loopHost, model }) => {
      const result = await runConversation(model, baseRequest(), { host: loopHost });
      const sent = server.sentMessages()[1] as Array<{ content: Array<{ is_error: boolean; content: string }> }>;
      assert.equal(sent[2]?.content[0]?.is_error, true);
      assert.match(sent[2]?.content[0]?.content ?? "", /^timeout: /);
      assert.equal(result.toolCalls[0]?.result.ok === false && result.toolCalls[0].result.error.kind, "timeout");
    });
  });

  it("keeps details from the model, and stops after a turn whose tool answers terminate", async () => {
    const top = 'import { toolResult } from "corral";';
    const report = { name: "report", top, run: 'return toolResult({ text: "report ready", structured: { rows: 2 }, details: { secret: "DETAILS-FOR-SCREENS" } });' };
    const finish = { name: "finish", top, run: 'return toolResult({ text: "finished", details: { more: "DETAILS-AGAIN" }, control: { terminate: true } });' };
    const script = [
      { content: [toolUse("toolu_r", "report")], stop_reason: "tool_use" },
      { content: [toolUse("toolu_f", "finish")], stop_reason: "tool_use" },
      { content: [text("never requested")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [report, finish], async ({ server, loopHost, model }) => {
      const result = await runConversation(model, baseRequest(), { host: loopHost });
      assert.equal(server.requests.length, 2, "terminate stops the loop before another request");
      assert.equal(result.stopReason, "terminated");
      assert.equal(result.iterations, 2);
      assert.equal(result.response.stop_reason, "tool_use");
      const sent = server.sentMessages()[1] as Array<{ content: unknown }>;
      assert.deepEqual(sent[2]?.content, [{ type: "tool_result", tool_use_id: "toolu_r", is_error: false, content: "report ready" }]);
      assert.ok(!JSON.stringify(server.requests.map((r) => r.body)).includes("DETAILS"), "details reached the model");
      assert.ok(!JSON.stringify(result.messages).includes("DETAILS"), "details are in the message list");
      // The last turn's results are in the message list, so it can be sent again.
      assert.deepEqual(result.messages.at(-1), { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_f", is_error: false, content: "finished" }] });
      // The caller still gets every channel.
      const [first, second] = result.toolCalls;
      assert.deepEqual(first?.result.ok && first.result.details, { secret: "DETAILS-FOR-SCREENS" });
      assert.deepEqual(first?.result.ok && first.result.structured, { rows: 2 });
      assert.deepEqual(second?.result.ok && second.result.control, { terminate: true });
    });
  });

  it("sends a tool's images as image blocks in its tool_result, after its text", async () => {
    const top = 'import { toolResult } from "corral";';
    const chart = {
      name: "chart",
      top,
      run: 'return toolResult({ text: "two charts", images: [{ mimeType: "image/png", data: "iVBORw0KGgo=" }, { mimeType: "image/jpeg", data: "/9j/4AAQ" }] });',
    };
    const script = [
      { content: [toolUse("toolu_c", "chart")], stop_reason: "tool_use" },
      { content: [text("Nice charts.")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [chart], async ({ server, loopHost, model }) => {
      await runConversation(model, baseRequest(), { host: loopHost });
      const sent = server.sentMessages()[1] as Array<{ content: unknown[] }>;
      assert.deepEqual(sent[2]?.content, [
        {
          type: "tool_result",
          tool_use_id: "toolu_c",
          is_error: false,
          content: [
            { type: "text", text: "two charts" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
          ],
        },
      ]);
    });
  });

  it("activates the deferred tools tool_search finds, from the next turn on", async () => {
    const weather = { name: "weather", extra: 'exposure: "deferred",', run: 'return "sunny";' };
    const script = [
      { content: [toolUse("toolu_s", "tool_search", { query: "weather" })], stop_reason: "tool_use" },
      { content: [toolUse("toolu_w", "weather")], stop_reason: "tool_use" },
      { content: [text("It is sunny.")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [weather, ADD_TOOL], async ({ server, loopHost, model }) => {
      const result = await runConversation(model, baseRequest(), { host: loopHost });
      const declared = server.requests.map((r) => (r.body.tools as Array<{ name: string }>).map((t) => t.name).sort());
      assert.deepEqual(declared, [["add", "tool_search"], ["add", "weather"], ["add", "weather"]]);
      const [search, call] = result.toolCalls;
      assert.deepEqual(search?.result.ok && search.result.control, { add_tools: ["weather"] });
      assert.equal(call?.result.ok && call.result.output, "sunny");
      assert.equal(result.stopReason, "end_turn");
    });
  });

  it("neither declares nor runs a quarantined source's tool, and tells the model why", async () => {
    const script = [
      { content: [toolUse("toolu_q", "add", { a: 1, b: 2 })], stop_reason: "tool_use" },
      { content: [text("It is quarantined.")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [ADD_TOOL, { name: "other", run: 'return "x";' }], async ({ server, host, loopHost, model }) => {
      await host.quarantine("agent:add", { reason: "test quarantine" });
      const result = await runConversation(model, baseRequest(), { host: loopHost });
      assert.deepEqual((server.requests[0]?.body.tools as Array<{ name: string }>).map((t) => t.name), ["other"]);
      const sent = server.sentMessages()[1] as Array<{ content: Array<{ is_error: boolean; content: string }> }>;
      assert.equal(sent[2]?.content[0]?.is_error, true);
      assert.match(sent[2]?.content[0]?.content ?? "", /^quarantined: /);
      assert.equal(result.toolCalls[0]?.result.ok === false && result.toolCalls[0].result.error.kind, "quarantined");
    });
  });

  it("answers a call the gate blocks as an is_error result with the gate's reason", async () => {
    const script = [
      { content: [toolUse("toolu_b", "add", { a: 1, b: 2 })], stop_reason: "tool_use" },
      { content: [text("Blocked.")], stop_reason: "end_turn" },
    ];
    const beforeToolCall = () => ({ action: "block" as const, reason: "no adding on Sundays" });
    await withConversation(
      script,
      [ADD_TOOL],
      async ({ server, loopHost, model }) => {
        const result = await runConversation(model, baseRequest(), { host: loopHost });
        const sent = server.sentMessages()[1] as Array<{ content: Array<{ is_error: boolean; content: string }> }>;
        assert.equal(sent[2]?.content[0]?.is_error, true);
        assert.match(sent[2]?.content[0]?.content ?? "", /^blocked: .*no adding on Sundays/);
        assert.equal(result.toolCalls[0]?.result.ok === false && result.toolCalls[0].result.error.kind, "blocked");
      },
      { beforeToolCall },
    );
  });
});
