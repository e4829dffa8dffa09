// Cold tools: an agent submits a source never seen before and calls its tool
// (from `author` to the first result, workers warm); the same source again on
// the same host, and on a new host over the same cache folder (compile cache
// hit, manifests from the cache folder, a new isolate); against a raw fresh
// isolate per call; and compiling a new agent source alone (corral's
// BundleCache: esbuild, the import policy, the disk cache), the part of a
// new tool's load that happens before any worker sees it.
import { join } from "node:path";
import { distUrl } from "./dist.mjs";
import { callOk, createBenchHost, loadOk, warmUp } from "./contenders.mjs";
import { interleave, median, percentile } from "./harness.mjs";
import { corralWorkerPids, sleep, waitIdle } from "./processes.mjs";
import { WORD_COUNT_INPUT, wordCountSource } from "./tools.mjs";

const { BundleCache } = await import(distUrl("src/compile/index.js"));

const SETTLE_MS = 25;

/** Between two loads, the workers go idle first, as they are between an agent's submissions. */
const quietWorkers = () => waitIdle(corralWorkerPids(), { quietMs: 250 });

async function authorOk(host, agent, code) {
  const result = await host.author({ agent, code });
  if (!result.ok) throw new Error(`bench: authoring ${agent} failed: ${result.error.kind}: ${result.error.message}`);
  return result;
}

/** Times author + the first call; answers the split and whether the compile cache hit. */
async function loadAndCall(host, sample) {
  const t0 = performance.now();
  const loaded = await authorOk(host, sample.agent, sample.code);
  const t1 = performance.now();
  await callOk(host, sample.tool, WORD_COUNT_INPUT);
  const t2 = performance.now();
  return { totalMs: t2 - t0, loadMs: t1 - t0, callMs: t2 - t1, cached: loaded.cached, manifestsFrom: loaded.manifestsFrom };
}

function summarizeSamples(perRound) {
  const all = perRound.flat();
  const sortedTotals = all.map((s) => s.totalMs).sort((a, b) => a - b);
  return {
    p50: median(perRound.map((samples) => median(samples.map((s) => s.totalMs)))),
    p90: percentile(sortedTotals, 0.9),
    max: sortedTotals[sortedTotals.length - 1],
    loadP50: median(all.map((s) => s.loadMs ?? NaN)),
    callP50: median(all.map((s) => s.callMs ?? NaN)),
    cachedShare: all.filter((s) => s.cached).length / all.length,
    manifestsFromDiskShare: all.filter((s) => s.manifestsFrom === "disk").length / all.length,
    n: all.length,
  };
}

export async function measureCold(tempDir, { rounds, perRound, newHosts, coldIsolate, log }) {
  const cacheDir = join(tempDir, "cold-cache");
  const runId = `${process.pid}-${Date.now()}`;
  let next = 0;
  const fresh = () => {
    const i = next++;
    return { agent: `cold-${i}`, tool: `cold_${i}`, code: wordCountSource({ name: `cold_${i}`, salt: `${runId}-${i}` }) };
  };
  const seen = [];
  const host = createBenchHost(tempDir, { cacheDir });
  let results;
  try {
    await loadOk(host, { source: "agent:bench", code: wordCountSource() });
    await warmUp(host, "word_count", WORD_COUNT_INPUT);
    // Sources the "seen" contender reloads: some exist before the first round.
    for (let i = 0; i < perRound; i++) {
      const sample = fresh();
      await loadAndCall(host, sample);
      seen.push(sample);
    }
    await waitIdle(corralWorkerPids());
    let reuse = 0;
    results = await interleave(
      rounds,
      [
        {
          name: "new",
          batch: async () => {
            const samples = [];
            for (let i = 0; i < perRound; i++) {
              const sample = fresh();
              samples.push(await loadAndCall(host, sample));
              seen.push(sample);
              await quietWorkers();
            }
            return samples;
          },
        },
        {
          name: "seenSameHost",
          batch: async () => {
            const samples = [];
            for (let i = 0; i < perRound; i++) {
              samples.push(await loadAndCall(host, seen[reuse++ % seen.length]));
              await quietWorkers();
            }
            return samples;
          },
        },
        {
          name: "compileOnly",
          batch: async () => {
            const cache = new BundleCache(join(tempDir, `compile-only-${next}`));
            const samples = [];
            for (let i = 0; i < perRound; i++) {
              const sample = fresh();
              const t0 = performance.now();
              const compiled = await cache.compile({ kind: "text", code: sample.code, sourceName: `agent:${sample.agent}` });
              if (!compiled.ok || compiled.cached) throw new Error("bench: a new agent source did not compile afresh");
              samples.push({ totalMs: performance.now() - t0 });
            }
            return samples;
          },
        },
        {
          name: "rawFreshIsolate",
          batch: async () => {
            const samples = [];
            for (let i = 0; i < perRound; i++) {
              const t0 = performance.now();
              coldIsolate();
              samples.push({ totalMs: performance.now() - t0 });
              await sleep(SETTLE_MS);
            }
            return samples;
          },
        },
      ],
      { onRound: (r) => log?.(`cold round ${r + 1}/${rounds}`) },
    );
  } finally {
    await host.close();
  }

  // A new host over the same cache folder: the bundle is on disk, the
  // manifests and the isolates are not.
  const newHost = [];
  for (let k = 0; k < newHosts; k++) {
    const other = createBenchHost(tempDir, { cacheDir });
    try {
      await loadOk(other, { source: "agent:bench", code: wordCountSource() });
      await warmUp(other, "word_count", WORD_COUNT_INPUT);
      await quietWorkers();
      newHost.push([await loadAndCall(other, seen[k % seen.length])]);
    } finally {
      await other.close();
    }
    log?.(`cold new host ${k + 1}/${newHosts}`);
  }

  return {
    new: summarizeSamples(results.new),
    seenSameHost: summarizeSamples(results.seenSameHost),
    seenNewHost: summarizeSamples(newHost),
    rawFreshIsolate: summarizeSamples(results.rawFreshIsolate),
    compileOnly: summarizeSamples(results.compileOnly),
  };
}
