// Recovery from a dead worker. Two ways to kill one: a running call aborted
// by its signal (the host kills that worker), and a tool whose WebAssembly
// memory grows past the host's RSS watch (the host kills it for memory).
// - next call: from the kill to the answer of a call issued at that moment,
//   on a host with one serving worker (the call must wait for the
//   replacement) and on the default pool;
// - bystanders: latency of other calls running meanwhile, against the same
//   load while a call of the same length ends normally.
import { callOk, createBenchHost, loadOk, warmUp } from "./contenders.mjs";
import { median, summarize } from "./harness.mjs";
import { corralWorkerPids, sleep, waitForReplacements, waitIdle } from "./processes.mjs";
import { SPIN_SOURCE, WORD_COUNT_INPUT, wordCountSource } from "./tools.mjs";

const RUNNING_MS = 40;

const WASM_GROW_SOURCE = `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: "wasm_grow",
  description: "Grows WebAssembly memory until its worker is killed.",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 10000, memoryMb: 32 },
  run() {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
    for (;;) { memory.grow(64); new Uint8Array(memory.buffer).fill(1); }
  },
});
`;

async function prepare(host) {
  await loadOk(host, { source: "agent:bench", code: wordCountSource() });
  await loadOk(host, { source: "agent:spin", code: SPIN_SOURCE });
  await loadOk(host, { source: "agent:wasm", code: WASM_GROW_SOURCE });
  await callOk(host, "spin", { ms: 1 });
  await warmUp(host, "word_count", WORD_COUNT_INPUT);
}

/** Kills a worker of `host` by aborting a running call; answers the moment of the kill. */
async function killByAbort(host) {
  const controller = new AbortController();
  const slow = host.call("spin", { ms: 15_000 }, { signal: controller.signal });
  await sleep(RUNNING_MS);
  const killedAt = performance.now();
  // Synchronous: tinypool drops the worker and forks its replacement here.
  controller.abort();
  return { killedAt, blockedMs: performance.now() - killedAt, victim: slow, expect: "cancelled" };
}

/** Kills a worker of `host` through the RSS watch; answers when the host saw it die. */
async function killByMemory(host) {
  const result = await host.call("wasm_grow", {});
  return { killedAt: performance.now(), victim: Promise.resolve(result), expect: "memory" };
}

async function nextCallSample(host, kill, processCount) {
  await waitIdle(corralWorkerPids());
  const before = corralWorkerPids();
  const { killedAt, blockedMs, victim, expect } = await kill(host);
  await callOk(host, "word_count", WORD_COUNT_INPUT);
  const nextMs = performance.now() - killedAt;
  const victimResult = await victim;
  if (victimResult.ok || victimResult.error.kind !== expect) {
    throw new Error(`bench: the killed call answered ${victimResult.ok ? "ok" : victimResult.error.kind}, not ${expect}`);
  }
  const t0 = performance.now();
  await waitForReplacements(before, processCount);
  return { nextMs, blockedMs, replacedMs: performance.now() - t0 + nextMs };
}

export async function measureRecovery(tempDir, { abortSamples, memorySamples, bystanderEvents, bystanderWindowMs, steadyMs, log }) {
  const hosts = {
    oneWorker: { host: createBenchHost(tempDir, { workers: 1 }), processes: 2 },
    defaultPool: { host: createBenchHost(tempDir), processes: 0 },
  };
  const next = {};
  let bystanders;
  try {
    for (const h of Object.values(hosts)) await prepare(h.host);
    const total = corralWorkerPids().length;
    hosts.defaultPool.processes = total - hosts.oneWorker.processes;
    for (const [name, h] of Object.entries(hosts)) {
      for (const [kind, kill, count] of [
        ["abort", killByAbort, abortSamples],
        ["memory", killByMemory, memorySamples],
      ]) {
        const samples = [];
        for (let i = 0; i < count; i++) samples.push(await nextCallSample(h.host, kill, total));
        next[`${name}:${kind}`] = {
          p50: median(samples.map((s) => s.nextMs)),
          max: Math.max(...samples.map((s) => s.nextMs)),
          replacedP50: median(samples.map((s) => s.replacedMs)),
          blockedP50: median(samples.map((s) => s.blockedMs ?? NaN)),
          n: samples.length,
        };
        log?.(`recovery ${name} ${kind}: ${samples.map((s) => s.nextMs.toFixed(1)).join(", ")} ms`);
      }
    }
    bystanders = await measureBystanders(hosts.defaultPool.host, total, { events: bystanderEvents, windowMs: bystanderWindowMs, steadyMs }, log);
  } finally {
    await Promise.all(Object.values(hosts).map((h) => h.host.close()));
  }
  return { next, bystanders };
}

/**
 * Two lanes call word_count without pause on the default pool while, in
 * turn, a 40 ms call ends normally (control) or is aborted at 40 ms, killing
 * its worker (crash). Compares the lanes' calls that overlap each event's
 * window.
 */
async function measureBystanders(host, processCount, { events, windowMs, steadyMs }, log) {
  await waitIdle(corralWorkerPids());
  const calls = [];
  let running = true;
  const lane = async () => {
    while (running) {
      const start = performance.now();
      const result = await host.call("word_count", WORD_COUNT_INPUT);
      calls.push({ start, end: performance.now(), ok: result.ok });
    }
  };
  const lanes = [lane(), lane()];
  const windows = { control: [], crash: [] };
  let steadyUntil = 0;
  try {
    // The lanes alone first: the steady state to compare with.
    await sleep(steadyMs);
    steadyUntil = performance.now();
    for (let e = 0; e < events * 2; e++) {
      const kind = e % 2 === 0 ? "control" : "crash";
      const before = corralWorkerPids();
      const start = performance.now();
      if (kind === "control") {
        await callOk(host, "spin", { ms: RUNNING_MS });
      } else {
        const { victim } = await killByAbort(host);
        await victim;
        await waitForReplacements(before, processCount);
      }
      windows[kind].push({ start, end: start + windowMs });
      const rest = start + windowMs + 300 - performance.now();
      if (rest > 0) await sleep(rest);
      log?.(`recovery bystanders: ${kind} ${Math.floor(e / 2) + 1}/${events}`);
    }
  } finally {
    running = false;
    await Promise.all(lanes);
  }
  const overlapping = (w) => calls.filter((c) => c.end > w.start && c.start < w.end);
  const steady = calls.filter((c) => c.end < steadyUntil);
  const figures = (list) => ({ ...summarize(list.map((c) => c.end - c.start)), failed: list.filter((c) => !c.ok).length });
  return {
    events,
    windowMs,
    steady: figures(steady),
    control: figures(windows.control.flatMap(overlapping)),
    crash: figures(windows.crash.flatMap(overlapping)),
  };
}
