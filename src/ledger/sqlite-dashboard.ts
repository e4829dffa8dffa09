/**
 * @module src/ledger/sqlite-dashboard
 * SqliteDashboardReader: the dashboard's questions (dashboard-reader.ts)
 * answered in SQL on a read-only connection of its own to a ledger file, so
 * that no page can write and a slow read never holds the writer's
 * connection. Every aggregate and every page is computed by SQLite; a
 * million recorded calls are counters in `tools` already, and what grows
 * with history (strikes, events, strike minutes) is read by index and LIMIT.
 *
 * It refuses, before reading anything else, a file that is not a ledger: a
 * missing file (it never creates one), a file that is not SQLite, or a
 * SQLite file without the ledger's tables or from a newer corral.
 *
 * SQLite's own, for a port: `json_each(@sources)` (a list parameter),
 * `PRAGMA data_version`, the outcomes column as JSON text, `max(a, b)` as a
 * scalar (GREATEST in PostgreSQL).
 */
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import { z } from "zod";
import { CorralError } from "../errors.js";
import {
  DashboardEvent,
  DashboardSourceRow,
  DashboardToolRow,
  DashboardTotals,
  type DashboardReader,
  type DashboardSourceDetail,
  type Page,
  type PageRequest,
  type TimelineRequest,
} from "./dashboard-reader.js";
import { LedgerClosedError, LedgerUnavailableError, NotALedgerError } from "./errors.js";
import { SCHEMA_VERSION } from "./sqlite-schema.js";
import { toState, toStrike, type StateRow, type StrikeRow } from "./sqlite-rows.js";

/** A quarantine whose end has passed is shown as what it is: over (the next check records the expiry). */
const EFFECTIVE_STATE = `CASE WHEN s.state = 'quarantined' AND (s.until IS NULL OR s.until > @now) THEN 'quarantined' ELSE 'active' END`;
/** The state's columns as they are now: a quarantine that ended is active since its end. */
const STATE_NOW = `s.source, ${EFFECTIVE_STATE} AS state,
  CASE WHEN s.state = 'quarantined' AND s.until <= @now THEN s.until ELSE s.since END AS since, s.until, s.reason, s.actor`;

// better-sqlite3 binds a JS number as REAL: bucket arithmetic casts its parameters so that it divides as integers.
const SQL = {
  totals: `SELECT (SELECT count(*) FROM sources) AS sources,
      (SELECT count(*) FROM sources s WHERE ${EFFECTIVE_STATE} = 'quarantined') AS quarantined,
      (SELECT coalesce(sum(calls), 0) FROM tools) AS calls, (SELECT coalesce(sum(strikes), 0) FROM tools) AS strikes`,
  sourcesCount: `SELECT count(*) AS n FROM sources s WHERE @search IS NULL OR instr(lower(s.source), lower(@search)) > 0`,
  // Grouped through the tools table's primary key (source, tool): no temporary index, one sort of the sources.
  sourcesPage: `SELECT * FROM (
      SELECT ${STATE_NOW}, coalesce(sum(t.calls), 0) AS calls, coalesce(sum(t.strikes), 0) AS strikes, count(t.tool) AS tools, max(CASE WHEN t.calls > 0 THEN t.last_call_at END) AS last_call_at
      FROM sources s LEFT JOIN tools t ON t.source = s.source
      WHERE @search IS NULL OR instr(lower(s.source), lower(@search)) > 0
      GROUP BY s.source
    ) AS row
    ORDER BY row.state = 'quarantined' DESC, row.strikes DESC, CAST(row.strikes AS REAL) / max(row.calls, 1) DESC, row.source
    LIMIT @limit OFFSET @offset`,
  timelineOf: `SELECT source, (minute - CAST(@from AS INTEGER)) / CAST(@bucketMs AS INTEGER) AS bucket, sum(n) AS n FROM strike_minutes
    WHERE source IN (SELECT value FROM json_each(@sources)) AND minute >= @from AND minute < @to GROUP BY source, bucket`,
  timelineAll: `SELECT (minute - CAST(@from AS INTEGER)) / CAST(@bucketMs AS INTEGER) AS bucket, sum(n) AS n FROM strike_minutes WHERE minute >= @from AND minute < @to GROUP BY bucket`,
  state: `SELECT ${STATE_NOW} FROM sources s WHERE s.source = @source`,
  versions: `SELECT count(*) AS n FROM versions WHERE source = @source`,
  toolsCount: `SELECT count(*) AS n FROM tools WHERE source = @source`,
  // A tool a load made known (no call yet) holds 0 where "last" has no value: read as null.
  toolsPage: `SELECT tool, calls, strikes, outcomes, total_wall_ms, total_cpu_ms, last_wall_ms, max_heap_bytes, CASE WHEN calls > 0 THEN last_call_at END AS last_call_at FROM tools
    WHERE source = @source ORDER BY strikes DESC, calls DESC, tool LIMIT @limit OFFSET @offset`,
  strikesCount: `SELECT count(*) AS n FROM strikes WHERE source = @source`,
  strikesPage: `SELECT source, tool, version, call_id, outcome, message, at FROM strikes WHERE source = @source ORDER BY id DESC LIMIT @limit OFFSET @offset`,
  eventsCount: `SELECT count(*) AS n FROM events WHERE source = @source`,
  eventsPage: `SELECT at, kind, reason, until, actor FROM events WHERE source = @source ORDER BY id DESC LIMIT @limit OFFSET @offset`,
} as const;

type Statements = { [K in keyof typeof SQL]: Database.Statement };
type SourcePageDbRow = StateRow & { calls: number; strikes: number; tools: number; last_call_at: number | null };
type ToolPageDbRow = { tool: string; calls: number; strikes: number; outcomes: string; total_wall_ms: number; total_cpu_ms: number; last_wall_ms: number; max_heap_bytes: number; last_call_at: number | null };

/** The tables of each schema version, cumulative. */
const LEDGER_TABLES: Record<number, readonly string[]> = {
  1: ["sources", "versions", "tools", "strikes", "events"],
  2: ["sources", "versions", "tools", "strikes", "events", "strike_minutes"],
};
const Counts = z.record(z.string(), z.number().int().nonnegative());

export class SqliteDashboardReader implements DashboardReader {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #sql: Statements;
  readonly #dataVersion: Database.Statement;
  readonly #detail: Database.Transaction<(source: string, request: DetailRequest) => DashboardSourceDetail | null>;
  #closed = false;

  /** Opens `path` read-only; throws NotALedgerError unless it is a ledger at this corral's schema (a host or the CLI migrates an older one). */
  constructor(path: string) {
    this.path = path;
    this.#db = openLedgerReadOnly(path);
    try {
      checkLedgerSchema(this.#db, path, SCHEMA_VERSION);
      this.#sql = Object.fromEntries(Object.entries(SQL).map(([name, text]) => [name, this.#db.prepare(text)])) as Statements;
      this.#dataVersion = this.#db.prepare("PRAGMA data_version").pluck();
    } catch (error) {
      this.#db.close();
      throw error;
    }
    // One read transaction: the page's parts come from one snapshot.
    this.#detail = this.#db.transaction((source: string, request: DetailRequest) => this.#readDetail(source, request));
  }

  get alive(): boolean {
    return !this.#closed;
  }

  #run<T>(work: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new LedgerClosedError("the dashboard's ledger reader"));
    try {
      return Promise.resolve(work());
    } catch (error) {
      if (error instanceof CorralError) return Promise.reject(error);
      return Promise.reject(new LedgerUnavailableError(`the ledger database ${this.path} could not be read: ${(error as Error).message}`, { path: this.path, cause: (error as { code?: string }).code ?? "unknown" }));
    }
  }

  version(): Promise<number> {
    return this.#run(() => this.#dataVersion.get() as number);
  }

  totals(now: number): Promise<z.infer<typeof DashboardTotals>> {
    return this.#run(() => DashboardTotals.parse(this.#sql.totals.get({ now })));
  }

  sourcesPage(request: PageRequest & { now: number; search?: string }): Promise<Page<z.infer<typeof DashboardSourceRow>>> {
    return this.#run(() => {
      const search = request.search === undefined || request.search === "" ? null : request.search;
      const total = (this.#sql.sourcesCount.get({ search }) as { n: number }).n;
      const rows = (this.#sql.sourcesPage.all({ search, now: request.now, limit: request.limit, offset: request.offset }) as SourcePageDbRow[]).map((row) =>
        DashboardSourceRow.parse({
          source: row.source,
          state: toState(row),
          calls: row.calls,
          strikes: row.strikes,
          strikeRate: row.calls === 0 ? 0 : Math.min(1, row.strikes / row.calls),
          tools: row.tools,
          lastCallAt: row.last_call_at,
        }),
      );
      return { total, offset: request.offset, rows };
    });
  }

  timelines(request: TimelineRequest & { sources: readonly string[] | null }): Promise<Map<string | null, number[]>> {
    return this.#run(() => {
      const from = request.to - request.bucketMs * request.buckets;
      const params = { from, to: request.to, bucketMs: request.bucketMs };
      const series = new Map<string | null, number[]>();
      const add = (key: string | null, bucket: number, n: number) => {
        let counts = series.get(key);
        if (counts === undefined) series.set(key, (counts = new Array<number>(request.buckets).fill(0)));
        if (bucket >= 0 && bucket < request.buckets) counts[bucket] = (counts[bucket] ?? 0) + n;
      };
      if (request.sources === null) {
        add(null, 0, 0);
        for (const row of this.#sql.timelineAll.all(params) as { bucket: number; n: number }[]) add(null, row.bucket, row.n);
      } else {
        for (const source of request.sources) add(source, 0, 0);
        const rows = this.#sql.timelineOf.all({ ...params, sources: JSON.stringify(request.sources) }) as { source: string; bucket: number; n: number }[];
        for (const row of rows) add(row.source, row.bucket, row.n);
      }
      return series;
    });
  }

  sourceDetail(source: string, request: DetailRequest): Promise<DashboardSourceDetail | null> {
    return this.#run(() => this.#detail.deferred(source, request));
  }

  #readDetail(source: string, request: DetailRequest): DashboardSourceDetail | null {
    const sql = this.#sql;
    const row = sql.state.get({ source, now: request.now }) as StateRow | undefined;
    if (row === undefined) return null;
    const page = <T>(count: Database.Statement, rows: Database.Statement, at: PageRequest, map: (row: never) => T): Page<T> => ({
      total: (count.get({ source }) as { n: number }).n,
      offset: at.offset,
      rows: (rows.all({ source, limit: at.limit, offset: at.offset }) as never[]).map(map),
    });
    return {
      source,
      state: toState(row),
      versions: (sql.versions.get({ source }) as { n: number }).n,
      tools: page(sql.toolsCount, sql.toolsPage, request.tools, toToolRow),
      strikes: page(sql.strikesCount, sql.strikesPage, request.strikes, (strike: StrikeRow) => toStrike(strike)),
      events: page(sql.eventsCount, sql.eventsPage, request.events, (event: unknown) => DashboardEvent.parse(event)),
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

type DetailRequest = { now: number; tools: PageRequest; strikes: PageRequest; events: PageRequest };

function toToolRow(row: ToolPageDbRow): z.infer<typeof DashboardToolRow> {
  return DashboardToolRow.parse({
    tool: row.tool,
    calls: row.calls,
    strikes: row.strikes,
    outcomes: Counts.parse(JSON.parse(row.outcomes)),
    meanWallMs: row.calls === 0 ? 0 : row.total_wall_ms / row.calls,
    lastWallMs: row.last_wall_ms,
    meanCpuMs: row.calls === 0 ? 0 : row.total_cpu_ms / row.calls,
    maxHeapBytes: row.max_heap_bytes,
    lastCallAt: row.last_call_at,
  });
}

/**
 * Checks, read-only, that `path` is a corral ledger of schema version
 * `atLeast` up to this corral's, so that opening it with a LedgerStore
 * (which migrates, creating tables) never writes into somebody else's file.
 */
export function checkLedgerFile(path: string, atLeast = 1): void {
  const db = openLedgerReadOnly(path);
  try {
    checkLedgerSchema(db, path, atLeast);
  } finally {
    db.close();
  }
}

function checkLedgerSchema(db: Database.Database, path: string, atLeast: number): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new NotALedgerError(path, `its schema version ${version} is newer than this corral's ${SCHEMA_VERSION}; upgrade corral`);
  if (version === 0) throw new NotALedgerError(path, "a SQLite database without the ledger's schema");
  if (version < atLeast) throw new NotALedgerError(path, `its schema version ${version} is older than ${atLeast}; open it once with a host or the CLI to migrate it`);
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  const missing = (LEDGER_TABLES[version] ?? []).filter((table) => !tables.has(table));
  if (missing.length > 0) throw new NotALedgerError(path, `it lacks the tables ${missing.join(", ")}`);
}

/** Read-only, never created: a missing file or one that is not SQLite is NotALedgerError. */
function openLedgerReadOnly(path: string): Database.Database {
  if (path === ":memory:" || !existsSync(path)) throw new NotALedgerError(path, "no such file");
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.prepare("SELECT count(*) FROM sqlite_master").get();
    return db;
  } catch (error) {
    db?.close();
    const code = (error as { code?: string }).code ?? "";
    if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") throw new NotALedgerError(path, "not a SQLite database");
    throw new LedgerUnavailableError(`the ledger database ${path} could not be opened: ${(error as Error).message}`, { path, cause: code || "unknown" });
  }
}
