/**
 * @module src/ledger/dashboard-reader
 * DashboardReader: the questions the dashboard asks a ledger, answered by
 * the store's own query language (aggregates and pages computed there, never
 * by loading every row), and the plain data they answer, as zod schemas so
 * that every implementation is checked on the way out.
 *
 * One implementation answers them for every database, SqlDashboardReader
 * (sql/dashboard-reader.ts) over one set of statements (sql/dashboard-sql.ts);
 * SqliteDashboardReader and PostgresDashboardReader give it a connection.
 */
import { z } from "zod";
import { EpochMs, EventKind, SourceState, StrikeEntry, ToolErrorEntry, ToolVersionCounts } from "./types.js";

const Count = z.number().int().nonnegative();

/** One row of the sources page: effective state (a quarantine past its end shows as active), totals over its tools. */
export const DashboardSourceRow = z.strictObject({
  source: z.string(),
  state: SourceState,
  calls: Count,
  strikes: Count,
  strikeRate: z.number().min(0).max(1),
  /** Non-ok calls, strikes among them. */
  errors: Count,
  errorRate: z.number().min(0).max(1),
  tools: Count,
  lastCallAt: EpochMs.nullable(),
});
export type DashboardSourceRow = z.infer<typeof DashboardSourceRow>;

export const DashboardTotals = z.strictObject({ sources: Count, quarantined: Count, calls: Count, strikes: Count, errors: Count });
export type DashboardTotals = z.infer<typeof DashboardTotals>;

export const DashboardToolRow = z.strictObject({
  tool: z.string(),
  calls: Count,
  strikes: Count,
  errors: Count,
  errorRate: z.number().min(0).max(1),
  outcomes: z.record(z.string(), Count),
  meanWallMs: z.number().nonnegative(),
  lastWallMs: z.number().nonnegative(),
  meanCpuMs: z.number().nonnegative(),
  maxHeapBytes: Count,
  lastCallAt: EpochMs.nullable(),
  /** Newest version first (as the ledger's reports). */
  versions: z.array(ToolVersionCounts),
  /** Newest first, at most ERRORS_KEPT_PER_TOOL. */
  lastErrors: z.array(ToolErrorEntry),
});
export type DashboardToolRow = z.infer<typeof DashboardToolRow>;

export const DashboardEvent = z.strictObject({ at: EpochMs, kind: EventKind, reason: z.string(), until: EpochMs.nullable(), actor: z.string() });
export type DashboardEvent = z.infer<typeof DashboardEvent>;

export const Page = <T extends z.ZodType>(row: T) => z.strictObject({ total: Count, offset: Count, rows: z.array(row) });
export type Page<T> = { total: number; offset: number; rows: T[] };

export const DashboardSourceDetail = z.strictObject({
  source: z.string(),
  state: SourceState,
  versions: Count,
  tools: Page(DashboardToolRow),
  strikes: Page(StrikeEntry),
  events: Page(DashboardEvent),
});
export type DashboardSourceDetail = z.infer<typeof DashboardSourceDetail>;

export type PageRequest = { offset: number; limit: number };

/** Strikes per bucket, oldest bucket first: `buckets` of `bucketMs` each, the last one ending at `to`. */
export type TimelineRequest = { to: number; bucketMs: number; buckets: number };

export interface DashboardReader {
  readonly alive: boolean;
  /** A number that changes when anyone commits to the ledger; cheap enough to poll. */
  version(): Promise<number>;
  totals(now: number): Promise<DashboardTotals>;
  /** Sources in order of trouble: quarantined first, then most strikes, then highest error rate, then highest strike rate, then name. */
  sourcesPage(request: PageRequest & { now: number; search?: string }): Promise<Page<DashboardSourceRow>>;
  /** Strike counts per bucket; `sources` null: every source together. */
  timelines(request: TimelineRequest & { sources: readonly string[] | null }): Promise<Map<string | null, number[]>>;
  sourceDetail(source: string, request: { now: number; tools: PageRequest; strikes: PageRequest; events: PageRequest }): Promise<DashboardSourceDetail | null>;
  close(): Promise<void>;
}
