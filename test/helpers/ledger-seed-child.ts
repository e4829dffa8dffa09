/**
 * A separate process that records strikes in a ledger file, as another host
 * sharing it would: node ledger-seed-child.js <ledger> <source> <outcome> <count>
 */
import { seedLedger } from "./ledger-seed.js";

const [path, source, outcome, count] = process.argv.slice(2);
if (path === undefined || source === undefined || outcome === undefined) throw new Error("usage: ledger-seed-child <ledger> <source> <outcome> <count>");
const now = Date.now();
await seedLedger(
  path,
  Array.from({ length: Number(count ?? 1) }, (_, index) => ({ source, tool: "late_tool", outcome, at: now - index, message: "recorded by another process" })),
);
