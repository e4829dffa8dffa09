/**
 * @module src/ledger/sql/dashboard-sql
 * The dashboard's SQL, written once for both databases. What differs is a
 * handful of pieces a `SqlDialect` supplies (SQLite and PostgreSQL below);
 * everything else is SQL both accept: `CAST(x AS BIGINT)` (an INTEGER in
 * SQLite, which binds a JS number as REAL: so bucket arithmetic divides as
 * integers in both), `CAST(x AS DOUBLE PRECISION)`, `CAST(outcomes AS TEXT)`
 * (JSON text in SQLite, jsonb in PostgreSQL), and counts and sums cast to
 * BIGINT (PostgreSQL's sum() is numeric, which its driver reads as a string).
 *
 * Parameters are named (`@now`): better-sqlite3 binds them by name; the
 * PostgreSQL reader numbers them (`toPositional`).
 *
 * Order of trouble, as the ledger's reports (report.ts): quarantined first,
 * then strikes, then error rate (non-ok calls / calls), then strike rate,
 * then name; a source's tools by strikes, error rate, calls, name.
 */
import { toolCountsSql } from "./tool-counts-sql.js";

export type SqlDialect = {
  /** A ledger table's name as a statement writes it (PostgreSQL: in the ledger's schema). */
  table(name: string): string;
  /** `column` is one of the strings of the list parameter `param` (bound with `encodeList`). */
  inList(column: string, param: string): string;
  /** How a list of strings is bound. */
  encodeList(values: readonly string[]): unknown;
  /** `needle` occurs in `haystack` (no pattern characters: a search for "_" finds "_"). */
  contains(haystack: string, needle: string): string;
  /** The larger of two values (SQLite's scalar max). */
  greatest(a: string, b: string): string;
  /** Sort text by code point, as SQLite does, not by a locale's collation. */
  byCodePoint(column: string): string;
};

export const SQLITE_DIALECT: SqlDialect = {
  table: (name) => name,
  inList: (column, param) => `${column} IN (SELECT value FROM json_each(${param}))`,
  encodeList: (values) => JSON.stringify(values),
  contains: (haystack, needle) => `instr(${haystack}, ${needle}) > 0`,
  greatest: (a, b) => `max(${a}, ${b})`,
  byCodePoint: (column) => column,
};

export function postgresDialect(quotedSchema: string): SqlDialect {
  return {
    table: (name) => `${quotedSchema}.${name}`,
    inList: (column, param) => `${column} = ANY(CAST(${param} AS TEXT[]))`,
    encodeList: (values) => [...values],
    contains: (haystack, needle) => `strpos(${haystack}, ${needle}) > 0`,
    greatest: (a, b) => `greatest(${a}, ${b})`,
    byCodePoint: (column) => `${column} COLLATE "C"`,
  };
}

export type DashboardStatements = ReturnType<typeof dashboardSql>;
export type DashboardStatement = keyof DashboardStatements;

export function dashboardSql(d: SqlDialect) {
  const t = d.table;
  /** A quarantine whose end has passed is shown as what it is: over (the next check records the expiry). */
  const effectiveState = `CASE WHEN s.state = 'quarantined' AND (s.until IS NULL OR s.until > @now) THEN 'quarantined' ELSE 'active' END`;
  /** The state's columns as they are now: a quarantine that ended is active since its end. */
  const stateNow = `s.source, ${effectiveState} AS state,
    CASE WHEN s.state = 'quarantined' AND s.until <= @now THEN s.until ELSE s.since END AS since, s.until, s.reason, s.actor`;
  const search = `(CAST(@search AS TEXT) IS NULL OR ${d.contains("lower(s.source)", "lower(@search)")})`;
  const bucket = "(minute - CAST(@from AS BIGINT)) / CAST(@bucketMs AS BIGINT)";
  const rate = (part: string, whole: string) => `CAST(${part} AS DOUBLE PRECISION) / ${d.greatest(whole, "1")}`;
  const toolCounts = toolCountsSql(d);
  const pageTools = `source = @source AND ${d.inList("tool", "@tools")}`;
  return {
    totals: `SELECT (SELECT count(*) FROM ${t("sources")}) AS sources,
      (SELECT count(*) FROM ${t("sources")} s WHERE ${effectiveState} = 'quarantined') AS quarantined,
      (SELECT CAST(coalesce(sum(calls), 0) AS BIGINT) FROM ${t("tools")}) AS calls, (SELECT CAST(coalesce(sum(strikes), 0) AS BIGINT) FROM ${t("tools")}) AS strikes,
      (SELECT CAST(coalesce(sum(errors), 0) AS BIGINT) FROM ${t("tools")}) AS errors`,
    sourcesCount: `SELECT count(*) AS n FROM ${t("sources")} s WHERE ${search}`,
    // Grouped through the tools table's primary key (source, tool): no temporary index, one sort of the sources.
    sourcesPage: `SELECT * FROM (
        SELECT ${stateNow}, CAST(coalesce(sum(t.calls), 0) AS BIGINT) AS calls, CAST(coalesce(sum(t.strikes), 0) AS BIGINT) AS strikes,
          CAST(coalesce(sum(t.errors), 0) AS BIGINT) AS errors, count(t.tool) AS tools, max(CASE WHEN t.calls > 0 THEN t.last_call_at END) AS last_call_at
        FROM ${t("sources")} s LEFT JOIN ${t("tools")} t ON t.source = s.source
        WHERE ${search}
        GROUP BY s.source
      ) AS page_row
      ORDER BY page_row.state = 'quarantined' DESC, page_row.strikes DESC, ${rate("page_row.errors", "page_row.calls")} DESC,
        ${rate("page_row.strikes", "page_row.calls")} DESC, ${d.byCodePoint("page_row.source")}
      LIMIT @limit OFFSET @offset`,
    timelineOf: `SELECT source, ${bucket} AS bucket, CAST(sum(n) AS BIGINT) AS n FROM ${t("strike_minutes")}
      WHERE ${d.inList("source", "@sources")} AND minute >= @from AND minute < @to GROUP BY source, bucket`,
    timelineAll: `SELECT ${bucket} AS bucket, CAST(sum(n) AS BIGINT) AS n FROM ${t("strike_minutes")} WHERE minute >= @from AND minute < @to GROUP BY bucket`,
    state: `SELECT ${stateNow} FROM ${t("sources")} s WHERE s.source = @source`,
    versions: `SELECT count(*) AS n FROM ${t("versions")} WHERE source = @source`,
    toolsCount: `SELECT count(*) AS n FROM ${t("tools")} WHERE source = @source`,
    // A tool a load made known (no call yet) holds 0 where "last" has no value: read as null.
    toolsPage: `SELECT tool, calls, strikes, errors, CAST(outcomes AS TEXT) AS outcomes, total_wall_ms, total_cpu_ms, last_wall_ms, max_heap_bytes,
        CASE WHEN calls > 0 THEN last_call_at END AS last_call_at FROM ${t("tools")}
      WHERE source = @source ORDER BY strikes DESC, ${rate("errors", "calls")} DESC, calls DESC, ${d.byCodePoint("tool")} LIMIT @limit OFFSET @offset`,
    /** The page's tools' counts per version and latest errors (@tools: their names, bound as a list). */
    toolVersionsOf: toolCounts.versionsWhere(pageTools),
    toolErrorsOf: toolCounts.errorsWhere(pageTools),
    strikesCount: `SELECT count(*) AS n FROM ${t("strikes")} WHERE source = @source`,
    strikesPage: `SELECT source, tool, version, call_id, outcome, message, at FROM ${t("strikes")} WHERE source = @source ORDER BY id DESC LIMIT @limit OFFSET @offset`,
    eventsCount: `SELECT count(*) AS n FROM ${t("events")} WHERE source = @source`,
    eventsPage: `SELECT at, kind, reason, until, actor FROM ${t("events")} WHERE source = @source ORDER BY id DESC LIMIT @limit OFFSET @offset`,
  };
}

/**
 * `@name` parameters as PostgreSQL's `$n`, the same name the same number:
 * the text and the names in the order of their numbers.
 */
export function toPositional(text: string): { text: string; names: string[] } {
  const names: string[] = [];
  const numbered = text.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text: numbered, names };
}
