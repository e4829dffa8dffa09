/**
 * @module src/ledger/sql/dashboard-reader
 * SqlDashboardReader: the one DashboardReader, over any database that runs
 * the dashboard's SQL (sql/dashboard-sql.ts). It turns the rows into the
 * reader's plain data (zod, on the way out: another process or another
 * corral may have written them) and lays out the timelines; the database
 * underneath (`DashboardDb`) only runs named statements, gives a snapshot
 * for reads that must agree, and says what version() means for it.
 *
 * ```
 * SqliteDashboardReader ─┐                       ┌─ SqliteDashboardDb   (better-sqlite3, read-only file)
 * PostgresDashboardReader┴─▶ SqlDashboardReader ─▶┴─ PostgresDashboardDb (pg pool, read-only sessions)
 * ```
 */
import { z } from "zod";
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
} from "../dashboard-reader.js";
import type { DashboardStatement } from "./dashboard-sql.js";
import { LedgerClosedError } from "../errors.js";
import { byTool, toState, toStrike, toToolError, toToolVersion, type StateRow, type StrikeRow } from "./ledger-rows.js";
import { newestVersionFirst } from "../report.js";
import type { ToolErrorDbRow, ToolVersionDbRow } from "./tool-counts-sql.js";

export type Row = Record<string, unknown>;
/** Runs one named statement of sql/dashboard-sql.ts with its named parameters; rejects with a CorralError. */
export type DashboardQuery = (statement: DashboardStatement, params: Record<string, unknown>) => Promise<Row[]>;

/** What a database gives the reader. */
export interface DashboardDb {
  query: DashboardQuery;
  /** Runs `work` in one read-only snapshot: its statements see one state of the ledger. */
  snapshot<T>(work: (query: DashboardQuery) => Promise<T>): Promise<T>;
  /** A number that changes when anyone commits to the ledger. */
  version(): Promise<number>;
  /** How a list parameter is bound (sql/dashboard-sql.ts, SqlDialect.encodeList). */
  encodeList(values: readonly string[]): unknown;
  close(): Promise<void>;
}

type DetailRequest = { now: number; tools: PageRequest; strikes: PageRequest; events: PageRequest };
type SourcePageDbRow = StateRow & { calls: number; strikes: number; errors: number; tools: number; last_call_at: number | null };
type ToolPageDbRow = { tool: string; calls: number; strikes: number; errors: number; outcomes: string; total_wall_ms: number; total_cpu_ms: number; last_wall_ms: number; max_heap_bytes: number; last_call_at: number | null };

const Counts = z.record(z.string(), z.number().int().nonnegative());
const CountRow = z.object({ n: z.number().int().nonnegative() });

export class SqlDashboardReader implements DashboardReader {
  readonly #db: DashboardDb;
  readonly #what: string;
  #closed = false;

  /** `what` names the reader in a use-after-close error. */
  constructor(db: DashboardDb, what: string) {
    this.#db = db;
    this.#what = what;
  }

  get alive(): boolean {
    return !this.#closed;
  }

  #open(): DashboardDb {
    if (this.#closed) throw new LedgerClosedError(this.#what);
    return this.#db;
  }

  async version(): Promise<number> {
    return this.#open().version();
  }

  async totals(now: number): Promise<DashboardTotals> {
    const [row] = await this.#open().query("totals", { now });
    return DashboardTotals.parse(row);
  }

  async sourcesPage(request: PageRequest & { now: number; search?: string }): Promise<Page<DashboardSourceRow>> {
    const db = this.#open();
    const search = request.search === undefined || request.search === "" ? null : request.search;
    return db.snapshot(async (query) => {
      const total = count(await query("sourcesCount", { search }));
      const rows = (await query("sourcesPage", { search, now: request.now, limit: request.limit, offset: request.offset })) as SourcePageDbRow[];
      return {
        total,
        offset: request.offset,
        rows: rows.map((row) =>
          DashboardSourceRow.parse({
            source: row.source,
            state: toState(row),
            calls: row.calls,
            strikes: row.strikes,
            strikeRate: ratio(row.strikes, row.calls),
            errors: row.errors,
            errorRate: ratio(row.errors, row.calls),
            tools: row.tools,
            lastCallAt: row.last_call_at,
          }),
        ),
      };
    });
  }

  async timelines(request: TimelineRequest & { sources: readonly string[] | null }): Promise<Map<string | null, number[]>> {
    const db = this.#open();
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
      for (const row of (await db.query("timelineAll", params)) as { bucket: number; n: number }[]) add(null, row.bucket, row.n);
    } else {
      for (const source of request.sources) add(source, 0, 0);
      const rows = (await db.query("timelineOf", { ...params, sources: db.encodeList(request.sources) })) as { source: string; bucket: number; n: number }[];
      for (const row of rows) add(row.source, row.bucket, row.n);
    }
    return series;
  }

  /** One snapshot: the page's parts agree with each other while hosts write. */
  async sourceDetail(source: string, request: DetailRequest): Promise<DashboardSourceDetail | null> {
    const db = this.#open();
    return db.snapshot(async (query) => {
      const [row] = (await query("state", { source, now: request.now })) as StateRow[];
      if (row === undefined) return null;
      const page = async <T>(counted: DashboardStatement, listed: DashboardStatement, at: PageRequest, map: (row: never) => T): Promise<Page<T>> => ({
        total: count(await query(counted, { source })),
        offset: at.offset,
        rows: ((await query(listed, { source, limit: at.limit, offset: at.offset })) as never[]).map(map),
      });
      return {
        source,
        state: toState(row),
        versions: count(await query("versions", { source })),
        tools: await withToolCounts(query, db, source, await page("toolsCount", "toolsPage", request.tools, (tool: ToolPageDbRow) => tool)),
        strikes: await page("strikesCount", "strikesPage", request.strikes, (strike: StrikeRow) => toStrike(strike)),
        events: await page("eventsCount", "eventsPage", request.events, (event: unknown) => DashboardEvent.parse(event)),
      };
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function count(rows: Row[]): number {
  return CountRow.parse(rows[0]).n;
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.min(1, part / whole);
}

/** The page's tools with their counts per version and latest errors: two statements for the page, not two a tool. */
async function withToolCounts(query: DashboardQuery, db: Pick<DashboardDb, "encodeList">, source: string, tools: Page<ToolPageDbRow>): Promise<Page<DashboardToolRow>> {
  const params = { source, tools: db.encodeList(tools.rows.map((tool) => tool.tool)) };
  const some = tools.rows.length > 0;
  const versions = byTool(some ? ((await query("toolVersionsOf", params)) as ToolVersionDbRow[]) : [], toToolVersion);
  const errors = byTool(some ? ((await query("toolErrorsOf", params)) as ToolErrorDbRow[]) : [], toToolError);
  const key = (tool: string) => JSON.stringify([source, tool]);
  return { ...tools, rows: tools.rows.map((row) => toToolRow(row, (versions.get(key(row.tool)) ?? []).sort(newestVersionFirst), errors.get(key(row.tool)) ?? [])) };
}

function toToolRow(row: ToolPageDbRow, versions: unknown[], lastErrors: unknown[]): DashboardToolRow {
  return DashboardToolRow.parse({
    tool: row.tool,
    calls: row.calls,
    strikes: row.strikes,
    errors: row.errors,
    errorRate: ratio(row.errors, row.calls),
    versions,
    lastErrors,
    outcomes: Counts.parse(JSON.parse(row.outcomes)),
    meanWallMs: row.calls === 0 ? 0 : row.total_wall_ms / row.calls,
    lastWallMs: row.last_wall_ms,
    meanCpuMs: row.calls === 0 ? 0 : row.total_cpu_ms / row.calls,
    maxHeapBytes: row.max_heap_bytes,
    lastCallAt: row.last_call_at,
  });
}
