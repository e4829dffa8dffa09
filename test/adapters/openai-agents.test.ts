/**
 * corral/openai's Agents SDK shape with the real `@openai/agents` (0.20.0):
 * each of `openaiTools(host).agents` goes through the SDK's own `tool()`,
 * an `Agent` runs on an `OpenAIResponsesModel` whose `openai` client talks
 * to a scripted Responses endpoint on 127.0.0.1 (no network; the SDK's
 * tracing, which would export to OpenAI, is off), and the model's function
 * calls run through the host: an ok call, strict mode's null for an
 * optional field, arguments that break the schema, a non-strict tool; a
 * hidden tool is never offered; aborting the run cancels a running call.
 * Node 22+ only (openai 7, which the Agents SDK uses).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { openaiTools, type AgentFunctionTool } from "../../src/adapters/openai/index.js";
import { toolSource, withHost } from "../helpers/host.js";
import { skipBelowNode22 } from "./node-version.js";
import { assistantText, functionCall, startResponsesServer } from "./responses-server.js";

const ADD = toolSource({ name: "add", input: "z.object({ a: z.number(), b: z.number(), note: z.string().optional() })", run: "return String(input.a + input.b) + (input.note ?? '');" });
const BAG = toolSource({ name: "bag", input: "z.object({ tags: z.record(z.string(), z.string()) })", run: "return Object.keys(input.tags).sort().join(',');" });
const SECRET = toolSource({ name: "secret", extra: 'exposure: "hidden",', run: 'return "the secret";' });
const SLOW = toolSource({ name: "slow", run: 'await new Promise((resolve) => setTimeout(resolve, 20_000)); return "late";' });

type SentTool = { type: string; name: string; strict: boolean; description: string; parameters: { required?: string[]; additionalProperties?: boolean } };

describe("corral/openai with the OpenAI Agents SDK", { skip: skipBelowNode22("@openai/agents 0.20 (through openai 7)"), timeout: 120_000 }, () => {
  /** The SDK's tool() for each of corral's Agents shapes; `strict` picks one of its two overloads, hence the cast. */
  async function sdk() {
    const agents = await import("@openai/agents");
    const { default: OpenAI } = await import("openai");
    agents.setTracingDisabled(true);
    const toSdkTool = (shape: AgentFunctionTool) => agents.tool(shape as Parameters<typeof agents.tool>[0]);
    const model = (baseURL: string) => new agents.OpenAIResponsesModel(new OpenAI({ apiKey: "test", baseURL, maxRetries: 0 }), "gpt-test");
    return { agents, toSdkTool, model };
  }

  it("runs the model's function calls through the host and sends their outputs back", async () => {
    const { agents, toSdkTool, model } = await sdk();
    const server = await startResponsesServer([
      {
        output: [
          functionCall("call_1", "add", { a: 1, b: 2, note: null }),
          functionCall("call_2", "add", { a: "one", b: 2, note: null }),
          functionCall("call_3", "bag", { tags: { x: "1", a: "2" } }),
          functionCall("call_4", "add", { a: 30, b: 4, note: "!" }),
        ],
      },
      { output: [assistantText("3 and 34.")] },
    ]);
    try {
      await withHost(async (host) => {
        for (const [source, code] of [["agent:add", ADD], ["agent:bag", BAG], ["agent:secret", SECRET]] as const) assert.ok((await host.load({ source, code })).ok);
        const set = openaiTools(host);
        const agent = new agents.Agent({ name: "adder", instructions: "Use the tools.", model: model(server.baseURL), tools: set.agents.map(toSdkTool) });
        const result = await agents.run(agent, "Add please.");
        assert.equal(result.finalOutput, "3 and 34.");

        const sent = (server.bodies[0] as { tools: SentTool[] }).tools;
        assert.deepEqual(sent.map((tool) => [tool.type, tool.name, tool.strict]), [["function", "add", true], ["function", "bag", false]], "the hidden tool is never offered");
        assert.deepEqual(sent[0]?.parameters.required, ["a", "b", "note"]);
        assert.equal(sent[0]?.parameters.additionalProperties, false);
        assert.match(sent[1]?.description ?? "", /Not strict: its input schema has an open record/);

        const input = (server.bodies[1] as { input: Array<{ type?: string; call_id?: string; output?: unknown }> }).input;
        const outputs = Object.fromEntries(input.filter((item) => item.type === "function_call_output").map((item) => [item.call_id, textOf(item.output)]));
        assert.equal(outputs.call_1, "3", "strict mode's null for an optional field reaches the tool as absent");
        assert.match(outputs.call_2 ?? "", /^invalid_input: /);
        assert.equal(outputs.call_3, "a,x");
        assert.equal(outputs.call_4, "34!");
        const row = (await host.audit()).find((each) => each.source === "agent:add");
        assert.equal(row?.totals.calls, 3, "every call the model made was a host call, recorded");
      });
    } finally {
      await server.close();
    }
  });

  it("cancels a running call when the run is aborted", async () => {
    const { agents, toSdkTool, model } = await sdk();
    const server = await startResponsesServer([{ output: [functionCall("call_1", "slow", {})] }, { output: [assistantText("never")] }]);
    try {
      await withHost(async (host) => {
        assert.ok((await host.load({ source: "agent:slow", code: SLOW })).ok);
        const ended = new Promise<string>((resolve) => {
          host.on((event) => {
            if (event.type === "tool_running" && event.tool === "slow") controller.abort();
            if (event.type === "tool_execution_end" && event.tool === "slow") resolve(event.result.ok ? "ok" : event.result.error.kind);
          });
        });
        const controller = new AbortController();
        const agent = new agents.Agent({ name: "waiter", model: model(server.baseURL), tools: openaiTools(host).agents.map(toSdkTool) });
        await assert.rejects(agents.run(agent, "Wait.", { signal: controller.signal }));
        assert.equal(await ended, "cancelled");
        assert.equal(server.bodies.length, 1, "no output went back to the model");
      });
    } finally {
      await server.close();
    }
  });
});

/** A function_call_output's output as text: a string, or the SDK's list of input_text parts. */
function textOf(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map((part: { text?: string }) => part.text ?? "").join("");
  return JSON.stringify(output);
}
