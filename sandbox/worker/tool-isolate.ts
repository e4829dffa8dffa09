/**
 * @module sandbox/worker/tool-isolate
 * One isolate with one context holding the guest runtime and one bundle.
 * `ToolIsolate` owns the isolate, its References (through its GuestBridge)
 * and the wake-up it lent; it frees them all in `dispose()`. The isolate
 * cache owns ToolIsolates.
 *
 * Limits, first layer (the host's watchdog is the second):
 * - memory: the isolate's `memoryLimit`; isolated-vm disposes the isolate
 *   when it is passed, and we read that from `isolate.isDisposed`;
 * - time: `timeout` on every entry (sync work: each entry is a synchronous
 *   apply, the fastest way in) and a deadline timer (call-clock.ts) that
 *   disposes the isolate (async work: a promise that never settles, a chain
 *   of timers).
 *   Between entries this thread is free, so the deadline can fire.
 * - load vs call: the module's top level runs once, when the isolate is
 *   made, under the load time limit (never a call's); its failure is the
 *   module's load failure.
 * The isolate is made in isolate-setup.ts; a call runs in isolate-calls.ts,
 * which this hands the isolate, its meter and the guest's bridge once; a
 * run's evidence (the guest's typed answer, the clock, the disposal, the
 * isolate's memory against its limit) is weighed in run-outcome.ts;
 * sandbox/shared/classify.ts decides.
 */
import { performance } from "node:perf_hooks";
import type { CallLimits } from "../shared/task-parts.js";
import { classify } from "../shared/classify.js";
import { COLLECT_AFTER_GROWTH_BYTES, COLLECT_HEAPS_UP_TO_BYTES, COLLECT_TIMEOUT_MS } from "../shared/tuning.js";
import { ivm } from "./load-isolated-vm.js";
import type IsolatedVM from "isolated-vm-types";
import { GuestContractError, type GuestBridge } from "./guest-bridge.js";
import { IsolateCalls } from "./isolate-calls.js";
import { IsolateMeter } from "./isolate-meter.js";
import { loadFailure, runGuestRuntime, runModule, type ToolIsolateOptions } from "./isolate-setup.js";
import { catastrophe, LoadFailure, type RunResult } from "./run-result.js";

export { LoadFailure, type RunResult } from "./run-result.js";
export type { ToolIsolateOptions } from "./isolate-setup.js";

type Reference = IsolatedVM.Reference<unknown>;

export class ToolIsolate {
  readonly #isolate: IsolatedVM.Isolate;
  readonly #context: IsolatedVM.Context;
  readonly #refs: Reference[] = [];
  #guest!: GuestBridge;
  /** The call path: entries, a waiting call, its clock, timers and capability requests. */
  readonly #calls: IsolateCalls;
  #disposedByUs = false;
  /** CPU time, heap and the memory V8 does not count: what the worker's budget weighs this isolate at. */
  readonly #meter: IsolateMeter;
  /** How long the last call took (the worker holds replies back only behind fast calls). */
  lastCallMs = Number.POSITIVE_INFINITY;
  readonly #memoryMb: number;
  #loaded = false;
  /** Its heap after the last idle-time collection; undefined until one ran since it was made or loaded. */
  #collectedHeap: number | undefined;

  private constructor(memoryMb: number) {
    this.#memoryMb = memoryMb;
    this.#isolate = new ivm.Isolate({
      memoryLimit: memoryMb,
      onCatastrophicError: (message) => catastrophe(message),
    });
    this.#meter = new IsolateMeter(this.#isolate);
    this.#calls = new IsolateCalls(this.#isolate, this.#meter, { dispose: () => this.dispose(), disposedByLimit: () => this.#isolate.isDisposed && !this.#disposedByUs });
    this.#context = this.#isolate.createContextSync();
  }

  /**
   * An isolate with its context and the guest runtime run, but no module yet:
   * the costly part of a cold tool (zod's initialisation), which the worker
   * can do ahead of time while idle. No tool code has ever run in it.
   */
  static prepare(memoryMb: number, timeoutMs: number): ToolIsolate {
    const tool = new ToolIsolate(memoryMb);
    try {
      tool.#runRuntime(timeoutMs, { warm: true });
      // What the blank costs is the runtime's, not the module's that will take it.
      IsolateMeter.residentNow();
      // Its heap, for the warm budget that counts it while it waits.
      tool.#meter.readHeap();
      return tool;
    } catch (error) {
      tool.dispose();
      throw error;
    }
  }

  get memoryMb(): number {
    return this.#memoryMb;
  }

  /** Whether this is a prepared isolate no module was loaded into yet. */
  get blank(): boolean {
    return !this.#loaded && this.alive;
  }

  /**
   * Creates the isolate (or takes a prepared `blank` one of the same memory
   * limit), runs the runtime and the bundle's top level, under the load
   * time limit.
   */
  static create(options: ToolIsolateOptions, blank?: ToolIsolate): ToolIsolate | LoadFailure {
    let tool: ToolIsolate | undefined;
    const phase = options.phase ?? "load";
    const started = performance.now();
    try {
      if (blank !== undefined && blank.blank && blank.#memoryMb === options.memoryMb) {
        tool = blank;
      } else {
        blank?.dispose();
        tool = new ToolIsolate(options.memoryMb);
        tool.#runRuntime(options.loadTimeoutMs);
      }
      const refused = tool.#loadModule(options);
      if (refused !== undefined) {
        tool.dispose();
        return new LoadFailure(classify({ phase, answer: "module_refused" }), refused);
      }
      tool.#meter.noteResidentGrowth(0);
      return tool;
    } catch (error) {
      const made = tool === undefined ? undefined : { disposedByLimit: tool.#isolate.isDisposed && !tool.#disposedByUs };
      tool?.dispose();
      return loadFailure(options, error, started, made);
    }
  }

  /** `warm`: also run the runtime's own warm-up (idle time only: it costs what it saves). */
  #runRuntime(timeoutMs: number, options: { warm?: boolean } = {}): void {
    this.#guest = runGuestRuntime(this.#isolate, this.#context, this.#refs, this.#calls.lent, timeoutMs);
    this.#calls.attach(this.#guest);
    if (options.warm === true) this.#guest.warm(timeoutMs);
  }

  /** Runs the module's top level; answers why it was refused, or undefined. */
  #loadModule(options: ToolIsolateOptions): string | undefined {
    if (this.#loaded) throw new GuestContractError("a second module was loaded into one isolate");
    this.#loaded = true; // one module per isolate, ever
    this.#collectedHeap = undefined;
    return runModule(this.#isolate, this.#context, this.#refs, this.#guest, options);
  }

  get alive(): boolean {
    return !this.#isolate.isDisposed;
  }

  /** Whether an idle-time collection would be worth its cost: none ran since it was made or loaded, or its heap grew since (tuning.ts). */
  get wantsCollection(): boolean {
    const heap = this.#meter.heapBytes;
    if (!this.alive || heap > COLLECT_HEAPS_UP_TO_BYTES) return false;
    return this.#collectedHeap === undefined || heap > this.#collectedHeap + Math.max(COLLECT_AFTER_GROWTH_BYTES, this.#collectedHeap / 2);
  }

  /**
   * A full, compacting collection, for idle time only: what the runtime's
   * deserialization and the module's load left is garbage V8 never collects
   * in an isolate that allocates nothing more, and it stays resident.
   * isolated-vm has no call for it; its allocator asks V8 for a low-memory
   * collection before it refuses memory past the isolate's limit, so such
   * an allocation is asked for, in a new context of this isolate: the
   * tool's own globals play no part, and nothing it defined runs
   * (FinalizationRegistry callbacks wait for its next entry). Node 20's V8
   * asks once when a buffer grows with `transfer` (~8 ms); a later V8, and
   * `new ArrayBuffer` (the fallback), retry after collections of their own
   * and ask four times (~30 ms).
   */
  collectGarbage(): void {
    if (!this.alive) return;
    this.#meter.measureCollection(() => {
      const context = this.#isolate.createContextSync();
      try {
        const past = (this.#memoryMb + 1) * 1024 * 1024 * 2;
        context.evalSync(`try { const small = new ArrayBuffer(8); typeof small.transfer === "function" ? small.transfer(${past}) : new ArrayBuffer(${past}); } catch {}`, { timeout: COLLECT_TIMEOUT_MS });
      } finally {
        context.release();
      }
    });
    // Set after a failure too, which is then not tried again until the heap grows.
    this.#collectedHeap = this.#meter.heapBytes;
  }

  /** The module's manifests as JSON text, under the given (load) limits. */
  describe(limits: CallLimits): Promise<RunResult> {
    return this.#calls.describe(limits);
  }

  /** One call of `tool` with `inputJson`; the envelope comes back as JSON text. */
  invoke(tool: string, inputJson: string, callId: string, limits: CallLimits): Promise<RunResult> {
    return Promise.resolve(this.#calls.invokeNow(tool, inputJson, callId, limits));
  }

  /**
   * As `invoke`, answered at once when the tool answers in its first entry
   * (a plain value, not a thenable): a Code Mode script's fast nested call
   * runs so inside the script's own entry (sandbox/worker/fast-lane.ts).
   * A tool that waits answers a promise, exactly as `invoke` would.
   */
  invokeNow(tool: string, inputJson: string, callId: string, limits: CallLimits): RunResult | Promise<RunResult> {
    return this.#calls.invokeNow(tool, inputJson, callId, limits);
  }

  /** A Code Mode script's timers wait while its nested calls run (guest-timers.ts). */
  holdTimers(): void {
    this.#calls.holdTimers();
  }

  releaseTimers(): void {
    this.#calls.releaseTimers();
  }

  /** Used heap plus external memory, at the last reading. */
  get heapBytes(): number {
    return this.#meter.heapBytes;
  }

  /** The full size the worker's budget counts this isolate at: heap, external buffers and unseen memory. */
  get footprintBytes(): number {
    return this.#meter.footprintBytes;
  }

  dispose(): void {
    this.#calls.end();
    if (this.#isolate.isDisposed) return;
    this.#meter.cpuNs();
    this.#disposedByUs = true;
    this.#guest?.release();
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
