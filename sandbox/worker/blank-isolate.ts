/**
 * @module sandbox/worker/blank-isolate
 * The one blank isolate a worker keeps ready (context and guest runtime run,
 * no module ever): a cold tool then pays for its own module, not for
 * initialising zod. Apart from WorkerCore because its lifetime is its own: it
 * is made again only while the worker is idle (idle-work.ts), never on a
 * call's time, and taken only by a load of the same memory limit. Owned by a WorkerCore, which
 * closes it; an isolate taken from it belongs to the taker.
 */
import { ToolIsolate } from "./tool-isolate.js";

export class BlankIsolate {
  #blank: ToolIsolate | undefined;
  /** The memory limit of the last load: the next blank gets it. */
  #memoryMb: number;
  readonly #loadTimeoutMs: number;

  constructor(memoryMb: number, loadTimeoutMs: number) {
    this.#memoryMb = memoryMb;
    this.#loadTimeoutMs = loadTimeoutMs;
  }

  /**
   * What the blank weighs in the worker's budget (the isolate cache counts
   * it): a field, so the cache calls it with no hop of its own.
   */
  readonly reservedBytes = (): number => (this.#blank?.alive === true ? this.#blank.footprintBytes : 0);

  /** Makes the blank now (boot), at the memory limit of the last load. */
  prepare(): void {
    this.#blank = ToolIsolate.prepare(this.#memoryMb, this.#loadTimeoutMs);
  }

  /**
   * Idle work: makes the blank again unless one of the last load's memory
   * limit waits; answers whether it did. A blank that cannot be made now is
   * made on demand by the next load.
   */
  readonly refill = (): boolean => {
    const blank = this.#blank;
    if (blank !== undefined && blank.blank && blank.memoryMb === this.#memoryMb) return false;
    blank?.dispose();
    this.#blank = undefined;
    this.prepare();
    return true;
  };

  /** The blank waiting, if it is alive. */
  get waiting(): ToolIsolate | undefined {
    return this.#blank?.alive === true ? this.#blank : undefined;
  }

  /** The blank, if it has `memoryMb`; the next one is made at that limit either way. */
  take(memoryMb: number): ToolIsolate | undefined {
    this.#memoryMb = memoryMb;
    const blank = this.#blank;
    if (blank === undefined || blank.memoryMb !== memoryMb || !blank.blank) return undefined;
    this.#blank = undefined;
    return blank;
  }

  close(): void {
    this.#blank?.dispose();
    this.#blank = undefined;
  }
}
