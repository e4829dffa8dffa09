/**
 * @module src/ledger/testing/upgrade
 * What the schema-upgrade tests of both databases write before an upgrade
 * and check after it: records of every kind the older schema kept (a tool's
 * calls, a strike with its caller, a tool_error, a script's own call) stay
 * as they were; a script's tool call is counted against its script source,
 * and a tool's calls per version and its latest errors are kept, from then on.
 *
 * An older file is made by taking from a new one what the older schema did
 * not have (`V5_TABLES`, `V5_COLUMNS`): the rows the older corral wrote are
 * then exactly what it would have left.
 */
import assert from "node:assert/strict";
import type { Ledger } from "../ledger.js";
import type { SourceRow } from "../types.js";
import { T0, makeCall, versionOf } from "./fixtures.js";

/** What schema version 5 added, for the tests that make a version-4 (or older) ledger out of a new one. */
export const V5_TABLES = ["tool_versions", "tool_errors"];
export const V5_COLUMNS = ["errors", "cur_version", "cur_calls", "cur_errors", "cur_strikes"];

/** Records what an older corral would have; returns the summary to compare with after the upgrade. */
export async function recordBeforeUpgrade(ledger: Ledger): Promise<SourceRow[]> {
  await ledger.record(makeCall({ source: "agent:m", tool: "add", outcome: "ok", at: T0 }));
  await ledger.record(makeCall({ source: "agent:m", tool: "add", outcome: "timeout", message: "slow", caller: "mcp:s1", at: T0 + 1 }));
  await ledger.record(makeCall({ source: "agent:m", tool: "add", outcome: "tool_error", message: "bad sum", at: T0 + 2 }));
  await ledger.record(makeCall({ source: "code:mcp:s1", tool: "run_code", outcome: "ok", at: T0 + 2 }));
  return ledger.summary();
}

/** The summary an older ledger gives after the upgrade: the same counts, no calls per version, no messages kept per tool. */
function keptByAnOlderCorral(rows: SourceRow[]): SourceRow[] {
  return rows.map((row) => ({ ...row, tools: row.tools.map((tool) => ({ ...tool, versions: [], lastErrors: [] })) }));
}

/** `errorsColumn`: agent:m's add's `errors` as stored (the dashboard sums it), read from the database itself. */
export async function assertUpgraded(ledger: Ledger, before: SourceRow[], errorsColumn: () => Promise<number>): Promise<void> {
  assert.deepEqual(await ledger.summary(), keptByAnOlderCorral(before));
  // Filled at migration from the outcome counts: 2 of 3 calls were not ok.
  assert.equal(await errorsColumn(), 2);
  assert.equal((await ledger.sourceReport("agent:m"))?.tools[0]?.errorRate, 2 / 3);
  assert.deepEqual((await ledger.sourceReport("agent:m"))?.strikes.map((strike) => [strike.outcome, strike.caller]), [["timeout", "mcp:s1"]]);
  assert.deepEqual(await ledger.scriptTools("code:mcp:s1"), { script: "code:mcp:s1", total: 0, rows: [] });
  await ledger.record(makeCall({ source: "agent:m", tool: "add", outcome: "crash", message: "died", via: "code:mcp:s1", at: T0 + 3 }));
  assert.deepEqual((await ledger.scriptTools("code:mcp:s1")).rows, [{ source: "agent:m", tool: "add", calls: 1, strikes: 1, outcomes: { crash: 1 }, lastAt: T0 + 3 }]);
  assert.deepEqual(await ledger.scriptCallers("agent:m"), { source: "agent:m", total: 1, rows: [{ script: "code:mcp:s1", calls: 1, strikes: 1, lastAt: T0 + 3 }] });
  const tool = (await ledger.sourceReport("agent:m"))?.tools[0];
  assert.equal(tool?.totals.calls, 4);
  assert.equal(tool?.errorRate, 3 / 4);
  assert.deepEqual(tool?.versions, [{ version: versionOf(1), calls: 1, errors: 1, strikes: 1, firstSeenAt: T0 }]);
  assert.deepEqual(tool?.lastErrors.map((error) => [error.outcome, error.message]), [["crash", "died"]]);
  assert.equal(await errorsColumn(), 3);
}
