/**
 * @module test/helpers/ledger-seed
 * Writes a real ledger file through the real Ledger (SQLite store): calls and
 * strikes of a few sources at chosen times, for dashboard tests and the
 * screenshot script.
 */
import { Ledger, UNTIL_RELEASED_POLICY } from "../../src/index.js";

export const VERSION = "a".repeat(64);
const OTHER_VERSION = "b".repeat(64);

export type SeedCall = { source: string; tool: string; outcome: string; at: number; message?: string; wallMs?: number };

/** Records `calls` in order, each at its own `at`, with a policy that never quarantines on its own (tests decide). */
export async function seedLedger(path: string, calls: readonly SeedCall[], options: { policy?: "never" | "default" } = {}): Promise<void> {
  let clock = 0;
  const ledger = new Ledger({ store: path, now: () => clock, ...(options.policy === "default" ? {} : { policy: { ...UNTIL_RELEASED_POLICY, strikes: 1_000 } }) });
  try {
    let index = 0;
    for (const call of calls) {
      clock = call.at;
      await ledger.record({
        source: call.source,
        tool: call.tool,
        version: index % 7 === 0 ? OTHER_VERSION : VERSION,
        callId: `call-${index++}`,
        outcome: call.outcome as "ok",
        wallMs: call.wallMs ?? 1 + (index % 13),
        cpuMs: 0.5,
        heapBytes: 1_500_000 + (index % 5) * 100_000,
        at: call.at,
        ...(call.message === undefined ? {} : { message: call.message }),
      });
    }
  } finally {
    await ledger.close();
  }
}

/** A ledger an operator might see: a crashing plugin, a spinning agent tool, healthy built-ins, with strikes over the last days. */
export function realisticCalls(now: number): SeedCall[] {
  const calls: SeedCall[] = [];
  const minute = 60_000;
  const add = (source: string, tool: string, outcome: string, at: number, message?: string) => calls.push({ source, tool, outcome, at, ...(message ? { message } : {}) });
  for (let i = 0; i < 400; i++) add("plugin:/opt/corral/plugins/web-fetch", i % 3 ? "fetch_page" : "extract_links", "ok", now - (i % 300) * 10 * minute);
  for (let i = 0; i < 60; i++) add("plugin:/opt/corral/plugins/pdf-text", "pdf_text", i % 9 === 0 ? "tool_error" : "ok", now - i * 37 * minute, i % 9 === 0 ? "the file is not a PDF" : undefined);
  for (let i = 0; i < 9; i++) add("plugin:/opt/corral/plugins/pdf-text", "pdf_text", i % 2 ? "memory" : "timeout", now - (i * 400 + 30) * minute, i % 2 ? "the isolate ran out of memory (64 MB)" : "the call ran past its limit of 5000 ms");
  for (let i = 0; i < 120; i++) add("agent:research-7f3a", "summarize_csv", i % 11 === 0 ? "invalid_input" : "ok", now - i * 5 * minute);
  for (let i = 0; i < 5; i++) add("agent:research-7f3a", "summarize_csv", "crash", now - (i * 7 + 2) * minute, "the sandbox worker died (SIGSEGV)");
  for (let i = 0; i < 200; i++) add("host:corral", i % 2 ? "tool_search" : "create_tool", "ok", now - i * 3 * minute);
  for (let i = 0; i < 40; i++) add("agent:scraper-01", "scrape", "ok", now - i * 20 * minute);
  for (let i = 0; i < 3; i++) add("agent:scraper-01", "scrape", "timeout", now - (i * 1500 + 600) * minute, "the call ran past its limit of 2000 ms");
  return calls.sort((a, b) => a.at - b.at);
}
