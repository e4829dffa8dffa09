/**
 * @module sandbox/worker/isolate-setup
 * How a new isolate gets its guest: the worker's callbacks lent, the guest
 * runtime run (compiled from this worker's own code cache), then one module's
 * top level, each under the load time limit. Apart from ToolIsolate because
 * it runs once per isolate, never on a call: a call's path reads none of it.
 * The References it makes go into the caller's list, which its ToolIsolate
 * releases when it is disposed.
 */
import { performance } from "node:perf_hooks";
import { classify, type Evidence, type Phase } from "../shared/classify.js";
import type { GuestApi } from "../shared/guest-api.js";
import { ivm } from "./load-isolated-vm.js";
import type IsolatedVM from "isolated-vm-types";
import { compileRuntime } from "./runtime-script.js";
import { lendWebCallbacks } from "./web-callbacks.js";
import { GuestBridge, GuestContractError } from "./guest-bridge.js";
import { failureMessage, LoadFailure } from "./run-result.js";

type Reference = IsolatedVM.Reference<unknown>;

export type ToolIsolateOptions = {
  code: string;
  /** Shown in the tool's stack traces. */
  filename: string;
  memoryMb: number;
  /** The load time limit: for running the runtime and the bundle's top level. */
  loadTimeoutMs: number;
  /** "call" when a call's first use makes the isolate: a refused module is then the call's tool_error. */
  phase?: Phase;
};

/**
 * The worker's side of the guest's callbacks (GuestLent in
 * sandbox/shared/guest-api.ts), each lent as it is: no hop between
 * isolated-vm and its owner.
 */
export type LentCallbacks = {
  /** The guest's timers want a wake-up in `delayMs`. */
  wake: (delayMs: number) => void;
  /** Call `seq` settled after waiting. */
  done: (seq: number) => void;
  /** A capability request and its payload (isolated-vm's copy), inside the guest's entry: its answer now (JSON text), or undefined for later. */
  capability: (seq: number, requestJson: string, payload?: unknown) => string | undefined;
};

/** Lends the callbacks and runs the guest runtime in `context`; answers the bridge to its API. */
export function runGuestRuntime(isolate: IsolatedVM.Isolate, context: IsolatedVM.Context, refs: Reference[], lent: LentCallbacks, timeoutMs: number): GuestBridge {
  const global = context.global;
  refs.push(global as Reference);
  const lend = (global as IsolatedVM.Reference<Record<string, unknown>>).setSync.bind(global);
  lend("__corral_wake", new ivm.Callback(lent.wake, { ignored: true }));
  lend("__corral_done", new ivm.Callback(lent.done, { ignored: true }));
  lendWebCallbacks(isolate, context);
  // Synchronous: a Code Mode script's fast nested call of a tool that answers at once is run
  // and answered inside the script's entry (answerNow: the tool's own isolate, its own limits);
  // any other request is taken in a microtask once the entry returns, not after a hop through
  // the event loop (an `ignored` callback's, ~100 µs here). Nothing enters this isolate inside it.
  lend("__corral_capability", new ivm.Callback(lent.capability));
  const runtime = compileRuntime(isolate);
  const api = runtime.runSync(context, { reference: true, timeout: timeoutMs }) as Reference;
  refs.push(api);
  runtime.release();
  return new GuestBridge(api as IsolatedVM.Reference<GuestApi>);
}

/** Runs the module's top level in a context whose runtime ran; answers why it was refused, or undefined. */
export function runModule(isolate: IsolatedVM.Isolate, context: IsolatedVM.Context, refs: Reference[], guest: GuestBridge, options: ToolIsolateOptions): string | undefined {
  // The wrapper sits on its own line, so the tool's line numbers stay true.
  const script = isolate.compileScriptSync(`(function (module, exports, require) {\n${options.code}\n})`, {
    filename: options.filename,
    lineOffset: -1,
  });
  const factory = script.runSync(context, { reference: true, timeout: options.loadTimeoutMs }) as Reference;
  refs.push(factory);
  script.release();
  const answer = guest.load(factory, options.loadTimeoutMs);
  if (answer.ok) return undefined;
  return answer.stack === undefined ? answer.message : `${answer.message}\n${answer.stack}`;
}

/**
 * Making the isolate threw (`started` on performance.now()'s clock): a limit
 * or corral's own failure. `made`: what is known of the isolate, if it was made.
 */
export function loadFailure(options: ToolIsolateOptions, error: unknown, started: number, made: { disposedByLimit: boolean } | undefined): LoadFailure {
  const phase = options.phase ?? "load";
  const evidence: Evidence = { phase, internal: error instanceof GuestContractError };
  if (made !== undefined) {
    evidence.deadlinePassed = performance.now() - started >= options.loadTimeoutMs - 1;
    evidence.disposedByLimit = made.disposedByLimit;
  }
  const kind = classify(evidence);
  const limits = { timeoutMs: options.loadTimeoutMs, memoryMb: options.memoryMb };
  return new LoadFailure(kind, `loading the module failed: ${failureMessage(kind, limits, error, "its top level")}`);
}
