/**
 * @module src/capabilities/capability-store
 * What the capability layer keeps, and where: each source's `ctx.state`
 * (key → JSON text, under a quota of bytes and keys) and the record of
 * capability use (a counter per source, tool, effect and outcome, plus the
 * latest uses with their targets, never bodies). It lives beside the
 * ledger: a table pair in the ledger's SQLite file, or memory for a memory
 * ledger. A server database (the PostgreSQL ledger) implements this same
 * interface; one suite (capability-store.case.ts) runs against each store.
 */
import type { CapabilityErrorCode } from "../../sandbox/shared/capability-messages.js";

export type StateLimits = { quotaBytes: number; maxKeys: number };

/** `ok`, or why the use failed (CAPABILITY_ERROR_CODES). */
export type CapabilityOutcome = "ok" | CapabilityErrorCode;

/** One use of a capability: what was asked for and how it ended; no bodies. */
export type CapabilityUse = {
  source: string;
  tool: string;
  callId: string;
  effect: string;
  /** fetch, readFile, state.set, ... */
  operation: string;
  /** The URL (without query and credentials), the path, or the key. */
  target: string;
  bytes: number;
  outcome: CapabilityOutcome;
  /** Why it was refused or failed. */
  message?: string;
  at: number;
};

export type CapabilityCounter = { tool: string; effect: string; outcome: CapabilityOutcome; uses: number; bytes: number; lastTarget: string; lastAt: number };

export type StateUsage = { keys: number; bytes: number };

/** A source's record of capability use: its counters, and its latest uses, newest first. */
export type CapabilityUses = { counters: CapabilityCounter[]; latest: CapabilityUse[] };

/** How many of a source's latest uses an audit shows (`corral audit <source>`, host.auditSource). */
export const LATEST_USES_SHOWN = 20;

export interface CapabilityStore {
  readonly alive: boolean;
  /** The JSON text kept under `key`, or undefined. */
  stateGet(source: string, key: string): Promise<string | undefined>;
  /** Keys starting with `prefix`, in order, at most `limit`. */
  stateList(source: string, prefix: string, limit: number): Promise<string[]>;
  /**
   * Keeps `json` under `key` when the source's keys and bytes (key length +
   * JSON length, over all its keys, this one replaced) stay within `limits`;
   * answers the usage it would have had when they do not, and writes nothing.
   */
  stateSet(source: string, key: string, json: string, limits: StateLimits): Promise<{ ok: true } | { ok: false; usage: StateUsage }>;
  stateDelete(source: string, key: string): Promise<boolean>;
  stateUsage(source: string): Promise<StateUsage>;
  recordUse(use: CapabilityUse): Promise<void>;
  /** Counters of one source, and its latest uses, newest first. */
  readUses(source: string, latest: number): Promise<CapabilityUses>;
  close(): Promise<void>;
}

/** Uses kept per source with their targets; older ones are pruned (counters stay). */
export const LATEST_USES_KEPT = 200;

export function entryBytes(key: string, json: string): number {
  return Buffer.byteLength(key) + Buffer.byteLength(json);
}

/** A use as both SQL stores keep it (column names). */
export type CapabilityUseRow = { source: string; tool: string; call_id: string; effect: string; operation: string; target: string; bytes: number; outcome: string; message: string | null; at: number };
export type CapabilityCounterRow = { tool: string; effect: string; outcome: string; uses: number; bytes: number; last_target: string; last_at: number };

export function useFromRow(row: CapabilityUseRow): CapabilityUse {
  const use: CapabilityUse = { source: row.source, tool: row.tool, callId: row.call_id, effect: row.effect, operation: row.operation, target: row.target, bytes: row.bytes, outcome: row.outcome as CapabilityOutcome, at: row.at };
  if (row.message !== null) use.message = row.message;
  return use;
}

export function counterFromRow(row: CapabilityCounterRow): CapabilityCounter {
  return { tool: row.tool, effect: row.effect, outcome: row.outcome as CapabilityOutcome, uses: row.uses, bytes: row.bytes, lastTarget: row.last_target, lastAt: row.last_at };
}
