/**
 * @module test/web/names.test
 * Every global a tool's isolate has keeps its standard name: a function or
 * class global's `name` is its global's name, and so is each method's (and
 * each getter's `get x`) on the global objects, the classes, their
 * prototypes and instances' namespaces (console, crypto, crypto.subtle,
 * performance, WebAssembly). The runtime bundle is minified, so without
 * care `URL.name` read "r" (sandbox/guest/standard-names.ts).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runInNewContext } from "node:vm";
import { toolSource, withHost } from "../helpers/host.js";

/** The engine's own globals (a bare V8 context's), whose members are V8's: the runtime replaces console, and WebAssembly's compile and instantiate. */
const ENGINE_GLOBALS = (runInNewContext("Object.getOwnPropertyNames(globalThis)") as string[]).filter(
  (key) => key !== "WebAssembly" && key !== "console",
);

/** Runs inside the tool: every own string key of globalThis, read (a lazy global builds), and its members. */
const ENUMERATE = `
  const wrong = [];
  // The global object's own keys are checked as globals (below), not again as members of \`self\`.
  const seen = new Set([globalThis]);
  const check = (where, key, expected, fn) => { if (typeof fn === "function" && fn.name !== expected) wrong.push(where + key + ": " + JSON.stringify(fn.name)); };
  const members = (where, object) => {
    if (object === null || (typeof object !== "object" && typeof object !== "function") || seen.has(object)) return;
    seen.add(object);
    for (const key of Object.getOwnPropertyNames(object)) {
      if (key === "constructor" || (typeof object === "function" && (key === "caller" || key === "arguments" || key === "prototype"))) continue;
      const d = Object.getOwnPropertyDescriptor(object, key);
      if ("value" in d) check(where, key, key, d.value);
      else { check(where, key, "get " + key, d.get); check(where, key, "set " + key, d.set); }
    }
  };
  // "__"-prefixed: a library's own slot (zod's config), no standard's.
  const globals = Object.getOwnPropertyNames(globalThis).filter((key) => key !== "globalThis" && !key.startsWith("__"));
  for (const key of globals) {
    const value = globalThis[key];
    check("", key, key, value);
    if (typeof value === "function" && value.prototype && value.prototype.constructor !== value) wrong.push(key + ".prototype.constructor is not " + key);
    if (input.engine.includes(key)) continue;
    members(key + ".", value);
    if (typeof value === "function" && value.prototype) members(key + ".prototype.", value.prototype);
  }
  members("crypto.subtle.", crypto.subtle);
  members("crypto.subtle.", Object.getPrototypeOf(crypto.subtle));
  members("crypto.", Object.getPrototypeOf(crypto));
  members("performance.", Object.getPrototypeOf(performance));
  members("console.", Object.getPrototypeOf(console));
  return { count: globals.length, has: ["URL", "TextEncoder", "AbortSignal", "setTimeout", "fetch", "crypto", "structuredClone"].filter((k) => globals.includes(k)), wrong };
`;

describe("standard names of the globals in a tool", { timeout: 60_000 }, () => {
  it("every function global's name is its global's name, and every member's is its key", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({ source: "agent:names", code: toolSource({ name: "names", run: ENUMERATE, input: "z.object({ engine: z.array(z.string()) })" }) });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      const result = await host.call("names", { engine: ENGINE_GLOBALS }, { timeoutMs: 10_000, memoryMb: 128 });
      assert.ok(result.ok, JSON.stringify(result));
      const { count, has, wrong } = result.structured as { count: number; has: string[]; wrong: string[] };
      assert.ok(count > 60, `only ${count} globals`);
      assert.deepEqual(has, ["URL", "TextEncoder", "AbortSignal", "setTimeout", "fetch", "crypto", "structuredClone"]);
      assert.deepEqual(wrong, []);
    });
  });

  it("lazy globals built after a tool replaced Object.defineProperty are named; a tool's own value keeps its name", async () => {
    await withHost(async (host) => {
      const run = `
        const define = Object.defineProperty;
        Object.defineProperty = () => { throw new Error("poisoned"); };
        const names = [Headers.name, Response.name, structuredClone.name, new TextEncoder().constructor.name, Object.prototype.toString.call(new Headers())];
        Object.defineProperty = define;
        globalThis.Request = function Mine() {};
        return { names, mine: Request.name };`;
      const loaded = await host.load({ source: "agent:names-poisoned", code: toolSource({ name: "names_poisoned", run }) });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      const result = await host.call("names_poisoned", {});
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.structured, { names: ["Headers", "Response", "structuredClone", "TextEncoder", "[object Headers]"], mine: "Mine" });
    });
  });

  it("a tool that leaves Object.prototype.get defined is answered, not timed out (the runtime's descriptors have no prototype)", async () => {
    await withHost(async (host) => {
      const poison = `Object.defineProperty(Object.prototype, "get", { value: () => 1, configurable: true, writable: true });`;
      for (const [name, run] of [["get_sync", `${poison} return { a: 1 };`], ["get_await", `${poison} await null; return { a: 2 };`]] as const) {
        const loaded = await host.load({ source: `agent:${name}`, code: toolSource({ name, run }) });
        assert.ok(loaded.ok, JSON.stringify(loaded));
        const result = await host.call(name, {}, { timeoutMs: 2_000, memoryMb: 64 });
        assert.ok(result.ok, JSON.stringify(result));
        assert.equal((await host.auditSource(`agent:${name}`))?.totals.strikes ?? 0, 0);
      }
    });
  });
});
