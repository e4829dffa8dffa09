/**
 * @module src/ledger/script-calls
 * Which tools Code Mode scripts called: the data the ledger keeps for it and
 * the reports made of it. A nested call's record names the script source it
 * came from (`via`, a `code:` source); every store keeps one counter per
 * (script source, tool source, tool, outcome kind), and nothing else: never
 * an input, never a message, so the table grows with the pairs that exist,
 * not with the calls made.
 *
 * ```
 * CallRecord { source: agent:math, tool: add, outcome: ok, via: code:conv-1 }
 *   ─▶ script_calls (code:conv-1, agent:math, add, ok): calls + 1, strikes + 0, last_at
 * ledger.scriptTools("code:conv-1")  ─▶ per (tool source, tool): calls, strikes, outcomes
 * ledger.scriptCallers("agent:math") ─▶ per script source: calls, strikes
 * ```
 */
import { z } from "zod";
import { OUTCOME_KINDS, OutcomeKind } from "../result.js";
import type { ScriptCallDbRow, ScriptCallerDbRow } from "./sql/script-calls-sql.js";
import { EpochMs, ScriptSourceId, SourceId, isStrike, type CallRecord } from "./types.js";

const Count = z.number().int().nonnegative();

/** How many rows a report lists when the caller names no limit. */
export const SCRIPT_REPORT_ROWS = 50;
/** The most rows one report may ask for. */
export const MAX_SCRIPT_REPORT_ROWS = 10_000;

/** One counter as a store keeps it: the calls of one outcome kind that one script source made to one tool. */
export const ScriptCallCount = z.strictObject({
  script: ScriptSourceId,
  source: SourceId,
  tool: z.string(),
  outcome: OutcomeKind,
  calls: Count,
  /** Equal to `calls` for a strike kind (timeout, memory, crash), else 0. */
  strikes: Count,
  lastAt: EpochMs,
});
export type ScriptCallCount = z.infer<typeof ScriptCallCount>;

/** A tool that a script source's scripts called: its counts over every outcome kind (only the kinds that happened). */
export const ScriptToolRow = z.strictObject({
  source: SourceId,
  tool: z.string(),
  calls: Count,
  strikes: Count,
  outcomes: z.partialRecord(OutcomeKind, Count),
  lastAt: EpochMs,
});
export type ScriptToolRow = z.infer<typeof ScriptToolRow>;

/** A script source whose scripts called a source's tools, with its totals over them. */
export const ScriptCallerRow = z.strictObject({
  script: ScriptSourceId,
  calls: Count,
  strikes: Count,
  lastAt: EpochMs,
});
export type ScriptCallerRow = z.infer<typeof ScriptCallerRow>;

/** ledger.scriptTools(): the first `rows.length` of `total` tools, most strikes first, then most calls. */
export const ScriptToolsReport = z.strictObject({ script: ScriptSourceId, total: Count, rows: z.array(ScriptToolRow) });
export type ScriptToolsReport = z.infer<typeof ScriptToolsReport>;

/** ledger.scriptCallers(): the first `rows.length` of `total` script sources, most strikes first, then most calls. */
export const ScriptCallersReport = z.strictObject({ source: SourceId, total: Count, rows: z.array(ScriptCallerRow) });
export type ScriptCallersReport = z.infer<typeof ScriptCallersReport>;

/** Every counter of `rows` this corral can name. */
export function toScriptCallCounts(rows: readonly ScriptCallDbRow[]): ScriptCallCount[] {
  return rows.map(toScriptCallCount).filter((count) => count !== null);
}

/** What a store answers: the counters of the first `limit` tools (whole: every kind of each), and how many tools there are. */
export type StoredScriptTools = { total: number; counts: ScriptCallCount[] };
export type StoredScriptCallers = { total: number; rows: ScriptCallerRow[] };

/** The counters of one script source as one row per (tool source, tool), in order of trouble. */
export function toScriptToolRows(counts: readonly ScriptCallCount[]): ScriptToolRow[] {
  const rows = new Map<string, ScriptToolRow>();
  for (const count of counts) {
    const key = JSON.stringify([count.source, count.tool]);
    const row = rows.get(key) ?? { source: count.source, tool: count.tool, calls: 0, strikes: 0, outcomes: {}, lastAt: count.lastAt };
    row.calls += count.calls;
    row.strikes += count.strikes;
    row.outcomes[count.outcome] = (row.outcomes[count.outcome] ?? 0) + count.calls;
    row.lastAt = Math.max(row.lastAt, count.lastAt);
    rows.set(key, row);
  }
  // Outcomes in the vocabulary's order, so every store reports them alike.
  for (const row of rows.values()) row.outcomes = Object.fromEntries(OUTCOME_KINDS.filter((kind) => row.outcomes[kind] !== undefined).map((kind) => [kind, row.outcomes[kind]]));
  return [...rows.values()].sort((a, b) => byTrouble(a, b, `${a.source}\u0000${a.tool}`, `${b.source}\u0000${b.tool}`));
}

/** Most strikes, then most calls, then by name, so that equal rows keep one order in every store. */
export function byTrouble(a: { strikes: number; calls: number }, b: { strikes: number; calls: number }, nameA: string, nameB: string): number {
  if (a.strikes !== b.strikes) return b.strikes - a.strikes;
  if (a.calls !== b.calls) return b.calls - a.calls;
  return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
}

/**
 * What one run of records (record-runs.ts: calls of one tool and outcome, or
 * one strike) adds to the script counters: one count per script source among
 * them, in the order first seen; none for records no script made.
 */
export function scriptCountsOf(run: readonly { call: CallRecord }[]): ScriptCallCount[] {
  const bySource = new Map<string, ScriptCallCount>();
  for (const { call } of run) {
    if (call.via === undefined) continue;
    const strikes = isStrike(call.outcome) ? 1 : 0;
    const count = bySource.get(call.via);
    if (count === undefined) bySource.set(call.via, { script: call.via, source: call.source, tool: call.tool, outcome: call.outcome, calls: 1, strikes, lastAt: call.at });
    else Object.assign(count, { calls: count.calls + 1, strikes: count.strikes + strikes, lastAt: Math.max(count.lastAt, call.at) });
  }
  return [...bySource.values()];
}

/**
 * Rows are parsed on the way out: another process, or another corral, may
 * have written them. A kind this corral does not know (a newer one wrote it)
 * is left out (null) rather than misnamed.
 */
export function toScriptCallCount(row: ScriptCallDbRow): ScriptCallCount | null {
  if (!OutcomeKind.safeParse(row.outcome).success) return null;
  return ScriptCallCount.parse({ script: row.via, source: row.source, tool: row.tool, outcome: row.outcome, calls: row.calls, strikes: row.strikes, lastAt: row.last_at });
}

export function toScriptCaller(row: ScriptCallerDbRow): ScriptCallerRow {
  return ScriptCallerRow.parse({ script: row.via, calls: row.calls, strikes: row.strikes, lastAt: row.last_at });
}
