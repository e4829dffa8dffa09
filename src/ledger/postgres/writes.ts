/**
 * @module src/ledger/postgres/writes
 * PostgresWrites: every write of a PostgreSQL store, in the order issued,
 * and what becomes of records while the server is unreachable. It holds
 * the chain of writes (reads wait for it), the last state each source was
 * seen in, and, during an outage, the bounded buffer (postgres/outage.ts)
 * and its retry timer. The store (postgres/store.ts) owns it and its pool,
 * and stops it in close().
 *
 * ```
 *  batch ─▶ commit ── written ──────────────────▶ settle each record
 *              └ unreachable ▶ enterOutage ─▶ buffer (settled now, provisional)
 *                               every retryMs: drain ── written ─▶ restored
 * ```
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { LedgerUnavailableError } from "../errors.js";
import { writeBatch } from "./batch.js";
import { classify, inTransaction } from "./connection.js";
import { OutageBuffer, type Pending } from "./outage.js";
import type { PostgresSql } from "./sql.js";
import type { Applied, StoreStatus } from "../store.js";
import { initialState } from "../transitions.js";
import type { SourceState } from "../types.js";
import { POSTGRES_MAX_BATCH_RECORDS, PRUNE_BATCH_MARKS_EVERY } from "../../../sandbox/shared/tuning.js";

/** Marks of committed batches older than this are deleted (they only guard a retry against counting twice). */
const BATCH_MARK_MS = 24 * 60 * 60_000;

/** What the writes need of their store: its connection, its readiness and whom to tell. */
export type WritesContext = {
  pool: pg.Pool;
  sql: PostgresSql;
  /** The store's id: the payload of its NOTIFYs. */
  id: string;
  where: string;
  maxBufferedRecords: number;
  retryMs: number;
  whenReady(): Promise<void>;
  wrap(what: string, error: unknown): LedgerUnavailableError;
  /** True once a reason no retry can help is known: records then reject. */
  fatal(): boolean;
  closed(): boolean;
  /** How many records wait to be sent, for the outage's report. */
  waiting(): number;
  report(status: StoreStatus): void;
  /** A record buffered during an outage changed a state when it was written at last. */
  lateChange(result: Applied): void;
  /** Something changed that readers of changesElsewhere() must see. */
  changed(): void;
};

export class PostgresWrites {
  readonly #ctx: WritesContext;
  /** Every write, in the order issued; reads wait for the writes issued before them. */
  #writes: Promise<void> = Promise.resolve();
  #outage: OutageBuffer | undefined;
  #retry: NodeJS.Timeout | undefined;
  /** The last state each source was seen in: what a record settles with during an outage. */
  readonly known = new Map<string, SourceState>();
  #batches = 0;

  constructor(context: WritesContext) {
    this.#ctx = context;
  }

  /** The outage under way, if the server is unreachable now. */
  get outage(): OutageBuffer | undefined {
    return this.#outage;
  }

  /** Settles once every write issued so far has. */
  get settled(): Promise<void> {
    return this.#writes;
  }

  enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.#writes.then(work);
    this.#writes = next.catch(() => undefined);
    return next;
  }

  async commit(batch: Pending[]): Promise<void> {
    if (this.#outage !== undefined) return this.buffer(batch);
    try {
      await this.#ctx.whenReady();
      for (let start = 0; start < batch.length; start += POSTGRES_MAX_BATCH_RECORDS) {
        const part = batch.slice(start, start + POSTGRES_MAX_BATCH_RECORDS);
        const results = await this.#writeRecords(part);
        part.forEach((item, index) => this.#settle(item, results?.[index]));
      }
    } catch (error) {
      const left = batch.filter((item) => !item.settled);
      const wrapped = this.#ctx.wrap("record calls", error);
      if (classify(error) === "config" || this.#ctx.fatal()) {
        for (const item of left) {
          item.settled = true;
          item.reject(wrapped);
        }
        return;
      }
      this.enterOutage(wrapped);
      this.buffer(left);
    }
  }

  /** One transaction for `part`, tried again on a deadlock or a lost connection; null if it had committed already. */
  async #writeRecords(part: readonly Pending[]): Promise<Applied[] | null> {
    const { pool, sql, id } = this.#ctx;
    const batchId = randomUUID();
    if (++this.#batches % PRUNE_BATCH_MARKS_EVERY === 0) await pool.query(sql.pruneBatches, [Date.now() - BATCH_MARK_MS]);
    return inTransaction(pool, (client) => writeBatch(client, sql, batchId, part, id));
  }

  /** `applied` undefined: the batch had committed before (a retry); the record settles with the last known state. */
  #settle(item: Pending, applied: Applied | undefined): void {
    const result = applied ?? this.#provisional(item);
    this.known.set(result.state.source, result.state);
    if (item.settled) {
      // Buffered during an outage: its caller had the last known state; a change it made is told now.
      if (result.applied !== null) this.#ctx.lateChange(result);
      return;
    }
    item.settled = true;
    item.resolve(result);
  }

  #provisional(item: Pending): Applied {
    return { state: this.known.get(item.call.source) ?? initialState(item.call.source), applied: null };
  }

  /** Takes records in during an outage: each settles now with the last known state, or is refused past the bound. */
  buffer(items: Pending[]): void {
    const outage = this.#outage;
    if (outage === undefined || items.length === 0) return;
    const { where, maxBufferedRecords } = this.#ctx;
    const refused = outage.take(items, (item) => this.#provisional(item), (item) => new LedgerUnavailableError(
      `the ledger database ${where} is unreachable and ${maxBufferedRecords} records wait for it already; the record of call ${item.call.callId} is not kept`,
      { where, outage: true, cause: "buffer_full" },
    ));
    for (const status of refused) this.#ctx.report(status);
  }

  enterOutage(error: LedgerUnavailableError): void {
    if (this.#outage !== undefined || this.#ctx.closed()) return;
    this.#outage = new OutageBuffer(this.#ctx.maxBufferedRecords, String(error.data.cause));
    this.#ctx.changed();
    this.#ctx.report({ type: "unavailable", since: this.#outage.since, cause: this.#outage.cause, message: error.message, buffered: this.#ctx.waiting() });
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#ctx.closed()) return;
    this.#retry = setTimeout(() => void this.enqueue(() => this.drain()), this.#ctx.retryMs);
    this.#retry.unref();
  }

  /** Writes the buffer back, in order and in batches; leaves the outage once it is empty. */
  async drain(): Promise<void> {
    const outage = this.#outage;
    if (outage === undefined || this.#ctx.closed()) return;
    let written = 0;
    try {
      await this.#ctx.whenReady();
      for (let part = outage.peek(POSTGRES_MAX_BATCH_RECORDS); part.length > 0; part = outage.peek(POSTGRES_MAX_BATCH_RECORDS)) {
        const results = await this.#writeRecords(part);
        outage.drop(part.length);
        written += part.length;
        part.forEach((item, index) => this.#settle(item, results?.[index]));
      }
    } catch {
      this.#scheduleRetry();
      return;
    }
    this.#outage = undefined;
    this.#ctx.changed();
    this.#ctx.report({ type: "restored", since: outage.since, downMs: Date.now() - outage.since, written });
  }

  cancelRetry(): void {
    clearTimeout(this.#retry);
  }

  /** Ends the outage for good (the store is closing): returns how many buffered records were never written. */
  abandon(): number {
    clearTimeout(this.#retry);
    const lost = this.#outage?.clear() ?? 0;
    this.#outage = undefined;
    return lost;
  }
}
