/**
 * @module src/ledger/sql/tool-counts-sql
 * The SQL of schema version 5, written once for SQLite and PostgreSQL over
 * the dashboard's dialect pieces: a tool's non-ok calls, its counts per
 * version, and its latest errors with their messages.
 *
 * Per-version counts cost an ok call no row more. The tools row holds the
 * counts of the version its tool was last called at (`cur_version`,
 * `cur_calls`, `cur_errors`, `cur_strikes`), counted in the statement that
 * counts the call; `tool_versions` holds the counts of its other versions,
 * and is written only when a run of calls comes at another version than
 * `cur_version` (the fold: the old version's counts added to its row there,
 * in the same transaction, before the tools row takes the new version).
 * A tool's calls at a version are therefore its `tool_versions` row plus
 * the tools row's `cur_*` when `cur_version` is that version: every read
 * goes through `versions` below, which adds the two.
 *
 * ```
 *  run at v (tool's cur_version v)  ─▶ tools: calls, errors, cur_* += run          (one row, as before v5)
 *  run at w (tool's cur_version v)  ─▶ tool_versions(v) += tools.cur_*; tools: cur_version = w, cur_* = run
 *  run not ok                       ─▶ + tool_errors: its latest messages, pruned to ERRORS_KEPT_PER_TOOL
 * ```
 */
import type { SqlDialect } from "./dashboard-sql.js";

/** The columns version 5 adds to `tools`; the migration fills `errors` from the outcome counts. */
export function toolCountColumns(bigint: string): string[] {
  return [
    `errors ${bigint} NOT NULL DEFAULT 0`, // non-ok calls, strikes included
    "cur_version TEXT", // the version the cur_* counts are of; NULL before the first call counted per version
    `cur_calls ${bigint} NOT NULL DEFAULT 0`,
    `cur_errors ${bigint} NOT NULL DEFAULT 0`,
    `cur_strikes ${bigint} NOT NULL DEFAULT 0`,
  ];
}

/** The tables version 5 adds. `serialKey`: an id column that grows with each insert (SQLite AUTOINCREMENT, PostgreSQL BIGSERIAL). */
export function toolCountTables(d: Pick<SqlDialect, "table">, bigint: string, serialKey: string, withoutRowid: string): string {
  return `CREATE TABLE ${d.table("tool_versions")} (
  source  TEXT NOT NULL,
  tool    TEXT NOT NULL,
  version TEXT NOT NULL,
  calls   ${bigint} NOT NULL CHECK (calls >= 0),
  errors  ${bigint} NOT NULL CHECK (errors >= 0 AND errors <= calls),
  strikes ${bigint} NOT NULL CHECK (strikes >= 0 AND strikes <= errors),
  PRIMARY KEY (source, tool, version)
)${withoutRowid};
CREATE TABLE ${d.table("tool_errors")} (
  id      ${serialKey},
  source  TEXT NOT NULL,
  tool    TEXT NOT NULL,
  version TEXT NOT NULL,
  call_id TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome <> 'ok'),
  message TEXT NOT NULL,
  at      ${bigint} NOT NULL,
  caller  TEXT
);
CREATE INDEX tool_errors_by_tool ON ${d.table("tool_errors")} (source, tool, id)`;
}

/** The tools row's SET terms of version 5, for the upsert that counts a run (`t`: the stored row, `excluded`: the run's). */
export function toolCountUpdates(t: string): string {
  const same = `${t}cur_version = excluded.cur_version`;
  return `errors = ${t}errors + excluded.errors,
        cur_calls = CASE WHEN ${same} THEN ${t}cur_calls + excluded.cur_calls ELSE excluded.cur_calls END,
        cur_errors = CASE WHEN ${same} THEN ${t}cur_errors + excluded.cur_errors ELSE excluded.cur_errors END,
        cur_strikes = CASE WHEN ${same} THEN ${t}cur_strikes + excluded.cur_strikes ELSE excluded.cur_strikes END,
        cur_version = excluded.cur_version`;
}

export type Placeholders = { source: string; tool: string; version: string };

export function toolCountsSql(d: Pick<SqlDialect, "table">) {
  const tools = d.table("tools");
  const versions = d.table("tool_versions");
  const errors = d.table("tool_errors");
  /** A tool's counts per version: its folded rows plus the tools row's current ones (see the module's comment). */
  const versionsWhere = (where: string) => `SELECT v.source, v.tool, v.version, CAST(sum(v.calls) AS BIGINT) AS calls, CAST(sum(v.errors) AS BIGINT) AS errors,
      CAST(sum(v.strikes) AS BIGINT) AS strikes, min(f.first_at) AS first_at
    FROM (SELECT source, tool, version, calls, errors, strikes FROM ${versions} WHERE ${where}
      UNION ALL SELECT source, tool, cur_version, cur_calls, cur_errors, cur_strikes FROM ${tools} WHERE cur_version IS NOT NULL AND ${where}) AS v
    LEFT JOIN ${d.table("versions")} f ON f.source = v.source AND f.version = v.version
    GROUP BY v.source, v.tool, v.version`;
  const errorColumns = "source, tool, version, call_id, outcome, message, at, caller";
  /** Newest first; pruned on write to ERRORS_KEPT_PER_TOOL a tool, so this reads at most that many a tool. */
  const errorsWhere = (where: string) => `SELECT ${errorColumns} FROM ${errors} WHERE ${where} ORDER BY id DESC`;
  return {
    /**
     * The fold, run before the upsert that counts a run at `p.version`: when
     * the tool's row holds counts of another version, they are added to that
     * version's row of tool_versions. Writes nothing when the version is the
     * same (an ok call's usual case) or the tool has no counts yet.
     */
    fold: (p: Placeholders) => `INSERT INTO ${versions} AS tv (source, tool, version, calls, errors, strikes)
      SELECT source, tool, cur_version, cur_calls, cur_errors, cur_strikes FROM ${tools}
      WHERE source = ${p.source} AND tool = ${p.tool} AND cur_version IS NOT NULL AND cur_version <> ${p.version}
      ON CONFLICT (source, tool, version) DO UPDATE SET calls = tv.calls + excluded.calls, errors = tv.errors + excluded.errors, strikes = tv.strikes + excluded.strikes`,
    allVersions: versionsWhere("1 = 1"),
    sourceVersions: versionsWhere("source = @source"),
    /** `where` names the rows of both tables by their source and tool columns (unqualified). */
    versionsWhere,
    errorsWhere,
    allErrors: errorsWhere("1 = 1"),
    sourceErrors: errorsWhere("source = @source"),
    insertError: `INSERT INTO ${errors} (${errorColumns}) VALUES (@source, @tool, @version, @callId, @outcome, @message, @at, @caller)`,
    pruneErrors: `DELETE FROM ${errors} WHERE source = @source AND tool = @tool
      AND id NOT IN (SELECT id FROM ${errors} WHERE source = @source AND tool = @tool ORDER BY id DESC LIMIT @keep)`,
  };
}

/** Rows as both databases answer them. */
export type ToolVersionDbRow = { source: string; tool: string; version: string; calls: number; errors: number; strikes: number; first_at: number | null };
export type ToolErrorDbRow = { source: string; tool: string; version: string; call_id: string; outcome: string; message: string; at: number; caller: string | null };
