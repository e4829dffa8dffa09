import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createHost, type Host, type ToolResult } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir, toolSource } from "../helpers/host.js";

/**
 * Hostile scripts, each against a real host with one worker: a clear error
 * result in bounded time (the script's limit, plus the worker's grace),
 * nested calls counted in the ledger as the script's details say, and the
 * tool it called still warm in its worker afterwards.
 */
// Generous: a script of 100 nested calls must finish under it on a loaded machine.
const SCRIPT_TIMEOUT_MS = 3_000;
const AT_LIMIT = new RegExp(`${SCRIPT_TIMEOUT_MS} ms`);

type Details = { calls: { tool: string; kind: string }[]; callCount: number; callsByKind: Record<string, number> };

describe("Code Mode: hostile scripts", { timeout: 300_000 }, () => {
  let host: Host;
  let before_: number[];
  let cache: { path: string; remove: () => void };

  before(async () => {
    before_ = childPids();
    cache = tempDir();
    host = createHost({
      workers: 1,
      cacheDir: join(cache.path, "cache"),
      ledger: { store: join(cache.path, "ledger.db") },
      codeMode: { timeoutMs: SCRIPT_TIMEOUT_MS, memoryMb: 32, maxCalls: 100, maxInFlight: 4 },
    });
    const add = await host.load({
      source: "agent:math",
      code: toolSource({ name: "add", input: "z.object({ a: z.number(), b: z.number() })", run: "return { sum: input.a + input.b };" }),
    });
    const hang = await host.load({
      source: "agent:hang",
      code: toolSource({ name: "hang", extra: "limits: { timeoutMs: 200 },", run: "for (;;) {}" }),
    });
    assert.ok(add.ok && hang.ok, JSON.stringify([add, hang]));
    assert.ok((await host.call("add", { a: 1, b: 1 })).ok);
  });

  after(async () => {
    await host.close();
    cache.remove();
    await assertNoWorkersLeft(before_);
  });

  async function callsOf(source: string, tool: string): Promise<number> {
    const report = await host.auditSource(source);
    return report?.tools.find((row) => row.tool === tool)?.totals.calls ?? 0;
  }

  /** Runs `code` as a script; checks the time it took, the ledger's count of add, and that add is still warm. */
  async function hostile(code: string): Promise<ToolResult> {
    // Each case starts with a clean record: three timeouts in a row quarantine the script's source (the last case shows it).
    if ((await host.sourceState("code:program")).state === "quarantined") await host.release("code:program");
    const addBefore = await callsOf("agent:math", "add");
    const started = performance.now();
    const result = await host.call("run_code", { code });
    const tookMs = performance.now() - started;
    // Bounded: the script's limit, the load of its module, the watchdog's grace, and a loaded machine's slack.
    assert.ok(tookMs < SCRIPT_TIMEOUT_MS + 2_000 + 250 + 5_000, `the script took ${tookMs} ms`);
    const details = result.details as Details | undefined;
    const nestedAdds = details?.calls.filter((call) => call.tool === "add" && call.kind !== "busy" && call.kind !== "blocked").length ?? 0;
    assert.equal((await callsOf("agent:math", "add")) - addBefore, nestedAdds, `the ledger counts every nested call of add: ${JSON.stringify(details)}`);
    const after = await host.call("add", { a: 2, b: 2 });
    assert.ok(after.ok, JSON.stringify(after));
    assert.deepEqual(after.structured, { sum: 4 });
    assert.equal(after.warm, true, "add's isolate survived the script, warm in its worker");
    return result;
  }

  function failed(result: ToolResult, kinds: string[], message: RegExp): void {
    assert.equal(result.ok, false, JSON.stringify(result));
    assert.ok(!result.ok);
    assert.ok(kinds.includes(result.error.kind), `${result.error.kind}: ${result.error.message}`);
    assert.match(result.error.message, message);
    assert.equal(result.source, "code:program");
  }

  it("a script that loops forever is stopped at its limit: timeout, charged to the script", async () => {
    failed(await hostile("await tools.add({ a: 1, b: 2 }); for (;;) {}"), ["timeout"], AT_LIMIT);
  });

  it("a script that allocates without end is stopped: memory", async () => {
    failed(await hostile("await tools.add({ a: 1, b: 2 }); const keep = []; for (;;) keep.push(new Array(100000).fill(7));"), ["memory"], /memory|MB/);
  });

  it("a script that never settles is stopped at its limit: timeout", async () => {
    failed(await hostile("await tools.add({ a: 1, b: 2 }); await new Promise(() => {});"), ["timeout"], AT_LIMIT);
  });

  it("a script that calls a tool 100,000 times gets maxCalls and a clear error past it", async () => {
    const result = await hostile("for (let i = 0; i < 100000; i++) await tools.add({ a: i, b: 1 }); return 'never';");
    failed(result, ["tool_error"], /more than 100 tool calls \(codeMode\.maxCalls\)/);
    assert.equal((result.details as Details).callsByKind.ok, 100);
  });

  it("a script that fires 10,000 calls at once gets maxInFlight past 4 waiting, and no more than 100 reach the host", async () => {
    const result = await hostile(`
      const settled = await Promise.allSettled(Array.from({ length: 10000 }, (_, i) => tools.add({ a: i, b: 1 })));
      const kinds = {};
      for (const s of settled) { const k = s.status === "fulfilled" ? "ok" : s.reason.kind; kinds[k] = (kinds[k] ?? 0) + 1; }
      return kinds;`);
    assert.ok(result.ok, JSON.stringify(result));
    const kinds = result.structured as Record<string, number>;
    assert.equal(kinds.ok, 4);
    assert.equal(kinds.busy, 10000 - 4);
    assert.ok((result.details as Details).callCount <= 100);
  });

  it("run_code cannot be reached from a script: not in tools, not described, refused by name", async () => {
    const result = await hostile(`
      const described = await describe("run_code");
      let thrown;
      try { await tools.run_code({ code: "return 1" }); } catch (e) { thrown = e.constructor.name; }
      return { described, thrown, listed: Object.keys(tools).includes("run_code") };`);
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.structured, { described: null, thrown: "TypeError", listed: false });
  });

  it("a script that returns a function, or a callable Proxy, gets a clear error", async () => {
    failed(await hostile("return function f() {};"), ["tool_error"], /returned a function: return plain data/);
    failed(await hostile("return new Proxy(function () {}, {});"), ["tool_error"], /returned a function/);
  });

  it("a script that returns a Proxy whose traps never end is stopped at its limit", async () => {
    failed(await hostile("return new Proxy({}, { ownKeys() { for (;;) {} } });"), ["timeout"], AT_LIMIT);
  });

  it("a script that returns a 1 GB string gets a clear error, not the string", async () => {
    failed(await hostile("return 'x'.repeat(2 ** 30);"), ["tool_error", "memory", "output_too_large"], /string length|memory|larger than/);
  });

  it("a script that throws non-Errors gets tool_error with what it threw", async () => {
    failed(await hostile("throw 42;"), ["tool_error"], /42/);
    failed(await hostile("throw null;"), ["tool_error"], /null/);
    failed(await hostile("throw { toString() { for (;;) {} } };"), ["tool_error", "timeout"], /.+/);
  });

  it("a script that poisons Object.prototype before calling a tool harms nobody but itself", async () => {
    const result = await hostile(`
      Object.defineProperty(Object.prototype, "kind", { get() { throw new Error("poisoned kind"); }, configurable: true });
      Object.prototype.toJSON = function () { return "poisoned"; };
      Object.prototype.then = undefined;
      const r = await tools.add({ a: 40, b: 2 });
      return r.sum;`);
    // Its own request was poisoned to "poisoned" JSON: the tool refused that input; or the script got 42.
    if (result.ok) assert.equal(result.structured, 42);
    else assert.ok(["tool_error", "timeout"].includes(result.error.kind), JSON.stringify(result.error));
  });

  it("a tool that hangs, called from a script: the tool's isolate stops it, the strike is the tool's, the script reads kind timeout", async () => {
    const hangBefore = await callsOf("agent:hang", "hang");
    const result = await hostile("try { await tools.hang({}); } catch (e) { return { kind: e.kind }; } return { kind: \"answered\" };");
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.structured, { kind: "timeout" });
    assert.equal((await callsOf("agent:hang", "hang")) - hangBefore, 1);
    const report = await host.auditSource("agent:hang");
    assert.ok((report?.tools[0]?.totals.strikes ?? 0) >= 1, "the timeout is a strike against the tool's own source");
  });

  it("a tool whose native work outlives its own limits, called from a script: the host stops the worker, the strike is the tool's, the script's is not", async () => {
    // crash-keys-of-typed-array (test/hostile/cases): 20 million index strings made in one native call.
    const keys = await host.load({
      source: "agent:keys",
      code: toolSource({ name: "keys", extra: "limits: { timeoutMs: 1000, memoryMb: 32 },", run: "return Object.keys(new Uint8Array(20_000_000)).length;" }),
    });
    assert.ok(keys.ok, JSON.stringify(keys));
    if ((await host.sourceState("code:program")).state === "quarantined") await host.release("code:program");
    const scriptStrikesBefore = (await host.auditSource("code:program"))?.totals.strikes ?? 0;
    const result = await host.call("run_code", { code: "await tools.add({ a: 1, b: 1 }); return await tools.keys({});" });
    failed(result, ["tool_error"], /the tool "keys" this script called stopped its worker .*The strike is the tool's/);
    const report = await host.auditSource("agent:keys");
    const row = report?.tools.find((tool) => tool.tool === "keys");
    assert.equal(row?.totals.calls, 1);
    assert.equal(row?.totals.strikes, 1, "the host's second layer charged the nested tool");
    assert.ok((row?.totals.outcomes.memory ?? 0) + (row?.totals.outcomes.timeout ?? 0) === 1, JSON.stringify(row?.totals.outcomes));
    assert.equal((await host.auditSource("code:program"))?.totals.strikes, scriptStrikesBefore, "no strike for the script");
    const after = await host.call("add", { a: 2, b: 2 });
    assert.ok(after.ok, "the host serves on with a new worker");
  });

  it("a script whose timers grow its worker while a tool it called runs: the script is charged, never the tool", async () => {
    const nap = await host.load({
      source: "agent:nap",
      code: toolSource({ name: "nap", extra: "limits: { timeoutMs: 1500, memoryMb: 32 },", run: 'await new Promise((resolve) => setTimeout(resolve, 600)); return "rested";' }),
    });
    assert.ok(nap.ok, JSON.stringify(nap));
    if ((await host.sourceState("code:program")).state === "quarantined") await host.release("code:program");
    const scriptBefore = (await host.auditSource("code:program"))?.totals.outcomes.memory ?? 0;
    // WebAssembly memory: V8 does not count it, so only the host's resident-memory watch can stop it.
    // It waits while nap runs (the worker holds the script's timers), then grows until the watch stops the worker.
    // Were it to run beside nap, it would grow past nap's own allowance (160 MB) in those 600 ms.
    const code = `const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
      let grown = 0;
      setInterval(() => { const at = memory.buffer.byteLength; memory.grow(256); new Uint8Array(memory.buffer, at).fill(1); grown++; }, 2);
      const rested = await tools.nap({});
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      return { rested, grown };`;
    const result = await host.call("run_code", { code });
    failed(result, ["memory"], /grew its worker past its 32 MB limit/);
    const row = (await host.auditSource("agent:nap"))?.tools.find((tool) => tool.tool === "nap");
    assert.deepEqual([row?.totals.calls, row?.totals.strikes, row?.totals.outcomes.ok], [1, 0, 1], "nap ran to its answer and took no strike");
    assert.equal((await host.auditSource("code:program"))?.totals.outcomes.memory, scriptBefore + 1, "the script's source took the memory strike");
  });

  it("a tool that grows its worker past its own allowance, called from a script: the tool is charged memory, the script is not", async () => {
    const balloon = await host.load({
      source: "agent:balloon",
      code: toolSource({
        name: "balloon",
        extra: "limits: { timeoutMs: 2500, memoryMb: 32 },",
        // WebAssembly memory: V8 does not count it, so only the host's resident-memory watch stops it.
        run: "const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); for (;;) { const at = memory.buffer.byteLength; memory.grow(256); new Uint8Array(memory.buffer, at).fill(1); }",
      }),
    });
    assert.ok(balloon.ok, JSON.stringify(balloon));
    if ((await host.sourceState("code:program")).state === "quarantined") await host.release("code:program");
    const scriptBefore = (await host.auditSource("code:program"))?.totals.strikes ?? 0;
    const result = await host.call("run_code", { code: "await tools.add({ a: 1, b: 1 }); return await tools.balloon({});" });
    failed(result, ["tool_error"], /the tool "balloon" this script called stopped its worker .*grew its worker past its 32 MB limit.*The strike is the tool's/);
    const row = (await host.auditSource("agent:balloon"))?.tools.find((tool) => tool.tool === "balloon");
    assert.deepEqual([row?.totals.calls, row?.totals.strikes, row?.totals.outcomes.memory], [1, 1, 1], JSON.stringify(row?.totals));
    assert.equal((await host.auditSource("code:program"))?.totals.strikes, scriptBefore, "no strike for the script");
  });

  it("a model whose scripts keep timing out is quarantined like any source", async () => {
    if ((await host.sourceState("code:program")).state === "quarantined") await host.release("code:program");
    for (let i = 0; i < 3; i++) await host.call("run_code", { code: "for (;;) {}" });
    const state = await host.sourceState("code:program");
    assert.equal(state.state, "quarantined");
    const refused = await host.call("run_code", { code: "return 1" });
    assert.equal(refused.ok ? "ok" : refused.error.kind, "quarantined");
    await host.release("code:program");
  });
});
