/**
 * @module sandbox/worker/nested-queue
 * Code Mode scripts' nested calls in this worker, whichever way they came
 * (a NestedMessage the host judged, or the script's fast lane): one at a
 * time, in the order they came, beside the task queue, since the script
 * that waits for them is that queue's running task. One queue for both, so
 * at most one nested call runs at a time and the host's clock for the
 * running one (src/pool/nested-calls.ts) is never shared by two.
 */
export type NestedQueueHooks = {
  /**
   * The queue got its first job (true) or ran its last (false): the
   * script's timers wait meanwhile, so the worker's growth while a nested
   * call runs is that call's (src/pool/memory-watch.ts).
   */
  busy(busy: boolean): void;
};

export class NestedQueue {
  readonly #hooks: NestedQueueHooks;
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  constructor(hooks: NestedQueueHooks = { busy: () => undefined }) {
    this.#hooks = hooks;
  }

  /** Nested calls queued or running. */
  get pending(): number {
    return this.#pending;
  }

  /** Runs `job` after every job queued before it. */
  run<T>(job: () => Promise<T>): Promise<T> {
    if (this.#pending++ === 0) this.#hooks.busy(true);
    const done = this.#tail.then(job).finally(() => {
      if (--this.#pending === 0) this.#hooks.busy(false);
    });
    // The next job waits for this one to end, however it ends.
    this.#tail = done.catch(() => undefined);
    return done;
  }

  /** Resolves once every job queued so far has ended. */
  idle(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}
