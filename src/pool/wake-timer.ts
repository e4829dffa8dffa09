/**
 * @module src/pool/wake-timer
 * A session's one timer: it wakes the session at the earliest time its
 * deciders name (worker-schedule.ts, nested-calls.ts and memory-watch.ts,
 * `wakeAt`) or before, and the session asks each what is due. It is moved only when that time comes earlier: a
 * call's deadline is later than the one before it, so on the warm path
 * (one call after another, or a pipeline of quick ones) it is armed about
 * once per limit + grace instead of once per call. With nothing due it is
 * left to fire (and find nothing) but no longer holds the process open.
 * The session owns it and clears it when its worker ends.
 */
export class WakeTimer {
  readonly #fire: () => void;
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires, on performance.now()'s clock. */
  #atMs = 0;

  /** `wake` runs when the timer fires (nothing is armed any more then). */
  constructor(wake: () => void) {
    this.#fire = () => {
      this.#timer = undefined;
      wake();
    };
  }

  /** Wakes the owner at the earliest of the times given (performance.now()'s clock) or before; undefined ones are nothing due. */
  set(a?: number, b?: number, c?: number): void {
    const atMs = earliest(earliest(a, b), c);
    if (atMs === undefined) {
      this.#timer?.unref();
      return;
    }
    if (this.#timer !== undefined && this.#atMs <= atMs) {
      this.#timer.ref();
      return;
    }
    clearTimeout(this.#timer);
    this.#atMs = atMs;
    // A time already past (a sample overdue while the event loop was busy) fires at the next turn: Node 24 warns on stderr for a negative delay.
    this.#timer = setTimeout(this.#fire, Math.max(1, Math.ceil(atMs - performance.now())));
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined || a <= b ? a : b;
}
