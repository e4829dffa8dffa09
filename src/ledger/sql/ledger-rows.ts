/**
 * @module src/ledger/sql/ledger-rows
 * How the rows of the ledger's tables become the ledger's types, in both
 * dialects: the SQLite and the PostgreSQL store read the same columns
 * (postgres/sql.ts returns SQLite's shapes), so one parser and one shaping
 * of a source's report serve both. Rows are parsed on the way out (zod),
 * never trusted as typed: another process, or another version of corral,
 * may have written them.
 */
import { z } from "zod";
import { OutcomeKind } from "../../result.js";
import type { StoredSource, StoredSourceDetail, StoredTool } from "../store.js";
import { LedgerEvent, SourceState, StrikeEntry, ToolErrorEntry, ToolVersionCounts, emptyTotals } from "../types.js";
import type { ToolErrorDbRow, ToolVersionDbRow } from "./tool-counts-sql.js";

export type StateRow = { source: string; state: string; since: number | null; until: number | null; reason: string | null; actor: string | null; last_version?: string | null };
export type ToolDbRow = {
  source: string; tool: string; calls: number; strikes: number; outcomes: string; total_wall_ms: number; total_cpu_ms: number; last_wall_ms: number;
  max_heap_bytes: number; last_call_at: number; last_strike_at: number | null; last_strike_outcome: string | null; last_strike_message: string | null;
};
export type StrikeRow = { source: string; tool: string; version: string; call_id: string; outcome: string; message: string; at: number; caller: string | null };
export type EventRow = { at: number; source: string; kind: string; reason: string; until: number | null; actor: string };

/** Rows are parsed on the way out: another process, or an older corral, may have written them. */
export function toState(row: StateRow): SourceState {
  if (row.state === "active") return SourceState.parse({ source: row.source, state: "active", since: row.since });
  return SourceState.parse({ source: row.source, state: row.state, since: row.since, until: row.until, reason: row.reason, actor: row.actor });
}

export function toStrike(row: StrikeRow): StrikeEntry {
  return StrikeEntry.parse({ at: row.at, tool: row.tool, version: row.version, callId: row.call_id, outcome: row.outcome, message: row.message, ...(row.caller !== null ? { caller: row.caller } : {}) });
}

const OutcomeCountsJson = z.record(z.string(), z.number().int().nonnegative());

/** A tool's rows of version 5 (sql/tool-counts-sql.ts), each list as read. */
export type ToolCountRows = { toolVersions: ToolVersionDbRow[]; toolErrors: ToolErrorDbRow[] };

export function toToolVersion(row: ToolVersionDbRow): ToolVersionCounts {
  return ToolVersionCounts.parse({ version: row.version, calls: row.calls, errors: row.errors, strikes: row.strikes, firstSeenAt: row.first_at });
}

export function toToolError(row: ToolErrorDbRow): ToolErrorEntry {
  return ToolErrorEntry.parse({ at: row.at, version: row.version, callId: row.call_id, outcome: row.outcome, message: row.message, ...(row.caller !== null ? { caller: row.caller } : {}) });
}

/** Rows grouped by (source, tool), in the order read. */
export function byTool<R extends { source: string; tool: string }, T>(rows: readonly R[], map: (row: R) => T): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.source, row.tool]);
    const list = grouped.get(key);
    if (list === undefined) grouped.set(key, [map(row)]);
    else list.push(map(row));
  }
  return grouped;
}

export function toolsBySource(rows: ToolDbRow[], counts: ToolCountRows): Map<string, StoredTool[]> {
  const versions = byTool(counts.toolVersions, toToolVersion);
  const errors = byTool(counts.toolErrors, toToolError);
  const bySource = new Map<string, StoredTool[]>();
  for (const row of rows) {
    const totals = emptyTotals();
    Object.assign(totals, {
      calls: row.calls, strikes: row.strikes, totalWallMs: row.total_wall_ms, totalCpuMs: row.total_cpu_ms,
      // A row a load made (no call yet) holds zeros where "last" has no value.
      lastWallMs: row.calls === 0 ? null : row.last_wall_ms, maxHeapBytes: row.max_heap_bytes, lastCallAt: row.calls === 0 ? null : row.last_call_at,
    });
    for (const [name, calls] of Object.entries(OutcomeCountsJson.parse(JSON.parse(row.outcomes)))) {
      const kind = OutcomeKind.safeParse(name);
      // A kind this corral does not know (a newer one wrote it) still counts among `calls`, just not by name.
      if (kind.success) totals.outcomes[kind.data] = calls;
    }
    const lastStrike = row.last_strike_at === null ? null : { at: row.last_strike_at, outcome: OutcomeKind.parse(row.last_strike_outcome), message: row.last_strike_message ?? "" };
    const key = JSON.stringify([row.source, row.tool]);
    const tool = { tool: row.tool, totals, lastStrike, versions: versions.get(key) ?? [], lastErrors: errors.get(key) ?? [] };
    bySource.set(row.source, [...(bySource.get(row.source) ?? []), tool]);
  }
  return bySource;
}

/** What listSources reads, in one snapshot: every source's state row and the counts beside it. */
export type SourcesRows = { sources: StateRow[]; versionCounts: { source: string; n: number }[]; lastStrikes: StrikeRow[]; tools: ToolDbRow[] } & ToolCountRows;

export function toStoredSources(rows: SourcesRows): StoredSource[] {
  const versions = new Map(rows.versionCounts.map((row) => [row.source, row.n]));
  const lastStrikes = new Map(rows.lastStrikes.map((row) => [row.source, toStrike(row)]));
  const tools = toolsBySource(rows.tools, rows);
  return rows.sources.map((row) => ({
    state: toState(row),
    versions: versions.get(row.source) ?? 0,
    lastVersion: row.last_version ?? null,
    lastStrike: lastStrikes.get(row.source) ?? null,
    tools: tools.get(row.source) ?? [],
  }));
}

/** What readSource reads of one source, in one snapshot; `strikes` holds at least one row when there is one. */
export type SourceRows = { state: StateRow; versions: number; strikes: StrikeRow[]; tools: ToolDbRow[]; events: EventRow[] } & ToolCountRows;

export function toStoredSourceDetail(source: string, rows: SourceRows, limits: { strikes: number }): StoredSourceDetail {
  const strikes = rows.strikes.map(toStrike);
  return {
    state: toState(rows.state),
    versions: rows.versions,
    lastVersion: rows.state.last_version ?? null,
    lastStrike: strikes[0] ?? null,
    tools: toolsBySource(rows.tools, rows).get(source) ?? [],
    events: rows.events.map((event) => LedgerEvent.parse(event)),
    strikes: strikes.slice(0, limits.strikes),
  };
}
