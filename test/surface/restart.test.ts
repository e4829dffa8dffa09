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

describe("restart after SIGKILL", { timeout: 180_000 }, () => {
  it("keeps every reported call and the quarantine", async () => {
    const dir = tempDir();
    try {
      const ledger = join(dir.path, "ledger.db");
      const lines: { tool: string; outcome: string }[] = [];
      const child = spawn(process.execPath, [CHILD, ledger, join(dir.path, "cache")], { stdio: ["ignore", "pipe", "inherit"] });
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
          assert.equal(spinner?.state.state, "quarantined");
          assert.equal(spinner?.totals.outcomes.timeout, 3);
          // Every call the child reported is there; at most the one in flight more.
          const spinCalls = spinner?.totals.calls ?? 0;
          const steadyCalls = steady?.totals.calls ?? 0;
          assert.ok(spinCalls - count("spin") >= 0 && spinCalls - count("spin") <= 1, `spin: ${spinCalls} recorded, ${count("spin")} reported`);
          assert.ok(steadyCalls - count("steady") >= 0 && steadyCalls - count("steady") <= 1, `steady: ${steadyCalls} recorded, ${count("steady")} reported`);
          assert.ok(spinCalls + steadyCalls - lines.length <= 1);
          assert.equal(steady?.totals.strikes, 0);
        },
        { ledger: { store: ledger } },
      );
    } finally {
      dir.remove();
    }
  });
});
