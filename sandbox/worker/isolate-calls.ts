/**
 * @module sandbox/worker/isolate-calls
 * The call path of one ToolIsolate: a call's entries into the guest, the
 * call left waiting on timers or promises, its deadline (call-clock.ts), the
 * guest's timers (guest-timers.ts) and its capability requests. Apart from
 * tool-isolate.ts, which makes and frees the isolate, so that this reads as
 * one call from start to answer; the ToolIsolate hands it its fixed parts
 * once (the isolate, the meter, the guest bridge) and is told when a limit
 * or a bad run means the isolate must go.
 *
 * A call: `invokeNow` ─▶ #run (clock, metrics) ─▶ #enter(guest.start) ─▶
 * answered in that entry, or #poll, or waiting until the guest's `done(seq)`
 * ─▶ run-outcome.ts weighs the evidence ─▶ RunResult.
 */
import { performance } from "node:perf_hooks";
import type IsolatedVM from "isolated-vm-types";
import type { CallLimits } from "../shared/task-parts.js";
import type { Phase } from "../shared/classify.js";
import type { GuestAnswer } from "../shared/guest-api.js";
import { answerNow, endCapabilityCall, sendCapabilityRequest } from "./capability-relay.js";
import { incomingPayload, isAllocationRefused, noRoomAnswer, noRoomForText, payloadBytes } from "./capability-payload.js";
import type { WirePayload } from "../shared/capability-messages.js";
import { GuestContractError, type GuestBridge } from "./guest-bridge.js";
import { GuestTimers } from "./guest-timers.js";
import { CallClock } from "./call-clock.js";
import { untilQuiet, type IsolateMeter } from "./isolate-meter.js";
import type { LentCallbacks } from "./isolate-setup.js";
import { answeredResult, measureRun, thrownResult, type Run } from "./run-outcome.js";
import { zeroMetrics, type RunResult } from "./run-result.js";

/** What the call path asks of the isolate's owner: to free it, and whether isolated-vm freed it (a limit). */
export type IsolateOwner = { dispose(): void; disposedByLimit(): boolean };

export class IsolateCalls {
  readonly #isolate: IsolatedVM.Isolate;
  readonly #meter: IsolateMeter;
  readonly #owner: IsolateOwner;
  #guest!: GuestBridge;
  /** The call waiting for the guest's `done(seq)`, if it did not settle at once. */
  #waiting: { seq: number; resolve: (answer: GuestAnswer) => void; reject: (error: Error) => void } | undefined;
  #seq = 0;
  /** The one wake-up the guest's timers hold in this worker; cleared when the call ends. */
  readonly #timers = new GuestTimers({
    active: () => this.#inCall && !this.#isolate.isDisposed,
    deadline: () => this.#callDeadline,
    fire: (timeoutMs) => this.#guest.fire(timeoutMs),
    stoppedByLimit: () => this.#failWaiting(new Error("a timer callback was stopped by a limit")),
  });
  /** The running call's deadline, on performance.now()'s clock (the entries read it). */
  #callDeadline = 0;
  /** While a call waits: the timer that disposes the isolate at the deadline, paused while the host's gate waits. */
  readonly #clock = new CallClock();
  #callId = "";
  #inCall = false;
  /** The running call's memory limit, in bytes: a capability's payload is copied in only if it fits. */
  #memoryLimitBytes = 0;
  /** What the guest's callbacks reach in this worker (isolate-setup.ts lends them). */
  readonly lent: LentCallbacks = {
    wake: (delayMs: number) => this.#timers.wake(delayMs),
    done: (seq: number) => this.#onDone(seq),
    capability: (seq: number, json: string, payload?: unknown) => this.#onCapabilityNow(seq, json, payload),
  };

  constructor(isolate: IsolatedVM.Isolate, meter: IsolateMeter, owner: IsolateOwner) {
    this.#isolate = isolate;
    this.#meter = meter;
    this.#owner = owner;
  }

  /** The guest's API, once the runtime ran (before any call). */
  attach(guest: GuestBridge): void {
    this.#guest = guest;
  }

  /** The module's manifests as JSON text, under the given (load) limits. */
  describe(limits: CallLimits): Promise<RunResult> {
    return Promise.resolve(this.#run("load", limits, () => this.#guest.describe(limits.maxOutputBytes, limits.timeoutMs)));
  }

  /**
   * As `invoke`, answered at once when the tool answers in its first entry
   * (a plain value, not a thenable): a Code Mode script's fast nested call
   * runs so inside the script's own entry (sandbox/worker/fast-lane.ts).
   * A tool that waits answers a promise, exactly as `invoke` would.
   */
  invokeNow(tool: string, inputJson: string, callId: string, limits: CallLimits): RunResult | Promise<RunResult> {
    this.#callId = callId;
    this.#memoryLimitBytes = limits.memoryMb * 1024 * 1024;
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
      if (error instanceof GuestContractError || this.#isolate.isDisposed || performance.now() >= this.#callDeadline - 1) throw error;
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
    if (waiting === undefined || waiting.seq !== seq || this.#isolate.isDisposed) return;
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
    if (this.#isolate.isDisposed) return { kind: "crash", message: "the isolate is gone", metrics: zeroMetrics() };
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
      this.#owner.dispose();
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
    return thrownResult(run, error, this.#owner.disposedByLimit(), !this.#isolate.isDisposed);
  }

  /** The call is over: an isolate whose run did not end in an answer is not reused. */
  #ended(result: RunResult): RunResult {
    this.#endCall();
    if (result.text === undefined && result.kind !== "output_too_large") this.#owner.dispose();
    return result;
  }

  /** Adds the run's metrics; an isolate left near its limit is not kept warm. */
  #measured(run: Run, result: RunResult): RunResult {
    if (measureRun(run, result, this.#meter, !this.#isolate.isDisposed)) this.#owner.dispose();
    return result;
  }

  /** The guest forgot its timers when it handed over the answer; forget ours. */
  #endCall(): void {
    this.#inCall = false;
    this.#timers.clear();
    endCapabilityCall(this.#callId);
  }

  /** The guest's request, inside its entry: answered now (JSON text) by a local relay, or later. */
  #onCapabilityNow(seq: unknown, requestJson: unknown, payload: unknown): string | undefined {
    if (!this.#inCall || typeof seq !== "number" || typeof requestJson !== "string") return undefined;
    const callId = this.#callId;
    const now = answerNow(callId, seq, requestJson, payload);
    if (typeof now === "string") return now;
    if (now !== undefined) {
      // Started here, still waiting: its answer enters the guest like the host's would.
      void now.then((answer) => {
        if (this.#callId === callId) this.#deliverCapability(seq, typeof answer === "string" ? answer : answer.answerJson, 0, typeof answer === "string" ? undefined : answer.payload);
      });
      return undefined;
    }
    queueMicrotask(() => this.#onCapability(seq, requestJson, payload));
    return undefined;
  }

  /** The guest asked for a capability: the host performs it (fire-and-forget from the guest's side). */
  #onCapability(seq: number, requestJson: string, payload: unknown): void {
    if (!this.#inCall) return;
    sendCapabilityRequest(
      this.#callId,
      seq,
      requestJson,
      {
        deliver: (answerSeq, answerJson, pausedMs, answerPayload) => this.#deliverCapability(answerSeq, answerJson, pausedMs, answerPayload),
        pause: () => this.#pauseClock(),
      },
      payload,
    );
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
  #deliverCapability(seq: number, answerJson: string, pausedMs: number, payload?: WirePayload): void {
    if (!this.#inCall || this.#isolate.isDisposed) return;
    this.#callDeadline = this.#clock.resume(this.#callDeadline, pausedMs);
    const left = Math.max(1, Math.floor(this.#callDeadline - performance.now()));
    const inbound = incomingPayload(payload);
    const refusal = noRoomForText(inbound, () => this.#meter.readHeap(), this.#memoryLimitBytes);
    try {
      if (refusal === undefined) this.#guest.capability(seq, answerJson, inbound, left);
      else this.#enter(() => this.#guest.capability(seq, refusal, undefined, left));
    } catch (error) {
      // No room for the payload (isolated-vm's allocator refused it, after a collection, and left the isolate as it was):
      // corral's copy is never what takes an isolate past its limit; the tool hears too_large.
      if (inbound !== undefined && isAllocationRefused(error) && !this.#isolate.isDisposed) {
        const refusal = noRoomAnswer(payloadBytes(inbound), this.#meter.readHeap(), this.#memoryLimitBytes);
        this.#enter(() => this.#guest.capability(seq, refusal, undefined, left));
        return;
      }
      if (error instanceof GuestContractError || this.#isolate.isDisposed || performance.now() >= this.#callDeadline - 1) this.#failWaiting(error as Error);
    }
  }

  /** The waiting call fails (its isolate is gone). */
  #failWaiting(error: Error): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(error);
  }

  /** A Code Mode script's timers wait while its nested calls run (guest-timers.ts). */
  holdTimers(): void {
    this.#timers.hold();
  }

  releaseTimers(): void {
    this.#timers.release();
  }

  /** The isolate is going: a waiting call fails, and no wake-up outlives it. */
  end(): void {
    this.#failWaiting(new Error("the isolate was disposed"));
    this.#timers.clear();
  }
}
