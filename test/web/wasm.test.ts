/**
 * @module test/web/wasm.test
 * Async WebAssembly inside a tool, through a real host, worker process and
 * isolate: `WebAssembly.compile` and `WebAssembly.instantiate` settle with
 * the engine's answer (sandbox/guest/wasm.ts), a bad module is the tool's
 * own error and never a strike, and the call's memory and time limits
 * still stop a tool that instantiates or compiles for ever. Atomics.waitAsync,
 * which settles the same way (and with a timeout aborted the worker), is
 * gone (sandbox/guest/atomics.ts).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { outcomeOf } from "../../src/index.js";
import { toolSource, withHost } from "../helpers/host.js";

// (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
const ADD = [0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 2, 127, 127, 1, 127, 3, 2, 1, 0, 7, 7, 1, 3, 97, 100, 100, 0, 0, 10, 9, 1, 7, 0, 32, 0, 32, 1, 106, 11];
// (module (import "env" "f" (func))): instantiating it without imports is a TypeError, with a wrong one a LinkError.
const NEEDS_IMPORT = [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 2, 9, 1, 3, 101, 110, 118, 1, 102, 0, 0];
const TOP = `const ADD = new Uint8Array(${JSON.stringify(ADD)}); const NEEDS_IMPORT = new Uint8Array(${JSON.stringify(NEEDS_IMPORT)});`;

const LIMITS = { timeoutMs: 2_000, memoryMb: 64 };

/** A module of `functions` functions, each `ops` times (i32.const 0, drop): about 3 × functions × ops bytes. */
const BIG_MODULE = `
function leb(n) { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; }
function bigModule(functions, ops) {
  const body = new Uint8Array(ops * 3 + 2);
  for (let i = 0; i < ops; i++) body.set([0x41, 0x00, 0x1a], 1 + i * 3);
  body[body.length - 1] = 0x0b;
  const entry = leb(body.length);
  const declared = [...leb(functions), ...new Array(functions).fill(0)];
  const head = [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, ...leb(declared.length), ...declared,
    10, ...leb(leb(functions).length + functions * (entry.length + body.length)), ...leb(functions)];
  const bytes = new Uint8Array(head.length + functions * (entry.length + body.length));
  bytes.set(head);
  for (let i = 0, at = head.length; i < functions; i++, at += entry.length + body.length) { bytes.set(entry, at); bytes.set(body, at + entry.length); }
  return bytes;
}`;

describe("async WebAssembly in a tool", { timeout: 120_000 }, () => {
  it("compile, instantiate from bytes and from a Module settle, and the exported function runs", async () => {
    await withHost(async (host) => {
      const run = `
        const module = await WebAssembly.compile(ADD);
        const fromBytes = await WebAssembly.instantiate(ADD);
        const fromModule = await WebAssembly.instantiate(module);
        const viaBuffer = await WebAssembly.instantiate(ADD.buffer, {});
        return {
          compiled: Object.prototype.toString.call(module),
          exports: WebAssembly.Module.exports(module),
          keys: Object.keys(fromBytes).sort(),
          bytesModule: fromBytes.module instanceof WebAssembly.Module,
          bytesAdd: fromBytes.instance.exports.add(2, 3),
          moduleIsInstance: fromModule instanceof WebAssembly.Instance,
          moduleAdd: fromModule.exports.add(40, 2),
          bufferAdd: viaBuffer.instance.exports.add(-1, 1),
          names: [WebAssembly.compile.name, WebAssembly.instantiate.name, WebAssembly.compile.length, WebAssembly.instantiate.length],
          streaming: [WebAssembly.compileStreaming.name, WebAssembly.instantiateStreaming.length],
        };`;
      const loaded = await host.load({ source: "agent:wasm-ok", code: toolSource({ name: "wasm_ok", run, top: TOP }) });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      const result = await host.call("wasm_ok", {}, LIMITS);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.structured, {
        compiled: "[object WebAssembly.Module]",
        exports: [{ name: "add", kind: "function" }],
        keys: ["instance", "module"],
        bytesModule: true,
        bytesAdd: 5,
        moduleIsInstance: true,
        moduleAdd: 42,
        bufferAdd: 0,
        names: ["compile", "instantiate", 1, 1],
        streaming: ["compileStreaming", 1],
      });
    });
  });

  it("compileStreaming and instantiateStreaming take an ok application/wasm Response, or a promise of one, and refuse others with a TypeError", async () => {
    await withHost(async (host) => {
      const run = `
        const wasm = (init) => new Response(ADD, { headers: { "content-type": "application/wasm" }, ...init });
        const module = await WebAssembly.compileStreaming(wasm());
        const { instance } = await WebAssembly.instantiateStreaming(Promise.resolve(wasm()));
        const refusal = (p) => p.then(() => "settled", (e) => e.constructor.name);
        const used = wasm();
        await used.arrayBuffer();
        return {
          module: module instanceof WebAssembly.Module,
          add: instance.exports.add(20, 22),
          refused: await Promise.all([
            refusal(WebAssembly.compileStreaming(new Response(ADD))),
            refusal(WebAssembly.compileStreaming(new Response(ADD, { headers: { "content-type": "application/wasm; charset=x" } }))),
            refusal(WebAssembly.compileStreaming(wasm({ status: 404 }))),
            refusal(WebAssembly.compileStreaming(used)),
            refusal(WebAssembly.compileStreaming(ADD)),
            refusal(WebAssembly.instantiateStreaming(new Response(new Uint8Array([0, 97, 115, 109, 9]), { headers: { "content-type": "application/wasm" } }))),
          ]),
        };`;
      const loaded = await host.load({ source: "agent:wasm-stream", code: toolSource({ name: "wasm_stream", run, top: TOP }) });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      const result = await host.call("wasm_stream", {}, LIMITS);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.structured, {
        module: true,
        add: 42,
        // The MIME type's parameters are allowed (its essence is what counts); a bad module is the engine's CompileError.
        refused: ["TypeError", "settled", "TypeError", "TypeError", "TypeError", "CompileError"],
      });
    });
  });

  it("a bad module rejects with the engine's error: caught, the tool answers; let through, a tool_error and no strike", async () => {
    await withHost(async (host) => {
      const caught = `
        const reasons = [];
        for (const attempt of [
          () => WebAssembly.compile(new Uint8Array([1, 2, 3])),
          () => WebAssembly.instantiate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 9])),
          () => WebAssembly.compile("not bytes"),
          () => WebAssembly.instantiate(NEEDS_IMPORT),
          () => WebAssembly.instantiate(NEEDS_IMPORT, { env: { f: 1 } }),
          () => WebAssembly.instantiate(new WebAssembly.Module(NEEDS_IMPORT), { env: {} }),
          // Not a Module, whatever its prototype says: taken as bytes, which it is not either.
          () => WebAssembly.instantiate(Object.create(WebAssembly.Module.prototype)),
        ]) {
          const promise = attempt();
          reasons.push(promise instanceof Promise ? await promise.then(() => "fulfilled", (e) => e.name) : "no promise");
        }
        return { reasons };`;
      const letThrough = `await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 2, 0, 0, 0])); return { unreachable: true };`;
      for (const [name, run] of [["wasm_caught", caught], ["wasm_bad", letThrough]] as const) {
        const loaded = await host.load({ source: `agent:${name}`, code: toolSource({ name, run, top: TOP }) });
        assert.ok(loaded.ok, JSON.stringify(loaded));
      }
      const answered = await host.call("wasm_caught", {}, LIMITS);
      assert.ok(answered.ok, JSON.stringify(answered));
      assert.deepEqual(answered.structured, { reasons: ["CompileError", "CompileError", "TypeError", "TypeError", "LinkError", "LinkError", "TypeError"] });
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const bad = await host.call("wasm_bad", {}, LIMITS);
        assert.equal(outcomeOf(bad), "tool_error", JSON.stringify(bad));
        assert.ok(!bad.ok && /CompileError/.test(bad.error.message), JSON.stringify(bad));
        assert.ok(Date.now() - started < LIMITS.timeoutMs / 2, "the rejection waited on the time limit");
      }
      for (const source of ["agent:wasm_caught", "agent:wasm_bad"]) {
        const audit = await host.auditSource(source);
        assert.equal(audit?.totals.strikes ?? 0, 0, `${source}: ${JSON.stringify(audit?.totals)}`);
      }
    });
  });

  it("an 18 MB module compiles, and a tool that keeps instantiating is stopped by its memory limit", async () => {
    await withHost(async (host) => {
      const big = `const module = await WebAssembly.compile(bigModule(20000, 300)); return { functions: WebAssembly.Module.exports(module).length, imports: WebAssembly.Module.imports(module).length };`;
      const hoard = `const bytes = bigModule(2000, 300); const kept = []; for (;;) { const { instance } = await WebAssembly.instantiate(bytes); for (const f of Object.values(instance.exports)) f(); kept.push(instance); }`;
      for (const [name, run] of [["wasm_big", big], ["wasm_hoard", hoard]] as const) {
        const loaded = await host.load({ source: `agent:${name}`, code: toolSource({ name, run, top: BIG_MODULE }) });
        assert.ok(loaded.ok, JSON.stringify(loaded));
      }
      const compiled = await host.call("wasm_big", {}, { timeoutMs: 10_000, memoryMb: 128 });
      assert.ok(compiled.ok, JSON.stringify(compiled));
      assert.deepEqual(compiled.structured, { functions: 0, imports: 0 });
      const hoarded = await host.call("wasm_hoard", {}, { timeoutMs: 8_000, memoryMb: 64 });
      assert.equal(outcomeOf(hoarded), "memory", JSON.stringify(hoarded));
    });
  });

  it("Atomics.waitAsync is not there: looked for, it is absent; called, a tool_error, not a crash or a timeout", async () => {
    await withHost(async (host) => {
      const look = `return { waitAsync: typeof Atomics.waitAsync, wait: typeof Atomics.wait, notify: typeof Atomics.notify };`;
      const call = `const a = new Int32Array(new SharedArrayBuffer(4)); const w = Atomics.waitAsync(a, 0, 0, 10); return { v: await w.value };`;
      for (const [name, run] of [["atomics_look", look], ["atomics_call", call]] as const) {
        const loaded = await host.load({ source: `agent:${name}`, code: toolSource({ name, run }) });
        assert.ok(loaded.ok, JSON.stringify(loaded));
      }
      const looked = await host.call("atomics_look", {}, LIMITS);
      assert.ok(looked.ok, JSON.stringify(looked));
      assert.deepEqual(looked.structured, { waitAsync: "undefined", wait: "function", notify: "function" });
      const called = await host.call("atomics_call", {}, LIMITS);
      assert.equal(outcomeOf(called), "tool_error", JSON.stringify(called));
      assert.equal((await host.auditSource("agent:atomics_call"))?.totals.strikes ?? 0, 0);
    });
  });

  it("a tool that compiles for ever is still stopped by its time limit", async () => {
    await withHost(async (host) => {
      const run = `for (;;) await WebAssembly.instantiate(ADD);`;
      const loaded = await host.load({ source: "agent:wasm-loop", code: toolSource({ name: "wasm_loop", run, top: TOP }) });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      const started = Date.now();
      const result = await host.call("wasm_loop", {}, { timeoutMs: 300, memoryMb: 64 });
      assert.equal(outcomeOf(result), "timeout", JSON.stringify(result));
      assert.ok(Date.now() - started < 5_000);
    });
  });
});
