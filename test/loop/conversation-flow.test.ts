/**
 * @module test/loop/conversation-flow.test
 * runConversation end to end, how the loop moves: pause_turn
 * continuations, stops returned as is, the iteration cap, concurrent tool
 * calls, stream events, and aborts in the stream and in a tool call.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runConversation, type StreamEvent } from "../../src/loop/index.js";
import { ADD_TOOL, baseRequest, SLEEPY_TOOL, text, toolUse, USER_MESSAGE, withConversation } from "./fixture.js";

type Span = { label: string; start: number; end: number };

function spanOf(structured: unknown): Span {
  const span = structured as Span;
  assert.equal(typeof span.start, "number");
  return span;
}

describe("runConversation: the flow of turns", { timeout: 120_000 }, () => {
  it("continues after pause_turn without adding a user message", async () => {
    const script = [
      { content: [text("Still searching…")], stop_reason: "pause_turn" },
      { content: [text("Found it.")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [], async ({ server, loopHost, model }) => {
      const result = await runConversation(model, baseRequest(), { host: loopHost });
      const paused = { role: "assistant", content: [text("Still searching…")] };
      assert.deepEqual(server.sentMessages(), [[USER_MESSAGE], [USER_MESSAGE, paused]]);
      assert.equal(result.stopReason, "end_turn");
      assert.equal(result.iterations, 2);
      assert.equal(server.requests[0]?.body.tools, undefined, "no tools, no tools field");
    });
  });

  it("returns a max_tokens stop as is, without running the cut-off tool call", async () => {
    const script = [{ content: [text("Let me add"), toolUse("toolu_1", "add", { a: 1, b: 1 })], stop_reason: "max_tokens" }];
    await withConversation(script, [ADD_TOOL], async ({ server, loopHost, model }) => {
      const result = await runConversation(model, baseRequest(), { host: loopHost });
      assert.equal(result.stopReason, "max_tokens");
      assert.equal(result.response.stop_reason, "max_tokens");
      assert.deepEqual(result.toolCalls, []);
      assert.equal(server.requests.length, 1);
      assert.equal(result.messages.length, 2);
    });
  });

  it("stops at maxIterations, with the last turn's results in the message list", async () => {
    const turn = (n: number) => ({ content: [toolUse(`toolu_${n}`, "add", { a: n, b: n })], stop_reason: "tool_use" });
    await withConversation([turn(1), turn(2), turn(3)], [ADD_TOOL], async ({ server, loopHost, model }) => {
      const result = await runConversation(model, baseRequest(), { host: loopHost, maxIterations: 2 });
      assert.equal(server.requests.length, 2);
      assert.equal(result.iterations, 2);
      assert.equal(result.stopReason, "max_iterations");
      assert.deepEqual(result.messages.map((m) => m.role), ["user", "assistant", "user", "assistant", "user"]);
      assert.deepEqual(result.messages.at(-1), { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", is_error: false, content: "4" }] });
    });
  });

  it("runs at most maxConcurrency calls at once, and keeps call order in the answer", async () => {
    const turn = (id: string) => ({
      content: [toolUse(`${id}_slow`, "sleepy", { ms: 400, label: "slow" }), toolUse(`${id}_fast`, "sleepy", { ms: 50, label: "fast" })],
      stop_reason: "tool_use",
    });
    const done = { content: [text("done")], stop_reason: "end_turn" };
    const script = [turn("one"), done, turn("two"), done];
    await withConversation(
      script,
      [SLEEPY_TOOL],
      async ({ server, host, loopHost, model }) => {
        // Precondition: both workers are up, so two calls can run at once and
        // only the loop's limit keeps the first conversation's calls apart.
        let overlapped = false;
        for (let attempt = 0; attempt < 50 && !overlapped; attempt++) {
          const pair = await Promise.all([0, 1].map(() => host.call("sleepy", { ms: 100, label: "warm" })));
          const [a, b] = pair.map((r) => spanOf(r.ok && r.structured));
          overlapped = a !== undefined && b !== undefined && a.start < b.end && b.start < a.end;
        }
        assert.ok(overlapped, "the host never ran two calls at once");

        const serial = await runConversation(model, baseRequest(), { host: loopHost });
        const [slow1, fast1] = serial.toolCalls.map((c) => spanOf(c.result.ok && c.result.structured));
        assert.ok(slow1 !== undefined && fast1 !== undefined);
        assert.ok(fast1.start >= slow1.end, `maxConcurrency 1 overlapped: ${JSON.stringify([slow1, fast1])}`);

        const parallel = await runConversation(model, baseRequest(), { host: loopHost, maxConcurrency: 2 });
        const [slow2, fast2] = parallel.toolCalls.map((c) => spanOf(c.result.ok && c.result.structured));
        assert.ok(slow2 !== undefined && fast2 !== undefined);
        assert.ok(slow2.start < fast2.end && fast2.start < slow2.end, `maxConcurrency 2 did not overlap: ${JSON.stringify([slow2, fast2])}`);
        assert.ok(fast2.end < slow2.end, "the fast call should finish first");
        const sent = server.sentMessages()[3] as Array<{ content: Array<{ tool_use_id: string }> }>;
        assert.deepEqual(sent[2]?.content.map((b) => b.tool_use_id), ["two_slow", "two_fast"]);
      },
      { workers: 2 },
    );
  });

  it("hands every stream event of every turn to onEvent", async () => {
    const script = [
      { content: [text("Adding."), toolUse("toolu_1", "add", { a: 2, b: 2 })], stop_reason: "tool_use" },
      { content: [text("Four.")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [ADD_TOOL], async ({ loopHost, model }) => {
      const seen: Array<[number, StreamEvent]> = [];
      await runConversation(model, baseRequest(), { host: loopHost, onEvent: (event, turn) => seen.push([turn.iteration, event]) });
      const turn2 = seen.filter(([i]) => i === 2).map(([, e]) => e.type);
      assert.deepEqual(turn2, ["message_start", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
      const turn1 = seen.filter(([i]) => i === 1).map(([, e]) => e);
      const deltas = turn1.filter((e) => e.type === "content_block_delta").map((e) => (e.delta as { type: string }).type);
      assert.deepEqual(deltas, ["text_delta", "text_delta", "input_json_delta", "input_json_delta"]);
      assert.deepEqual((turn1.at(-2)?.delta as { stop_reason: string }).stop_reason, "tool_use");
    });
  });

  it("rejects with the signal's reason when aborted mid-stream, and drops the request", async () => {
    const script = [{ content: [text("A long answer that never ends")], stop_reason: "end_turn", hangAfterEvents: 4 }];
    await withConversation(script, [], async ({ server, loopHost, model }) => {
      const controller = new AbortController();
      const onEvent = (event: StreamEvent) => {
        if (event.type === "content_block_delta") controller.abort();
      };
      await assert.rejects(runConversation(model, baseRequest(), { host: loopHost, onEvent, signal: controller.signal }), (error: unknown) => {
        assert.equal(error, controller.signal.reason);
        return true;
      });
      for (let i = 0; i < 100 && server.requests[0]?.closedEarly !== true; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(server.requests[0]?.closedEarly, true, "the client did not drop the request");
    });
  });

  it("rejects with the signal's reason when aborted during a tool call, and cancels the call", async () => {
    const hang = { name: "hang", extra: "limits: { timeoutMs: 60000 },", run: "return new Promise(() => {});" };
    const script = [
      { content: [toolUse("toolu_h", "hang")], stop_reason: "tool_use" },
      { content: [text("never requested")], stop_reason: "end_turn" },
    ];
    await withConversation(script, [hang, ADD_TOOL], async ({ server, host, loopHost, model }) => {
      const controller = new AbortController();
      const ends: string[] = [];
      host.on((event) => {
        if (event.type === "tool_running" && event.tool === "hang") controller.abort();
        if (event.type === "tool_execution_end") ends.push(event.result.ok ? "ok" : event.result.error.kind);
      });
      await assert.rejects(runConversation(model, baseRequest(), { host: loopHost, signal: controller.signal }), (error: unknown) => error === controller.signal.reason);
      assert.equal(server.requests.length, 1);
      // Without the signal the call would have run to its 60 s limit: a timeout.
      assert.deepEqual(ends, ["cancelled"]);
      const next = await host.call("add", { a: 1, b: 1 }, { signal: AbortSignal.timeout(10_000) });
      assert.equal(next.ok && next.output, "2");
    });
  });

  it("rejects with the error onEvent throws", async () => {
    const script = [{ content: [text("Hello there")], stop_reason: "end_turn" }];
    await withConversation(script, [], async ({ loopHost, model }) => {
      const onEvent = (event: StreamEvent) => {
        if (event.type === "content_block_delta") throw new Error("listener failed");
      };
      await assert.rejects(runConversation(model, baseRequest(), { host: loopHost, onEvent }), /listener failed/);
    });
  });

  it("rejects with the API's error when the server answers one", async () => {
    await withConversation([], [], async ({ loopHost, model }) => {
      await assert.rejects(runConversation(model, baseRequest(), { host: loopHost }), (error: unknown) => {
        assert.equal((error as { status?: unknown }).status, 500);
        return true;
      });
    });
  });
});
