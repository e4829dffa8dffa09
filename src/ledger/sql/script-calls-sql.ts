/**
 * @module src/ledger/sql/script-calls-sql
 * The SQL of the script-call counters (script-calls.ts), written once for
 * SQLite and PostgreSQL over the dashboard's dialect pieces: the table, how
 * counts are added to it, and the two reports. Parameters are named
 * (`@script`); PostgreSQL numbers them (`toPositional`).
 *
 * Reads are bounded by `@limit` in the database: a report never loads every
 * counter of a busy tool, whose callers grow with every MCP session.
 */
import type { SqlDialect } from "./dashboard-sql.js";

/** The table: one row per (script source, tool source, tool, outcome kind). */
export function scriptCallsTable(d: Pick<SqlDialect, "table">, bigint: string): string {
  return `CREATE TABLE ${d.table("script_calls")} (
  via     TEXT NOT NULL,              -- the code: source whose script made the calls
  source  TEXT NOT NULL,              -- the called tool's source
  tool    TEXT NOT NULL,
  outcome TEXT NOT NULL,
  calls   ${bigint} NOT NULL CHECK (calls > 0),
  strikes ${bigint} NOT NULL CHECK (strikes = 0 OR strikes = calls),
  last_at ${bigint} NOT NULL,
  PRIMARY KEY (via, source, tool, outcome)
)`;
}

export function scriptCallsSql(d: Pick<SqlDialect, "table" | "byCodePoint" | "greatest">) {
  const t = d.table("script_calls");
  /** Adds the counts to the row there is, if any. */
  const addToRow = `ON CONFLICT (via, source, tool, outcome) DO UPDATE SET calls = c.calls + excluded.calls, strikes = c.strikes + excluded.strikes,
        last_at = ${d.greatest("c.last_at", "excluded.last_at")}`;
  return {
    /** The counts of `rows` (a SELECT of via, source, tool, outcome, calls, strikes, last_at, each via once), added in. */
    countRows: (rows: string) => `INSERT INTO ${t} AS c (via, source, tool, outcome, calls, strikes, last_at) ${rows} ${addToRow}`,
    toolsCount: `SELECT count(*) AS n FROM (SELECT source, tool FROM ${t} WHERE via = @script GROUP BY source, tool) AS pairs`,
    /** Every counter of the first @limit (source, tool) pairs of @script, in order of trouble. */
    tools: `SELECT c.via, c.source, c.tool, c.outcome, c.calls, c.strikes, c.last_at FROM ${t} c
      JOIN (SELECT source, tool FROM ${t} WHERE via = @script GROUP BY source, tool
        ORDER BY sum(strikes) DESC, sum(calls) DESC, ${d.byCodePoint("source")}, ${d.byCodePoint("tool")} LIMIT @limit) AS top
      ON c.source = top.source AND c.tool = top.tool
      WHERE c.via = @script`,
    callersCount: `SELECT count(DISTINCT via) AS n FROM ${t} WHERE source = @source`,
    callers: `SELECT via, CAST(sum(calls) AS BIGINT) AS calls, CAST(sum(strikes) AS BIGINT) AS strikes, max(last_at) AS last_at FROM ${t}
      WHERE source = @source GROUP BY via ORDER BY sum(strikes) DESC, sum(calls) DESC, ${d.byCodePoint("via")} LIMIT @limit`,
  };
}

/** A counter row as both databases answer it. */
export type ScriptCallDbRow = { via: string; source: string; tool: string; outcome: string; calls: number; strikes: number; last_at: number };
export type ScriptCallerDbRow = { via: string; calls: number; strikes: number; last_at: number };
