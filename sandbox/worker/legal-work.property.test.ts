/**
 * @module sandbox/worker/legal-work.property.test
 * A property test: fast-check generates tools that do legal work near their
 * limits (allocate and free, set and clear timers, log, throw) and the
 * worker's core runs each in a real isolate. None may be answered timeout,
 * memory or crash: each gets exactly what it asked for, ok or tool_error.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "fast-check";
import type { CallReply } from "../shared/replies.js";
import { WorkerCore } from "./worker-core.js";

const MEMORY_MB = 32;
const SETTINGS = { maxWarmIsolates: 4, maxWarmHeapMb: 256, loadTimeoutMs: 2_000, defaultMemoryMb: MEMORY_MB };
const LIMITS = { timeoutMs: 4_000, memoryMb: MEMORY_MB, maxOutputBytes: 64 * 1024, maxDepth: 16 };

/** One step of legal work; each stays within the limits however many run. */
const Step = fc.oneof(
  // Up to 60% of the heap limit in small objects, dropped at once: garbage, never live at the limit.
  fc.record({ op: fc.constant("churn" as const), mb: fc.integer({ min: 1, max: Math.floor(MEMORY_MB * 0.6) }), rounds: fc.integer({ min: 1, max: 4 }) }),
  // An ArrayBuffer of up to a third of the limit, let go.
  fc.record({ op: fc.constant("buffer" as const), mb: fc.integer({ min: 1, max: Math.floor(MEMORY_MB / 3) }) }),
  // Timers set and cleared (a debounce), up to 200,000 events.
  fc.record({ op: fc.constant("debounce" as const), events: fc.integer({ min: 1, max: 200_000 }) }),
  // Up to the pending-timer cap, all cleared.
  fc.record({ op: fc.constant("timers" as const), count: fc.integer({ min: 1, max: 1000 }) }),
  // Log lines, past the line and byte caps.
  fc.record({ op: fc.constant("log" as const), lines: fc.integer({ min: 1, max: 300 }), chars: fc.integer({ min: 0, max: 2_000 }) }),
  // Wait a little on a timer.
  fc.record({ op: fc.constant("wait" as const), ms: fc.integer({ min: 1, max: 20 }) }),
);
type Step = typeof Step extends fc.Arbitrary<infer T> ? T : never;

function codeOf(step: Step): string {
  switch (step.op) {
    case "churn":
      return `for (let r = 0; r < ${step.rounds}; r++) { let junk = []; for (let i = 0; i < ${step.mb * 1024 * 1024} / 64; i++) junk.push({ i }); junk = null; }`;
    case "buffer":
      return `{ let b = new ArrayBuffer(${step.mb * 1024 * 1024}); new Uint8Array(b).fill(1); b = null; }`;
    case "debounce":
      return `{ let t; for (let i = 0; i < ${step.events}; i++) { clearTimeout(t); t = setTimeout(() => undefined, 1000); } clearTimeout(t); }`;
    case "timers":
      return `{ const ids = []; for (let i = 0; i < ${step.count}; i++) ids.push(setTimeout(() => undefined, 1000)); for (const id of ids) clearTimeout(id); }`;
    case "log":
      return `for (let i = 0; i < ${step.lines}; i++) console.log("\\u0001".repeat(${step.chars}), { i });`;
    case "wait":
      return `await new Promise((resolve) => setTimeout(resolve, ${step.ms}));`;
  }
}

function moduleOf(steps: Step[], throws: boolean): string {
  return `const { defineTool } = require("corral"); const { z } = require("zod");
module.exports = defineTool({ name: "legal", description: "legal work", input: z.object({}), effects: [],
  run: async () => {
    ${steps.map(codeOf).join("\n    ")}
    ${throws ? 'throw new Error("an ordinary failure");' : "return { done: true };"}
  } });`;
}

describe("legal work near the limits", { timeout: 170_000 }, () => {
  const core = new WorkerCore(SETTINGS);
  after(() => core.close());

  it("is never answered timeout, memory or crash", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(Step, { minLength: 1, maxLength: 4 }), fc.boolean(), async (steps, throws) => {
        const code = moduleOf(steps, throws);
        const bundle = { hash: createHash("sha256").update(code).digest("hex"), filename: `agent:p${run++}`, code };
        const reply = (await core.handle({ type: "call", callId: "p", bundle, tool: "legal", inputJson: "{}", limits: LIMITS })) as CallReply;
        assert.equal(reply.kind, throws ? "tool_error" : "ok", `${JSON.stringify(steps)}: ${JSON.stringify(reply).slice(0, 300)}`);
      }),
      { numRuns: 30 },
    );
  });
});
