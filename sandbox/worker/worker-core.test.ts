/**
 * @module sandbox/worker/worker-core.test
 * The worker's logic in this process, with real isolates and no worker
 * process: tasks in, classified replies out.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { CallReply, DescribeReply } from "../shared/replies.js";
import type { CallTask, Task } from "../shared/tasks.js";
import { WorkerCore } from "./worker-core.js";

const SETTINGS = { maxWarmIsolates: 4, maxWarmHeapMb: 256, loadTimeoutMs: 1_000, defaultMemoryMb: 32 };
const LIMITS = { timeoutMs: 500, memoryMb: 32, maxOutputBytes: 64 * 1024, maxDepth: 16 };

function bundleOf(code: string, source = "agent:test") {
  return { hash: createHash("sha256").update(code).digest("hex"), filename: source, code };
}

function tool(name: string, run: string): string {
  return `const { defineTool } = require("corral"); const { z } = require("zod");
module.exports = defineTool({ name: ${JSON.stringify(name)}, description: "t", input: z.object({}).passthrough(), effects: [], run: ${run} });`;
}

function callTask(code: string, name: string, limits = LIMITS): CallTask {
  return { type: "call", callId: "c", bundle: bundleOf(code), tool: name, inputJson: "{}", limits };
}

describe("WorkerCore, in process", { timeout: 60_000 }, () => {
  const core = new WorkerCore(SETTINGS);
  after(() => core.close());

  it("describes a module and keeps its one tool's isolate warm", async () => {
    const code = tool("ok_tool", "() => ({ n: 1 })");
    const reply = (await core.handle({ type: "describe", bundle: bundleOf(code), limits: LIMITS })) as DescribeReply;
    assert.equal(reply.kind, "ok");
    assert.ok(reply.kept?.startsWith("agent:test:"), "the warm key names the source");
    const call = (await core.handle(callTask(code, "ok_tool"))) as CallReply;
    assert.equal(call.kind, "ok");
    assert.equal(call.warm, true);
    assert.deepEqual(JSON.parse(call.envelopeJson ?? "").structured, { n: 1 });
  });

  it("answers a plain throw as tool_error, at once", async () => {
    const started = performance.now();
    const reply = (await core.handle(callTask(tool("thrower", "() => { throw new Error('no') }"), "thrower"))) as CallReply;
    assert.equal(reply.kind, "tool_error");
    assert.ok(performance.now() - started < LIMITS.timeoutMs, "not a wait for the deadline");
  });

  it("answers an error whose logs and message escape past the error budget as tool_error", async () => {
    const run = `() => { const s = "\\u0001".repeat(499); for (let i = 0; i < 100; i++) console.log(s); throw new Error("\\u0001".repeat(100000)); }`;
    const reply = (await core.handle(callTask(tool("escaper", run), "escaper"))) as CallReply;
    assert.equal(reply.kind, "tool_error", JSON.stringify(reply).slice(0, 300));
  });

  it("answers a loop past the time limit as timeout", async () => {
    const reply = (await core.handle(callTask(tool("spin", "() => { for (;;) {} }"), "spin", { ...LIMITS, timeoutMs: 100 }))) as CallReply;
    assert.equal(reply.kind, "timeout");
  });

  it("answers a throw after allocating and freeing near the limit as tool_error", async () => {
    const run = `() => { let keep = []; for (let i = 0; i < 150000; i++) keep.push({ i, s: "x" + i }); keep = null; throw new Error("after freeing"); }`;
    const reply = (await core.handle(callTask(tool("freer", run), "freer", { ...LIMITS, timeoutMs: 5_000 }))) as CallReply;
    assert.equal(reply.kind, "tool_error", JSON.stringify(reply).slice(0, 300));
  });

  it("answers a module whose top level throws as compile_error on load and tool_error on a cold call", async () => {
    const code = `throw new Error("top level");`;
    const load = await core.handle({ type: "describe", bundle: bundleOf(code), limits: LIMITS });
    assert.equal(load.kind, "compile_error");
    const call = await core.handle(callTask(code, "anything"));
    assert.equal(call.kind, "tool_error");
  });

  it("keeps isolates of two sources with the same code apart", async () => {
    const code = tool("shared", "() => { globalThis.n = (globalThis.n ?? 0) + 1; return { n: globalThis.n }; }");
    const a: Task = { ...callTask(code, "shared"), bundle: bundleOf(code, "agent:a") };
    const b: Task = { ...callTask(code, "shared"), bundle: bundleOf(code, "agent:b") };
    await core.handle(a);
    const second = (await core.handle(a)) as CallReply;
    const other = (await core.handle(b)) as CallReply;
    assert.deepEqual(JSON.parse(second.envelopeJson ?? "").structured, { n: 2 });
    assert.deepEqual(JSON.parse(other.envelopeJson ?? "").structured, { n: 1 });
  });

  it("answers a timer's uninterruptible native work only once it is over", async () => {
    // Object.keys of a large typed array ignores termination: the deadline
    // passes inside it, and the answer must wait until the isolate's thread is free.
    // 300,000 elements take ~0.4 s here: far past the 50 ms limit, and far
    // inside isolated-vm's 5 s grace, past which it raises a catastrophic
    // error ("Script failed to terminate") that ends this test process.
    const run = `() => new Promise(() => { setTimeout(() => { Object.keys(new Uint8Array(300_000)); }, 1); })`;
    const reply = (await core.handle(callTask(tool("native_sort", run), "native_sort", { ...LIMITS, memoryMb: 256, timeoutMs: 50 }))) as CallReply;
    assert.equal(reply.kind, "timeout");
    // Once answered, nothing of it runs: this process is quiet.
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const used = process.cpuUsage(before);
    assert.ok((used.user + used.system) / 1000 < 60, `the process kept working after the answer: ${used.user + used.system} us of CPU in 100 ms`);
  });

  it("counts a kept isolate's WebAssembly memory in the warm budget", async () => {
    const before = core.warmFootprintBytes;
    const run = `() => { globalThis.kept = new WebAssembly.Memory({ initial: 480 }); new Uint8Array(globalThis.kept.buffer).fill(1); return { pages: 480 }; }`;
    const reply = (await core.handle(callTask(tool("wasm_keeper", run), "wasm_keeper", { ...LIMITS, timeoutMs: 5_000 }))) as CallReply;
    assert.equal(reply.kind, "ok", JSON.stringify(reply).slice(0, 300));
    // 480 pages of 64 KiB: 30 MB that V8's heap statistics do not show.
    assert.ok(core.warmFootprintBytes - before >= 25 * 1024 * 1024, `counted ${core.warmFootprintBytes - before} bytes`);
  });

  it("counts the blank isolate it keeps ready in the warm budget (the measure eviction uses)", async () => {
    const other = new WorkerCore(SETTINGS);
    try {
      const empty = other.warmFootprintBytes;
      other.prepareBlank();
      const withBlank = other.warmFootprintBytes;
      assert.ok(withBlank - empty > 100_000, `the blank weighs ${withBlank - empty} bytes in the budget`);
      // A cold call takes the blank as its isolate: the budget then counts that isolate, not both.
      const reply = (await other.handle(callTask(tool("took_blank", "() => 1"), "took_blank"))) as CallReply;
      assert.equal(reply.kind, "ok");
      assert.equal(other.warmIsolates, 1);
      assert.ok(other.warmFootprintBytes < withBlank * 2, `${other.warmFootprintBytes} bytes after, ${withBlank} with the blank alone`);
    } finally {
      other.close();
    }
  });

  it("runs a debounce over 200,000 events with one pending timer", async () => {
    const run = `() => new Promise((resolve) => { let t; let fired = 0; for (let i = 0; i < 200000; i++) { clearTimeout(t); t = setTimeout(() => { fired++; resolve({ fired }); }, 5); } })`;
    const reply = (await core.handle(callTask(tool("debounce", run), "debounce", { ...LIMITS, timeoutMs: 5_000 }))) as CallReply;
    assert.equal(reply.kind, "ok", JSON.stringify(reply).slice(0, 300));
    assert.deepEqual(JSON.parse(reply.envelopeJson ?? "").structured, { fired: 1 });
  });

  it("holds the running call's timers while a script's nested calls run, and fires them again after", async () => {
    // The tool records when its interval fired; nothing fires between the hold and the release.
    const run = `() => new Promise((resolve) => { const ticks = []; const id = setInterval(() => ticks.push(Date.now()), 2);
      setTimeout(() => { clearInterval(id); resolve({ ticks }); }, 400); })`;
    const replied = core.handle(callTask(tool("ticker", run), "ticker", { ...LIMITS, timeoutMs: 5_000 }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const heldAt = Date.now();
    core.holdScriptTimers(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const releasedAt = Date.now();
    core.holdScriptTimers(false);
    const reply = (await replied) as CallReply;
    assert.equal(reply.kind, "ok", JSON.stringify(reply).slice(0, 300));
    const { ticks } = JSON.parse(reply.envelopeJson ?? "").structured as { ticks: number[] };
    // One firing entry already in flight as the hold begins may finish: a few milliseconds' margin.
    const whileHeld = ticks.filter((at) => at > heldAt + 10 && at < releasedAt);
    assert.deepEqual(whileHeld, [], `ticks while held, between ${heldAt} and ${releasedAt}`);
    assert.ok(ticks.some((at) => at < heldAt), "the interval fired before the hold");
    assert.ok(ticks.some((at) => at >= releasedAt), "and again after the release");
  });

  it("callNow: answers a warm tool that answers at once in the same turn, a waiting one with a promise, and runs nothing cold", async () => {
    const quick = tool("now_quick", "(input) => ({ echo: input })");
    const waits = tool("now_waits", "() => new Promise((resolve) => setTimeout(() => resolve({ waited: true }), 5))");
    const cold = tool("now_cold", "() => 1");
    assert.equal(core.callNow(callTask(cold, "now_cold")), undefined, "no warm isolate: nothing runs");
    for (const [code, name] of [[quick, "now_quick"], [waits, "now_waits"]] as const) await core.handle({ type: "describe", bundle: bundleOf(code), limits: LIMITS });
    const answered = core.callNow({ ...callTask(quick, "now_quick"), inputJson: '{"a":1}' });
    assert.ok(answered !== undefined && !(answered instanceof Promise), "answered in this turn");
    assert.equal(answered.kind, "ok");
    assert.deepEqual(JSON.parse(answered.envelopeJson ?? "").structured, { echo: { a: 1 } });
    const waiting = core.callNow(callTask(waits, "now_waits"));
    assert.ok(waiting instanceof Promise, "a tool that waits answers later");
    const later = await waiting;
    assert.equal(later.kind, "ok");
    assert.deepEqual(JSON.parse(later.envelopeJson ?? "").structured, { waited: true });
    // Its own limit holds in the same turn: a loop is a timeout, and the isolate is not kept.
    const spin = tool("now_spin", "(input) => { if (input.spin) for (;;) {} return 1; }");
    await core.handle({ type: "describe", bundle: bundleOf(spin), limits: { ...LIMITS, timeoutMs: 100 } });
    const stopped = core.callNow({ ...callTask(spin, "now_spin", { ...LIMITS, timeoutMs: 100 }), inputJson: '{"spin":true}' });
    assert.ok(stopped !== undefined && !(stopped instanceof Promise));
    assert.equal(stopped.kind, "timeout");
    assert.equal(core.callNow(callTask(spin, "now_spin", { ...LIMITS, timeoutMs: 100 })), undefined, "the stopped isolate was not kept");
  });

  it("collects each warm isolate once at idle time: the budget's measure falls, tools keep their state, and none of their code runs", async () => {
    const other = new WorkerCore(SETTINGS);
    try {
      // The collection allocates an ArrayBuffer: this tool's own ArrayBuffer would hang the worker if it were used.
      const run = `() => { globalThis.calls = (globalThis.calls ?? 0) + 1; if (globalThis.calls === 1) { globalThis.ArrayBuffer = function () { globalThis.ran = true; for (;;) {} }; globalThis.registry = new FinalizationRegistry(() => { globalThis.cleaned = true; }); for (let i = 0; i < 100; i++) globalThis.registry.register({ i }, i); } return { calls: globalThis.calls, ran: globalThis.ran === true }; }`;
      const names = ["tidy_a", "tidy_b", "tidy_c"];
      for (const name of names) assert.equal((await other.handle(callTask(tool(name, run), name))).kind, "ok");
      const before = other.warmFootprintBytes;
      // What a collection gives back varies with Node's V8 (here ~150 KiB of heap an isolate on Node 26, ~1 MiB on 20): any fall is one.
      other.idle();
      const deadline = Date.now() + 20_000;
      while (other.warmFootprintBytes > before - names.length * 64 * 1024 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(other.warmFootprintBytes <= before - names.length * 64 * 1024, `the budget counts ${other.warmFootprintBytes} bytes after, ${before} before`);
      // Once each is collected, a further quiet does no work: the process stays quiet.
      await new Promise((resolve) => setTimeout(resolve, 400));
      other.idle();
      const cpu = process.cpuUsage();
      await new Promise((resolve) => setTimeout(resolve, 400));
      const used = process.cpuUsage(cpu);
      assert.ok((used.user + used.system) / 1000 < 25, `idle work went on: ${used.user + used.system} us of CPU in 400 ms`);
      for (const name of names) {
        const reply = (await other.handle(callTask(tool(name, run), name))) as CallReply;
        assert.equal(reply.warm, true, "still warm");
        assert.deepEqual(JSON.parse(reply.envelopeJson ?? "").structured, { calls: 2, ran: false });
      }
    } finally {
      other.close();
    }
  });
});
