// A mix: 20 tools from 5 agent sources, calls spread over them at random
// (fixed seed), several in flight, on a host whose workers may keep fewer
// warm isolates than there are tools (cache under pressure) and on one with
// room for all, in turn.
import { callOk, createBenchHost, loadOk } from "./contenders.mjs";
import { importCorral } from "./dist.mjs";
import { interleave, medianOfRounds, summarize, timeConcurrent } from "./harness.mjs";
import { corralWorkerPids, waitIdle } from "./processes.mjs";
import { mixedSources } from "./tools.mjs";

const SOURCES = 5;
const TOOLS_PER_SOURCE = 4;

/** A small deterministic PRNG (mulberry32), so every contender sees the same sequence. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function measureMixed(tempDir, { rounds, total, inFlight, maxWarmIsolates, log }) {
  const { modules, tools } = mixedSources(SOURCES, TOOLS_PER_SOURCE);
  const hosts = {
    pressure: createBenchHost(tempDir, { maxWarmIsolates }),
    roomy: createBenchHost(tempDir),
  };
  try {
    for (const host of Object.values(hosts)) {
      for (const module of modules) await loadOk(host, module);
      // Every tool once, so the figures start from loaded, not from nothing.
      for (const tool of tools) await callOk(host, tool.name, tool.input);
    }
    await waitIdle(corralWorkerPids());
    const results = await interleave(
      rounds,
      Object.entries(hosts).map(([name, host]) => ({
        name,
        batch: async (round) => {
          const next = random(1234 + round);
          const sequence = Array.from({ length: total + inFlight * 4 }, () => tools[Math.floor(next() * tools.length)]);
          let i = 0;
          const run = await timeConcurrent(() => {
            const tool = sequence[i++ % sequence.length];
            return callOk(host, tool.name, tool.input);
          }, total, inFlight);
          return { callsPerS: run.callsPerS, ...summarize(run.samples) };
        },
      })),
      { onRound: (r) => log?.(`mixed round ${r + 1}/${rounds}`) },
    );
    return {
      tools: tools.length,
      sources: SOURCES,
      inFlight,
      maxWarmIsolates,
      defaultMaxWarmIsolates: (await importCorral()).HOST_DEFAULTS.maxWarmIsolates,
      pressure: medianOfRounds(results.pressure),
      roomy: medianOfRounds(results.roomy),
    };
  } finally {
    await Promise.all(Object.values(hosts).map((host) => host.close()));
  }
}
