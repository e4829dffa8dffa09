/**
 * @module src/pool/worker-queue
 * The tasks a session gave its worker, in the worker's own order: pure
 * state, no timers and no channel, so what a cancel or a take-back does to
 * it is decided here and tested alone (worker-queue.test.ts); the worker's
 * schedule (worker-schedule.ts) acts on the answer, and the session carries
 * that out (writes, kills, timers).
 *
 * The worker runs tasks strictly in arrival order, so the oldest unanswered
 * one is the one running (the head). Tasks dispatched in this turn of the
 * event loop wait in the outbox and leave together; until then they can
 * leave the queue without the worker hearing of them. A task taken back
 * after it was sent stays as a ghost (its reply is ignored), so the head is
 * still the task the worker runs.
 */
import type { TaskEntry } from "../../sandbox/shared/session-messages.js";
import type { PendingTask } from "./session.js";

/**
 * What cancelling a task comes to: it was never sent (`unsent`; `wasHead`
 * if it was the head), it is running (`running`: only stopping the worker
 * stops it), it waits in the worker (`waiting`: the worker is told to skip
 * it), or it is not here.
 */
export type CancelEffect = { kind: "unsent"; wasHead: boolean } | { kind: "running" } | { kind: "waiting" } | { kind: "absent" };

export class WorkerQueue {
  readonly #fifo: PendingTask[] = [];
  #outbox: TaskEntry[] = [];

  /** The task the worker runs now (or will run first). */
  get head(): PendingTask | undefined {
    return this.#fifo[0];
  }

  /** Tasks given and not yet answered, ghosts included. */
  get length(): number {
    return this.#fifo.length;
  }

  /** Adds a task; answers whether the outbox was empty (a flush is to be scheduled). */
  push(pending: PendingTask, entry: TaskEntry): boolean {
    this.#fifo.push(pending);
    this.#outbox.push(entry);
    return this.#outbox.length === 1;
  }

  /** The outbox's entries, in order, as they leave. */
  takeOutbox(): TaskEntry[] {
    const tasks = this.#outbox;
    this.#outbox = [];
    return tasks;
  }

  /** Takes `pending` out where it can be; the schedule does the rest (see CancelEffect). */
  cancel(pending: PendingTask): CancelEffect {
    const index = this.#fifo.indexOf(pending);
    if (index < 0) return { kind: "absent" };
    if (this.#dropUnsent(pending.id)) {
      this.#fifo.splice(index, 1);
      return { kind: "unsent", wasHead: index === 0 };
    }
    return index === 0 ? { kind: "running" } : { kind: "waiting" };
  }

  /**
   * Takes back the tasks given ahead that have not started (all but the
   * head) to run elsewhere: one still in the outbox simply leaves; one sent
   * stays as a ghost, and its id is in `cancels` (the worker is to skip it).
   */
  takeBack(): { taken: PendingTask[]; cancels: number[] } {
    const taken: PendingTask[] = [];
    const cancels: number[] = [];
    for (let i = 1; i < this.#fifo.length; i++) {
      const pending = this.#fifo[i] as PendingTask;
      if (pending.ghost === true) continue;
      taken.push(pending);
      if (this.#dropUnsent(pending.id)) {
        this.#fifo.splice(i--, 1);
        continue;
      }
      this.#fifo[i] = { id: pending.id, task: pending.task, limits: pending.limits, key: pending.key, settle: () => undefined, ghost: true };
      cancels.push(pending.id);
    }
    return { taken, cancels };
  }

  /** The head, taken out, if the worker's reply `id` is its (false: a reply out of order). */
  shiftHead(id: number): PendingTask | undefined {
    const head = this.#fifo[0];
    if (head === undefined || head.id !== id) return undefined;
    this.#fifo.shift();
    return head;
  }

  /** Every task, taken out (the worker ended). */
  drain(): PendingTask[] {
    this.#outbox = [];
    return this.#fifo.splice(0);
  }

  #dropUnsent(id: number): boolean {
    const unsent = this.#outbox.findIndex((entry) => entry.id === id);
    if (unsent < 0) return false;
    this.#outbox.splice(unsent, 1);
    return true;
  }
}
