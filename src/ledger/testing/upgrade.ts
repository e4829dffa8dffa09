/**
 * @module src/ledger/testing/upgrade
 * What the schema-upgrade tests of both databases write before an upgrade
 * and check after it: records of every kind the older schema kept (a tool's
 * calls, a strike with its caller, a script's own call) stay as they were,
 * and a script's tool call is counted against its script source from then on.
 */
import assert from "node:assert/strict";
import type { Ledger } from "../ledger.js";
import type { SourceRow } from "../types.js";
import { T0, makeCall } from "./fixtures.js";

/** Records what an older corral would have; returns the summary to compare with after the upgrade. */
export async function recordBeforeUpgrade(ledger: Ledger): Promise<SourceRow[]> {
  await ledger.record(makeCall({ source: "agent:m", tool: "add", outcome: "ok", at: T0 }));
  await ledger.record(makeCall({ source: "agent:m", tool: "add", outcome: "timeout", message: "slow", caller: "mcp:s1", at: T0 + 1 }));
  await ledger.record(makeCall({ source: "code:mcp:s1", tool: "run_code", outcome: "ok", at: T0 + 2 }));
  return ledger.summary();
}

export async function assertUpgraded(ledger: Ledger, before: SourceRow[]): Promise<void> {
  assert.deepEqual(await ledger.summary(), before);
  assert.deepEqual((await ledger.sourceReport("agent:m"))?.strikes.map((strike) => [strike.outcome, strike.caller]), [["timeout", "mcp:s1"]]);
  assert.deepEqual(await ledger.scriptTools("code:mcp:s1"), { script: "code:mcp:s1", total: 0, rows: [] });
  await ledger.record(makeCall({ source: "agent:m", tool: "add", outcome: "crash", via: "code:mcp:s1", at: T0 + 3 }));
  assert.deepEqual((await ledger.scriptTools("code:mcp:s1")).rows, [{ source: "agent:m", tool: "add", calls: 1, strikes: 1, outcomes: { crash: 1 }, lastAt: T0 + 3 }]);
  assert.deepEqual(await ledger.scriptCallers("agent:m"), { source: "agent:m", total: 1, rows: [{ script: "code:mcp:s1", calls: 1, strikes: 1, lastAt: T0 + 3 }] });
  assert.equal((await ledger.sourceReport("agent:m"))?.totals.calls, 3);
}
