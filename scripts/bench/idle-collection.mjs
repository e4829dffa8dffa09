// What a worker's idle work costs a call (sandbox/worker/idle-work.ts): each
// warm isolate gets one full collection while the worker is idle, and a call
// that arrives meanwhile waits for it.
// - in-process: the collection alone (ToolIsolate.collectGarbage on a warm
//   word_count isolate), and a warm call just before and just after it;
// - a host with one serving worker: a new tool is loaded and called, then,
//   after a pause spread over 100–400 ms (when the worker refills its blank
//   isolate and collects), a warm call of that tool: "idle work pending".
//   The same tools are then called again after the same pauses, with nothing
//   left to collect: "nothing pending". The two differ only by the idle work.
import v8 from "node:v8";
import { distUrl } from "./dist.mjs";
import { callOk, createBenchHost, createInProcessToolIsolate, loadOk } from "./contenders.mjs";
import { median, percentile } from "./harness.mjs";
import { corralWorkerPids, sleep, waitIdle } from "./processes.mjs";
import { WORD_COUNT_INPUT, wordCountSource } from "./tools.mjs";

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: median(sorted), p90: percentile(sorted, 0.9), max: sorted[sorted.length - 1], n: sorted.length };
}

async function inProcess(tempDir, samples) {
  // The worker's V8 flags (on Node 20, the one that gives ArrayBuffer its `transfer`, which the collection uses).
  const { WORKER_EXEC_ARGV } = await import(distUrl("src/pool/sandbox-pool.js"));
  for (const flag of WORKER_EXEC_ARGV) if (flag !== "--no-node-snapshot") v8.setFlagsFromString(flag);
  const collect = [];
  const before = [];
  const after = [];
  for (let i = 0; i < samples; i++) {
    const { tool, call, close } = await createInProcessToolIsolate(tempDir);
    const timeCall = async () => {
      const t = performance.now();
      const run = await call();
      if (run.kind !== "ok") throw new Error(`bench: the call answered ${run.kind}`);
      return performance.now() - t;
    };
    for (let j = 0; j < 20; j++) await timeCall();
    before.push(await timeCall());
    const t = performance.now();
    tool.collectGarbage();
    collect.push(performance.now() - t);
    after.push(await timeCall());
    close();
  }
  return { collect: stats(collect), callBefore: stats(before), callAfter: stats(after) };
}

export async function measureIdleCollection(tempDir, { samples, log }) {
  log?.("idle work: a collection in-process, and calls arriving while a worker collects");
  const collection = await inProcess(tempDir, samples);
  const host = createBenchHost(tempDir, { workers: 1 });
  try {
    const runId = `${process.pid}-${Date.now()}`;
    const tools = Array.from({ length: samples }, (_, i) => ({ source: `agent:idle-${i}`, name: `idle_${i}`, code: wordCountSource({ name: `idle_${i}`, salt: `${runId}-${i}` }) }));
    // Pauses spread over the window where the worker refills its blank (at 100 ms) and collects (from ~200 ms).
    const pauseOf = (i) => 100 + ((i * 97) % 300);
    await waitIdle(corralWorkerPids(), { quietMs: 300, maxMs: 60_000 });
    const pending = [];
    for (const [i, tool] of tools.entries()) {
      await loadOk(host, { source: tool.source, code: tool.code });
      await callOk(host, tool.name, WORD_COUNT_INPUT);
      await sleep(pauseOf(i));
      const t = performance.now();
      await callOk(host, tool.name, WORD_COUNT_INPUT);
      pending.push(performance.now() - t);
    }
    await waitIdle(corralWorkerPids(), { quietMs: 300, maxMs: 120_000 });
    const nothing = [];
    for (const [i, tool] of tools.entries()) {
      await callOk(host, tool.name, WORD_COUNT_INPUT);
      await sleep(pauseOf(i));
      const t = performance.now();
      await callOk(host, tool.name, WORD_COUNT_INPUT);
      nothing.push(performance.now() - t);
    }
    return { ...collection, pending: stats(pending), nothingPending: stats(nothing) };
  } finally {
    await host.close();
  }
}
