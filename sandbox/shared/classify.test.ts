/**
 * @module sandbox/shared/classify.test
 * The classifier alone, against a table of evidence: each row is what the
 * guest, the worker and the host saw, and the one kind it must give.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { classify, type Evidence } from "./classify.js";
import type { OutcomeKind } from "./outcome-kinds.js";

const TABLE: [string, Evidence, OutcomeKind][] = [
  ["a call answered ok", { phase: "call", answer: "ok" }, "ok"],
  ["a plain throw", { phase: "call", answer: "tool_error" }, "tool_error"],
  ["a plain throw after the deadline passed (the answer came first)", { phase: "call", answer: "tool_error", deadlinePassed: true }, "tool_error"],
  ["an allocation refused at the limit", { phase: "call", answer: "tool_error", allocationRefused: true, nearLimit: true }, "memory"],
  ["a plain throw with a full heap (garbage, or a tool's own words)", { phase: "call", answer: "tool_error", nearLimit: true }, "tool_error"],
  ["an allocation refused far under the limit (a huge request)", { phase: "call", answer: "tool_error", allocationRefused: true, nearLimit: false }, "tool_error"],
  ["ok at the limit is still ok", { phase: "call", answer: "ok", allocationRefused: true, nearLimit: true }, "ok"],
  ["invalid input", { phase: "call", answer: "invalid_input" }, "invalid_input"],
  ["unknown tool", { phase: "call", answer: "unknown_tool" }, "unknown_tool"],
  ["the guest's own output_too_large", { phase: "call", answer: "output_too_large" }, "output_too_large"],
  ["an answer past the budget", { phase: "call", answer: "ok", oversized: true }, "output_too_large"],
  ["no answer, the clock ran out", { phase: "call", deadlinePassed: true }, "timeout"],
  ["no answer, clock and disposal: the clock first", { phase: "call", deadlinePassed: true, disposedByLimit: true }, "timeout"],
  ["no answer, disposed by the memory limit", { phase: "call", disposedByLimit: true }, "memory"],
  ["no answer, corral's own code failed", { phase: "call", internal: true }, "tool_error"],
  ["no answer, nothing known", { phase: "call" }, "crash"],
  ["load: the module refused", { phase: "load", answer: "module_refused" }, "compile_error"],
  ["call: the module refused during a cold call", { phase: "call", answer: "module_refused" }, "tool_error"],
  ["load: described", { phase: "load", answer: "ok" }, "ok"],
  ["load: the tools cannot be described", { phase: "load", answer: "tool_error" }, "compile_error"],
  ["load: top level past the load time limit", { phase: "load", deadlinePassed: true }, "timeout"],
  ["load: disposed by the memory limit", { phase: "load", disposedByLimit: true }, "memory"],
  ["load: corral failed", { phase: "load", internal: true }, "tool_error"],
  ["death: watchdog", { phase: "call", death: { stoppedBy: "watchdog", outOfMemory: false } }, "timeout"],
  ["death: watchdog while V8 was out of memory", { phase: "call", death: { stoppedBy: "watchdog", outOfMemory: true } }, "memory"],
  ["death: the memory watch", { phase: "call", death: { stoppedBy: "memory_watch", outOfMemory: false } }, "memory"],
  ["death: cancelled by the caller", { phase: "call", death: { stoppedBy: "cancel", outOfMemory: false } }, "cancelled"],
  ["death: V8's fatal out-of-memory", { phase: "call", death: { outOfMemory: true } }, "memory"],
  ["death: a signal nobody sent", { phase: "call", death: { outOfMemory: false } }, "crash"],
  ["death beats an answer", { phase: "call", answer: "ok", death: { outOfMemory: false } }, "crash"],
];

describe("classify", () => {
  for (const [name, evidence, kind] of TABLE) {
    it(`${name} → ${kind}`, () => {
      assert.equal(classify(evidence), kind);
    });
  }
});
