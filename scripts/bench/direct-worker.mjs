// Drives corral's real worker (direct-worker-child.mjs) over IPC with
// corral's own messages, one call in flight: the worker's share of a call
// with no host call path and no tinypool on the host side.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DIST, distUrl, importCorral } from "./dist.mjs";
import { corralWorkerPids, sleep, workerSettingsOf } from "./processes.mjs";
import { WORD_COUNT_INPUT_JSON, WORD_COUNT_OUTPUT_JSON, wordCountSource } from "./tools.mjs";

const { BundleCache } = await import(distUrl("src/compile/index.js"));
const corral = await importCorral();
const { HOST_DEFAULTS } = corral;
const CALL_LIMITS = { timeoutMs: HOST_DEFAULTS.defaultTimeoutMs, memoryMb: HOST_DEFAULTS.defaultMemoryMb, maxOutputBytes: HOST_DEFAULTS.maxOutputBytes, maxDepth: HOST_DEFAULTS.maxDepth };

/**
 * The settings a default host gives its workers, read from a real worker's
 * environment (so the bench never guesses their shape): from `pid`, or from
 * a host started for the purpose.
 */
export async function defaultWorkerSettings(tempDir, pid) {
  if (pid !== undefined) return workerSettingsOf(pid);
  const before = corralWorkerPids();
  const host = corral.createHost({ cacheDir: join(tempDir, "settings-cache"), ledger: { store: false } });
  try {
    for (;;) {
      const fresh = corralWorkerPids().find((p) => !before.includes(p));
      if (fresh !== undefined) return workerSettingsOf(fresh);
      await sleep(10);
    }
  } finally {
    await host.close();
  }
}

const CHILD = fileURLToPath(new URL("./direct-worker-child.mjs", import.meta.url));

/** word_count compiled by corral's own bundle cache, as the host would send it. */
export async function compileWordCount(cacheDir) {
  const compiled = await new BundleCache(cacheDir).compile({ kind: "text", code: wordCountSource(), sourceName: "agent:bench" });
  if (!compiled.ok) throw new Error("bench: word_count did not compile");
  const bundle = { hash: compiled.hash, filename: "agent:bench" };
  if (compiled.path !== undefined) bundle.path = compiled.path;
  else bundle.code = compiled.code;
  return bundle;
}

/**
 * Calls word_count in `child` with corral's own call message (HostMessage in
 * sandbox/shared/session-messages.ts, as the host sends it), one in flight or many.
 * `answer(id, value)` settles the call whose message had that id: the
 * child's message listener knows where its reply keeps the id.
 */
export function createCaller(child, bundle) {
  const waiting = new Map();
  let nextId = 0;
  return {
    call: () =>
      new Promise((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve);
        child.send({ corral: 1, tasks: [{ id, task: { type: "call", callId: randomUUID(), bundle, tool: "word_count", inputJson: WORD_COUNT_INPUT_JSON, limits: CALL_LIMITS } }] });
      }),
    answer(id, value) {
      waiting.get(id)?.(value);
      waiting.delete(id);
    },
  };
}

/**
 * Forks the worker (flags: --no-node-snapshot plus `extraExecArgv`) and
 * answers once it is ready and warm for word_count.
 */
export async function createDirectWorker(tempDir, { extraExecArgv = [], profileOut, settingsFromPid } = {}) {
  const bundle = await compileWordCount(join(tempDir, "direct-cache"));
  const env = { CORRAL_WORKER_SETTINGS: await defaultWorkerSettings(tempDir, settingsFromPid), BENCH_DIST: DIST };
  if (profileOut !== undefined) env.BENCH_PROFILE_OUT = profileOut;
  const child = fork(CHILD, [], { execArgv: ["--no-node-snapshot", ...extraExecArgv], env, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const { call, answer } = createCaller(child, bundle);
  let onControl;
  let ready;
  const readyNow = new Promise((resolve) => (ready = resolve));
  child.on("message", (message) => {
    if (message?.bench !== undefined) onControl?.(message);
    else if (message?.type === "ready") ready();
    else if (message?.type === "replies") for (const { id, reply } of message.replies) answer(id, reply);
  });
  await Promise.race([readyNow, exited.then(() => Promise.reject(new Error("bench: the direct worker exited before it was ready")))]);
  const first = await call();
  if (first.kind !== "ok" || !first.envelopeJson?.includes(WORD_COUNT_OUTPUT_JSON)) {
    throw new Error(`bench: the direct worker answered ${JSON.stringify(first)}`);
  }
  const control = (bench, answer) =>
    new Promise((resolve) => {
      onControl = (message) => message.bench === answer && resolve();
      child.send({ bench });
    });
  return {
    call,
    pids: [child.pid],
    /** Starts the profilers inside the worker's isolates. */
    startProfile: () => control("start", "started"),
    /** Writes the profiles and ends the worker; resolves when it has exited. */
    stopProfile: async () => {
      child.send({ bench: "stop" });
      await exited;
    },
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}
