// Sandbox worker processes seen from /proc (Linux): which children of this
// process are corral workers, their resident memory and CPU time, and waiting
// until freshly started ones have finished booting.
import { readFileSync } from "node:fs";
import { distUrl } from "./dist.mjs";

const CLOCK_TICKS_PER_S = 100;

/** Pids of this process's live children whose command line names tinypool's entry (corral's own reading of /proc). */
export const { tinypoolChildPids } = await import(distUrl("src/pool/process-memory.js"));

/** corral's workers only: tinypool children started with corral's worker settings. */
export function corralWorkerPids() {
  return tinypoolChildPids().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").includes("CORRAL_WORKER_SETTINGS=");
    } catch {
      return false;
    }
  });
}

/** VmRSS of `pid` in bytes, or undefined when it is gone. */
export function rssBytes(pid = process.pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** utime + stime of `pid` in ms, or undefined when it is gone. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // After "pid (comm) ": state is field 0; utime and stime are fields 11 and 12.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until `pids` use no CPU for `quietMs` (booted, warm-up done), or
 * `maxMs` passed. Answers how long it waited.
 */
export async function waitIdle(pids, { quietMs = 200, maxMs = 10_000 } = {}) {
  const started = performance.now();
  let last = pids.map((pid) => cpuMs(pid));
  let quietSince = performance.now();
  while (performance.now() - started < maxMs) {
    await sleep(50);
    const now = pids.map((pid) => cpuMs(pid));
    if (now.some((ms, i) => ms !== last[i])) quietSince = performance.now();
    else if (performance.now() - quietSince >= quietMs) break;
    last = now;
  }
  return performance.now() - started;
}

/**
 * Waits until corral has `count` worker processes and those not in `before`
 * (the replacements) are booted and idle. Answers the new pids.
 */
export async function waitForReplacements(before, count, { maxMs = 15_000 } = {}) {
  const started = performance.now();
  let fresh = [];
  while (performance.now() - started < maxMs) {
    const pids = corralWorkerPids();
    fresh = pids.filter((pid) => !before.includes(pid));
    if (pids.length >= count && fresh.length > 0) break;
    await sleep(20);
  }
  await waitIdle(fresh, { maxMs: Math.max(1_000, maxMs - (performance.now() - started)) });
  return fresh;
}

/**
 * A meter of CPU time: this process's (process.cpuUsage, µs precision) and
 * the sum over `pids` (from /proc, 10 ms ticks). `read()` answers both in ms.
 */
export function cpuMeter(pids = []) {
  return {
    read() {
      const own = process.cpuUsage();
      return { selfMs: (own.user + own.system) / 1000, childrenMs: pids.reduce((sum, pid) => sum + (cpuMs(pid) ?? 0), 0) };
    },
  };
}

/** The settings corral gave worker `pid` (its CORRAL_WORKER_SETTINGS), as text. */
export function workerSettingsOf(pid) {
  const entry = readFileSync(`/proc/${pid}/environ`, "latin1")
    .split("\0")
    .find((line) => line.startsWith("CORRAL_WORKER_SETTINGS="));
  if (entry === undefined) throw new Error(`bench: process ${pid} is not a corral worker`);
  return entry.slice("CORRAL_WORKER_SETTINGS=".length);
}
