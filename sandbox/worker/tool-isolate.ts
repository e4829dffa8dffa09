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
 * The isolate is made in isolate-setup.ts; a run's evidence (the guest's
 * typed answer, the clock, the disposal, the isolate's memory against its
 * limit) is weighed in run-outcome.ts; sandbox/shared/classify.ts decides.
 */
import { performance } from "node:perf_hooks";
import type { CallLimits } from "../shared/task-parts.js";
import { classify, type Phase } from "../shared/classify.js";
import type { GuestAnswer } from "../shared/guest-api.js";
import { ivm } from "./load-isolated-vm.js";
import type IsolatedVM from "isolated-vm-types";
import { answerNow, endCapabilityCall, sendCapabilityRequest } from "./capability-relay.js";
import { GuestContractError, type GuestBridge } from "./guest-bridge.js";
import { GuestTimers } from "./guest-timers.js";
import { CallClock } from "./call-clock.js";
import { IsolateMeter, untilQuiet } from "./isolate-meter.js";
import { loadFailure, runGuestRuntime, runModule, type ToolIsolateOptions } from "./isolate-setup.js";
import { answeredResult, measureRun, thrownResult, type Run } from "./run-outcome.js";
import { catastrophe, LoadFailure, zeroMetrics, type RunResult } from "./run-result.js";

export { LoadFailure, type RunResult } from "./run-result.js";
export type { ToolIsolateOptions } from "./isolate-setup.js";

type Reference = IsolatedVM.Reference<unknown>;

export class ToolIsolate {
  readonly #isolate: IsolatedVM.Isolate;
  readonly #context: IsolatedVM.Context;
  readonly #refs: Reference[] = [];
  #guest!: GuestBridge;
  /** The call waiting for the guest's `done(seq)`, if it did not settle at once. */
  #waiting: { seq: number; resolve: (answer: GuestAnswer) => void; reject: (error: Error) => void } | undefined;
  #seq = 0;
  /** The one wake-up the guest's timers hold in this worker; cleared when the call ends. */
  readonly #timers = new GuestTimers({
    active: () => this.#inCall && this.alive,
    deadline: () => this.#callDeadline,
    fire: (timeoutMs) => this.#guest.fire(timeoutMs),
    stoppedByLimit: () => this.#failWaiting(new Error("a timer callback was stopped by a limit")),
  });
  /** The running call's deadline, on performance.now()'s clock (the entries read it). */
  #callDeadline = 0;
  /** While a call waits: the timer that disposes the isolate at the deadline, paused while the host's gate waits. */
  readonly #clock = new CallClock();
  #callId = "";
  /** What the guest's callbacks reach in this worker (isolate-setup.ts lends them). */
  readonly #lent = {
    wake: (delayMs: number) => this.#timers.wake(delayMs),
    done: (seq: number) => this.#onDone(seq),
    capability: (seq: number, json: string) => this.#onCapabilityNow(seq, json),
  };
  #disposedByUs = false;
  #inCall = false;
  /** CPU time, heap and the memory V8 does not count: what the worker's budget weighs this isolate at. */
  readonly #meter: IsolateMeter;
  /** How long the last call took (the worker holds replies back only behind fast calls). */
  lastCallMs = Number.POSITIVE_INFINITY;
  readonly #memoryMb: number;
  #loaded = false;

  private constructor(memoryMb: number) {
    this.#memoryMb = memoryMb;
    this.#isolate = new ivm.Isolate({
      memoryLimit: memoryMb,
      onCatastrophicError: (message) => catastrophe(message),
    });
    this.#meter = new IsolateMeter(this.#isolate);
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
    this.#guest = runGuestRuntime(this.#isolate, this.#context, this.#refs, this.#lent, timeoutMs);
    if (options.warm === true) this.#guest.warm(timeoutMs);
  }

  /** Runs the module's top level; answers why it was refused, or undefined. */
  #loadModule(options: ToolIsolateOptions): string | undefined {
    if (this.#loaded) throw new GuestContractError("a second module was loaded into one isolate");
    this.#loaded = true; // one module per isolate, ever
    return runModule(this.#isolate, this.#context, this.#refs, this.#guest, options);
  }

  get alive(): boolean {
    return !this.#isolate.isDisposed;
  }

  /** The module's manifests as JSON text, under the given (load) limits. */
  describe(limits: CallLimits): Promise<RunResult> {
    return Promise.resolve(this.#run("load", limits, () => this.#guest.describe(limits.maxOutputBytes, limits.timeoutMs)));
  }

  /** One call of `tool` with `inputJson`; the envelope comes back as JSON text. */
  invoke(tool: string, inputJson: string, callId: string, limits: CallLimits): Promise<RunResult> {
    return Promise.resolve(this.invokeNow(tool, inputJson, callId, limits));
  }

  /**
   * As `invoke`, answered at once when the tool answers in its first entry
   * (a plain value, not a thenable): a Code Mode script's fast nested call
   * runs so inside the script's own entry (sandbox/worker/fast-lane.ts).
   * A tool that waits answers a promise, exactly as `invoke` would.
   */
  invokeNow(tool: string, inputJson: string, callId: string, limits: CallLimits): RunResult | Promise<RunResult> {
    this.#callId = callId;
    return this.#run("call", limits, () => {
      const seq = ++this.#seq;
      const request = { seq, tool, inputJson, callId, maxBytes: limits.maxOutputBytes, maxDepth: limits.maxDepth };
      const started = this.#enter(() => this.#guest.start(request, limits.timeoutMs));
      // A tool that answered at once answered in that same entry.
      if (started !== undefined && started !== null) return started;
      const polled = this.#enter(() => this.#poll(seq));
      if (polled !== undefined && polled !== "pending") {
        if (polled === null) throw new GuestContractError("the call was neither answered nor waiting");
        return polled;
      }
      return new Promise<GuestAnswer>((resolve, reject) => {
        this.#waiting = { seq, resolve, reject };
      });
    });
  }

  /**
   * Runs one synchronous entry. A throw that is not a limit (the isolate is
   * alive and time is left) is not the end of the call: isolated-vm rethrows
   * an unhandled rejection of the guest as the entry's error, and a tool's
   * detached promise must not fail a call that answers normally. The call
   * goes on (poll says whether it answered or waits). A broken contract is
   * corral's own failure and ends it at once.
   */
  #enter<T>(entry: () => T): T | undefined {
    try {
      return entry();
    } catch (error) {
      if (error instanceof GuestContractError || !this.alive || performance.now() >= this.#callDeadline - 1) throw error;
      return undefined;
    }
  }

  #poll(seq: number): GuestAnswer | "pending" | null {
    const left = Math.max(1, Math.floor(this.#callDeadline - performance.now()));
    return this.#guest.poll(seq, left);
  }

  /** The guest's call settled after waiting on timers or promises. */
  #onDone(seq: unknown): void {
    const waiting = this.#waiting;
    if (waiting === undefined || waiting.seq !== seq || !this.alive) return;
    this.#waiting = undefined;
    try {
      const polled = this.#enter(() => this.#poll(waiting.seq));
      if (polled === undefined || polled === "pending") this.#waiting = waiting;
      else if (polled === null) waiting.reject(new GuestContractError("the call said it settled but has no answer"));
      else waiting.resolve(polled);
    } catch (error) {
      waiting.reject(error as Error);
    }
  }

  /** Runs one call or describe: answered at once if its first entry answered, else a promise (see #runOn). */
  #run(phase: Phase, limits: CallLimits, enter: () => GuestAnswer | Promise<GuestAnswer>): RunResult | Promise<RunResult> {
    if (!this.alive) return { kind: "crash", message: "the isolate is gone", metrics: zeroMetrics() };
    const run: Run = { phase, limits, started: performance.now(), cpuBefore: this.#meter.cpuNs(), timedOut: false };
    this.#callDeadline = run.started + limits.timeoutMs;
    this.#inCall = true;
    let answer: GuestAnswer | Promise<GuestAnswer>;
    try {
      answer = enter();
    } catch (error) {
      return this.#measured(run, this.#ended(this.#thrown(run, error)));
    }
    if (answer instanceof Promise) return this.#runOn(run, answer);
    let result: RunResult;
    try {
      result = answeredResult(run, answer, this.#meter);
    } catch (error) {
      result = this.#thrown(run, error);
    }
    return this.#measured(run, this.#ended(result));
  }

  /** A call left waiting on timers or promises: only it needs the deadline timer (sync entries carry their own timeout). */
  async #runOn(run: Run, pending: Promise<GuestAnswer>): Promise<RunResult> {
    this.#clock.wait(this.#callDeadline, () => {
      run.timedOut = true;
      this.dispose();
    });
    let result: RunResult;
    try {
      result = answeredResult(run, await pending, this.#meter);
    } catch (error) {
      result = this.#thrown(run, error);
    }
    // Only a call that waited ever arms or pauses the clock (the host's pause and answers come on the event loop).
    this.#clock.stop();
    this.#ended(result);
    // Only an asynchronous entry can outlive its call (a synchronous one holds this thread).
    if (result.kind === "timeout" || result.kind === "memory") await untilQuiet();
    return this.#measured(run, result);
  }

  /** An entry threw: a limit, or corral's own failure (run-outcome.ts). */
  #thrown(run: Run, error: unknown): RunResult {
    return thrownResult(run, error, this.#isolate.isDisposed && !this.#disposedByUs, this.alive);
  }

  /** The call is over: an isolate whose run did not end in an answer is not reused. */
  #ended(result: RunResult): RunResult {
    this.#endCall();
    if (result.text === undefined && result.kind !== "output_too_large") this.dispose();
    return result;
  }

  /** Adds the run's metrics; an isolate left near its limit is not kept warm. */
  #measured(run: Run, result: RunResult): RunResult {
    if (measureRun(run, result, this.#meter, this.alive)) this.dispose();
    return result;
  }

  /** The guest forgot its timers when it handed over the answer; forget ours. */
  #endCall(): void {
    this.#inCall = false;
    this.#timers.clear();
    endCapabilityCall(this.#callId);
  }

  /** The guest's request, inside its entry: answered now (JSON text) by a local relay, or later. */
  #onCapabilityNow(seq: unknown, requestJson: unknown): string | undefined {
    if (!this.#inCall || typeof seq !== "number" || typeof requestJson !== "string") return undefined;
    const callId = this.#callId;
    const now = answerNow(callId, seq, requestJson);
    if (typeof now === "string") return now;
    if (now !== undefined) {
      // Started here, still waiting: its answer enters the guest like the host's would.
      void now.then((answerJson) => {
        if (this.#callId === callId) this.#deliverCapability(seq, answerJson, 0);
      });
      return undefined;
    }
    queueMicrotask(() => this.#onCapability(seq, requestJson));
    return undefined;
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
    if (this.#inCall) this.#clock.pause(this.#callDeadline);
  }

  /**
   * The host's answer enters the isolate; the tool resumes in this entry and
   * may settle (then the guest calls done). Time the host's gate waited is
   * added to the call's deadline: an approver's wait is not the tool's time.
   */
  #deliverCapability(seq: number, answerJson: string, pausedMs: number): void {
    if (!this.#inCall || !this.alive) return;
    this.#callDeadline = this.#clock.resume(this.#callDeadline, pausedMs);
    const left = Math.max(1, Math.floor(this.#callDeadline - performance.now()));
    try {
      this.#enter(() => this.#guest.capability(seq, answerJson, left));
    } catch (error) {
      this.#failWaiting(error as Error);
    }
  }

  /** A Code Mode script's timers wait while its nested calls run (guest-timers.ts). */
  holdTimers(): void {
    this.#timers.hold();
  }

  releaseTimers(): void {
    this.#timers.release();
  }

  /** Used heap plus external memory, at the last reading. */
  get heapBytes(): number {
    return this.#meter.heapBytes;
  }

  /** The full size the worker's budget counts this isolate at: heap, external buffers and unseen memory. */
  get footprintBytes(): number {
    return this.#meter.footprintBytes;
  }

  #failWaiting(error: Error): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(error);
  }

  dispose(): void {
    this.#failWaiting(new Error("the isolate was disposed"));
    if (this.#isolate.isDisposed) return;
    this.#meter.cpuNs();
    this.#disposedByUs = true;
    this.#timers.clear();
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
