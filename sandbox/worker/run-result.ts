/**
 * @module sandbox/worker/run-result
 * How a run inside an isolate ended, as the worker reports it (a kind
 * decided by sandbox/shared/classify.ts, and plain words for it), and its
 * answer to isolated-vm's catastrophic-error callback.
 */
import type { Metrics } from "../shared/replies.js";
import type { OutcomeKind } from "../shared/outcome-kinds.js";

export type RunResult = { kind: OutcomeKind; text?: string; message?: string; metrics: Metrics };

/** A module that could not be loaded into a fresh isolate, and why. */
export class LoadFailure {
  constructor(
    readonly kind: OutcomeKind,
    readonly message: string,
  ) {}
}

export function zeroMetrics(): Metrics {
  return { wallMs: 0, cpuMs: 0, heapBytes: 0 };
}

/** The words for a kind the worker decided (the guest's own answers carry theirs). */
export function failureMessage(kind: OutcomeKind, limits: { timeoutMs: number; memoryMb: number }, error: unknown, what = "the tool"): string {
  switch (kind) {
    case "timeout":
      return `${what} ran longer than its ${limits.timeoutMs} ms limit and was stopped`;
    case "memory":
      return `${what} used more than its ${limits.memoryMb} MB memory limit and was stopped`;
    case "tool_error":
      return `corral's own code failed while answering (not counted against the tool): ${error instanceof Error ? error.message : "unknown failure"}`;
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
