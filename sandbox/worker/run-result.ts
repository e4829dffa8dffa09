/**
 * @module sandbox/worker/run-result
 * How a run inside an isolate ended, as the worker reports it, the plain
 * words it uses for each limit, and its answer to isolated-vm's
 * catastrophic-error callback.
 */
import type { CallLimits, Metrics, RunEnd } from "../protocol.js";

export type RunResult = { end: RunEnd; text?: string; message?: string; metrics: Metrics };

/** A module that could not be loaded into a fresh isolate, and why. */
export class LoadFailure {
  constructor(
    readonly end: RunEnd,
    readonly message: string,
  ) {}
}

export function zeroMetrics(): Metrics {
  return { wallMs: 0, cpuMs: 0, heapBytes: 0 };
}

export function failureMessage(end: RunEnd, limits: CallLimits, error: unknown): string {
  switch (end) {
    case "timeout":
      return `the tool ran longer than its ${limits.timeoutMs} ms limit and was stopped`;
    case "memory":
      return `the tool used more than its ${limits.memoryMb} MB memory limit and was stopped`;
    default:
      return `the tool's isolate failed: ${error instanceof Error ? error.message : "unknown failure"}`;
  }
}

/**
 * isolated-vm's documentation: after a catastrophic error the isolate's
 * thread is asleep for good; the only safe move is to end the process. The
 * host sees the worker die and answers the call as a crash.
 */
export function catastrophe(message: string): never {
  try {
    process.stderr.write(`corral worker: catastrophic isolate error: ${message}\n`);
  } finally {
    process.abort();
  }
}
