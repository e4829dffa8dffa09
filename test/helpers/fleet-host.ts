/**
 * @module test/helpers/fleet-host
 * One host of the fleet test (test/surface/postgres-fleet.test.ts) and of
 * test/mcp/mcp-elsewhere.test.ts, in a process of its own: a real host (one
 * sandbox worker) on the ledger named by argv[2] (a PostgreSQL URL or a
 * SQLite file), with the hostile tool `spin` of HOSTILE_SOURCE loaded. It answers lines on stdin:
 *
 * - `burst <n>`: calls `spin` n times, one after another, and writes
 *   `result <outcome> <callId>` after each call returns (a strike's record
 *   has committed by then), then `burst done`;
 * - `probe`: one call, written as `probe <outcome>`;
 * - `exit`: closes the host and exits.
 *
 * Every ledger_store event is written as `store <type>`.
 */
import { createInterface } from "node:readline";
import { join } from "node:path";
import { createHost } from "../../src/index.js";
import { tempDir, toolSource } from "./host.js";

export const HOSTILE_SOURCE = "agent:fleet-hostile";

const url = process.argv[2];
if (url === undefined) throw new Error("usage: fleet-host.js <postgres url | ledger file> [strikes]");
const strikes = Number(process.argv[3] ?? 3);

const cache = tempDir("corral-fleet-");
const host = createHost({
  workers: 1,
  cacheDir: join(cache.path, "cache"),
  ledger: { store: url, policy: { strikes } },
  onEvent: (event) => {
    if (event.type === "ledger_store") process.stdout.write(`store ${event.status.type}\n`);
  },
});
const loaded = await host.load({ source: HOSTILE_SOURCE, code: toolSource({ name: "spin", extra: "limits: { timeoutMs: 40 },", run: "for (;;) {}" }) });
if (!loaded.ok) throw new Error(`the hostile tool did not load: ${loaded.error.message}`);
process.stdout.write("ready\n");

async function call(): Promise<{ outcome: string; callId: string }> {
  const result = await host.call("spin", {});
  return { outcome: result.ok ? "ok" : result.error.kind, callId: result.callId };
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, arg] = line.split(" ");
  if (command === "burst") {
    for (let i = 0; i < Number(arg); i++) {
      const { outcome, callId } = await call();
      process.stdout.write(`result ${outcome} ${callId}\n`);
    }
    process.stdout.write("burst done\n");
  } else if (command === "probe") {
    process.stdout.write(`probe ${(await call()).outcome}\n`);
  } else if (command === "exit") {
    break;
  }
}
await host.close();
cache.remove();
process.exit(0);
