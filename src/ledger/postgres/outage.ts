/**
 * @module src/ledger/postgres/outage
 * OutageBuffer: the records a PostgreSQL store keeps while its server is
 * unreachable. Bounded: past `maxRecords` a record is refused (its promise
 * rejects and the watchers are told, so the host logs the call it belonged
 * to); nothing is dropped without a word. Every record taken in settles at
 * once with the state the store last knew, and is written, in order, when
 * the server is back.
 */
import type { BatchItem } from "./batch.js";
import type { Applied, StoreStatus } from "../store.js";

/** A record on its way: its promise settles once, at its commit or when it is buffered. */
export type Pending = BatchItem & { resolve: (applied: Applied) => void; reject: (error: unknown) => void; settled: boolean };

export class OutageBuffer {
  readonly #maxRecords: number;
  #records: Pending[] = [];
  /** When the server was found unreachable, and why. */
  readonly since: number;
  readonly cause: string;

  constructor(maxRecords: number, cause: string) {
    this.#maxRecords = maxRecords;
    this.since = Date.now();
    this.cause = cause;
  }

  get size(): number {
    return this.#records.length;
  }

  /**
   * Takes `items` in, settling each with `provisional` (the last known
   * state) and refusing those past the bound with `refuse`. Returns the
   * statuses to report (one per refused record).
   */
  take(items: readonly Pending[], provisional: (item: Pending) => Applied, refuse: (item: Pending) => Error): StoreStatus[] {
    const refused: StoreStatus[] = [];
    for (const item of items) {
      if (this.#records.length >= this.#maxRecords) {
        if (!item.settled) {
          item.settled = true;
          item.reject(refuse(item));
        }
        refused.push({ type: "record_refused", source: item.call.source, callId: item.call.callId, buffered: this.#records.length });
        continue;
      }
      this.#records.push(item);
      if (!item.settled) {
        item.settled = true;
        item.resolve(provisional(item));
      }
    }
    return refused;
  }

  /** The oldest `count` records, still kept until drop() says they were written. */
  peek(count: number): Pending[] {
    return this.#records.slice(0, count);
  }

  drop(count: number): void {
    this.#records = this.#records.slice(count);
  }

  /** Empties the buffer (close() gave up on the server); returns how many were lost. */
  clear(): number {
    const lost = this.#records.length;
    this.#records = [];
    return lost;
  }
}
