/**
 * @module sandbox/worker/run-outcome
 * What the worker saw of one run, made a RunResult: the guest's typed answer
 * or the entry's throw, weighed with the clock, a disposal it did not make
 * and the isolate's memory against its limit. This gathers the evidence
 * only; sandbox/shared/classify.ts decides the kind. Apart from ToolIsolate
 * so that the rules read in one place, free of the isolate's lifetime; each
 * function is called once per run, where the method it replaced was.
 */
import { performance } from "node:perf_hooks";
import type { CallLimits } from "../shared/task-parts.js";
import { classify, type Evidence, type Phase } from "../shared/classify.js";
import type { GuestAnswer } from "../shared/guest-api.js";
import { GuestContractError } from "./guest-bridge.js";
import type { IsolateMeter } from "./isolate-meter.js";
import { failureMessage, zeroMetrics, type RunResult } from "./run-result.js";

/** An isolate left this full is not kept warm (its next call would start out of room). */
const NEAR_LIMIT = 0.9;

/** Extra room in the text limit for the envelope around the tool's data. */
const ENVELOPE_SLACK_CHARS = 64 * 1024;

/** One run's bookkeeping, from its first entry to its metrics. */
export type Run = { phase: Phase; limits: CallLimits; started: number; cpuBefore: bigint; timedOut: boolean };

/** The guest answered: its kind stands unless the evidence says otherwise (classify.ts). */
export function answeredResult(run: Run, answer: GuestAnswer, meter: IsolateMeter): RunResult {
  const { limits } = run;
  const evidence: Evidence = { phase: run.phase, answer: answer.kind, oversized: answer.text.length > limits.maxOutputBytes + ENVELOPE_SLACK_CHARS };
  // A failure answered with the isolate full may be the limit refusing an
  // allocation (isolated-vm refuses ArrayBuffers past memoryLimit with a
  // RangeError and leaves the isolate alive): the guest says whether V8
  // refused, this side whether the isolate was at its limit.
  if (answer.kind !== "ok" && answer.refused === true) {
    evidence.allocationRefused = true;
    evidence.nearLimit = meter.readHeap() >= limits.memoryMb * 1024 * 1024 * NEAR_LIMIT;
  }
  const kind = classify(evidence);
  if (kind === answer.kind) return { kind, text: answer.text, metrics: zeroMetrics() };
  // A describe the guest could not make: its words are the module's load error.
  if (kind === "compile_error") return { kind, message: answer.text, metrics: zeroMetrics() };
  if (kind === "output_too_large") return { kind, message: `the result is larger than ${limits.maxOutputBytes} bytes`, metrics: zeroMetrics() };
  return { kind, message: failureMessage(kind, limits, undefined), metrics: zeroMetrics() };
}

/**
 * An entry threw: a limit, or corral's own failure (classify.ts decides
 * which). `disposedByLimit`: the isolate is gone and not by our hand.
 */
export function thrownResult(run: Run, error: unknown, disposedByLimit: boolean, alive: boolean): RunResult {
  const kind = classify({
    phase: run.phase,
    deadlinePassed: run.timedOut || performance.now() - run.started >= run.limits.timeoutMs - 1,
    disposedByLimit,
    internal: error instanceof GuestContractError || alive,
  });
  return { kind, message: failureMessage(kind, run.limits, error), metrics: zeroMetrics() };
}

/**
 * Adds the run's metrics; answers whether the isolate is left near its
 * limit, and so must not be kept warm: its next call would start out of
 * room. (A call that filled it was slow, so the reading is fresh.)
 */
export function measureRun(run: Run, result: RunResult, meter: IsolateMeter, alive: boolean): boolean {
  const heapBefore = meter.heapBytes;
  const wallMs = performance.now() - run.started;
  result.metrics = {
    wallMs,
    cpuMs: Math.max(0, Number(meter.cpuNs() - run.cpuBefore) / 1e6),
    heapBytes: meter.heapAfter(wallMs),
  };
  if (wallMs > 1 && alive) meter.noteResidentGrowth(heapBefore);
  return alive && meter.heapBytes >= run.limits.memoryMb * 1024 * 1024 * NEAR_LIMIT;
}
