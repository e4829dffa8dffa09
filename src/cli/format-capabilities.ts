/**
 * @module src/cli/format-capabilities
 * The capability part of `corral audit <source>`: a counter per tool,
 * effect and outcome, then the latest uses with their targets (never
 * bodies), newest first.
 */
import type { CapabilityUses } from "../capabilities/index.js";
import { capabilityStoreFor, LATEST_USES_SHOWN } from "../capabilities/index.js";
import { isoTime } from "./format-audit.js";
import { shorten } from "./format.js";


/** The source's capability record beside the ledger (its SQLite file or PostgreSQL schema); empty when no tool of it used one. */
export async function readCapabilityUses(ledgerFile: string, source: string): Promise<CapabilityUses> {
  const store = capabilityStoreFor(ledgerFile);
  try {
    return await store.readUses(source, LATEST_USES_SHOWN);
  } finally {
    await store.close();
  }
}

export function capabilityLines(report: CapabilityUses, lineChars: number): string[] {
  if (report.counters.length === 0) return ["", "capabilities: none used"];
  const lines = ["", "capabilities (uses by tool, effect and outcome):"];
  for (const counter of report.counters) {
    lines.push(
      `  ${shorten(`${counter.tool} ${counter.effect} ${counter.outcome}: ${counter.uses} uses, ${counter.bytes} bytes, last ${counter.lastTarget}`, lineChars - 2)}`,
    );
  }
  lines.push("", "latest capability uses:");
  for (const use of report.latest) {
    const why = use.message === undefined ? "" : `: ${use.message}`;
    lines.push(`  ${shorten(`${isoTime(use.at)} ${use.tool} ${use.operation} ${use.target} → ${use.outcome} (${use.bytes} bytes)${why}`, lineChars - 2)}`);
  }
  return lines;
}
