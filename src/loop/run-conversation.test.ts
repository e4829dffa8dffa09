/**
 * @module src/loop/run-conversation.test
 * The loop against a fake model and a fake host, for what a real host cannot
 * stage on demand: declarations changing between turns, activation by
 * control.add_tools, a host that throws, bad options and bad messages.
 * test/loop/ runs the same loop end to end over HTTP with a real host.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CorralError } from "../errors.js";
import type { ToolResult } from "../result.js";
import { ModelResponseError } from "./errors.js";
import { parseMessage, type ContentBlock, type Message, type MessageCreateParams } from "./messages.js";
import type { Model } from "./model.js";
import { runConversation } from "./run-conversation.js";
import type { LoopHost } from "./types.js";

const METRICS = { wallMs: 1, cpuMs: 1, heapBytes: 0 };

function message(content: ContentBlock[], stop_reason: string): Message {
  return { id: "msg", role: "assistant", content, stop_reason, usage: { input_tokens: 1, output_tokens: 1 } };
}

/** A model that answers the scripted messages in order and keeps a copy of each request. */
function scriptedModel(script: Message[]): Model & { requests: MessageCreateParams[] } {
  const requests: MessageCreateParams[] = [];
  return {
    requests,
    async createMessage(request) {
      requests.push(structuredClone(request));
      const next = script[requests.length - 1];
      if (next === undefined) throw new Error("the script ran out");
      return next;
    },
  };
}

const request = (): MessageCreateParams => ({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
const declaration = (name: string) => ({ name, description: name, input_schema: { type: "object" } });
const ok = (output: string, control?: { add_tools?: string[]; terminate?: boolean }): ToolResult =>
  ({ ok: true, tool: "t", callId: "c", metrics: METRICS, output, ...(control ? { control } : {}) });

describe("runConversation with a fake model and host", () => {
  it("declares tools afresh each turn, with the deferred tools activated for the conversation's caller", async () => {
    const activatedSeen: string[][] = [];
    const quarantined = new Set<string>();
    const host: LoopHost = {
      declarations(options) {
        const activated = [...(options?.caller?.activated ?? [])];
        activatedSeen.push(activated);
        return ["finder", "flaky", ...activated].filter((name) => !quarantined.has(name)).map(declaration);
      },
      async call(name, _input, options) {
        if (name === "finder") {
          quarantined.add("flaky");
          // A real host activates what its tool_search found for the caller.
          options?.caller?.activate(["hidden"]);
          return ok("found hidden", { add_tools: ["hidden"] });
        }
        return ok("done");
      },
    };
    const model = scriptedModel([
      message([{ type: "tool_use", id: "t1", name: "finder", input: {} }], "tool_use"),
      message([{ type: "tool_use", id: "t2", name: "hidden", input: {} }], "tool_use"),
      message([{ type: "text", text: "bye" }], "end_turn"),
    ]);
    const result = await runConversation(model, request(), { host });
    assert.deepEqual(activatedSeen, [[], ["hidden"], ["hidden"]]);
    const names = model.requests.map((r) => (r.tools ?? []).map((t) => t.name));
    assert.deepEqual(names, [["finder", "flaky"], ["finder", "hidden"], ["finder", "hidden"]]);
    assert.equal(result.iterations, 3);
  });

  it("keeps the request's own tools first, and lets them win over a host tool of the same name", async () => {
    const host: LoopHost = { declarations: () => [declaration("search"), declaration("add")], call: async () => ok("") };
    const model = scriptedModel([message([{ type: "text", text: "hi" }], "end_turn")]);
    const own = [{ type: "web_search_20250305", name: "search" }];
    await runConversation(model, { ...request(), tools: own, temperature: 0 }, { host });
    assert.deepEqual(model.requests[0]?.tools, [own[0], declaration("add")]);
    assert.equal(model.requests[0]?.temperature, 0, "the request's other fields go to the model as given");
  });

  it("rethrows a host's throw after the running calls end, and starts no further call", async () => {
    const called: string[] = [];
    const host: LoopHost = {
      declarations: () => [],
      async call(name) {
        called.push(name);
        throw new Error("host closed");
      },
    };
    const model = scriptedModel([
      message([{ type: "tool_use", id: "t1", name: "a", input: {} }, { type: "tool_use", id: "t2", name: "b", input: {} }], "tool_use"),
    ]);
    await assert.rejects(runConversation(model, request(), { host }), /host closed/);
    assert.deepEqual(called, ["a"]);
  });

  it("ends on a tool_use stop that names no tool, instead of asking again", async () => {
    const host: LoopHost = { declarations: () => [], call: async () => ok("") };
    const model = scriptedModel([message([{ type: "text", text: "hm" }], "tool_use"), message([], "end_turn")]);
    const result = await runConversation(model, request(), { host });
    assert.equal(result.stopReason, "tool_use");
    assert.equal(model.requests.length, 1);
  });

  it("counts pause_turn continuations against maxIterations", async () => {
    const host: LoopHost = { declarations: () => [], call: async () => ok("") };
    const paused = message([{ type: "text", text: "…" }], "pause_turn");
    const model = scriptedModel([paused, paused, paused]);
    const result = await runConversation(model, request(), { host, maxIterations: 2 });
    assert.equal(result.stopReason, "max_iterations");
    assert.equal(model.requests.length, 2);
    assert.equal(result.messages.at(-1)?.role, "assistant");
  });

  it("refuses unknown and out-of-range options with CorralError invalid_options", async () => {
    const host: LoopHost = { declarations: () => [], call: async () => ok("") };
    const model = scriptedModel([]);
    for (const options of [{ host, toolTimeout: 5 }, { host, maxConcurrency: 0 }, { host, maxIterations: 1.5 }, { host: {} }]) {
      await assert.rejects(runConversation(model, request(), options as never), (error: unknown) => {
        assert.ok(error instanceof CorralError);
        assert.equal(error.code, "invalid_options");
        return true;
      });
    }
    assert.equal(model.requests.length, 0);
  });
});

describe("parseMessage", () => {
  it("keeps blocks the loop does not act on whole, so they can go back to the API", () => {
    const thinking = { type: "thinking", thinking: "hmm", signature: "sig" };
    const parsed = parseMessage({ ...message([], "end_turn"), content: [thinking], model: "m", type: "message" });
    assert.deepEqual(parsed.content, [thinking]);
    assert.equal(parsed.model, "m");
  });

  it("throws ModelResponseError for a tool_use block without an id", () => {
    const bad = { ...message([], "tool_use"), content: [{ type: "tool_use", name: "x", input: {} }] };
    assert.throws(() => parseMessage(bad), (error: unknown) => error instanceof ModelResponseError && error.code === "invalid_model_response");
  });
});
