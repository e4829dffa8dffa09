/**
 * A child process for the restart test: runs a host on the given ledger and
 * cache, calls a tool that times out and one that works, alternately, and
 * prints one JSON line after each call returns. The parent kills it with
 * SIGKILL mid-run and checks the ledger kept every call it was told about.
 * The third argument is the host's `commitBeforeResult`. Calls are spaced
 * well past COMMIT_BEHIND_MS, so that only the last call's record can still
 * be waiting behind when the kill comes.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createHost } from "../../src/index.js";
import { COMMIT_BEHIND_MS } from "../../sandbox/shared/tuning.js";
import { toolSource } from "./host.js";

const [ledgerPath, cacheDir, commitBeforeResult] = process.argv.slice(2);
if (ledgerPath === undefined || cacheDir === undefined || (commitBeforeResult !== "strikes" && commitBeforeResult !== "all")) {
  throw new Error("usage: host-call-loop <ledger.db> <cacheDir> strikes|all");
}

const host = createHost({ workers: 1, cacheDir, ledger: { store: ledgerPath }, commitBeforeResult });
await host.load({ source: "agent:spinner", code: toolSource({ name: "spin", extra: "limits: { timeoutMs: 100 },", run: "for (;;) {}" }) });
await host.load({ source: "agent:steady", code: toolSource({ name: "steady", run: "return 'fine';" }) });
for (let i = 0; ; i++) {
  const tool = i % 2 === 0 ? "spin" : "steady";
  const result = await host.call(tool, {});
  process.stdout.write(`${JSON.stringify({ i, tool, outcome: result.ok ? "ok" : result.error.kind })}\n`);
  await sleep(COMMIT_BEHIND_MS * 3);
}
