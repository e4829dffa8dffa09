/**
 * @module sandbox/worker/intrinsics-poison.test
 * One test per intrinsic the guest runtime and the SDK capture: a tool
 * replaces it (a method, a getter, a global) and then answers, throws, or
 * (at its top level) is described. Whatever it replaced, corral's answer is
 * right: its result written as it was, its throw a tool_error, its manifest
 * its own. Runs the worker's core in this process, with real isolates.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { CallReply, DescribeReply } from "../shared/replies.js";
import { WorkerCore } from "./worker-core.js";

/**
 * [the object holding it, the key, "get" to poison it as a throwing getter
 * whatever it was]: every intrinsic sandbox/guest/intrinsics.ts and
 * sandbox/sdk capture, and every built-in the path that settles an answer
 * could reach (a promise's `then`, `constructor` and species).
 */
const POISONED: [string, string, "get"?][] = [
  ["Reflect", '"apply"'], ["Function.prototype", '"call"'], ["Function.prototype", '"apply"'],
  ["Object", '"keys"'], ["Object", '"freeze"'], ["Object", '"create"'], ["Object", '"defineProperty"'],
  ["Object", '"getPrototypeOf"'], ["Object", '"hasOwn"'], ["Object", '"getOwnPropertyDescriptor"'], ["Object", '"assign"'],
  ["Array", '"isArray"'], ["Array", "Symbol.species"], ["Array.prototype", '"constructor"'],
  ["ArrayBuffer", '"isView"'], ["JSON", '"stringify"'], ["JSON", '"parse"'],
  ["globalThis", '"String"'], ["Number", '"isFinite"'], ["Math", '"min"'], ["Math", '"max"'], ["Date", '"now"'],
  ["globalThis", '"Promise"'], ["Promise", '"resolve"'], ["Promise", "Symbol.species"], ["Promise.prototype", '"then"'],
  ["Promise.prototype", '"constructor"'], ["globalThis", '"Map"'], ["globalThis", '"Set"'], ["globalThis", '"WeakSet"'],
  ["globalThis", '"Date"'], ["globalThis", '"RegExp"'], ["globalThis", '"ArrayBuffer"'], ["globalThis", '"Error"'],
  ["globalThis", '"TypeError"'], ["globalThis", '"RangeError"'],
  ["Map.prototype", '"get"'], ["Map.prototype", '"set"'], ["Map.prototype", '"delete"'], ["Map.prototype", '"clear"'],
  ["Map.prototype", '"forEach"'], ["Map.prototype", '"size"'], ["Map.prototype", "Symbol.iterator"],
  ["Set.prototype", '"forEach"'], ["Set.prototype", '"size"'], ["Set.prototype", '"add"'], ["Set.prototype", '"has"'],
  ["Set.prototype", '"delete"'], ["WeakSet.prototype", '"add"'], ["WeakSet.prototype", '"has"'],
  ["Date.prototype", '"getTime"'], ["Date.prototype", '"toISOString"'], ["Date.prototype", '"toJSON"'],
  ["RegExp.prototype", '"source"'], ["RegExp.prototype", '"flags"'],
  ["Object.getPrototypeOf(Uint8Array.prototype)", '"length"'], ["ArrayBuffer.prototype", '"byteLength"'],
  ["String.prototype", '"slice"'], ["String.prototype", '"indexOf"'], ["String.prototype", '"split"'], ["Object.prototype", "Symbol.split"],
  ["Array.prototype", '"push"'], ["Array.prototype", '"join"'], ["Array.prototype", '"slice"'], ["Array.prototype", "Symbol.iterator"],
  ["Error", '"captureStackTrace"'], ["Object.prototype", '"toJSON"'],
  ["Promise.prototype", '"then"', "get"], ["Promise.prototype", '"constructor"', "get"],
  ["Promise.prototype", '"catch"'], ["Promise.prototype", '"finally"'], ["Promise", '"reject"'], ["Promise", '"all"'],
  ["Object.prototype", '"constructor"', "get"], ["Object.prototype", "Symbol.toPrimitive"], ["Object.prototype", '"toString"'],
  ["Array.prototype", '"map"'], ["Array.prototype", '"forEach"'], ["Array.prototype", '"concat"'], ["Object", '"entries"'],
];

const SETTINGS = { maxWarmIsolates: 8, maxWarmHeapMb: 256, loadTimeoutMs: 2_000, defaultMemoryMb: 32 };
const LIMITS = { timeoutMs: 2_000, memoryMb: 32, maxOutputBytes: 64 * 1024, maxDepth: 16 };

const POISON = (target: string, key: string, as?: "get") => `{
    const thrower = function () { throw new Error("poisoned"); };
    const target = ${target};
    const key = ${key};
    const own = Object.getOwnPropertyDescriptor(target, key);
    Object.defineProperty(target, key, ${as === "get" ? "true" : "own !== undefined && own.get !== undefined"}
      ? { get: thrower, configurable: true }
      : { value: thrower, writable: true, configurable: true });
  }`;

/**
 * How `run` answers: at once (`sync`); as an async function that settles in
 * the same entry (`async`: the runtime meets a settled promise of the
 * tool's, its built-ins already poisoned); as one that waits a turn first
 * (`await`: the runtime subscribed before the poison, and settles after it).
 */
type RunShape = "sync" | "async" | "await";
const RUN_HEAD: Record<RunShape, string> = { sync: "({ mode }) => {", async: "async ({ mode }) => {", await: "async ({ mode }) => {\n    await null;" };

/** Builds its values first, then poisons, logs, sets a timer and answers (or throws) in the mode asked. */
function moduleOf(target: string, key: string, as: "get" | undefined, atTopLevel: boolean, shape: RunShape = "sync"): string {
  return `const { defineTool } = require("corral"); const { z } = require("zod");
${atTopLevel ? POISON(target, key, as) : ""}
module.exports = defineTool({ name: "poisoner", description: "poisons ${target}[${key.replace(/"/g, "")}]", input: z.object({ mode: z.string() }), effects: [],
  run: ${RUN_HEAD[shape]}
    const value = { list: [1, 2], when: new Date(0), map: new Map([[1, 2]]), set: new Set(["a"]), re: /x/g, bytes: new Uint8Array([7]) };
    const boom = new Error("boom");
    ${POISON(target, key, as)}
    console.log("poisoned", value);
    setTimeout(function () {}, 1);
    if (mode === "throw") throw boom;
    return value;
  } });`;
}

const EXPECTED = { list: [1, 2], when: "1970-01-01T00:00:00.000Z", map: [[1, 2]], set: ["a"], re: "/x/g", bytes: [7] };

function bundleOf(code: string, source: string) {
  return { hash: createHash("sha256").update(code).digest("hex"), filename: source, code };
}

describe("a tool that replaces an intrinsic after load breaks nothing of corral's", { timeout: 170_000 }, () => {
  const core = new WorkerCore(SETTINGS);
  after(() => core.close());

  for (const [target, key, as] of POISONED) {
    it(`${target}[${key}]${as === "get" ? " (a getter)" : ""}`, async () => {
      const code = moduleOf(target, key, as, false);
      const call = (source: string, mode: string, moduleCode = code) =>
        core.handle({ type: "call", callId: "c", bundle: bundleOf(moduleCode, source), tool: "poisoner", inputJson: JSON.stringify({ mode }), limits: LIMITS }) as Promise<CallReply>;
      // Every shape of run: its answer settled at once, or through the runtime's promise path after the poison.
      for (const tag of ["sync", "async", "await"] as const) {
        const moduleCode = moduleOf(target, key, as, false, tag);
        const answered = await call(`agent:${tag}-ok`, "ok", moduleCode);
        assert.equal(answered.kind, "ok", `${tag}: ${JSON.stringify(answered).slice(0, 400)}`);
        const envelope = JSON.parse(answered.envelopeJson ?? "null") as { structured: unknown; logs: string[] };
        assert.deepEqual(envelope.structured, EXPECTED);
        assert.equal(envelope.logs.length, 1);
        const thrown = await call(`agent:${tag}-throw`, "throw", moduleCode);
        assert.equal(thrown.kind, "tool_error", `${tag}: ${JSON.stringify(thrown).slice(0, 400)}`);
        assert.match(JSON.parse(thrown.envelopeJson ?? "null").message, /^Error: boom/);
      }
      // A second call in the poisoned isolate: its own answer may break, never as a limit or a crash.
      const again = await call("agent:sync-ok", "ok");
      assert.ok(["ok", "tool_error", "invalid_input"].includes(again.kind), JSON.stringify(again).slice(0, 400));
      // Poisoned at the top level: the manifest is still the module's own.
      const top = moduleOf(target, key, as, true);
      const described = (await core.handle({ type: "describe", bundle: bundleOf(top, "agent:top"), limits: LIMITS })) as DescribeReply;
      assert.ok(described.kind === "ok" || described.kind === "compile_error", JSON.stringify(described).slice(0, 400));
      if (described.kind === "ok") {
        const tools = (JSON.parse(described.manifestsJson ?? "null") as { tools: { name: string }[] }).tools;
        assert.deepEqual(tools.map((tool) => tool.name), ["poisoner"]);
      }
    });
  }
});
