// The raw baselines, all running the same word_count script: a plain
// function call; isolated-vm in this process (applySync and async apply on a
// warm isolate; a fresh isolate per call for the cold case); and a naive
// tinypool pool of two child processes with a warm isolate each. Plus the
// floor under every pool: corral's call message echoed by a child process,
// no tool run at all. isolated-vm is loaded the way corral's worker loads
// it, so this process runs with --no-node-snapshot (scripts/bench.mjs sees
// to that).
import { fork } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runInThisContext } from "node:vm";
import { fileURLToPath } from "node:url";
import Tinypool from "tinypool";
import { DIST, distPath, importIvm } from "./dist.mjs";
import { compileWordCount, createCaller } from "./direct-worker.mjs";
import { median } from "./harness.mjs";
import { tinypoolChildPids } from "./processes.mjs";
import { WORD_COUNT_INPUT_JSON, WORD_COUNT_OUTPUT_JSON } from "./tools.mjs";

const ivm = await importIvm();
const NAIVE_WORKER = fileURLToPath(new URL("./naive-worker.mjs", import.meta.url));
const IPC_ECHO_CHILD = fileURLToPath(new URL("./ipc-echo-child.mjs", import.meta.url));

function check(name, output) {
  if (output !== WORD_COUNT_OUTPUT_JSON) throw new Error(`bench: baseline ${name} answered ${String(output)}, not ${WORD_COUNT_OUTPUT_JSON}`);
}

/** `call(inputJson)` of the raw script, run in this process's own context. */
export function createPlainBaseline(script) {
  const call = runInThisContext(script, { filename: "bench:raw-tool" });
  check("plain", call(WORD_COUNT_INPUT_JSON));
  return { call: () => call(WORD_COUNT_INPUT_JSON), close() {} };
}

/** A warm isolate in this process: the same script, entered with applySync or apply. */
export async function createInProcessIsolate(script) {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = isolate.createContextSync();
  const fn = isolate.compileScriptSync(script).runSync(context, { reference: true });
  const options = { arguments: { copy: true }, result: { copy: true } };
  const callSync = () => fn.applySync(undefined, [WORD_COUNT_INPUT_JSON], options);
  const callAsync = () => fn.apply(undefined, [WORD_COUNT_INPUT_JSON], options);
  // corral enters every call with a timeout; isolated-vm arms a timer for it.
  const withTimeout = { ...options, timeout: 5_000 };
  const callSyncTimeout = () => fn.applySync(undefined, [WORD_COUNT_INPUT_JSON], withTimeout);
  check("isolated-vm applySync", callSync());
  check("isolated-vm applySync with timeout", callSyncTimeout());
  check("isolated-vm apply", await callAsync());
  return {
    callSync,
    callSyncTimeout,
    callAsync,
    close() {
      fn.release();
      context.release();
      isolate.dispose();
    },
  };
}

/**
 * A fresh isolate per call: isolate, context, compile (with a code cache this
 * process made, as corral's worker does for its runtime), run, one call, dispose.
 */
export function createColdIsolateBaseline(script) {
  const first = new ivm.Isolate({ memoryLimit: 64 });
  const compiled = first.compileScriptSync(script, { produceCachedData: true });
  const cachedData = compiled.cachedData;
  first.dispose();
  return () => {
    const isolate = new ivm.Isolate({ memoryLimit: 64 });
    try {
      const context = isolate.createContextSync();
      const fn = isolate.compileScriptSync(script, cachedData ? { cachedData } : {}).runSync(context, { reference: true });
      const output = fn.applySync(undefined, [WORD_COUNT_INPUT_JSON], { arguments: { copy: true }, result: { copy: true } });
      check("fresh isolate", output);
      return output;
    } finally {
      isolate.dispose();
    }
  };
}

/** tinypool, child processes, 2 workers, --no-node-snapshot, a warm isolate in each. */
export async function createNaivePool(script, tempDir) {
  const scriptPath = join(tempDir, "raw-tool.js");
  writeFileSync(scriptPath, script);
  const before = tinypoolChildPids();
  const pool = new Tinypool({
    filename: NAIVE_WORKER,
    runtime: "child_process",
    minThreads: 2,
    maxThreads: 2,
    execArgv: ["--no-node-snapshot"],
    env: { BENCH_RAW_SCRIPT: scriptPath, BENCH_DIST: DIST },
  });
  const call = () => pool.run(WORD_COUNT_INPUT_JSON);
  // Both workers booted and warm before anyone measures.
  const outputs = await Promise.all(Array.from({ length: 8 }, call));
  for (const output of outputs) check("naive tinypool", output);
  return { call, pids: tinypoolChildPids().filter((pid) => !before.includes(pid)), close: () => pool.destroy() };
}

/**
 * The IPC floor: a round trip between two Node processes and nothing else.
 * A forked child (child_process.fork, JSON serialization as tinypool uses)
 * echoes corral's own call message for word_count (same shape and size, a
 * new id and callId each time) back over process.send; no isolate, no pool.
 * What any process boundary costs a call on this machine.
 */
export async function createIpcFloor(tempDir) {
  const bundle = await compileWordCount(join(tempDir, "ipc-floor-cache"));
  const child = fork(IPC_ECHO_CHILD, [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const { call, answer } = createCaller(child, bundle);
  child.on("message", (message) => answer(message.tasks[0].id, message));
  const echoed = await Promise.race([call(), exited.then(() => Promise.reject(new Error("bench: the IPC echo child exited")))]);
  if (echoed.tasks?.[0]?.task?.tool !== "word_count") throw new Error(`bench: the IPC echo child answered ${JSON.stringify(echoed)}`);
  return {
    call,
    pids: [child.pid],
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}

/**
 * Where a fresh isolate's time goes, step by step (medians over `n`): a tiny
 * script, the raw word_count script (zod + the tool), and corral's guest
 * runtime (zod + SDK + runtime) as its worker runs it first in every isolate.
 */
export function freshIsolateAnatomy(rawScript, n) {
  const runtime = readFileSync(distPath("sandbox/guest/runtime.bundle.js"), "utf8");
  // What the worker lends the runtime (sandbox/guest/runtime.ts reads each by name), as no-ops.
  const LENT = "globalThis.__corral_wake = () => {}; globalThis.__corral_done = () => {}; globalThis.__corral_random = (n) => '\\0'.repeat(n); globalThis.__corral_load_url = () => {}; globalThis.__corral_load_streams = () => {}; globalThis.__corral_load_web = () => {}; globalThis.__corral_encoding = () => ''; globalThis.__corral_decode = () => 2; globalThis.__corral_capability = () => {};";
  const scripts = { tiny: "(function (x) { return x; })", rawTool: rawScript, corralRuntime: runtime };
  const out = {};
  for (const [name, code] of Object.entries(scripts)) {
    const first = new ivm.Isolate({ memoryLimit: 64 });
    const cachedData = first.compileScriptSync(code, { produceCachedData: true }).cachedData;
    first.dispose();
    const steps = { isolate: [], context: [], compile: [], run: [], dispose: [] };
    for (let i = 0; i < n; i++) {
      let t = performance.now();
      const lap = (step) => {
        const now = performance.now();
        steps[step].push(now - t);
        t = now;
      };
      const isolate = new ivm.Isolate({ memoryLimit: 64 });
      lap("isolate");
      const context = isolate.createContextSync();
      lap("context");
      const script = isolate.compileScriptSync(code, cachedData ? { cachedData } : {});
      lap("compile");
      if (name === "corralRuntime") context.evalSync(LENT);
      script.runSync(context, { reference: true });
      lap("run");
      isolate.dispose();
      lap("dispose");
    }
    out[name] = { bytes: code.length, ...Object.fromEntries(Object.entries(steps).map(([step, list]) => [step, median(list)])) };
  }
  return out;
}
