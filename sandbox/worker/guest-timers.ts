/**
 * @module sandbox/worker/guest-timers
 * The worker's side of a guest's timers: one wake-up per isolate, nothing per
 * timer. The guest keeps its timers itself (sandbox/guest/timers.ts) and asks
 * for a wake-up only when its earliest due time moves earlier; this side
 * holds one Node timer at the earliest time asked, enters the guest's
 * `fire()` when it comes, and re-arms at the delay `fire()` answers. So a
 * debounce that sets and clears 200,000 timers costs the worker one timer.
 * Owned by a ToolIsolate, which clears it when a call ends or the isolate goes.
 *
 * At most one firing entry is in flight, and it is asynchronous: an interval
 * storm otherwise makes thousands of entries (synchronous ones raced
 * isolated-vm 5's timer thread and crashed the worker, test/hostile), and
 * the async apply keeps this thread free for the call's deadline.
 *
 * A Code Mode script's timers are held while its nested calls run
 * (`hold`/`release`): a due wake-up waits, so what grows the worker then is
 * the nested call's (src/pool/memory-watch.ts charges growth by who ran).
 * One firing entry already in flight when the hold begins runs on.
 */
import { performance } from "node:perf_hooks";

export type GuestTimersHost = {
  /** Whether a call is running in a live isolate: timers fire only then. */
  active(): boolean;
  /** The running call's deadline, on performance.now()'s clock. */
  deadline(): number;
  /** Enters the isolate to fire what is due; answers ms until the next timer (-1: none); rejects if a limit stopped it. */
  fire(timeoutMs: number): Promise<number>;
  /** A firing entry was stopped by a limit: end the call now. */
  stoppedByLimit(): void;
};

export class GuestTimers {
  readonly #host: GuestTimersHost;
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer comes due (performance.now()), or +Infinity. */
  #at = Number.POSITIVE_INFINITY;
  #firing = false;
  /** A wake-up asked for while an entry was firing: armed when it returns. */
  #later = Number.POSITIVE_INFINITY;
  /** While held: the earliest wake-up asked for, armed on release. */
  #held: number | undefined;

  constructor(host: GuestTimersHost) {
    this.#host = host;
  }

  /** The guest asked to be woken in `delayMs` (a fire-and-forget callback from the isolate). */
  wake(delayMs: unknown): void {
    if (!this.#host.active() || typeof delayMs !== "number" || !(delayMs >= 0)) return;
    if (delayMs >= this.#host.deadline() - performance.now()) return; // it could only fire after the deadline
    const at = performance.now() + delayMs;
    if (this.#held !== undefined) {
      this.#held = Math.min(this.#held, at);
      return;
    }
    if (this.#firing) {
      this.#later = Math.min(this.#later, at);
      return;
    }
    if (at >= this.#at) return;
    clearTimeout(this.#timer);
    this.#at = at;
    this.#timer = setTimeout(() => this.#fire(), delayMs);
  }

  #fire(): void {
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
    if (!this.#host.active()) return;
    const left = Math.max(1, Math.floor(this.#host.deadline() - performance.now()));
    this.#firing = true;
    this.#host.fire(left).then(
      (nextMs) => this.#fired(nextMs),
      () => {
        this.#fired(-1);
        // A callback past the deadline or the memory limit ends the call now;
        // a detached rejection rethrown by isolated-vm does not.
        if (!this.#host.active() || performance.now() >= this.#host.deadline() - 1) this.#host.stoppedByLimit();
      },
    );
  }

  #fired(nextMs: number): void {
    this.#firing = false;
    const later = this.#later;
    this.#later = Number.POSITIVE_INFINITY;
    if (later !== Number.POSITIVE_INFINITY) this.wake(Math.max(0, later - performance.now()));
    if (nextMs >= 0) this.wake(nextMs);
  }

  /** Fires nothing until `release`: the wake-up armed now, and any asked for meanwhile, wait. */
  hold(): void {
    if (this.#held !== undefined) return;
    this.#held = this.#at;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
  }

  /** Arms the earliest wake-up that waited (at once if it is due). */
  release(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined && held !== Number.POSITIVE_INFINITY) this.wake(Math.max(0, held - performance.now()));
  }

  /** Forgets the wake-up: the call that set the timers is over. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
    this.#later = Number.POSITIVE_INFINITY;
    this.#held = undefined;
  }
}
