/**
 * @module src/ledger/testing/loop-calls
 * The calls the record-loop child records, as a pure function of their
 * index, so the parent test can recompute exactly what the first N calls
 * must have left in the ledger.
 */
import type { OutcomeKind } from "../../result.js";
import type { CallRecord } from "../types.js";
import { versionOf } from "./fixtures.js";

export const LOOP_SOURCE = "agent:record-loop";
/** Quarantined by hand before the loop starts: it must survive the kill. */
export const HELD_SOURCE = "host:held";
export const HELD_REASON = "held before the kill";

/** Every 7th call is a timeout and every 11th a crash, among ok calls and tool errors. */
const CYCLE: readonly OutcomeKind[] = ["ok", "tool_error", "ok", "invalid_input", "ok", "cancelled", "timeout"];

export function loopCall(index: number, at: number): CallRecord {
  const outcome: OutcomeKind = index % 11 === 10 ? "crash" : (CYCLE[index % CYCLE.length] ?? "ok");
  const call: CallRecord = {
    source: LOOP_SOURCE,
    tool: `t${index % 3}`,
    version: versionOf(`loop-${Math.floor(index / 100)}`),
    callId: `c${index}`,
    outcome,
    wallMs: index % 10,
    cpuMs: 0,
    heapBytes: index,
    at,
  };
  if (outcome === "timeout" || outcome === "crash" || outcome === "tool_error") call.message = `m${index}`;
  return call;
}
