/**
 * @module sandbox/worker/cancellations
 * Which of the tasks this worker holds the host gave up on before they
 * started. The host cancels a task it took back or its caller dropped; the
 * cancel may cross the task's start on the way, and then there is nothing
 * left to skip. Only tasks received and not yet started can be cancelled,
 * so nothing is remembered for a task that has run (messages from the host
 * arrive in order: a task always comes before its cancel).
 */
export class Cancellations {
  /** Received, not yet started. */
  readonly #waiting = new Set<number>();
  readonly #cancelled = new Set<number>();

  received(id: number): void {
    this.#waiting.add(id);
  }

  cancel(id: number): void {
    if (this.#waiting.has(id)) this.#cancelled.add(id);
  }

  /** The task starts now: answers whether to skip it (it was cancelled). */
  starting(id: number): boolean {
    this.#waiting.delete(id);
    return this.#cancelled.delete(id);
  }

  /** Cancels remembered: only for tasks still waiting here. */
  get size(): number {
    return this.#cancelled.size;
  }
}
