/**
 * @module src/codemode/script-tally
 * A running script as CodeMode keeps it: whom it runs for, its fast lane,
 * and the tally of what it called (counts by kind, the first calls listed
 * one by one) that its result's `details` carry. Every call a script makes,
 * host-routed, fast or refused, is noted here once.
 */
import type { CallReply } from "../../sandbox/shared/replies.js";
import type { Caller, CatalogEntry, ScriptCallContext, ScriptEnd } from "../registry/index.js";

/** At most this many calls are listed one by one in a script's details; the rest are only counted. */
const MAX_LISTED_CALLS = 1_000;

export type ScriptCall = { tool: string; kind: string; ms: number };

export type Script = {
  /** The script's source (`code:<caller id>`): its tool calls' records name it (`via`). */
  source: string;
  caller: Caller;
  context: ScriptCallContext;
  calls: number;
  inFlight: number;
  listed: ScriptCall[];
  byKind: Record<string, number>;
  ended: boolean;
  /** The fast lane's tools, as the worker indexes them. */
  fast: CatalogEntry[];
  /** Calls that ran on the fast lane (a record each from the worker, not a request each). */
  fastCalls: number;
  /** The fast records' commits so far: a host-routed call and the script's result wait for them. */
  recorded: Promise<void>;
};

/** What ended a fast call: the worker's reply, or a worker death charged to it. */
export type FastEnded = { reply: CallReply } | { death: Pick<NonNullable<ScriptEnd["culprit"]>, "kind" | "message"> };

export function openScript(source: string, caller: Caller, context: ScriptCallContext, fast: CatalogEntry[]): Script {
  return { source, caller, context, calls: 0, inFlight: 0, listed: [], byKind: {}, ended: false, fast, fastCalls: 0, recorded: Promise.resolve() };
}

/** Counts one call of `tool` that ended as `kind` after `ms`, and lists it while the list has room. */
export function noteCall(script: Script, tool: string, kind: string, ms: number): void {
  script.calls++;
  script.byKind[kind] = (script.byKind[kind] ?? 0) + 1;
  if (script.listed.length < MAX_LISTED_CALLS) script.listed.push({ tool: tool.slice(0, 64), kind, ms: Math.round(ms * 100) / 100 });
}

/** What the script's result carries in `details`: its calls, their count by kind, and how many were not listed. */
export function scriptDetails(script: Script): Record<string, unknown> {
  const details: Record<string, unknown> = { calls: script.listed, callCount: script.calls, callsByKind: script.byKind, fastCalls: script.fastCalls };
  if (script.calls > script.listed.length) details.callsNotListed = script.calls - script.listed.length;
  return details;
}
