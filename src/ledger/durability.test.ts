/**
 * @module src/ledger/durability.test
 * A host killed at any moment loses at most the call in flight. A real
 * child process (testing/record-loop.js) records calls into a SQLite ledger
 * and says so after each record() returns; the test kills it with SIGKILL
 * mid-run, reopens the file, and checks that every reported call is there,
 * counted exactly, and that quarantines made before the kill survived.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join, dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { Ledger } from "./ledger.js";
import { sumTotals } from "./report.js";
import { HELD_REASON, HELD_SOURCE, LOOP_SOURCE, loopCall } from "./testing/loop-calls.js";
import { tempDir } from "./testing/fixtures.js";
import { emptyTotals, isStrike, type Totals } from "./types.js";

const LOOP_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "testing", "record-loop.js");
const KEPT_STRIKES = 10;

type Run = { reported: number; signal: NodeJS.Signals | null; code: number | null; quarantinedFirst: boolean };

/** Runs the child until it has reported `killAfter` records, kills it, and reads every line it wrote. */
async function runAndKill(path: string, killAfter: number): Promise<Run> {
  const child = spawn(process.execPath, [LOOP_SCRIPT, path], { stdio: ["ignore", "pipe", "inherit"] });
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

const dir = tempDir();
after(() => dir.remove());

describe("the SQLite ledger survives SIGKILL", { timeout: 60_000 }, () => {
  for (const killAfter of [300, 1_500, 4_000]) {
    it(`loses at most the call in flight when killed after ${killAfter} reported records`, async (t) => {
      const path = join(dir.path, `killed-${killAfter}.db`);
      const run = await runAndKill(path, killAfter);
      assert.equal(run.signal, "SIGKILL", `the child was killed mid-run (exit code ${run.code})`);
      assert.equal(run.quarantinedFirst, true);
      assert.ok(run.reported >= killAfter);

      const raw = new Database(path, { readonly: true });
      assert.equal(raw.pragma("integrity_check", { simple: true }), "ok");
      raw.close();

      const ledger = new Ledger({ store: path, recentStrikes: KEPT_STRIKES });
      try {
        const report = await ledger.sourceReport(LOOP_SOURCE);
        assert.ok(report !== null);
        const stored = report.totals.calls;
        t.diagnostic(`killed after ${killAfter}: the child reported ${run.reported} records, the reopened file holds ${stored}`);
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
    });
  }
});
