/**
 * @module src/pool/wake-timer
 * A session's one timer: it wakes the session at the time its schedule
 * names (worker-schedule.ts, `wakeAt`) or before. It is moved only when
 * that time comes earlier, so a pipeline of quick calls, each of whose
 * deadlines is later than the last, does not re-arm it for each one; a
 * timer that fires early costs one look at the schedule, which names the
 * time again. The session owns it and clears it when its worker ends.
 */
export class WakeTimer {
  readonly #fire: () => void;
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires, on performance.now()'s clock. */
  #atMs = 0;

  /** `wake` runs when the timer fires (with nothing armed any more). */
  constructor(wake: () => void) {
    this.#fire = () => {
      this.#timer = undefined;
      wake();
    };
  }

  /** Wakes the owner at `atMs` (performance.now()'s clock) or before; undefined: never. */
  set(atMs: number | undefined): void {
    if (atMs === undefined) {
      this.clear();
      return;
    }
    if (this.#timer !== undefined && this.#atMs <= atMs) return;
    clearTimeout(this.#timer);
    this.#atMs = atMs;
    this.#timer = setTimeout(this.#fire, Math.ceil(atMs - performance.now()));
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
