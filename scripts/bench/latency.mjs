// Warm calls (one in flight) and throughput (64 in flight), every contender
// in turn, round after round. Answers per contender the median over rounds
// of each round's figures.
import { interleave, medianOfRounds, summarize, timeConcurrent, timeSerial, timeSync } from "./harness.mjs";
import { cpuMeter } from "./processes.mjs";

/** Runs `batch` and adds the CPU it cost per call: this process, and the contender's worker processes. */
async function withCpu(pids, calls, batch) {
  const meter = cpuMeter(pids);
  const before = meter.read();
  const figures = await batch();
  const after = meter.read();
  return { ...figures, hostCpuUs: ((after.selfMs - before.selfMs) * 1000) / calls, workerCpuUs: ((after.childrenMs - before.childrenMs) * 1000) / calls };
}

/**
 * contenders: { name, kind: "sync" | "async", call, n } with `n` calls per
 * batch. Answers { name: { p50, p99, mean, max, n, rounds } } in ms.
 */
export async function measureWarm(contenders, { rounds, log }) {
  const results = await interleave(
    rounds,
    contenders.map((c) => ({
      name: c.name,
      // The harness's untimed warm-up calls (200 sync, 50 async) cost CPU too.
      batch: () => withCpu(c.pids ?? [], c.n + Math.min(c.kind === "sync" ? 200 : 50, c.n), async () => summarize(c.kind === "sync" ? timeSync(c.call, c.n) : await timeSerial(c.call, c.n, undefined, c.gapMs))),
    })),
    { onRound: (r) => log?.(`warm round ${r + 1}/${rounds}`) },
  );
  return Object.fromEntries(Object.entries(results).map(([name, perRound]) => [name, { ...medianOfRounds(perRound), rounds: perRound.length }]));
}

/**
 * contenders: { name, call, total, inFlight }. Answers
 * { name: { callsPerS, p50, p99, inFlight, total, rounds } }.
 */
export async function measureThroughput(contenders, { rounds, log }) {
  const results = await interleave(
    rounds,
    contenders.map((c) => ({
      name: c.name,
      batch: () =>
        withCpu(c.pids ?? [], c.total + c.inFlight * 4, async () => {
          const run = await timeConcurrent(c.call, c.total, c.inFlight);
          return { callsPerS: run.callsPerS, ...summarize(run.samples) };
        }),
    })),
    { onRound: (r) => log?.(`throughput round ${r + 1}/${rounds}`) },
  );
  return Object.fromEntries(
    contenders.map((c) => [c.name, { ...medianOfRounds(results[c.name]), inFlight: c.inFlight, total: c.total, rounds: results[c.name].length }]),
  );
}
