// Memory of a host and its workers, run in a process of its own (started by
// memory.mjs with --expose-gc) so that nothing of the other contenders is
// counted: VmRSS of this process and of each worker process. Prints one JSON
// line.
// 1. the default pool, idle (booted, warmed up, nothing loaded);
// 2. one serving worker: `count` tools loaded (each described in a fresh
//    isolate there), then that worker is killed (a running call aborted) so
//    that the spare takes over with no loading behind it, and every tool is
//    called twice there: what the warm isolates cost, alone, once the
//    worker's idle work has collected each (a third call reads the heap).
import { callOk, createBenchHost, loadOk } from "./contenders.mjs";
import { median } from "./harness.mjs";
import { corralWorkerPids, cpuMs, rssBytes, sleep, waitForReplacements, waitIdle } from "./processes.mjs";
import { manyToolSources, SPIN_SOURCE, WORD_COUNT_INPUT } from "./tools.mjs";
import { importCorral } from "./dist.mjs";

const [, , tempDir, countText] = process.argv;
const count = Number(countText);
const { HOST_DEFAULTS } = await importCorral();

// A worker's idle work collects each warm isolate once (~30 ms each, one per
// 100 ms of quiet: sandbox/worker/idle-work.ts), so quiet may be a while coming.
async function settle(expected) {
  const deadline = performance.now() + 20_000;
  while (corralWorkerPids().length < expected && performance.now() < deadline) await sleep(20);
  await waitIdle(corralWorkerPids(), { quietMs: 300, maxMs: 120_000 });
  globalThis.gc?.();
  await sleep(200);
  return { host: rssBytes(), workers: Object.fromEntries(corralWorkerPids().map((pid) => [pid, rssBytes(pid)])) };
}

async function gone() {
  while (corralWorkerPids().length > 0) await sleep(20);
}

// 1. The default pool, idle.
const defaultProcesses = HOST_DEFAULTS.workers + HOST_DEFAULTS.spareWorkers;
const idleHost = createBenchHost(tempDir);
const defaultIdle = await settle(defaultProcesses);
await idleHost.close();
await gone();

// 2. One serving worker and its spare, room for every tool to stay warm.
const processes = 1 + HOST_DEFAULTS.spareWorkers;
const host = createBenchHost(tempDir, { workers: 1, maxWarmIsolates: count * 2, maxWarmHeapMb: 4096 });
const idle = await settle(processes);
const cpuBefore = Object.fromEntries(corralWorkerPids().map((pid) => [pid, cpuMs(pid)]));
const tools = manyToolSources(count);
await loadOk(host, { source: "agent:spin", code: SPIN_SOURCE });
for (const tool of tools) await loadOk(host, { source: tool.source, code: tool.code });
const loaded = await settle(processes);
// The serving worker is the one that worked; the other is the spare.
const pids = Object.keys(cpuBefore).map(Number);
const loader = pids.sort((a, b) => cpuMs(b) - cpuBefore[b] - (cpuMs(a) - cpuBefore[a]))[0];
const spare = pids.find((pid) => pid !== loader);

// Kill the loader: the spare starts serving with nothing loaded in it.
const before = corralWorkerPids();
const controller = new AbortController();
const victim = host.call("spin", { ms: 15_000 }, { signal: controller.signal });
await sleep(50);
controller.abort();
await victim;
await waitForReplacements(before, processes);
const fresh = await settle(processes);
for (const tool of tools) {
  await callOk(host, tool.name, WORD_COUNT_INPUT);
  await callOk(host, tool.name, WORD_COUNT_INPUT);
}
const warm = await settle(processes);
// The heap as the worker last read it: after its idle-time collection.
const heap = [];
for (const tool of tools) heap.push((await callOk(host, tool.name, WORD_COUNT_INPUT)).metrics.heapBytes);
await host.close();

process.stdout.write(
  `${JSON.stringify({
    count,
    defaultIdle: { host: defaultIdle.host, workers: Object.values(defaultIdle.workers) },
    oneWorker: {
      host: { idle: idle.host, loaded: loaded.host, warm: warm.host },
      loader: { idle: idle.workers[loader], loaded: loaded.workers[loader] },
      serving: { idle: fresh.workers[spare], warm: warm.workers[spare] },
    },
    heapBytesPerTool: median(heap),
  })}\n`,
);
process.exit(0);
