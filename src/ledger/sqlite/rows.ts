/**
 * @module src/ledger/sqlite/rows
 * The SQLite store's prepared statements, and the reads and writes of
 * script calls made with them. How a row becomes the ledger's types is
 * sql/ledger-rows.ts, which the PostgreSQL store shares.
 */
import type Database from "better-sqlite3";
import { SQLITE_DIALECT } from "../sql/dashboard-sql.js";
import { toolCountUpdates, toolCountsSql } from "../sql/tool-counts-sql.js";
import { scriptCallsSql, type ScriptCallDbRow, type ScriptCallerDbRow } from "../sql/script-calls-sql.js";
import { toScriptCallCounts, toScriptCaller, type ScriptCallCount, type StoredScriptCallers, type StoredScriptTools } from "../script-calls.js";

const TOOLS = "SELECT * FROM tools";
const STATE = "SELECT source, state, since, until, reason, actor, last_version FROM sources";
const STRIKES = "SELECT source, tool, version, call_id, outcome, message, at, caller FROM strikes";

const SCRIPT_SQL = scriptCallsSql(SQLITE_DIALECT);
const TOOL_COUNTS = toolCountsSql(SQLITE_DIALECT);
const TOOL_COLUMNS = `source, tool, calls, strikes, outcomes, total_wall_ms, total_cpu_ms, last_wall_ms, max_heap_bytes, last_call_at,
  last_strike_at, last_strike_outcome, last_strike_message, errors, cur_version, cur_calls, cur_errors, cur_strikes`;

const SQL = {
  readState: `${STATE} WHERE source = @source`,
  // The run's source and the version its tool's row counts (sql/tool-counts-sql.ts): one statement, so that a run
  // at the tool's current version (an ok call's usual case) costs no statement more than before schema 5.
  readStateAndToolVersion: `SELECT source, state, since, until, reason, actor, last_version,
    (SELECT cur_version FROM tools WHERE source = @source AND tool = @tool) AS tool_version FROM sources WHERE source = @source`,
  insertSource: "INSERT INTO sources (source, state, last_version) VALUES (@source, 'active', @version)",
  setLastVersion: "UPDATE sources SET last_version = @version WHERE source = @source",
  addVersion: "INSERT INTO versions (source, version, first_at) VALUES (@source, @version, @at) ON CONFLICT DO NOTHING",
  // Outcome kinds are [a-z_] words (OutcomeKind), so one is a safe JSON path key.
  // @calls calls of one outcome, counted at once: their summed times, the last one's wall time and `at`, the largest heap;
  // @errors of them not ok (0 or @calls), at @version (sql/tool-counts-sql.ts: the row keeps its current version's counts).
  countTool: `INSERT INTO tools (${TOOL_COLUMNS}) VALUES (@source, @tool, @calls, @strikes, json_object(@outcome, @calls), @wallSum, @cpuSum, @lastWall, @heap, @at,
      @strikeAt, @strikeOutcome, @strikeMessage, @errors, @version, @calls, @errors, @strikes)
    ON CONFLICT (source, tool) DO UPDATE SET calls = calls + excluded.calls, strikes = strikes + excluded.strikes,
      outcomes = json_set(outcomes, '$.' || @outcome, coalesce(json_extract(outcomes, '$.' || @outcome), 0) + @calls),
      total_wall_ms = total_wall_ms + excluded.total_wall_ms, total_cpu_ms = total_cpu_ms + excluded.total_cpu_ms,
      last_wall_ms = excluded.last_wall_ms, max_heap_bytes = max(max_heap_bytes, excluded.max_heap_bytes), last_call_at = excluded.last_call_at,
      last_strike_at = coalesce(excluded.last_strike_at, last_strike_at),
      last_strike_outcome = coalesce(excluded.last_strike_outcome, last_strike_outcome),
      last_strike_message = coalesce(excluded.last_strike_message, last_strike_message),
      ${toolCountUpdates("")}`,
  foldVersion: TOOL_COUNTS.fold({ source: "@source", tool: "@tool", version: "@version" }),
  insertToolError: TOOL_COUNTS.insertError,
  pruneToolErrors: TOOL_COUNTS.pruneErrors,
  // A load makes a source and its tools known; a tool row with no calls reads as never called (toolsBySource).
  knowSource: "INSERT INTO sources (source, state, last_version) VALUES (@source, 'active', @version) ON CONFLICT DO NOTHING",
  knowTool: `INSERT INTO tools (${TOOL_COLUMNS}) VALUES (@source, @tool, 0, 0, '{}', 0, 0, 0, 0, 0, NULL, NULL, NULL, 0, NULL, 0, 0, 0) ON CONFLICT DO NOTHING`,
  insertStrike: "INSERT INTO strikes (source, tool, version, call_id, outcome, message, at, caller) VALUES (@source, @tool, @version, @callId, @outcome, @message, @at, @caller)",
  pruneStrikes: `DELETE FROM strikes WHERE source = @source
    AND id NOT IN (SELECT id FROM strikes WHERE source = @source ORDER BY id DESC LIMIT @keep)`,
  countStrikeMinute: `INSERT INTO strike_minutes (source, minute, n) VALUES (@source, @at - @at % 60000, 1)
    ON CONFLICT (source, minute) DO UPDATE SET n = n + 1`,
  pruneStrikeMinutes: "DELETE FROM strike_minutes WHERE source = @source AND minute < @before",
  strikeTimes: "SELECT at FROM strikes WHERE source = @source ORDER BY id DESC LIMIT @limit",
  recentStrikes: `${STRIKES} WHERE source = @source ORDER BY id DESC LIMIT @limit`,
  writeState: `INSERT INTO sources (source, state, since, until, reason, actor) VALUES (@source, @state, @since, @until, @reason, @actor)
    ON CONFLICT (source) DO UPDATE SET state = excluded.state, since = excluded.since, until = excluded.until, reason = excluded.reason, actor = excluded.actor`,
  insertEvent: "INSERT INTO events (at, source, kind, reason, until, actor) VALUES (@at, @source, @kind, @reason, @until, @actor)",
  recentEvents: "SELECT at, source, kind, reason, until, actor FROM events WHERE source = @source ORDER BY id DESC LIMIT @limit",
  versionCount: "SELECT count(*) AS n FROM versions WHERE source = @source",
  sourceTools: `${TOOLS} WHERE source = @source`,
  allSources: STATE,
  allVersionCounts: "SELECT source, count(*) AS n FROM versions GROUP BY source",
  allLastStrikes: `${STRIKES} WHERE id IN (SELECT max(id) FROM strikes GROUP BY source)`,
  allTools: TOOLS,
  allToolVersions: TOOL_COUNTS.allVersions,
  allToolErrors: TOOL_COUNTS.allErrors,
  sourceToolVersions: TOOL_COUNTS.sourceVersions,
  sourceToolErrors: TOOL_COUNTS.sourceErrors,
  countScriptCalls: SCRIPT_SQL.countRows("VALUES (@script, @source, @tool, @outcome, @calls, @strikes, @at)"),
  scriptToolsCount: SCRIPT_SQL.toolsCount,
  scriptTools: SCRIPT_SQL.tools,
  scriptCallersCount: SCRIPT_SQL.callersCount,
  scriptCallers: SCRIPT_SQL.callers,
} as const;

export type Statements = { [K in keyof typeof SQL]: Database.Statement };

export function prepareStatements(db: Database.Database): Statements {
  return Object.fromEntries(Object.entries(SQL).map(([name, text]) => [name, db.prepare(text)])) as Statements;
}

/** Adds one script source's count of a run (script-calls.ts, scriptCountsOf). */
export function countScriptCalls(sql: Statements, count: ScriptCallCount): void {
  sql.countScriptCalls.run({ script: count.script, source: count.source, tool: count.tool, outcome: count.outcome, calls: count.calls, strikes: count.strikes, at: count.lastAt });
}

/** Run inside one read transaction, so the count and the rows agree. */
export function readScriptTools(sql: Statements, script: string, limit: number): StoredScriptTools {
  const total = (sql.scriptToolsCount.get({ script }) as { n: number }).n;
  return { total, counts: toScriptCallCounts(sql.scriptTools.all({ script, limit }) as ScriptCallDbRow[]) };
}

export function readScriptCallers(sql: Statements, source: string, limit: number): StoredScriptCallers {
  const total = (sql.scriptCallersCount.get({ source }) as { n: number }).n;
  return { total, rows: (sql.scriptCallers.all({ source, limit }) as ScriptCallerDbRow[]).map(toScriptCaller) };
}
