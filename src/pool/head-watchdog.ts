/**
 * @module src/pool/head-watchdog
 * The second layer of a task's time limit: the host's own clock for the
 * task its worker runs now (limit + grace, then the worker is killed). It
 * can be paused while a capability's gate waits (the call's clocks stop)
 * and resumed with what it had left. One per session; the session decides
 * what a firing means.
 */
export class HeadWatchdog {
  #timer: NodeJS.Timeout | undefined;
  #at: number | undefined;
  #fire: (() => void) | undefined;

  /** (Re)arms: `fire` runs `ms` from now unless cleared, paused or re-armed first. */
  arm(ms: number, fire: () => void): void {
    clearTimeout(this.#timer);
    this.#fire = fire;
    this.#at = performance.now() + ms;
    this.#timer = setTimeout(fire, ms);
  }

  /** Stops the clock: answers what it had left (undefined if it was not running). */
  pause(): number | undefined {
    if (this.#at === undefined) return undefined;
    const leftMs = Math.max(0, this.#at - performance.now());
    clearTimeout(this.#timer);
    return leftMs;
  }

  /** Runs the clock again with `leftMs` (what `pause` answered), if it is still armed. */
  resume(leftMs: number): void {
    const fire = this.#fire;
    if (fire !== undefined) this.arm(leftMs, fire);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = undefined;
    this.#fire = undefined;
  }
}
