/**
 * @module src/host/fast-calls
 * The host's part in a Code Mode script's fast lane (sandbox/worker/fast-lane.ts):
 * which tools a script's worker may run without asking per call, judged once
 * as the script starts, and the record of each such call when it reaches
 * the host, made by the call path's own steps (call-path.ts).
 */
import type { CallReply } from "../../sandbox/shared/replies.js";
import type { FastTool } from "../../sandbox/shared/fast-lane-schemas.js";
import { decideEffects, defaultGate } from "../gate/index.js";
import type { PoolOutcome } from "../pool/index.js";
import type { Caller, CatalogEntry } from "../registry/index.js";
import { checkSourceId } from "../registry/source.js";
import type { ToolResult } from "../result.js";
import { resultOf, type CallDeps } from "./call-path.js";
import { finish } from "./call-record.js";
import type { CallInfo } from "./channels.js";
import type { CallOptions } from "./types.js";

/**
 * Whether a Code Mode script's worker may run `entry` for it without asking
 * the host per call (its fast lane), judged once as the script starts, by
 * the rules its every call would meet: a sandboxed tool, not quarantined
 * now (read afresh: a quarantine another process made counts), effects
 * declared and none (a capability would need the broker's judgement per
 * call), so the policy allows it without asking, no user gate (the gate
 * would be asked every call), and isolates kept between calls (not
 * `isolation: "call"`). Exposure is the caller's, judged before this.
 */
export async function fastToolOf(deps: CallDeps, entry: CatalogEntry): Promise<FastTool | undefined> {
  const { runner, manifest } = entry;
  if (runner.kind !== "sandbox" || deps.gate !== defaultGate || deps.isolationFor(entry.source) === "call") return undefined;
  if (manifest.effects === null || manifest.effects.length > 0) return undefined;
  if (decideEffects(deps.effectPolicy, checkSourceId(entry.source), manifest.effects) !== "allow") return undefined;
  if ((await deps.quarantine.check(entry.source)).state === "quarantined") return undefined;
  return { name: manifest.name, source: entry.source, bundle: runner.bundle, limits: deps.limitsFor(entry, {}) };
}

/**
 * A fast nested call's record, as runCall would have made it: its span, its
 * events, its ToolResult from the worker's reply (or the death charged to
 * it), the ledger (a strike is committed when `committed` settles), the
 * audit line. Emitted when the record reaches the host, not as the call ran.
 */
export function recordFastCall(
  deps: CallDeps,
  entry: CatalogEntry,
  fast: { callId: string; ended: { reply: CallReply } | { death: { kind: "timeout" | "memory" | "crash" | "cancelled"; message: string } } },
  caller: Caller,
  via: string,
  traceContext: CallOptions["traceContext"],
): { result: ToolResult; committed: Promise<void> } {
  const info: CallInfo = { tool: entry.manifest.name, callId: fast.callId, source: entry.source, version: entry.version };
  const span = deps.telemetry.startCall(info.tool, info.callId, traceContext);
  const at = Date.now();
  deps.events.emit({ type: "tool_execution_start", callId: info.callId, tool: info.tool, source: entry.source, at });
  deps.events.emit({ type: "tool_running", callId: info.callId, tool: info.tool, source: entry.source, at });
  const outcome: PoolOutcome = "reply" in fast.ended ? { ok: true, reply: fast.ended.reply } : { ok: false, ...fast.ended.death };
  const result = resultOf(deps, outcome, info);
  const committed = finish(deps, result, entry, undefined, caller, via).then(() => span.end(result));
  return { result, committed };
}
