/**
 * @module src/ledger/sqlite/writes
 * What the SQLite store writes inside its transactions: a run of records
 * (the counts, a strike, each record's decision on the state the one before
 * it left) and a change of a source's state with its events. Called only
 * inside a transaction the store opened (sqlite/store.ts), so a run's rows
 * and decisions commit together or not at all.
 */
import { toState, type StateRow } from "../sql/ledger-rows.js";
import { sumRun } from "../record-runs.js";
import { scriptCountsOf } from "../script-calls.js";
import { countScriptCalls, type Statements } from "./rows.js";
import { STRIKE_MINUTES_KEPT_MS } from "./schema.js";
import type { Applied, RecordOptions } from "../store.js";
import { initialState, type Transition } from "../transitions.js";
import { ERRORS_KEPT_PER_TOOL, isStrike, type CallRecord } from "../types.js";

/** A record waiting for its commit, as the store's batch holds it. */
export type PendingRecord = { call: CallRecord; options: RecordOptions };

/**
 * A run of one strike, or of calls that count alike. An ok call on a known
 * source at its tool's current version writes one row (tools), after one
 * read (the source's state and its tool's current version together); the
 * source, version and tool_versions rows are written only when they change
 * (the fold, sql/tool-counts-sql.ts), the tool's latest errors only for a
 * run that is not ok.
 */
export function recordRun(sql: Statements, run: PendingRecord[]): Applied[] {
  const call = (run[0] as PendingRecord).call;
  const last = (run[run.length - 1] as PendingRecord).call;
  const strike = isStrike(call.outcome);
  const row = sql.readStateAndToolVersion.get({ source: call.source, tool: call.tool }) as (StateRow & { tool_version: string | null }) | undefined;
  if (row === undefined) sql.insertSource.run({ source: call.source, version: call.version });
  else if (row.last_version !== call.version) sql.setLastVersion.run({ source: call.source, version: call.version });
  if (row?.last_version !== call.version) sql.addVersion.run({ source: call.source, version: call.version, at: call.at });
  const { wallSum, cpuSum, heap } = sumRun(run);
  // A source not seen yet has no tool row with counts to fold.
  if (row !== undefined && row.tool_version !== null && row.tool_version !== call.version) sql.foldVersion.run({ source: call.source, tool: call.tool, version: call.version });
  sql.countTool.run({
    source: call.source, tool: call.tool, outcome: call.outcome, calls: run.length, strikes: strike ? 1 : 0,
    errors: call.outcome === "ok" ? 0 : run.length, version: call.version,
    wallSum, cpuSum, lastWall: last.wallMs, heap, at: last.at,
    strikeAt: strike ? call.at : null, strikeOutcome: strike ? call.outcome : null, strikeMessage: strike ? (call.message ?? "") : null,
  });
  for (const count of scriptCountsOf(run)) countScriptCalls(sql, count);
  if (call.outcome !== "ok") keepToolErrors(sql, run);
  let strikeTimes: number[] = [];
  if (strike) {
    sql.insertStrike.run({ source: call.source, tool: call.tool, version: call.version, callId: call.callId, outcome: call.outcome, message: call.message ?? "", at: call.at, caller: call.caller ?? null });
    sql.pruneStrikes.run({ source: call.source, keep: (run[0] as PendingRecord).options.keepStrikes });
    sql.countStrikeMinute.run({ source: call.source, at: call.at });
    sql.pruneStrikeMinutes.run({ source: call.source, before: call.at - STRIKE_MINUTES_KEPT_MS });
    strikeTimes = (sql.strikeTimes.all({ source: call.source, limit: (run[0] as PendingRecord).options.keepStrikes }) as { at: number }[]).map((kept) => kept.at);
  }
  let state = row === undefined ? initialState(call.source) : toState(row);
  return run.map(({ options }) => {
    const applied = options.decide(state, strikeTimes);
    writeTransition(sql, applied);
    state = applied?.state ?? state;
    return { state, applied };
  });
}

/** Keeps the run's latest calls (all of one tool, none ok) with their messages, and drops the tool's older ones. */
function keepToolErrors(sql: Statements, run: PendingRecord[]): void {
  const { source, tool } = (run[0] as PendingRecord).call;
  for (const { call } of run.slice(-ERRORS_KEPT_PER_TOOL)) {
    sql.insertToolError.run({ source, tool, version: call.version, callId: call.callId, outcome: call.outcome, message: call.message ?? "", at: call.at, caller: call.caller ?? null });
  }
  sql.pruneToolErrors.run({ source, tool, keep: ERRORS_KEPT_PER_TOOL });
}

/** Writes a source's new state and the events of its change; nothing when `decide` changed nothing. */
export function writeTransition(sql: Statements, applied: Transition | null): void {
  if (applied === null) return;
  const { state } = applied;
  const quarantined = state.state === "quarantined" ? state : undefined;
  sql.writeState.run({
    source: state.source, state: state.state, since: state.since,
    until: quarantined?.until ?? null, reason: quarantined?.reason ?? null, actor: quarantined?.actor ?? null,
  });
  for (const event of applied.events) sql.insertEvent.run(event);
}
