/**
 * @module src/pool/memory-watch
 * The second layer of the memory limit: a worker's resident memory, read
 * from /proc while a task runs, against what that task may add to it. It
 * catches memory V8 does not count against an isolate's limit. It owns one
 * open /proc reader per worker and no timer: `wakeAt` says when the next
 * sample is due, and the session's one timer (wake-timer.ts) calls `tick`.
 *
 * Who a stop is charged to is decided from what was read, in `chargeOf`:
 *
 * ```
 * task starts ─▶ baseline (read now, or reused: what other tasks left is not this one's)
 *   nested call starts ─▶ nestedStart (read now)      ┐ a Code Mode script's
 *   nested call ends   ─▶ baseline += what it kept     ┘ tool calls
 * tick, every 10 ms while a task runs: resident > baseline + allowance(task) [+ allowance(nested)]
 *   ─▶ chargeOf ─▶ "running" | "nested" ─▶ onOver(charge) ─▶ the session stops the worker
 * ```
 * Each task is held to its own allowance over the growth that happened while
 * it ran: a script's over the time it ran itself, its nested call's over the
 * nested call's run. While a nested call runs the worker holds the script's
 * timers (sandbox/worker/nested-queue.ts, WorkerCore.holdScriptTimers), so growth
 * then is the nested call's.
 * Every stop is thus charged to a task that grew past its own allowance;
 * growth that is no task's own (what earlier tasks left, a kept isolate)
 * sits in the baseline and is never charged.
 */
import { openResident, type ResidentReader } from "./process-memory.js";
import { MEMORY_SAMPLE_MS, RESIDENT_REUSE_WITHIN_WALL_MS } from "../../sandbox/shared/tuning.js";

/**
 * An isolate's resident memory runs to about twice its heap limit in normal
 * work (young generation, code, fragmentation): the watch is for memory V8
 * does not count at all, so it allows that, plus the worker's slack.
 */
const RESIDENT_PER_HEAP_MB = 2;
const MB = 1024 * 1024;

/** What a task may add to its worker's resident memory before the worker is stopped. */
export function allowanceBytes(memoryMb: number, slackMb: number): number {
  return (memoryMb * RESIDENT_PER_HEAP_MB + slackMb) * MB;
}

/** What the caller hears when the watch stopped a worker, charged as said (`nested`: the script's nested call running, if one is). */
export function overMemoryMessage(charge: Charge, residentBytes: number, nested: { tool: string; limits: { memoryMb: number } } | undefined, runningLimitMb: number): string {
  const resident = `resident ${Math.round(residentBytes / MB)} MB`;
  if (charge === "nested" && nested !== undefined) {
    return `the tool "${nested.tool}" (called from a Code Mode script) grew its worker past its ${nested.limits.memoryMb} MB limit (${resident}); the worker was killed`;
  }
  return `the tool grew its worker past its ${runningLimitMb} MB limit (${resident}); the worker was killed`;
}

/** Who grew the worker past its allowance: the running task, or the script's running nested call. */
export type Charge = "running" | "nested";

export type Reading = {
  /** Resident bytes now. */
  residentBytes: number;
  /** Resident bytes as the running task started, plus what its nested calls kept. */
  baselineBytes: number;
  /** The running task's own allowance. */
  runningAllowanceBytes: number;
  /** The running nested call, if one runs: resident bytes as it started, and its allowance. */
  nested?: { startBytes: number; allowanceBytes: number };
};

/**
 * Whether a task grew the worker past its own allowance, and which one. A
 * task is charged only for growth that happened while it ran: a nested call
 * for the growth since it started, its script for the growth before that.
 */
export function chargeOf(reading: Reading): Charge | undefined {
  const { residentBytes, baselineBytes, runningAllowanceBytes, nested } = reading;
  if (nested === undefined) return residentBytes - baselineBytes > runningAllowanceBytes ? "running" : undefined;
  if (residentBytes - nested.startBytes > nested.allowanceBytes) return "nested";
  if (nested.startBytes - baselineBytes > runningAllowanceBytes) return "running";
  return undefined;
}

export type MemoryWatchOptions = {
  pid: number;
  slackMb: number;
  /** The session's clock (performance.now()'s), read as a sample is due or taken. */
  now: () => number;
  /** The worker is over: stop it, charged as said. Called once per task at most. */
  onOver(charge: Charge, residentBytes: number): void;
  /** Runs before each sample: the session learns then which nested call runs (a lane's journal). */
  beforeSample?(): void;
};

/** One worker's resident-memory watch. The session owns it and closes it when the worker ends. */
export class MemoryWatch {
  readonly #options: MemoryWatchOptions;
  readonly #reader: ResidentReader | undefined;
  /** When the next sample is due, while a task is watched. */
  #sampleAt: number | undefined;
  #baselineBytes: number | undefined;
  /** The last reading taken as a task started, and the wall time of the tasks run since (Infinity: read again). */
  #lastReading: number | undefined;
  #wallSinceReadingMs = Number.POSITIVE_INFINITY;
  #runningAllowanceBytes = 0;
  #nested: { startBytes: number; allowanceBytes: number } | undefined;

  constructor(options: MemoryWatchOptions) {
    this.#options = options;
    this.#reader = openResident(options.pid);
  }

  /** A task starts running with `memoryMb` as its limit. */
  start(memoryMb: number): void {
    this.stop();
    if (this.#lastReading === undefined || this.#wallSinceReadingMs > RESIDENT_REUSE_WITHIN_WALL_MS) {
      this.#lastReading = this.#reader?.read();
      this.#wallSinceReadingMs = 0;
    }
    this.#baselineBytes = this.#lastReading;
    if (this.#baselineBytes === undefined) return;
    this.#runningAllowanceBytes = allowanceBytes(memoryMb, this.#options.slackMb);
    this.#sampleAt = this.#options.now() + MEMORY_SAMPLE_MS;
  }

  /** When `tick` is to be called next; undefined while no task is watched. */
  get wakeAt(): number | undefined {
    return this.#sampleAt;
  }

  /** Samples if a sample is due (the next is due MEMORY_SAMPLE_MS later); stops the worker through onOver if a task is past its allowance. */
  tick(): void {
    const now = this.#options.now();
    if (this.#sampleAt === undefined || now < this.#sampleAt) return;
    this.#sampleAt = now + MEMORY_SAMPLE_MS;
    this.#sample();
  }

  /** The running script's nested call starts (`memoryMb`: its tool's limit), or the one running ended (undefined). */
  nested(memoryMb: number | undefined): void {
    if (this.#baselineBytes === undefined) return;
    const now = this.#reader?.read();
    if (now === undefined) return;
    // What the nested call left (its tool's isolate, kept warm here) is not the script's growth.
    if (this.#nested !== undefined) this.#baselineBytes += Math.max(0, now - this.#nested.startBytes);
    this.#nested = memoryMb === undefined ? undefined : { startBytes: now, allowanceBytes: allowanceBytes(memoryMb, this.#options.slackMb) };
  }

  /** The running task was answered: a call's wall time, or undefined for any other task (the next start reads again). */
  ended(callWallMs: number | undefined): void {
    this.#wallSinceReadingMs += callWallMs ?? Number.POSITIVE_INFINITY;
  }

  /** The running task is over. */
  stop(): void {
    this.#sampleAt = undefined;
    this.#baselineBytes = undefined;
    this.#nested = undefined;
  }

  close(): void {
    this.stop();
    this.#reader?.close();
  }

  #sample(): void {
    this.#options.beforeSample?.();
    const residentBytes = this.#reader?.read();
    const baselineBytes = this.#baselineBytes;
    if (residentBytes === undefined || baselineBytes === undefined) return;
    const charge = chargeOf({
      residentBytes,
      baselineBytes,
      runningAllowanceBytes: this.#runningAllowanceBytes,
      ...(this.#nested !== undefined ? { nested: this.#nested } : {}),
    });
    if (charge === undefined) return;
    this.stop();
    this.#options.onOver(charge, residentBytes);
  }
}
