/**
 * @module src/ledger/report
 * Turns what a store keeps into what an operator reads: a source's totals
 * summed over its tools, strike rates, and the order of trouble. Pure, so
 * every store reports the same way.
 *
 * Order of trouble: quarantined sources first, then by strikes (most first:
 * they are what the policy quarantines for), then by error rate (every
 * non-ok call, so a tool that answers tool_error on a third of its calls
 * ranks above the healthy ones), then by strike rate, then by name so that
 * equal rows keep a stable order.
 */
import type { StoredSource, StoredTool } from "./store.js";
import { OUTCOME_KINDS } from "../result.js";
import { emptyTotals, type SourceRow, type ToolRow, type ToolVersionCounts, type Totals } from "./types.js";

export function toSourceRow(stored: StoredSource): SourceRow {
  const tools = stored.tools.map(toToolRow).sort(byToolTrouble);
  const totals = sumTotals(stored.tools.map((tool) => tool.totals));
  return {
    source: stored.state.source,
    state: stored.state,
    versions: stored.versions,
    lastVersion: stored.lastVersion,
    totals,
    strikeRate: rate(totals),
    errorRate: errorRate(totals),
    lastStrike: stored.lastStrike,
    tools,
  };
}

export function byTrouble(a: SourceRow, b: SourceRow): number {
  const quarantined = Number(b.state.state === "quarantined") - Number(a.state.state === "quarantined");
  if (quarantined !== 0) return quarantined;
  if (a.totals.strikes !== b.totals.strikes) return b.totals.strikes - a.totals.strikes;
  if (a.errorRate !== b.errorRate) return b.errorRate - a.errorRate;
  if (a.strikeRate !== b.strikeRate) return b.strikeRate - a.strikeRate;
  return a.source < b.source ? -1 : a.source > b.source ? 1 : 0;
}

function toToolRow(tool: StoredTool): ToolRow {
  return {
    tool: tool.tool,
    totals: tool.totals,
    strikeRate: rate(tool.totals),
    errorRate: errorRate(tool.totals),
    lastStrike: tool.lastStrike,
    versions: [...tool.versions].sort(newestVersionFirst),
    lastErrors: tool.lastErrors,
  };
}

/** Newest first by when the source was first seen at it; a version never noted last; then by hash, for a stable order. */
export function newestVersionFirst(a: ToolVersionCounts, b: ToolVersionCounts): number {
  const first = (b.firstSeenAt ?? -1) - (a.firstSeenAt ?? -1);
  return first !== 0 ? first : a.version < b.version ? -1 : a.version > b.version ? 1 : 0;
}

function byToolTrouble(a: ToolRow, b: ToolRow): number {
  if (a.totals.strikes !== b.totals.strikes) return b.totals.strikes - a.totals.strikes;
  if (a.errorRate !== b.errorRate) return b.errorRate - a.errorRate;
  if (a.totals.calls !== b.totals.calls) return b.totals.calls - a.totals.calls;
  return a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0;
}

/** A source's totals: the sum of its tools', with "last" taken from the tool called last. */
export function sumTotals(parts: readonly Totals[]): Totals {
  const sum = emptyTotals();
  let lastCallAt = -Infinity;
  for (const part of parts) {
    sum.calls += part.calls;
    sum.strikes += part.strikes;
    for (const kind of OUTCOME_KINDS) sum.outcomes[kind] += part.outcomes[kind];
    sum.totalWallMs += part.totalWallMs;
    sum.totalCpuMs += part.totalCpuMs;
    sum.maxHeapBytes = Math.max(sum.maxHeapBytes, part.maxHeapBytes);
    if (part.lastCallAt !== null && part.lastCallAt >= lastCallAt) {
      lastCallAt = part.lastCallAt;
      sum.lastCallAt = part.lastCallAt;
      sum.lastWallMs = part.lastWallMs;
    }
  }
  return sum;
}

function rate(totals: Totals): number {
  return totals.calls === 0 ? 0 : totals.strikes / totals.calls;
}

/** Non-ok calls / calls: every outcome kind but `ok`, strikes included. */
export function errorRate(totals: Totals): number {
  return totals.calls === 0 ? 0 : (totals.calls - totals.outcomes.ok) / totals.calls;
}
