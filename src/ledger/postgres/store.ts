/**
 * @module src/ledger/postgres/store
 * PostgresLedgerStore: the ledger in a PostgreSQL database, shared by every
 * host pointed at it (`store: "postgres://…"`). It owns a pool of
 * connections (pg), a listening connection (postgres/listener.ts) and its
 * writes (postgres/writes.ts: their order and, while the server is
 * unreachable, a bounded buffer of records), and frees them all in close().
 *
 * ```
 *  recordCall ─┐                         one transaction (postgres/batch.ts):
 *  recordCall ─┼─▶ #pending ─setImmediate─▶ mark batch, lock its sources,
 *  recordCall ─┘   (behind: ≤ 20 ms)        count, decide, NOTIFY, COMMIT ──▶ settle
 *                                   │
 *                 server unreachable ▼
 *                 OutageBuffer (bounded): settle now with the last known
 *                 state; every retryMs try again; write in order; report
 *  any other method ──▶ after the writes issued before it; refused at once
 *                       (ledger_unavailable, data.outage) during an outage
 * ```
 *
 * Durability: a record's promise settles after its COMMIT (synchronous_commit
 * as the server has it, on by default), so a host killed at any moment loses
 * no record whose promise settled, as with SQLite. During an outage the
 * promise settles before the write: what is buffered lives in the host's
 * memory until the server is back (README, "Several hosts, one ledger").
 *
 * Group commit: records that arrive together share one transaction, as in
 * SQLite; while one commit is on the wire the next batch gathers, so a busy
 * host commits as often as the round trips allow, not once per call.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { LedgerClosedError, LedgerUnavailableError } from "../errors.js";
import { writeTransition } from "./batch.js";
import { classify, connectionConfig, createPool, describeError, inTransaction, resolvePostgresOptions, withClient, type PostgresStoreOptions, type ResolvedPostgresOptions } from "./connection.js";
import { ChangeListener } from "./listener.js";
import type { Pending } from "./outage.js";
import { PendingRecords } from "./pending.js";
import { readAllSources, readOneSource, readOneState, readScriptCallers, readScriptTools } from "./reads.js";
import { migratePostgres } from "./schema.js";
import { postgresSql, type PostgresSql } from "./sql.js";
import { PostgresWrites } from "./writes.js";
import { toState, type StateRow } from "../sql/ledger-rows.js";
import type { Applied, Decide, LedgerStore, RecordOptions, StoreStatus, StoreWatcher, StoredSource, StoredSourceDetail } from "../store.js";
import { initialState } from "../transitions.js";
import type { StoredScriptCallers, StoredScriptTools } from "../script-calls.js";
import type { CallRecord, LoadRecord, SourceState } from "../types.js";

type Limits = { events: number; strikes: number };

export class PostgresLedgerStore implements LedgerStore {
  /** The database as errors show it, without a password. */
  readonly where: string;
  readonly schema: string;
  readonly #options: ResolvedPostgresOptions;
  readonly #pool: pg.Pool;
  readonly #sql: PostgresSql;
  /** This store's id: the payload of its NOTIFYs, so its listener can skip its own. */
  readonly #id = randomUUID();
  #ready: Promise<void> | undefined;
  /** A reason no retry can help (a wrong password, a foreign schema): every use fails with it. */
  #fatal: LedgerUnavailableError | undefined;
  readonly #writes: PostgresWrites;
  readonly #pending = new PendingRecords((batch) => void this.#writes.enqueue(() => this.#writes.commit(batch)));
  #listener: ChangeListener | undefined;
  #changes = 0;
  readonly #watchers = new Set<StoreWatcher>();
  #closed = false;

  constructor(options: PostgresStoreOptions) {
    this.#options = resolvePostgresOptions(options);
    this.where = this.#options.where;
    this.schema = this.#options.schema;
    this.#sql = postgresSql(this.schema);
    this.#pool = createPool(this.#options, `corral-ledger ${this.#id}`);
    this.#writes = new PostgresWrites({
      pool: this.#pool,
      sql: this.#sql,
      id: this.#id,
      where: this.where,
      maxBufferedRecords: this.#options.maxBufferedRecords,
      retryMs: this.#options.retryMs,
      whenReady: () => this.#whenReady(),
      wrap: (what, error) => this.#wrap(what, error),
      fatal: () => this.#fatal !== undefined,
      closed: () => this.#closed,
      waiting: () => this.#pending.size,
      report: (status) => this.#report(status),
      lateChange: (result) => {
        this.#changes++;
        for (const watcher of this.#watchers) watcher.lateChange(result);
      },
      changed: () => this.#changes++,
    });
    // Started now, so a wrong URL or a server that is down shows at once, not at the first call.
    void this.#whenReady().catch(() => undefined);
  }

  get alive(): boolean {
    return !this.#closed;
  }

  /** The connection name (application_name) of this store's connections, as pg_stat_activity shows it. */
  get connectionName(): string {
    return `corral-ledger ${this.#id}`;
  }

  watch(watcher: StoreWatcher): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  #report(status: StoreStatus): void {
    for (const watcher of this.#watchers) watcher.status(status);
  }

  /**
   * Resolves once the store has connected and brought its schema up to date
   * (created it, unless createSchema is false); rejects with the reason
   * (ledger_unavailable) when it cannot. Every other method waits for this
   * itself; a program that wants to fail at start rather than at its first
   * use awaits it.
   */
  ready(): Promise<void> {
    if (this.#closed) return Promise.reject(new LedgerClosedError("the PostgreSQL ledger store"));
    return this.#whenReady();
  }

  /** Connects and brings the schema up to date once; a failure that a retry may cure is tried again next time. */
  #whenReady(): Promise<void> {
    if (this.#fatal !== undefined) return Promise.reject(this.#fatal);
    this.#ready ??= withClient(this.#pool, (client) => migratePostgres(client, this.schema, this.where, this.#options.createSchema)).catch((error: unknown) => {
      this.#ready = undefined;
      const wrapped = this.#wrap("open the ledger", error);
      if (classify(error) === "config") this.#fatal = wrapped;
      else this.#writes.enterOutage(wrapped);
      throw wrapped;
    });
    return this.#ready;
  }

  recordCall(call: CallRecord, options: RecordOptions): Promise<Applied> {
    if (this.#closed) return Promise.reject(new LedgerClosedError("the PostgreSQL ledger store"));
    if (this.#fatal !== undefined) return Promise.reject(this.#fatal);
    return new Promise((resolve, reject) => {
      const item: Pending = { call, options, resolve, reject, settled: false };
      if (this.#writes.outage !== undefined) {
        this.#writes.buffer([item]);
        return;
      }
      this.#pending.push(item);
    });
  }

  /** Runs one read or operator write after the writes issued before it; refused at once during an outage. */
  async #run<T>(what: string, work: (client: pg.PoolClient) => Promise<T>, write = false): Promise<T> {
    if (this.#closed) throw new LedgerClosedError("the PostgreSQL ledger store");
    // At once, not after the writes before it: those may be a retry waiting connectTimeoutMs.
    this.#refuseDuringOutage(what);
    this.#pending.flush();
    const run = async (): Promise<T> => {
      this.#refuseDuringOutage(what);
      await this.#whenReady();
      try {
        return write ? await inTransaction(this.#pool, work) : await withClient(this.#pool, work);
      } catch (error) {
        const wrapped = this.#wrap(what, error);
        if (classify(error) !== "config") this.#writes.enterOutage(wrapped);
        throw wrapped;
      }
    };
    if (write) {
      let result: T | undefined;
      await this.#writes.enqueue(async () => {
        result = await run();
      });
      return result as T;
    }
    await this.#writes.settled;
    return run();
  }

  #refuseDuringOutage(what: string): void {
    const outage = this.#writes.outage;
    if (outage === undefined) return;
    throw new LedgerUnavailableError(
      `the ledger database ${this.where} is unreachable (since ${new Date(outage.since).toISOString()}: ${outage.cause}); could not ${what}; corral retries every ${this.#options.retryMs} ms`,
      { where: this.where, outage: true, cause: outage.cause },
    );
  }

  /**
   * A number that changes when another writer changed a state: another host
   * or the CLI (NOTIFY), a reconnect of the listener, an outage, or a record
   * of this store written late. While the listener is down it changes on
   * every read, so callers read the database each time.
   */
  changesElsewhere(): number {
    if (this.#closed) throw new LedgerClosedError("the PostgreSQL ledger store");
    this.#listener ??= new ChangeListener(connectionConfig(this.#options, `corral-ledger ${this.#id} listen`), this.#sql.channel, this.#id, () => this.#changes++, {
      retryMs: this.#options.retryMs,
      timeoutMs: this.#options.connectTimeoutMs,
    });
    return this.#listener.live ? this.#changes : ++this.#changes;
  }

  async readState(source: string): Promise<SourceState> {
    const state = await this.#run("read a source's state", (client) => readOneState(client, this.#sql, source));
    this.#writes.known.set(source, state);
    return state;
  }

  async transition(source: string, decide: Decide): Promise<Applied> {
    const applied = await this.#run("change a source's state", async (client) => {
      const row = (await client.query<StateRow>(this.#sql.lockState, [source])).rows[0];
      const state = row === undefined ? initialState(source) : toState(row);
      const change = decide(state);
      if (change !== null) await writeTransition(client, this.#sql, change, this.#id);
      return { state: change?.state ?? state, applied: change };
    }, true);
    this.#writes.known.set(source, applied.state);
    return applied;
  }

  async recordLoad(load: LoadRecord): Promise<void> {
    await this.#run("record a load", async (client) => {
      await client.query(this.#sql.recordLoad, [load.source, load.version, load.at, load.tools]);
    }, true);
  }

  listSources(): Promise<StoredSource[]> {
    return this.#run("list sources", (client) => readAllSources(client, this.#sql));
  }

  readSource(source: string, limits: Limits): Promise<StoredSourceDetail | null> {
    return this.#run("read a source", (client) => readOneSource(client, this.#sql, source, limits));
  }

  readScriptTools(script: string, limit: number): Promise<StoredScriptTools> {
    return this.#run("read a script source's tools", (client) => readScriptTools(client, this.#sql, script, limit));
  }

  readScriptCallers(source: string, limit: number): Promise<StoredScriptCallers> {
    return this.#run("read the scripts that called a source", (client) => readScriptCallers(client, this.#sql, source, limit));
  }

  #wrap(what: string, error: unknown): LedgerUnavailableError {
    return describeError(this.where, what, error);
  }

  /** Writes what waits; if the server is unreachable, tries once more, then reports what is lost. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#pending.flush();
    this.#writes.cancelRetry();
    await this.#writes.enqueue(() => this.#writes.drain()).catch(() => undefined);
    await this.#writes.settled;
    this.#closed = true;
    const lost = this.#writes.abandon();
    if (lost > 0) this.#report({ type: "records_lost", count: lost, message: `the ledger database ${this.where} stayed unreachable; ${lost} buffered records were never written` });
    await this.#listener?.close();
    await this.#pool.end().catch(() => undefined);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
