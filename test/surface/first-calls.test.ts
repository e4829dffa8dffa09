/**
 * A tool's first calls: zod runs without making code from strings (its
 * per-schema parser compiler costs a new isolate more than it saves).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { toolSource, withHost } from "../helpers/host.js";

/** Counts every use of the Function constructor in the tool's context, by anyone, from its top level on. */
const SPY = `let made = 0;
const RealFunction = globalThis.Function;
globalThis.Function = new Proxy(RealFunction, {
  construct(target, args) { made++; return Reflect.construct(target, args); },
  apply(target, self, args) { made++; return Reflect.apply(target, self, args); },
});`;

describe("first calls", { timeout: 60_000 }, () => {
  it("zod parses a tool's input without making code from strings (jitless), on its first calls and later", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({
        source: "agent:spied",
        code: toolSource({ name: "spied", top: SPY, input: "z.object({ a: z.string(), b: z.number(), c: z.array(z.boolean()) })", run: "return { made, b: input.b };" }),
      });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      for (let b = 0; b < 3; b++) {
        const result = await host.call("spied", { a: "x", b, c: [true] });
        assert.ok(result.ok, JSON.stringify(result));
        assert.deepEqual(result.structured, { made: 0, b }, "the Function constructor was used while the input was parsed");
      }
    });
  });
});
