/**
 * @module src/host/call-record
 * The end of every call (call-path.ts, and a Code Mode script's fast nested
 * calls: fast-calls.ts): its record in the ledger (a strike committed
 * before the result returns, any other outcome queued and written behind),
 * the audit line, `tool_execution_end`.
 */
import { isStrike } from "../ledger/index.js";
import { recordOwnCall } from "../ledger/ledger.js";
import type { Caller, CatalogEntry } from "../registry/index.js";
import type { OutcomeKind, ToolResult } from "../result.js";
import type { CallDeps } from "./call-path.js";

export async function finish(deps: CallDeps, result: ToolResult, entry: CatalogEntry | undefined, input: unknown, caller: Caller | undefined, via: string | undefined): Promise<void> {
  const outcome = result.ok ? "ok" : result.error.kind;
  if (entry !== undefined) {
    // A strike is committed before its result returns (SECURITY.md, promise 5). By
    // default any other outcome is written behind: its record is queued now, in call
    // order, and commits with a later group commit while the caller has its answer.
    const waits = deps.commitBeforeResult === "all" || isStrike(outcome);
    const recorded = record(deps, result, entry, outcome, !waits, caller, via);
    if (waits) await recorded;
  }
  if (deps.logger.isLevelEnabled("info")) deps.logger.info(
    {
      event: "call",
      tool: result.tool,
      source: result.source,
      version: result.version,
      callId: result.callId,
      ...(caller !== undefined ? { caller: caller.id } : {}),
      ...(via !== undefined ? { via } : {}),
      outcome,
      wallMs: Math.round(result.metrics.wallMs * 100) / 100,
      cpuMs: Math.round(result.metrics.cpuMs * 100) / 100,
      heapBytes: result.metrics.heapBytes,
      ...(deps.logToolData ? { input, output: result.ok ? result.output : undefined } : {}),
    },
    "tool call",
  );
  if (deps.events.listened) deps.events.emit({ type: "tool_execution_end", callId: result.callId, tool: result.tool, ...(result.source ? { source: result.source } : {}), result, at: Date.now() });
}

/** Queues the call's record at once (so records keep call order); settles once it has committed, never rejects. */
function record(deps: CallDeps, result: ToolResult, entry: CatalogEntry, outcome: OutcomeKind, writeBehind: boolean, caller: Caller | undefined, via: string | undefined): Promise<void> {
  // Only the id is kept for the log line: the record may wait for a later commit, and it should not keep the result alive meanwhile.
  const callId = result.callId;
  // A closed ledger rejects; it never throws here.
  return recordOwnCall(
    deps.ledger,
    {
      source: entry.source,
      tool: entry.manifest.name,
      version: entry.version,
      callId,
      outcome,
      wallMs: result.metrics.wallMs,
      cpuMs: result.metrics.cpuMs,
      heapBytes: result.metrics.heapBytes,
      ...(result.ok ? {} : { message: result.error.message }),
      ...(caller !== undefined ? { caller: caller.id } : {}),
      ...(via !== undefined ? { via } : {}),
    },
    writeBehind,
  ).then(
    (applied) => deps.quarantine.learn(applied.state),
    // The ledger must not turn a finished call into a throw; say so loudly.
    (error: unknown) => deps.logger.error({ err: error, callId }, "the ledger could not record a call"),
  );
}
