/**
 * corral/openai with the real `openai` client against a scripted Responses
 * endpoint on 127.0.0.1: runOpenAIConversation runs a turn's function calls
 * through the host (an ok call, a hidden tool refused as unknown, arguments
 * that break the schema, strict mode's null for an optional field) and sends
 * their outputs back in the next request. Node 22+ only (openai 7).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runOpenAIConversation } from "../../src/adapters/openai/index.js";
import { toolSource, withHost } from "../helpers/host.js";
import { skipBelowNode22 } from "./node-version.js";
import { assistantText, functionCall, startResponsesServer } from "./responses-server.js";

const ADD = toolSource({ name: "add", input: "z.object({ a: z.number(), b: z.number(), note: z.string().optional() })", run: "return String(input.a + input.b) + (input.note ?? '');" });
const SECRET = toolSource({ name: "secret", extra: 'exposure: "hidden",', run: 'return "the secret";' });

describe("corral/openai with the openai SDK", { skip: skipBelowNode22("openai 7"), timeout: 120_000 }, () => {
  it("runs a Responses conversation: function calls through the host, outputs back to the model", async () => {
    const { default: OpenAI } = await import("openai");
    const server = await startResponsesServer([
      {
        output: [
          functionCall("call_1", "add", { a: 1, b: 2, note: null }),
          functionCall("call_2", "secret", {}),
          functionCall("call_3", "add", '{"a":"one"'),
          functionCall("call_4", "add", { a: 30, b: 4, note: "!" }),
        ],
      },
      { output: [assistantText("3 and 34.")] },
    ]);
    try {
      await withHost(async (host) => {
        assert.ok((await host.load({ source: "agent:add", code: ADD })).ok);
        assert.ok((await host.load({ source: "agent:secret", code: SECRET })).ok);
        const client = new OpenAI({ apiKey: "test", baseURL: server.baseURL, maxRetries: 0 });
        const result = await runOpenAIConversation(client, { model: "gpt-test", input: "Add please.", store: false }, { host });

        assert.equal(result.stopReason, "completed");
        assert.equal(result.iterations, 2);
        const first = server.bodies[0] as { tools: Array<{ name: string; strict: boolean; parameters: { required: string[]; additionalProperties: boolean; properties: Record<string, { type: unknown }> } }>; store: boolean };
        assert.equal(first.store, false, "the caller's own fields go to the API");
        assert.deepEqual(first.tools.map((tool) => tool.name), ["add"]);
        assert.equal(first.tools[0]?.strict, true);
        assert.deepEqual(first.tools[0]?.parameters.required, ["a", "b", "note"]);
        assert.equal(first.tools[0]?.parameters.additionalProperties, false);
        assert.deepEqual(first.tools[0]?.parameters.properties.note?.type, ["string", "null"]);

        const second = server.bodies[1] as { input: Array<{ type?: string; call_id?: string; output?: string }> };
        const outputs = Object.fromEntries(second.input.filter((item) => item.type === "function_call_output").map((item) => [item.call_id, item.output]));
        assert.equal(outputs.call_1, "3", "strict mode's null for an optional field reaches the tool as absent");
        assert.match(outputs.call_2 ?? "", /^unknown_tool: /);
        assert.match(outputs.call_3 ?? "", /^invalid_input: /);
        assert.equal(outputs.call_4, "34!");
        assert.equal(second.input.filter((item) => item.type === "function_call").length, 4, "the model's calls are sent back before their outputs");
        assert.deepEqual(result.toolCalls.map((call) => call.result.ok), [true, false, false, true]);
        assert.equal(result.input.at(-1)?.type, "message");
      });
    } finally {
      await server.close();
    }
  });

  it("answers a tool's ctx.sample with one Responses request to the conversation's model, not stored, and its progress to onProgress", async () => {
    const { default: OpenAI } = await import("openai");
    const SAMPLER = toolSource({
      name: "sampler",
      effects: ["sample_model"],
      run: 'await ctx.progress(1, 1); const a = await ctx.sample({ messages: "Say hi", maxTokens: 40, systemPrompt: "brief" }); return a.model + ": " + a.content.text;',
    });
    const server = await startResponsesServer([{ output: [functionCall("call_1", "sampler", {})] }, { output: [assistantText("hi")] }, { output: [assistantText("Done.")] }]);
    try {
      await withHost(
        async (host) => {
          assert.ok((await host.load({ source: "agent:sampler", code: SAMPLER })).ok);
          const client = new OpenAI({ apiKey: "test", baseURL: server.baseURL, maxRetries: 0 });
          const progress: number[] = [];
          const result = await runOpenAIConversation(client, { model: "gpt-test", input: "Sample please." }, { host, onProgress: (p) => progress.push(p.progress) });
          assert.equal(result.toolCalls[0]?.result.ok && result.toolCalls[0].result.output, "gpt-test: hi");
          assert.deepEqual(progress, [1]);
          const sample = server.bodies[1] as Record<string, unknown>;
          assert.deepEqual(
            { model: sample.model, store: sample.store, max_output_tokens: sample.max_output_tokens, instructions: sample.instructions, input: sample.input, tools: sample.tools },
            { model: "gpt-test", store: false, max_output_tokens: 40, instructions: "brief", input: [{ role: "user", content: [{ type: "input_text", text: "Say hi" }] }], tools: undefined },
          );
        },
        { effects: { agent: { sample_model: "allow" } }, capabilities: { sampling: {} } },
      );
    } finally {
      await server.close();
    }
  });
});
