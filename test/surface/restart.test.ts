/**
 * A host killed with SIGKILL in the middle of a run, and started again, shows
 * the same counts and the same quarantine: a tool cannot clear its record by
 * taking the host down.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir, withHost } from "../helpers/host.js";

const CHILD = fileURLToPath(new URL("../helpers/host-call-loop.js", import.meta.url));

/**
 * Runs the call loop until it has reported 12 calls, kills it, and checks the
 * ledger against what it reported. `lateRecords`: how many reported calls may
 * be missing (a record written behind its result, not committed at the kill).
 */
async function killMidRunAndCheck(commitBeforeResult: "strikes" | "all", lateRecords: number): Promise<void> {
  const dir = tempDir();
  try {
    const ledger = join(dir.path, "ledger.db");
    const lines: { tool: string; outcome: string }[] = [];
    const child = spawn(process.execPath, [CHILD, ledger, join(dir.path, "cache"), commitBeforeResult], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      let buffer = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        let index;
        while ((index = buffer.indexOf("\n")) >= 0) {
          lines.push(JSON.parse(buffer.slice(0, index)));
          buffer = buffer.slice(index + 1);
          if (lines.length === 12) child.kill("SIGKILL");
        }
      });
      child.on("exit", () => resolve());
      child.on("error", reject);
    });
    assert.ok(lines.length >= 12);
    const count = (tool: string, outcome?: string) => lines.filter((l) => l.tool === tool && (outcome === undefined || l.outcome === outcome)).length;
    // The spinner's first three calls time out; then its source is quarantined.
    assert.equal(count("spin", "timeout"), 3);
    assert.equal(count("spin", "quarantined"), count("spin") - 3);

    await withHost(
      async (host) => {
        const rows = await host.audit();
        const spinner = rows.find((r) => r.source === "agent:spinner");
        const steady = rows.find((r) => r.source === "agent:steady");
        // Strikes always commit before their result: every one is there.
        assert.equal(spinner?.state.state, "quarantined");
        assert.equal(spinner?.totals.outcomes.timeout, 3);
        // Every other reported call is there but at most `lateRecords`; at most the one in flight more.
        const spinCalls = spinner?.totals.calls ?? 0;
        const steadyCalls = steady?.totals.calls ?? 0;
        const within = (recorded: number, reported: number) => recorded - reported >= -lateRecords && recorded - reported <= 1;
        assert.ok(within(spinCalls, count("spin")), `spin: ${spinCalls} recorded, ${count("spin")} reported`);
        assert.ok(within(steadyCalls, count("steady")), `steady: ${steadyCalls} recorded, ${count("steady")} reported`);
        assert.ok(within(spinCalls + steadyCalls, lines.length), `${spinCalls + steadyCalls} recorded, ${lines.length} reported`);
        assert.equal(steady?.totals.strikes, 0);
      },
      { ledger: { store: ledger } },
    );
  } finally {
    dir.remove();
  }
}

describe("restart after SIGKILL", { timeout: 180_000 }, () => {
  it("keeps every reported call and the quarantine when every record commits before its result", async () => {
    await killMidRunAndCheck("all", 0);
  });

  it("keeps every strike and the quarantine, and all but the last calls, when other records are written behind", async () => {
    // Records written behind commit within COMMIT_BEHIND_MS of their call's answer. The loop waits three
    // times that after each call, so only the last reported call's record can be lost; 2 leaves room for the
    // call after it, answered between the last line the parent read and the kill.
    await killMidRunAndCheck("strikes", 2);
  });
});
