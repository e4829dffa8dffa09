/**
 * @module sandbox/worker/tool-isolate
 * One isolate with one context holding the guest runtime and one bundle.
 * `ToolIsolate` owns the isolate, its References and the timers it lent; it
 * frees them all in `dispose()`. The isolate cache owns ToolIsolates.
 *
 * Limits, first layer (the host's watchdog is the second):
 * - memory: the isolate's `memoryLimit`; isolated-vm disposes the isolate
 *   when it is passed, and we read that from `isolate.isDisposed`;
 * - time: `timeout` on every entry (sync work: each entry is a synchronous
 *   apply, the fastest way in) and a deadline timer here that disposes the
 *   isolate (async work: a promise that never settles, a chain of timers).
 *   Between entries this thread is free, so the deadline can fire.
 * Outcomes are classified from what this side knows (the deadline fired,
 * the isolate was disposed by its limit), never from text the tool wrote.
 */
import { performance } from "node:perf_hooks";
import type { CallLimits, Metrics, RunEnd } from "../protocol.js";
import { ivm } from "./load-isolated-vm.js";
import type IsolatedVM from "isolated-vm-types";
import { compileRuntime } from "./runtime-script.js";
import { lendWebCallbacks } from "./web-callbacks.js";
import { endCapabilityCall, sendCapabilityRequest } from "./capability-relay.js";
import { GuestTimers } from "./guest-timers.js";
import { catastrophe, failureMessage, LoadFailure, zeroMetrics, type RunResult } from "./run-result.js";

export { LoadFailure, type RunResult } from "./run-result.js";

type Reference = IsolatedVM.Reference<unknown>;


export type ToolIsolateOptions = {
  code: string;
  /** Shown in the tool's stack traces. */
  filename: string;
  memoryMb: number;
  /** Limit for running the runtime and the bundle's top level. */
  loadTimeoutMs: number;
};

const HEAP_READ_EVERY_CALLS = 16;
const NEAR_LIMIT = 0.9;
/** The guest runtime writes `ok` first, so an error envelope starts so. */
const ERROR_ENVELOPE_PREFIX = '{"ok":false';

/** Extra room in the text limit for the envelope around the tool's data. */
const ENVELOPE_SLACK_CHARS = 64 * 1024;


export class ToolIsolate {
  readonly #isolate: IsolatedVM.Isolate;
  readonly #context: IsolatedVM.Context;
  readonly #refs: Reference[] = [];
  #api!: { start: Reference; poll: Reference; describe: Reference; fire: Reference; capability: Reference };
  /** The call waiting for the guest's `done(seq)`, if it did not settle at once. */
  #waiting: { seq: number; resolve: (text: unknown) => void; reject: (error: Error) => void } | undefined;
  #seq = 0;
  /** Timers the guest set in the current call; cleared when the call ends. */
  readonly #timers = new GuestTimers({
    active: () => this.#inCall && this.alive,
    deadline: () => this.#callDeadline,
    fire: (ids, timeoutMs) => this.#api.fire.apply(undefined, [ids], { arguments: { copy: true }, timeout: timeoutMs }),
    stoppedByLimit: () => this.#failWaiting(new Error("a timer callback was stopped by a limit")),
  });
  #callDeadline = 0;
  /** Disposes the isolate at the deadline while a call waits; moved when the host's gate paused the clock. */
  #deadlineTimer: NodeJS.Timeout | undefined;
  #onDeadline: (() => void) | undefined;
  #callId = "";
  /** While the host's gate waits: the call's time that was left. */
  #pausedLeftMs: number | undefined;
  #disposedByUs = false;
  #lastCpuNs = 0n;
  #callsSinceHeapRead = 0;
  #inCall = false;
  heapBytes = 0;
  /** How long the last call took (the worker holds replies back only behind fast calls). */
  lastCallMs = Number.POSITIVE_INFINITY;
  readonly #memoryMb: number;
  #loadRef: Reference | undefined;

  private constructor(options: ToolIsolateOptions) {
    this.#memoryMb = options.memoryMb;
    this.#isolate = new ivm.Isolate({
      memoryLimit: options.memoryMb,
      onCatastrophicError: (message) => catastrophe(message),
    });
    this.#context = this.#isolate.createContextSync();
  }

  /**
   * An isolate with its context and the guest runtime run, but no module yet:
   * the costly part of a cold tool (zod's initialisation), which the worker
   * can do ahead of time while idle. No tool code has ever run in it.
   */
  static prepare(memoryMb: number, timeoutMs: number): ToolIsolate {
    const tool = new ToolIsolate({ code: "", filename: "", memoryMb, loadTimeoutMs: timeoutMs });
    try {
      tool.#runRuntime(timeoutMs, { warm: true });
      return tool;
    } catch (error) {
      tool.dispose();
      throw error;
    }
  }

  get memoryMb(): number {
    return this.#memoryMb;
  }

  /**
   * Creates the isolate (or takes a prepared `blank` one of the same memory
   * limit), runs the runtime and the bundle's top level.
   */
  static create(options: ToolIsolateOptions, blank?: ToolIsolate): ToolIsolate | LoadFailure {
    let tool: ToolIsolate | undefined;
    const started = performance.now();
    try {
      if (blank !== undefined && blank.alive && blank.#memoryMb === options.memoryMb && blank.#loadRef !== undefined) {
        tool = blank;
      } else {
        blank?.dispose();
        tool = new ToolIsolate(options);
        tool.#runRuntime(options.loadTimeoutMs);
      }
      const failure = tool.#loadModule(options);
      if (failure !== undefined) {
        tool.dispose();
        return new LoadFailure("load_error", failure);
      }
      tool.#updateHeap();
      return tool;
    } catch (error) {
      const end = tool === undefined ? "crash" : tool.#classifyFailure(performance.now() - started, options.loadTimeoutMs);
      tool?.dispose();
      const reason =
        end === "timeout"
          ? `loading the module took longer than ${options.loadTimeoutMs} ms; keep its top level small`
          : end === "memory"
            ? `loading the module used more than ${options.memoryMb} MB`
            : `loading the module failed: ${(error as Error).message}`;
      return new LoadFailure(end, reason);
    }
  }

  /** `warm`: also run the runtime's own warm-up (idle time only: it costs what it saves). */
  #runRuntime(timeoutMs: number, options: { warm?: boolean } = {}): void {
    const global = this.#context.global;
    this.#keep(global as Reference);
    const lend = (global as IsolatedVM.Reference<Record<string, unknown>>).setSync.bind(global);
    lend("__corral_schedule", new ivm.Callback((id: number, delayMs: number) => this.#timers.schedule(id, delayMs), { ignored: true }));
    lend("__corral_done", new ivm.Callback((seq: number) => this.#onDone(seq), { ignored: true }));
    lendWebCallbacks(this.#isolate, this.#context);
    lend("__corral_capability", new ivm.Callback((seq: number, json: string) => this.#onCapability(seq, json), { ignored: true }));
    const runtime = compileRuntime(this.#isolate);
    const api = this.#keep(
      runtime.runSync(this.#context, { reference: true, timeout: timeoutMs }) as Reference,
    ) as IsolatedVM.Reference<Record<string, unknown>>;
    runtime.release();
    const get = (name: string) => this.#keep(api.getSync(name, { reference: true }) as Reference);
    this.#api = { start: get("start"), poll: get("poll"), describe: get("describe"), fire: get("fire"), capability: get("capability") };
    this.#loadRef = get("load");
    if (options.warm === true) get("warm").applySync(undefined, [], { timeout: timeoutMs });
  }

  #loadModule(options: ToolIsolateOptions): string | undefined {
    const load = this.#loadRef;
    if (load === undefined) return "the corral runtime was not started in this isolate";
    this.#loadRef = undefined; // one module per isolate, ever
    // The wrapper sits on its own line, so the tool's line numbers stay true.
    const script = this.#isolate.compileScriptSync(`(function (module, exports, require) {\n${options.code}\n})`, {
      filename: options.filename,
      lineOffset: -1,
    });
    const factory = this.#keep(script.runSync(this.#context, { reference: true, timeout: options.loadTimeoutMs }) as Reference);
    script.release();
    const failure = load.applySync(undefined, [factory.derefInto()], {
      timeout: options.loadTimeoutMs,
      result: { copy: true },
    }) as unknown;
    if (typeof failure !== "string") return "the corral runtime answered the load with a non-string";
    if (failure === "") return undefined;
    try {
      const parsed = JSON.parse(failure) as { message?: unknown; stack?: unknown };
      const message = typeof parsed.message === "string" ? parsed.message : "the module failed to load";
      return typeof parsed.stack === "string" ? `${message}\n${parsed.stack}` : message;
    } catch {
      return "the module failed to load";
    }
  }

  #keep(ref: Reference): Reference {
    this.#refs.push(ref);
    return ref;
  }

  get alive(): boolean {
    return !this.#isolate.isDisposed;
  }

  /** The module's manifests as JSON text, under the given limits. */
  describe(limits: CallLimits): Promise<RunResult> {
    return this.#run(limits, () =>
      this.#api.describe.applySync(undefined, [limits.maxOutputBytes], {
        arguments: { copy: true },
        result: { copy: true },
        timeout: limits.timeoutMs,
      }),
    );
  }

  /** One call of `tool` with `inputJson`; the envelope comes back as JSON text. */
  invoke(tool: string, inputJson: string, callId: string, limits: CallLimits): Promise<RunResult> {
    this.#callId = callId;
    return this.#run(limits, () => {
      const seq = ++this.#seq;
      const answered = this.#enter(() =>
        this.#api.start.applySync(undefined, [seq, tool, inputJson, callId, limits.maxOutputBytes, limits.maxDepth], {
          arguments: { copy: true },
          result: { copy: true },
          timeout: limits.timeoutMs,
        }),
      );
      // A tool that answered at once answered in that same entry.
      if (typeof answered === "string" && answered !== "") return answered;
      const text = this.#enter(() => this.#poll(seq)) ?? "";
      if (text !== "") return text;
      return new Promise<unknown>((resolve, reject) => {
        this.#waiting = { seq, resolve, reject };
      });
    });
  }

  /**
   * Runs one synchronous entry. A throw that is not a limit (the isolate is
   * alive and time is left) is not the end of the call: isolated-vm rethrows
   * an unhandled rejection of the guest as the entry's error, and a tool's
   * detached promise must not fail a call that answers normally. The call
   * goes on; if it never answers, the deadline ends it.
   */
  #enter<T>(entry: () => T): T | undefined {
    try {
      return entry();
    } catch (error) {
      if (!this.alive || performance.now() >= this.#callDeadline - 1) throw error;
      return undefined;
    }
  }

  #poll(seq: number): unknown {
    const left = Math.max(1, Math.floor(this.#callDeadline - performance.now()));
    return this.#api.poll.applySync(undefined, [seq], { arguments: { copy: true }, result: { copy: true }, timeout: left });
  }

  /** The guest's call settled after waiting on timers or promises. */
  #onDone(seq: unknown): void {
    const waiting = this.#waiting;
    if (waiting === undefined || waiting.seq !== seq || !this.alive) return;
    this.#waiting = undefined;
    try {
      const text = this.#enter(() => this.#poll(waiting.seq));
      if (text === undefined || text === "") this.#waiting = waiting;
      else waiting.resolve(text);
    } catch (error) {
      waiting.reject(error as Error);
    }
  }

  async #run(limits: CallLimits, enter: () => unknown): Promise<RunResult> {
    if (!this.alive) return { end: "crash", message: "the isolate is gone", metrics: zeroMetrics() };
    const started = performance.now();
    const cpuBefore = this.#cpuNs();
    this.#callDeadline = started + limits.timeoutMs;
    this.#inCall = true;
    let timedOut = false;
    // Synchronous entries carry their own timeout; only a call left waiting
    // on timers or promises needs this timer.
    let result: RunResult;
    try {
      let text = enter();
      if (text instanceof Promise) {
        this.#onDeadline = () => {
          timedOut = true;
          this.dispose();
        };
        this.#armDeadline();
        text = await text;
      }
      if (typeof text !== "string") {
        result = { end: "crash", message: "the corral runtime answered with a non-string", metrics: zeroMetrics() };
      } else if (text.length > limits.maxOutputBytes + ENVELOPE_SLACK_CHARS) {
        result = { end: "output_too_large", message: `the result is larger than ${limits.maxOutputBytes} bytes`, metrics: zeroMetrics() };
      } else if (text.startsWith(ERROR_ENVELOPE_PREFIX) && this.#nearMemoryLimit(limits.memoryMb)) {
        // The tool failed with its isolate full: an allocation was refused at
        // the limit (isolated-vm refuses ArrayBuffers past memoryLimit with a
        // RangeError and leaves the isolate alive). That is the memory limit
        // stopping it, whatever the tool made of the refusal.
        result = { end: "memory", message: failureMessage("memory", limits, undefined), metrics: zeroMetrics() };
      } else {
        result = { end: "completed", text, metrics: zeroMetrics() };
      }
    } catch (error) {
      const wallMs = performance.now() - started;
      const end = timedOut ? "timeout" : this.#classifyFailure(wallMs, limits.timeoutMs);
      result = { end, message: failureMessage(end, limits, error), metrics: zeroMetrics() };
    } finally {
      clearTimeout(this.#deadlineTimer);
      this.#deadlineTimer = undefined;
      this.#onDeadline = undefined;
      this.#endCall();
    }
    if (result.end !== "completed" && result.end !== "output_too_large") this.dispose();
    result.metrics = {
      wallMs: performance.now() - started,
      cpuMs: Math.max(0, Number(this.#cpuNs() - cpuBefore) / 1e6),
      heapBytes: this.#heapAfter(performance.now() - started),
    };
    // An isolate left near its limit is not kept warm: its next call would
    // start out of room. (A call that filled it was slow, so the reading is fresh.)
    if (this.alive && this.heapBytes >= limits.memoryMb * 1024 * 1024 * NEAR_LIMIT) this.dispose();
    return result;
  }

  /** Heap plus ArrayBuffer memory at 90% of the limit or more (a fresh reading). */
  #nearMemoryLimit(memoryMb: number): boolean {
    return this.#updateHeap() >= memoryMb * 1024 * 1024 * NEAR_LIMIT;
  }

  /** A throw from isolated-vm: which limit, if any, did it come from? */
  #classifyFailure(wallMs: number, timeoutMs: number): RunEnd {
    // The clock first: a tool still running past its time limit reached that
    // limit before any memory disposal that came later (termination can lag,
    // e.g. in a microtask flood that also grows the heap).
    if (wallMs >= timeoutMs - 1) return "timeout";
    if (this.#isolate.isDisposed && !this.#disposedByUs) return "memory";
    return "crash";
  }

  /** The guest forgot its timers when it handed over the envelope; forget ours. */
  #endCall(): void {
    this.#inCall = false;
    this.#pausedLeftMs = undefined;
    this.#timers.clear();
    endCapabilityCall(this.#callId);
  }

  #armDeadline(): void {
    clearTimeout(this.#deadlineTimer);
    const onDeadline = this.#onDeadline;
    if (onDeadline !== undefined) this.#deadlineTimer = setTimeout(onDeadline, Math.max(0, this.#callDeadline - performance.now()));
  }

  /** The guest asked for a capability: the host performs it (fire-and-forget from the guest's side). */
  #onCapability(seq: unknown, requestJson: unknown): void {
    if (!this.#inCall || typeof seq !== "number" || typeof requestJson !== "string") return;
    sendCapabilityRequest(this.#callId, seq, requestJson, {
      deliver: (answerSeq, answerJson, pausedMs) => this.#deliverCapability(answerSeq, answerJson, pausedMs),
      pause: () => this.#pauseClock(),
    });
  }

  /** The host waits on its gate: the deadline stops, keeping what was left of the call's time. */
  #pauseClock(): void {
    if (!this.#inCall || this.#pausedLeftMs !== undefined) return;
    clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = undefined;
    this.#pausedLeftMs = Math.max(0, this.#callDeadline - performance.now());
  }

  /**
   * The host's answer enters the isolate; the tool resumes in this entry and
   * may settle (then the guest calls done). Time the host's gate waited is
   * added to the call's deadline: an approver's wait is not the tool's time.
   */
  #deliverCapability(seq: number, answerJson: string, pausedMs: number): void {
    if (!this.#inCall || !this.alive) return;
    if (this.#pausedLeftMs !== undefined) {
      // The clock restarts with what was left when the gate began to wait.
      this.#callDeadline = performance.now() + this.#pausedLeftMs;
      this.#pausedLeftMs = undefined;
      this.#armDeadline();
    } else if (pausedMs > 0) {
      this.#callDeadline += pausedMs;
      this.#armDeadline();
    }
    const left = Math.max(1, Math.floor(this.#callDeadline - performance.now()));
    try {
      this.#enter(() => this.#api.capability.applySync(undefined, [seq, answerJson], { arguments: { copy: true }, timeout: left }));
    } catch (error) {
      this.#failWaiting(error as Error);
    }
  }

  /** The isolate's CPU time; after disposal, the last reading before it. */
  #cpuNs(): bigint {
    if (this.#isolate.isDisposed) return this.#lastCpuNs;
    try {
      this.#lastCpuNs = this.#isolate.cpuTime;
    } catch {
      // disposed by its memory limit between the check and the read
    }
    return this.#lastCpuNs;
  }

  /**
   * Reading heap statistics costs about as much as a small call, so a fast
   * call reports the last reading, refreshed every few calls; a call that ran
   * a while (and may have grown the heap) always reads it.
   */
  #heapAfter(wallMs: number): number {
    if (wallMs > 1 || ++this.#callsSinceHeapRead >= HEAP_READ_EVERY_CALLS) {
      this.#callsSinceHeapRead = 0;
      return this.#updateHeap();
    }
    return this.heapBytes;
  }

  #updateHeap(): number {
    if (!this.alive) return this.heapBytes;
    try {
      const stats = this.#isolate.getHeapStatisticsSync();
      this.heapBytes = stats.used_heap_size + stats.externally_allocated_size;
    } catch {
      // disposed between the check and the read
    }
    return this.heapBytes;
  }

  #failWaiting(error: Error): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(error);
  }

  dispose(): void {
    this.#failWaiting(new Error("the isolate was disposed"));
    if (this.#isolate.isDisposed) return;
    this.#cpuNs();
    this.#disposedByUs = true;
    this.#timers.clear();
    for (const ref of this.#refs) {
      try {
        ref.release();
      } catch {
        // already released with the isolate
      }
    }
    this.#refs.length = 0;
    try {
      this.#isolate.dispose();
    } catch {
      // disposed by isolated-vm in the meantime
    }
  }
}
