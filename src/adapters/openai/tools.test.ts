/**
 * openaiTools without the OpenAI SDK (the shapes are plain data): strict
 * conversion and its non-strict fallback, the three API shapes from one real
 * host, names refused when the adapter is built, and exposure on its calls.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CorralError } from "../../errors.js";
import type { ToolResult } from "../../result.js";
import { toolSource, withHost } from "../../../test/helpers/host.js";
import { toStrictSchema } from "./strict-schema.js";
import { openaiTools } from "./tools.js";

describe("toStrictSchema", () => {
  it("closes objects, requires every property, makes optional ones nullable, and restores their nulls as absent", () => {
    const converted = toStrictSchema({
      type: "object",
      properties: {
        a: { type: "number" },
        mode: { type: "string", enum: ["x", "y"], default: "x" },
        nested: { type: "object", properties: { deep: { type: "integer" } } },
        list: { type: "array", items: { type: "object", properties: { v: { type: "string" } }, required: ["v"] } },
        either: { oneOf: [{ type: "string" }, { type: "number" }] },
      },
      required: ["a"],
    });
    assert.ok(converted.ok);
    assert.deepEqual(converted.schema, {
      type: "object",
      properties: {
        a: { type: "number" },
        mode: { type: ["string", "null"], enum: ["x", "y", null], description: '(default: "x")' },
        nested: { type: ["object", "null"], properties: { deep: { type: ["integer", "null"] } }, required: ["deep"], additionalProperties: false },
        list: { type: ["array", "null"], items: { type: "object", properties: { v: { type: "string" } }, required: ["v"], additionalProperties: false } },
        either: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
      },
      required: ["a", "mode", "nested", "list", "either"],
      additionalProperties: false,
    });
    assert.deepEqual(converted.restore({ a: 1, mode: null, nested: { deep: null }, list: null, either: 2 }), { a: 1, nested: {}, either: 2 });
  });

  it("refuses what strict mode cannot take, with the reason", () => {
    assert.deepEqual(toStrictSchema({ type: "object", properties: { m: { type: "object", additionalProperties: { type: "string" } } } }), {
      ok: false,
      reason: "its input schema has an open record (additionalProperties), which strict mode cannot close",
    });
    assert.equal(toStrictSchema({ anyOf: [{ type: "object" }] }).ok, false);
    assert.equal(toStrictSchema({ type: "object", properties: { x: { allOf: [{ type: "string" }] } } }).ok, false);
  });
});

describe("openaiTools over a real host", { timeout: 120_000 }, () => {
  it("answers Responses, Chat Completions and Agents SDK shapes, runs calls as one caller, and leaves a tool non-strict saying why", async () => {
    await withHost(async (host) => {
      assert.ok((await host.load({ source: "agent:add", code: toolSource({ name: "add", input: "z.object({ a: z.number(), b: z.number() })", run: "return String(input.a + input.b);" }) })).ok);
      assert.ok((await host.load({ source: "agent:bag", code: toolSource({ name: "bag", input: "z.object({ tags: z.record(z.string(), z.string()) })", run: 'return "ok";' }) })).ok);
      assert.ok((await host.load({ source: "agent:secret", code: toolSource({ name: "secret", extra: 'exposure: "hidden",', run: 'return "x";' }) })).ok);
      const set = openaiTools(host);
      assert.deepEqual(set.responses.map((tool) => [tool.name, tool.strict]), [["add", true], ["bag", false]]);
      assert.match(set.responses[1]?.description ?? "", /Not strict: its input schema has an open record/);
      assert.deepEqual(set.chat.map((tool) => tool.function.name), ["add", "bag"]);

      const { item } = await set.run({ call_id: "c1", name: "add", arguments: '{"a":1,"b":2}' });
      assert.deepEqual(item, { type: "function_call_output", call_id: "c1", output: "3" });
      const chat = await set.runChat({ id: "t1", function: { name: "secret", arguments: "{}" } });
      assert.match(chat.message.content, /^unknown_tool: /, "a hidden tool is refused as an unknown one");
      assert.equal(await set.agents[0]?.execute({ a: 5, b: 5 }), "10");
      const bad = await set.run({ call_id: "c2", name: "add", arguments: "not json" });
      assert.match(String(bad.item.output), /^invalid_input: /);
    });
  });

  it("refuses a tool name OpenAI would refuse when the adapter is built", () => {
    const host = {
      declarations: () => [{ name: "has.dot", description: "x", input_schema: { type: "object" } }],
      call: async (): Promise<ToolResult> => {
        throw new Error("never called");
      },
    };
    assert.throws(() => openaiTools(host), (error: unknown) => error instanceof CorralError && error.code === "invalid_tool_name" && error.data.tool === "has.dot");
    assert.equal(openaiTools(host, { filter: (name) => name !== "has.dot" }).responses.length, 0);
  });
});
