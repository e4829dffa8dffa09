/**
 * @module test/codemode/script-results.test
 * What a Code Mode script's result may hold, and what becomes of the calls
 * it leaves (issue 27, item 5), end to end on a real host and worker:
 * - one rule at every depth: a function (a callable Proxy too), a symbol or
 *   a BigInt anywhere in the result (top level, an object, an array, a Map,
 *   a toolResult's details, deep inside) is a tool_error that names where;
 *   plain data at the same places answers ok;
 * - the calls a script made and did not wait for when it returned (never
 *   sent, or sent and not awaited), of a fast-lane tool and of a
 *   host-routed one, are named in `details.cancelledCalls`; a call never
 *   sent never runs; an awaited call is never named (one sent and not
 *   awaited may have run to its end: then it is in `calls` too);
 * - a script that replaces built-ins after computing its result (each one
 *   the settling path could reach: Promise's then, constructor, species,
 *   JSON, Object and Array methods, Map's) still gets that result back, as
 *   a tool does (sandbox/worker/intrinsics-poison.test.ts).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Host, ToolResult } from "../../src/index.js";
import { toolSource, withHost } from "../helpers/host.js";

/** The values no model can read, as script expressions. */
const NOT_DATA: [string, string][] = [
  ["function", "() => 1"],
  ["function", "function named() {}"],
  ["function", "new Proxy(function () {}, {})"],
  ["symbol", "Symbol('s')"],
  ["bigint", "2n"],
];

/** Where a value sits in the result: the script's return expression around it, and the path the message names. */
const PLACES: [string, (v: string) => string, string][] = [
  ["the top level", (v) => v, ""],
  ["an object", (v) => `{ ok: 1, f: ${v} }`, " at result.f"],
  ["an array", (v) => `[1, 2, ${v}]`, " at result[2]"],
  ["deep inside", (v) => `{ a: { b: [{ c: [0, { d: ${v} }] }] } }`, " at result.a.b[0].c[1].d"],
  ["a Map's value", (v) => `new Map([["k", ${v}]])`, " at result[0][1]"],
  ["an odd key", (v) => `{ "odd key": ${v} }`, ' at result["odd key"]'],
];

const failed = (result: ToolResult) => {
  assert.equal(result.ok, false, JSON.stringify(result).slice(0, 300));
  return result.ok ? { kind: "", message: "" } : result.error;
};

const details = (result: ToolResult) => (result.details ?? {}) as { cancelledCalls?: string[]; callCount?: number; calls?: { tool: string; kind: string }[] };

async function loadTools(host: Host): Promise<void> {
  // `quick`: pure, so on the fast lane; `keeper`: declares state_write, so every call of it is host-routed.
  const quick = await host.load({ source: "agent:quick", code: toolSource({ name: "quick", input: "z.object({ n: z.number() })", run: "return { n: input.n };" }) });
  const keeper = await host.load({
    source: "agent:keeper",
    code: `import { defineTool } from "corral"; import { z } from "zod";
export default defineTool({ name: "keeper", description: "keeps n, or lists what it kept", input: z.object({ n: z.number(), list: z.boolean().optional() }), effects: ["state_write"],
  async run(input, ctx) { if (input.list) return { keys: await ctx.state.list("") }; await ctx.state.set("k" + input.n, input.n); return { n: input.n }; } });`,
  });
  for (const loaded of [quick, keeper]) assert.ok(loaded.ok, JSON.stringify(loaded));
}

const HOST = { codeMode: {}, ledger: { store: false as const }, effects: { agent: { state_write: "allow" as const } }, capabilities: { state: {} } };

/** [the object, the key, poisoned as a throwing getter]. */
const POISONS: [string, string, boolean][] = [
  ["Promise.prototype", '"then"', false], ["Promise.prototype", '"then"', true], ["Promise.prototype", '"constructor"', true],
  ["Promise.prototype", '"constructor"', false], ["Promise", "Symbol.species", true], ["Promise", '"resolve"', false],
  ["JSON", '"stringify"', false], ["JSON", '"parse"', false], ["Object", '"keys"', false], ["Object", '"create"', false],
  ["Object", '"freeze"', false], ["Object", '"defineProperty"', false], ["Object", '"getPrototypeOf"', false],
  ["Array.prototype", '"push"', false], ["Array.prototype", '"map"', false], ["Array.prototype", "Symbol.iterator", false],
  ["Map.prototype", '"forEach"', false], ["Map.prototype", "Symbol.iterator", false], ["Reflect", '"apply"', false],
  ["Function.prototype", '"call"', false], ["Object.prototype", '"toJSON"', false], ["String.prototype", '"slice"', false],
];

describe("a Code Mode script's result", { timeout: 120_000 }, () => {
  it("a script that replaces a built-in after computing its result still gets it back", async () => {
    await withHost(async (host) => {
      for (const [target, key, getter] of POISONS) {
        const code = `const value = { a: [1, 2], m: new Map([[1, 2]]), when: new Date(0) };
const thrower = function () { throw new Error("poisoned"); };
Object.defineProperty(${target}, ${key}, ${getter ? "{ get: thrower, configurable: true }" : "{ value: thrower, writable: true, configurable: true }"});
return value;`;
        const result = await host.call("run_code", { code });
        assert.ok(result.ok, `${target}[${key}]${getter ? " (getter)" : ""}: ${JSON.stringify(result).slice(0, 300)}`);
        assert.deepEqual(result.structured, { a: [1, 2], m: [[1, 2]], when: "1970-01-01T00:00:00.000Z" });
      }
    }, HOST);
  });

  it("a function, symbol or BigInt anywhere in it is a tool_error naming where; plain data there answers ok", async () => {
    await withHost(async (host) => {
      for (const [type, value] of NOT_DATA) {
        for (const [place, wrap, where] of PLACES) {
          const error = failed(await host.call("run_code", { code: `return ${wrap(value)};` }));
          assert.equal(error.kind, "tool_error", `${type} in ${place}`);
          assert.equal(error.message, `the script returned a ${type}${where}: return plain data (JSON)`, `${type} in ${place}`);
        }
      }
      for (const [place, wrap] of PLACES) {
        const result = await host.call("run_code", { code: `return ${wrap("'plain'")};` });
        assert.ok(result.ok, `plain data in ${place}: ${JSON.stringify(result).slice(0, 300)}`);
      }
      // A toolResult's channels follow the same rule (its details are data too).
      const code = `const { toolResult } = require("corral"); return toolResult({ structured: { a: 1 }, details: { f: () => 1 } });`;
      assert.equal(failed(await host.call("run_code", { code })).message, "the script returned a function at result.details.f: return plain data (JSON)");
    }, HOST);
  });

  it("names the calls it left unsent or unawaited, fast-lane and host-routed alike; a call never sent never runs", async () => {
    await withHost(async (host) => {
      await loadTools(host);
      // Warm both, so `quick` is on the lane and quick there.
      assert.ok((await host.call("run_code", { code: "await tools.quick({ n: 0 }); await tools.keeper({ n: 0 }); return 1;" })).ok);
      // Returned in the entry that made them: none was sent.
      const unsent = await host.call("run_code", { code: "tools.keeper({ n: 1 }); tools.keeper({ n: 2 }); return 'left';" });
      assert.ok(unsent.ok, JSON.stringify(unsent));
      assert.deepEqual(details(unsent).cancelledCalls, ["keeper", "keeper"]);
      // Awaited ones are answered and counted, never named; the one left after them is.
      const mixed = await host.call("run_code", { code: "await tools.quick({ n: 1 }); await tools.keeper({ n: 3 }); tools.keeper({ n: 4 }); return { done: true };" });
      assert.ok(mixed.ok, JSON.stringify(mixed));
      assert.deepEqual(mixed.structured, { done: true });
      assert.deepEqual(details(mixed).cancelledCalls, ["keeper"]);
      // The one left was sent: the host may have run it to its end before the script's end (then it is in `calls` too).
      assert.deepEqual(details(mixed).calls?.slice(0, 2).map((call) => call.tool), ["quick", "keeper"]);
      // A script that awaits everything names nothing.
      const tidy = await host.call("run_code", { code: "await Promise.all([tools.quick({ n: 2 }), tools.keeper({ n: 5 })]); return 1;" });
      assert.equal(details(tidy).cancelledCalls, undefined);
      // The calls never sent never ran: nothing kept under their keys.
      const kept = await host.call("keeper", { n: 0, list: true });
      assert.ok(kept.ok, JSON.stringify(kept));
      const keys = (kept.structured as { keys: string[] }).keys;
      for (const never of ["k1", "k2"]) assert.ok(!keys.includes(never), `${never} was written: ${JSON.stringify(keys)}`);
    }, HOST);
  });
});
