/**
 * @module src/ledger/sqlite/store
 * SqliteLedgerStore: the ledger in one SQLite file (better-sqlite3), by
 * default `.corral/ledger.db`. It owns one connection and closes it.
 *
 * Durability: WAL mode, and a record's promise settles only after the
 * transaction holding it has committed, so killing the process at any moment
 * loses at most the calls whose record() has not returned. With
 * `synchronous: "normal"` a commit survives the process dying; only an OS
 * crash or power loss can take the last commits back ("full" closes that
 * gap at one fsync per commit).
 *
 * Group commit: the commit, not the statements, is what a record costs
 * (one WAL frame write, ~0.1 ms on a small VM), and it blocks the event loop.
 * Records that arrive in the same turn of the event loop therefore share one
 * transaction, committed at setImmediate, and a run of them that count alike
 * (one tool, version and outcome, no strike) is counted with one statement.
 * A record nobody waits for (`behind`: the host's calls that are not strikes)
 * waits for others to share its commit: the turn of a record that comes
 * SHARE_COMMIT_MS or more after it commits them all, or a timer at
 * COMMIT_BEHIND_MS does. One call at a time then costs the host a commit per
 * ~10 ms, not per call.
 *
 * ```
 *  recordCall ─┐
 *  recordCall ─┼─▶ #pending ──setImmediate──▶ BEGIN IMMEDIATE; each record
 *  recordCall ─┘   (all behind and young:     in order, decide() on the state
 *                   COMMIT_BEHIND_MS timer)   the previous one left; COMMIT
 *                                             ──▶ settle every promise
 *  any other method ──▶ commits #pending first, so operations keep their order
 * ```
 *
 * Several processes may share the file (a CLI reading while a host writes):
 * IMMEDIATE takes the write lock up front, so a writer waits in SQLite's
 * busy handler, for at most `busyTimeoutMs`, instead of failing when it tries
 * to upgrade a read lock; past that it throws LedgerUnavailableError.
 */
import type Database from "better-sqlite3";
import { LedgerClosedError } from "../errors.js";
import { toState, toStoredSourceDetail, toStoredSources, type EventRow, type StateRow, type StrikeRow, type ToolDbRow } from "../sql/ledger-rows.js";
import { runEnd } from "../record-runs.js";
import type { ToolErrorDbRow, ToolVersionDbRow } from "../sql/tool-counts-sql.js";
import { guard, resolveSqliteOptions, openSqlite, type SqliteStoreOptions } from "./open.js";
import { prepareStatements, readScriptCallers, readScriptTools, type Statements } from "./rows.js";
import { recordRun, writeTransition } from "./writes.js";
import type { StoredScriptCallers, StoredScriptTools } from "../script-calls.js";
import { WalCheckpointer } from "./wal-checkpointer.js";
import type { Applied, Decide, LedgerStore, RecordOptions, StoredSource, StoredSourceDetail } from "../store.js";
import { initialState } from "../transitions.js";
import type { CallRecord, LoadRecord, SourceState } from "../types.js";
import { CHECKPOINT_INTERVAL_MS, COMMIT_BEHIND_MS, MAX_BEHIND_RECORDS, SHARE_COMMIT_MS } from "../../../sandbox/shared/tuning.js";

export { SQLITE_STORE_DEFAULTS, SqliteStoreOptions } from "./open.js";

type Pending = { call: CallRecord; options: RecordOptions; resolve: (applied: Applied) => void; reject: (error: unknown) => void };
type Limits = { events: number; strikes: number };

export class SqliteLedgerStore implements LedgerStore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #sql: Statements;
  readonly #txn: {
    recordCalls: Database.Transaction<(batch: Pending[]) => Applied[]>;
    transition: Database.Transaction<(source: string, decide: Decide) => Applied>;
    recordLoad: Database.Transaction<(load: LoadRecord) => void>;
    listSources: Database.Transaction<() => StoredSource[]>;
    readSource: Database.Transaction<(source: string, limits: Limits) => StoredSourceDetail | null>;
    scriptTools: Database.Transaction<(script: string, limit: number) => StoredScriptTools>;
    scriptCallers: Database.Transaction<(source: string, limit: number) => StoredScriptCallers>;
  };
  #pending: Pending[] = [];
  /** A commit is due at the next turn of the event loop. */
  #commitSoon = false;
  /** Set while only records written behind wait: the latest their commit may come. */
  #commitBehind: NodeJS.Timeout | undefined;
  /** When the oldest record now waiting arrived (performance.now()). */
  #behindSince: number | undefined;
  #dataVersion: Database.Statement<[], number> | undefined;
  #closed = false;
  /** Started at the first commit of records: a store that only reads needs none. */
  #checkpointer: WalCheckpointer | undefined;
  readonly #busyTimeoutMs: number;

  constructor(options: SqliteStoreOptions = {}) {
    const resolved = resolveSqliteOptions(options);
    this.path = resolved.path;
    this.#busyTimeoutMs = resolved.busyTimeoutMs;
    this.#db = openSqlite(resolved);
    this.#sql = prepareStatements(this.#db);
    // Wrapped once: better-sqlite3 builds a new wrapper on every db.transaction() call.
    this.#txn = {
      recordCalls: this.#db.transaction((batch: Pending[]) => this.#recordCalls(batch)),
      transition: this.#db.transaction((source: string, decide: Decide) => this.#transition(source, decide)),
      recordLoad: this.#db.transaction((load: LoadRecord) => this.#recordLoad(load)),
      listSources: this.#db.transaction(() => this.#listSources()),
      readSource: this.#db.transaction((source: string, limits: Limits) => this.#readSource(source, limits)),
      scriptTools: this.#db.transaction((script: string, limit: number) => readScriptTools(this.#sql, script, limit)),
      scriptCallers: this.#db.transaction((source: string, limit: number) => readScriptCallers(this.#sql, source, limit)),
    };
  }

  get alive(): boolean {
    return !this.#closed;
  }

  /** Runs one piece of work on the open connection, after the records waiting before it. */
  #run<T>(what: string, work: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new LedgerClosedError("the SQLite ledger store"));
    this.#commitPending();
    try {
      return Promise.resolve(guard(this.path, what, work));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  recordCall(call: CallRecord, options: RecordOptions): Promise<Applied> {
    if (this.#closed) return Promise.reject(new LedgerClosedError("the SQLite ledger store"));
    return new Promise((resolve, reject) => {
      this.#pending.push({ call, options, resolve, reject });
      const now = performance.now();
      this.#behindSince ??= now;
      if (options.behind === true && this.#pending.length < MAX_BEHIND_RECORDS && now - this.#behindSince < SHARE_COMMIT_MS) {
        this.#commitBehind ??= setTimeout(() => this.#commitPending(), COMMIT_BEHIND_MS);
      } else if (!this.#commitSoon) {
        this.#commitSoon = true;
        setImmediate(() => this.#commitPending());
      }
    });
  }

  /** One transaction for every waiting record: all of them commit, or all of them reject. */
  #commitPending(): void {
    this.#commitSoon = false;
    clearTimeout(this.#commitBehind);
    this.#commitBehind = undefined;
    this.#behindSince = undefined;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    if (this.#checkpointer === undefined && this.path !== ":memory:") {
      this.#checkpointer = new WalCheckpointer(this.path, CHECKPOINT_INTERVAL_MS, this.#busyTimeoutMs);
    }
    let results: Applied[];
    try {
      results = guard(this.path, "record calls", () => this.#txn.recordCalls.immediate(batch));
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, index) => item.resolve(results[index] as Applied));
  }

  /**
   * Records in order. A run of records that only count (not strikes) of the
   * same tool, version and outcome, as many calls of one tool answered in one
   * turn are, is counted with one statement; decide() still sees each record.
   */
  #recordCalls(batch: Pending[]): Applied[] {
    const applied: Applied[] = [];
    for (let start = 0; start < batch.length; ) {
      const end = runEnd(batch, start);
      // A loop, not a spread: a busy turn can hold more records than a call takes arguments.
      for (const each of recordRun(this.#sql, batch.slice(start, end))) applied.push(each);
      start = end;
    }
    return applied;
  }

  recordLoad(load: LoadRecord): Promise<void> {
    return this.#run("record a load", () => this.#txn.recordLoad.immediate(load));
  }

  #recordLoad(load: LoadRecord): void {
    const sql = this.#sql;
    sql.knowSource.run({ source: load.source, version: load.version });
    sql.addVersion.run({ source: load.source, version: load.version, at: load.at });
    for (const tool of load.tools) sql.knowTool.run({ source: load.source, tool });
  }

  /** SQLite's data_version: changed only by commits of other connections. */
  changesElsewhere(): number {
    if (this.#closed) throw new LedgerClosedError("the SQLite ledger store");
    // A statement prepared once: db.pragma() prepares a new one every time.
    this.#dataVersion ??= this.#db.prepare<[], number>("PRAGMA data_version").pluck();
    return this.#dataVersion.get() as number;
  }

  readState(source: string): Promise<SourceState> {
    return this.#run("read a source's state", () => this.#readState(source));
  }

  transition(source: string, decide: Decide): Promise<Applied> {
    return this.#run("change a source's state", () => this.#txn.transition.immediate(source, decide));
  }

  #transition(source: string, decide: Decide): Applied {
    const state = this.#readState(source);
    const applied = decide(state);
    writeTransition(this.#sql, applied);
    return { state: applied?.state ?? state, applied };
  }

  listSources(): Promise<StoredSource[]> {
    // A read transaction, so the rows of every table come from one snapshot.
    return this.#run("list sources", () => this.#txn.listSources.deferred());
  }

  #listSources(): StoredSource[] {
    const sql = this.#sql;
    return toStoredSources({
      versionCounts: sql.allVersionCounts.all() as { source: string; n: number }[],
      lastStrikes: sql.allLastStrikes.all() as StrikeRow[],
      tools: sql.allTools.all() as ToolDbRow[],
      toolVersions: sql.allToolVersions.all() as ToolVersionDbRow[],
      toolErrors: sql.allToolErrors.all() as ToolErrorDbRow[],
      sources: sql.allSources.all() as StateRow[],
    });
  }

  readSource(source: string, limits: Limits): Promise<StoredSourceDetail | null> {
    return this.#run("read a source", () => this.#txn.readSource.deferred(source, limits));
  }

  #readSource(source: string, limits: Limits): StoredSourceDetail | null {
    const sql = this.#sql;
    const state = sql.readState.get({ source }) as StateRow | undefined;
    if (state === undefined) return null;
    return toStoredSourceDetail(source, {
      state,
      strikes: sql.recentStrikes.all({ source, limit: Math.max(limits.strikes, 1) }) as StrikeRow[],
      versions: (sql.versionCount.get({ source }) as { n: number }).n,
      tools: sql.sourceTools.all({ source }) as ToolDbRow[],
      events: sql.recentEvents.all({ source, limit: limits.events }) as EventRow[],
      toolVersions: sql.sourceToolVersions.all({ source }) as ToolVersionDbRow[],
      toolErrors: sql.sourceToolErrors.all({ source }) as ToolErrorDbRow[],
    }, limits);
  }

  readScriptTools(script: string, limit: number): Promise<StoredScriptTools> {
    return this.#run("read a script source's tools", () => this.#txn.scriptTools.deferred(script, limit));
  }

  readScriptCallers(source: string, limit: number): Promise<StoredScriptCallers> {
    return this.#run("read the scripts that called a source", () => this.#txn.scriptCallers.deferred(source, limit));
  }

  #readState(source: string): SourceState {
    const row = this.#sql.readState.get({ source }) as StateRow | undefined;
    return row === undefined ? initialState(source) : toState(row);
  }

  /** Commits the records still waiting, then closes the connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#commitPending();
    this.#closed = true;
    await this.#checkpointer?.close();
    this.#db.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
