/**
 * @module src/ledger/testing/kill-check
 * The durability check every store on disk or on a server must pass: a
 * real child process (record-loop.js) records calls into the ledger named
 * by `store` (a SQLite file or a postgres:// URL) and says so after each
 * record() returns; it is killed with SIGKILL mid-run, and the ledger is
 * read again: every reported call is there, counted exactly, at most the
 * call in flight more, and the quarantines made before the kill survived.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join, dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { TestContext } from "node:test";
import { Ledger } from "../ledger.js";
import { sumTotals } from "../report.js";
import { emptyTotals, isStrike, type Totals } from "../types.js";
import { HELD_REASON, HELD_SOURCE, LOOP_SOURCE, loopCall } from "./loop-calls.js";

const LOOP_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "record-loop.js");
const KEPT_STRIKES = 10;

type Run = { reported: number; signal: NodeJS.Signals | null; code: number | null; quarantinedFirst: boolean };

/** Runs the child until it has reported `killAfter` records, kills it, and reads every line it wrote. */
async function runAndKill(store: string, killAfter: number): Promise<Run> {
  const child = spawn(process.execPath, [LOOP_SCRIPT, store], { stdio: ["ignore", "pipe", "inherit"] });
  let reported = 0;
  let quarantinedFirst = false;
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    if (line === "quarantined") {
      quarantinedFirst = reported === 0;
      return;
    }
    // Lines must name the calls in order: a gap would mean a record reported out of turn.
    assert.equal(line, `recorded ${reported}`);
    reported += 1;
    if (reported === killAfter) child.kill("SIGKILL");
  });
  const [code, signal] = (await new Promise((resolve) => child.once("close", (...args) => resolve(args)))) as [number | null, NodeJS.Signals | null];
  return { reported, signal, code, quarantinedFirst };
}

/** What the first `count` loop calls must have left: totals per tool, versions, the kept strikes. */
function expected(count: number): { tools: Map<string, Totals>; versions: number; strikeIds: string[] } {
  const tools = new Map<string, Totals>();
  const versions = new Set<string>();
  const strikeIds: string[] = [];
  for (let index = 0; index < count; index++) {
    const call = loopCall(index, 0);
    const totals = tools.get(call.tool) ?? emptyTotals();
    totals.calls += 1;
    totals.outcomes[call.outcome] += 1;
    if (isStrike(call.outcome)) {
      totals.strikes += 1;
      strikeIds.unshift(call.callId);
    }
    totals.totalWallMs += call.wallMs;
    tools.set(call.tool, totals);
    versions.add(call.version);
  }
  return { tools, versions: versions.size, strikeIds: strikeIds.slice(0, KEPT_STRIKES) };
}

/** Kills a child recording into `store` after `killAfter` reported records; `afterKill` may look at the store first (an integrity check). */
export async function checkKilledLoop(t: TestContext, store: string, killAfter: number, afterKill: () => void = () => undefined): Promise<void> {
  const run = await runAndKill(store, killAfter);
  assert.equal(run.signal, "SIGKILL", `the child was killed mid-run (exit code ${run.code})`);
  assert.equal(run.quarantinedFirst, true);
  assert.ok(run.reported >= killAfter);
  afterKill();

  const ledger = new Ledger({ store, recentStrikes: KEPT_STRIKES });
  try {
    const report = await ledger.sourceReport(LOOP_SOURCE);
    assert.ok(report !== null);
    const stored = report.totals.calls;
    t.diagnostic(`killed after ${killAfter}: the child reported ${run.reported} records, the ledger holds ${stored}`);
    assert.ok(stored >= run.reported, `every reported call is stored (${stored} < ${run.reported})`);
    assert.ok(stored <= run.reported + 1, `at most the call in flight is extra (${stored} > ${run.reported} + 1)`);

    const want = expected(stored);
    assert.equal(report.versions, want.versions);
    assert.deepEqual(report.strikes.map((s) => s.callId), want.strikeIds);
    for (const tool of report.tools) {
      const totals = want.tools.get(tool.tool);
      assert.ok(totals !== undefined, `unexpected tool ${tool.tool}`);
      assert.deepEqual(tool.totals.outcomes, totals.outcomes, `outcome counts of ${tool.tool}`);
      assert.equal(tool.totals.calls, totals.calls);
      assert.equal(tool.totals.strikes, totals.strikes);
      assert.equal(tool.totals.totalWallMs, totals.totalWallMs);
    }
    assert.equal(report.tools.length, want.tools.size);
    assert.deepEqual(report.totals.outcomes, sumTotals([...want.tools.values()]).outcomes);

    assert.equal(report.state.state, "quarantined", "the policy's quarantine (3 strikes in seconds) survived");
    assert.equal(report.events.filter((e) => e.kind === "quarantine").length, 1);
    const held = await ledger.check(HELD_SOURCE);
    assert.equal(held.state, "quarantined");
    assert.equal(held.state === "quarantined" && held.reason, HELD_REASON);
    assert.equal(held.state === "quarantined" && held.until, null);
  } finally {
    await ledger.close();
  }
}
