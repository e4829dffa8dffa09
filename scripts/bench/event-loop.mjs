// The host's event loop while it serves calls: how late a 1 ms timer fires
// (perf_hooks.monitorEventLoopDelay) with each ledger, in one run,
// interleaved. A ledger that stalled the loop (a commit on the main thread
// that took long) would show as a later p99 and max than the in-memory
// ledger's, which commits nothing.
//
//   node --no-node-snapshot scripts/bench/event-loop.mjs   (after npm run build; prints JSON)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createWarmCorral } from "./contenders.mjs";
import { interleave, medianOfRounds, timeConcurrent } from "./harness.mjs";
import { benchLedgerSchema } from "./postgres.mjs";

/** One batch of `calls` with `inFlight` in flight, under the loop-delay monitor: its p50, p99 and max (ms). */
const RESOLUTION_MS = 1;

async function loopDelayOf(call, calls, inFlight) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  await timeConcurrent(call, calls, inFlight, 0);
  histogram.disable();
  // The monitor records the time between ticks of a 1 ms timer (ns): how late a tick came is that less the period.
  const lateMs = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  return { p50: lateMs(histogram.percentile(50)), p99: lateMs(histogram.percentile(99)), max: lateMs(histogram.max), ticks: histogram.count };
}

/** Answers, per ledger, the median over rounds of the loop delay's p50, p99 and max (ms), at 1 and at `inFlight` calls in flight. */
export async function measureEventLoop(tempDir, { rounds, calls, inFlight, log }) {
  const pgSchema = benchLedgerSchema();
  const variants = [
    { name: "sqlite", corral: await createWarmCorral(tempDir) },
    { name: "memory", corral: await createWarmCorral(tempDir, { ledger: { store: false } }) },
    ...(pgSchema === undefined ? [] : [{ name: "postgres", corral: await createWarmCorral(tempDir, { ledger: { store: pgSchema.url } }) }]),
  ];
  try {
    const result = {};
    for (const depth of [1, inFlight]) {
      const perRound = await interleave(
        rounds,
        variants.map(({ name, corral }) => ({ name, batch: () => loopDelayOf(corral.call, calls, depth) })),
        { onRound: (round) => log?.(`event loop, ${depth} in flight, round ${round + 1}/${rounds}`) },
      );
      result[depth === 1 ? "serial" : "concurrent"] = Object.fromEntries(Object.entries(perRound).map(([name, rows]) => [name, medianOfRounds(rows)]));
    }
    return { inFlight, calls, rounds, ...result };
  } finally {
    for (const { corral } of variants) await corral.close();
    await pgSchema?.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tempDir = mkdtempSync(join(tmpdir(), "corral-bench-loop-"));
  try {
    console.log(JSON.stringify(await measureEventLoop(tempDir, { rounds: 3, calls: 2_000, inFlight: 64, log: (line) => console.error(line) }), null, 2));
  } finally {
    rmSync(tempDir, { recursive: true, force: true });
  }
}
