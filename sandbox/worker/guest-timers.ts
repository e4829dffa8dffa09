/**
 * @module sandbox/worker/guest-timers
 * The worker's side of the timers a guest sets: one Node timer per guest
 * timer, for the current call only, and the entries that fire them. Owned by
 * a ToolIsolate, which clears it when a call ends or the isolate goes.
 *
 * Every timer that came due fires in one async entry, with at most one entry
 * in flight: an interval storm otherwise makes thousands of entries
 * (synchronous ones raced isolated-vm 5's timer thread, asynchronous ones
 * piled up behind the isolate's disposal) and crashed the worker (SIGSEGV,
 * test/hostile). The async apply keeps the worker's thread free for the
 * call's deadline.
 */
import { performance } from "node:perf_hooks";

export type GuestTimersHost = {
  /** Whether a call is running in a live isolate: timers fire only then. */
  active(): boolean;
  /** The running call's deadline, on performance.now()'s clock. */
  deadline(): number;
  /** Enters the isolate to fire `ids`; rejects if a limit stopped it. */
  fire(ids: number[], timeoutMs: number): Promise<unknown>;
  /** A firing entry was stopped by a limit: end the call now. */
  stoppedByLimit(): void;
};

export class GuestTimers {
  readonly #host: GuestTimersHost;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #due: number[] = [];
  #firing = false;

  constructor(host: GuestTimersHost) {
    this.#host = host;
  }

  /** The guest asked for a timer (a fire-and-forget callback from the isolate). */
  schedule(id: unknown, delayMs: unknown): void {
    if (!this.#host.active() || typeof id !== "number" || typeof delayMs !== "number") return;
    if (delayMs >= this.#host.deadline() - performance.now()) return; // it could only fire after the deadline
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#host.active()) return;
      this.#due.push(id);
      this.#fireDue();
    }, delayMs);
    this.#timers.add(timer);
  }

  #fireDue(): void {
    if (this.#firing || this.#due.length === 0 || !this.#host.active()) return;
    const ids = this.#due.splice(0);
    const left = Math.max(1, Math.floor(this.#host.deadline() - performance.now()));
    this.#firing = true;
    this.#host
      .fire(ids, left)
      .catch(() => {
        // A callback past the deadline or the memory limit ends the call now;
        // a detached rejection rethrown by isolated-vm does not.
        if (!this.#host.active() || performance.now() >= this.#host.deadline() - 1) this.#host.stoppedByLimit();
      })
      .finally(() => {
        this.#firing = false;
        this.#fireDue();
      });
  }

  /** Forgets every timer: the call that set them is over. */
  clear(): void {
    this.#due.length = 0;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
