/**
 * @module sandbox/worker/call-clock
 * The deadline timer of a call that waits, and its pause while the host's
 * gate waits. A synchronous entry carries its own `timeout`; only a call left
 * waiting on timers or promises needs a timer here, which disposes the
 * isolate at the limit. An approver's wait is not the tool's time: the host
 * pauses the clock and the answer that ends the wait restarts it with what
 * was left. Apart from ToolIsolate because none of it runs for a call that
 * answers in its first entry (the warm path). Owned by a ToolIsolate, which
 * keeps the deadline itself (its entries read it) and stops this when a
 * waiting call ends.
 */
import { performance } from "node:perf_hooks";

export class CallClock {
  #timer: NodeJS.Timeout | undefined;
  #onDeadline: (() => void) | undefined;
  /** While the host's gate waits: the call's time that was left. */
  #pausedLeftMs: number | undefined;

  /** A call waits from now on: `onDeadline` runs at `deadline` (performance.now()'s clock) unless the call ends first. */
  wait(deadline: number, onDeadline: () => void): void {
    this.#onDeadline = onDeadline;
    this.#arm(deadline);
  }

  /** The host waits on its gate: the timer stops, keeping what was left of the call's time. */
  pause(deadline: number): void {
    if (this.#pausedLeftMs !== undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pausedLeftMs = Math.max(0, deadline - performance.now());
  }

  /**
   * An answer of the host came, after its gate waited `pausedMs` (or paused
   * the clock): answers the call's deadline, moved by that wait.
   */
  resume(deadline: number, pausedMs: number): number {
    if (this.#pausedLeftMs !== undefined) {
      // The clock restarts with what was left when the gate began to wait.
      const restarted = performance.now() + this.#pausedLeftMs;
      this.#pausedLeftMs = undefined;
      this.#arm(restarted);
      return restarted;
    }
    if (pausedMs <= 0) return deadline;
    this.#arm(deadline + pausedMs);
    return deadline + pausedMs;
  }

  /** The waiting call is over. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#onDeadline = undefined;
    this.#pausedLeftMs = undefined;
  }

  #arm(deadline: number): void {
    clearTimeout(this.#timer);
    const onDeadline = this.#onDeadline;
    if (onDeadline !== undefined) this.#timer = setTimeout(onDeadline, Math.max(0, deadline - performance.now()));
  }
}
