/**
 * @module src/ledger/testing/fixtures
 * Test material for the ledger's tests and the record-loop child: a clock
 * the test moves by hand, call records with sensible defaults, versions as
 * real sha256 hashes, and temporary folders. Not part of the public API.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallRecord } from "../types.js";

export const MINUTE_MS = 60_000;
/** A fixed start, so times in failures read the same on every run. */
export const T0 = Date.UTC(2025, 0, 1);

export type ManualClock = { now: () => number; advance: (ms: number) => number; set: (ms: number) => void };

export function manualClock(start = T0): ManualClock {
  let time = start;
  return {
    now: () => time,
    advance: (ms) => (time += ms),
    set: (ms) => {
      time = ms;
    },
  };
}

export function versionOf(label: string | number): string {
  return createHash("sha256").update(String(label)).digest("hex");
}

let sequence = 0;

export function makeCall(overrides: Partial<CallRecord> = {}): CallRecord {
  sequence += 1;
  return {
    source: "agent:alpha",
    tool: "echo",
    version: versionOf(1),
    callId: `call-${sequence}`,
    outcome: "ok",
    wallMs: 2,
    cpuMs: 1,
    heapBytes: 1_000,
    at: T0,
    ...overrides,
  };
}

/** A temporary folder, removed by the returned function. */
export function tempDir(prefix = "corral-ledger-"): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
