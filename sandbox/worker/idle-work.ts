/**
 * @module sandbox/worker/idle-work
 * What a worker does only while it is idle, one step per quiet moment: the
 * first step that has work does it (the blank isolate refilled, then one warm
 * isolate collected), and the next waits for the next quiet moment. A task
 * that arrives stops the wait; a step already running is never longer than
 * one collection (8–30 ms). Owned by a WorkerCore.
 */
import { REFILL_AFTER_IDLE_MS } from "../shared/tuning.js";

/** One kind of idle work: does some and answers true, or answers false when it has none. */
export type IdleStep = () => boolean;

export class IdleWork {
  #timer: NodeJS.Timeout | undefined;
  /** Whether the worker has tasks in flight: a step then waits for the next quiet. */
  readonly #busy: () => boolean;
  readonly #steps: readonly IdleStep[];

  constructor(busy: () => boolean, steps: readonly IdleStep[]) {
    this.#busy = busy;
    this.#steps = steps;
  }

  /** Call when no task is queued: the next step runs after a moment of quiet. */
  schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#step(), REFILL_AFTER_IDLE_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #step(): void {
    if (this.#busy()) return;
    for (const step of this.#steps) {
      let worked: boolean;
      try {
        worked = step();
      } catch {
        // Idle work only saves later work or memory: what failed now is done
        // on demand (the blank) or not at all (a collection), and is not
        // tried again before the next task has run.
        return;
      }
      if (worked) {
        this.schedule();
        return;
      }
    }
  }
}
