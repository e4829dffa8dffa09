/**
 * @module src/pool/process-memory
 * Reads another process's resident memory from /proc without its help. Where
 * /proc is missing (not Linux), it answers undefined and the RSS watch is off;
 * the isolate's own memory limit still holds there.
 */
import { readFileSync } from "node:fs";

const PAGE_BYTES = 4096;

export function residentBytes(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/statm`, "latin1").split(" ");
    const pages = Number(fields[1]);
    return Number.isFinite(pages) ? pages * PAGE_BYTES : undefined;
  } catch {
    return undefined;
  }
}
