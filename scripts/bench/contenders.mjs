// corral as a contender: hosts with a private cache and ledger in a temporary
// folder, the word_count tool loaded the way an agent submits it, workers
// warmed and idle before anyone measures. corral is imported from dist/.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { distUrl, importCorral } from "./dist.mjs";
import { corralWorkerPids, waitIdle } from "./processes.mjs";
import { WORD_COUNT_INPUT, WORD_COUNT_INPUT_JSON, WORD_COUNT_OUTPUT_JSON, wordCountSource } from "./tools.mjs";

const corral = await importCorral();
let hostCount = 0;

/** A host with its own cache folder and SQLite ledger (the default kind of store). */
export function createBenchHost(tempDir, options = {}) {
  const dir = join(tempDir, `host-${hostCount++}`);
  return corral.createHost({ cacheDir: join(dir, "cache"), ledger: { store: join(dir, "ledger.db") }, ...options });
}

/** Calls and insists on success: a failed call would make every figure a lie. */
export async function callOk(host, name, input, options) {
  const result = await host.call(name, input, options);
  if (!result.ok) throw new Error(`bench: ${name} failed: ${result.error.kind}: ${result.error.message}`);
  return result;
}

export async function loadOk(host, request) {
  const result = await host.load(request);
  if (!result.ok) throw new Error(`bench: loading ${request.source ?? request.path} failed: ${result.error.kind}: ${result.error.message}`);
  return result;
}

/**
 * Makes every serving worker answer `name` a few times (so each holds a warm
 * isolate of it), then waits until all worker processes, the spare included,
 * have stopped using CPU.
 */
export async function warmUp(host, name, input, calls = 40) {
  const results = await Promise.all(Array.from({ length: calls }, () => callOk(host, name, input)));
  await waitIdle(corralWorkerPids());
  return results;
}

/** A default host with word_count loaded and warm: the contender of the warm and throughput runs. */
export async function createWarmCorral(tempDir, options = {}) {
  const before = corralWorkerPids();
  const host = createBenchHost(tempDir, options);
  await loadOk(host, { source: "agent:bench", code: wordCountSource() });
  const [first] = await warmUp(host, "word_count", WORD_COUNT_INPUT);
  if (first.output !== WORD_COUNT_OUTPUT_JSON) throw new Error(`bench: corral answered ${first.output}, not ${WORD_COUNT_OUTPUT_JSON}`);
  return {
    host,
    /** This host's worker processes (serving and spare). */
    pids: corralWorkerPids().filter((pid) => !before.includes(pid)),
    call: () => callOk(host, "word_count", WORD_COUNT_INPUT),
    close: () => host.close(),
  };
}

/**
 * A warm host whose every call names a scope never used before: the cost of
 * many scopes (each call builds its isolate; the LRU evicts across scopes).
 * Reports how many scopes it used and its workers' resident memory.
 */
export async function createScopedCorral(tempDir, options = {}) {
  const corral = await createWarmCorral(tempDir, options);
  const { residentBytes } = await import(distUrl("src/pool/process-memory.js"));
  let scopes = 0;
  return {
    ...corral,
    call: () => callOk(corral.host, "word_count", WORD_COUNT_INPUT, { scope: `bench:${scopes++}` }),
    scopes: () => scopes,
    workerRssMb: () => corral.pids.map((pid) => Math.round((residentBytes(pid) ?? 0) / 2 ** 20)),
  };
}

/**
 * corral's ToolIsolate (the worker's hot path: one warm isolate, `invoke`)
 * driven in this process, as the worker drives it, with no IPC around it.
 * Needs --no-node-snapshot (it loads isolated-vm).
 */
export async function createInProcessToolIsolate(tempDir) {
  const { ToolIsolate } = await import(distUrl("sandbox/worker/tool-isolate.js"));
  const { compileWordCount } = await import("./direct-worker.mjs");
  const bundle = await compileWordCount(join(tempDir, "tool-isolate-cache"));
  const code = bundle.code ?? readFileSync(bundle.path, "utf8");
  const { HOST_DEFAULTS: d } = corral;
  const limits = { timeoutMs: d.defaultTimeoutMs, memoryMb: d.defaultMemoryMb, maxOutputBytes: d.maxOutputBytes, maxDepth: d.maxDepth };
  const tool = ToolIsolate.create({ code, filename: "agent:bench", memoryMb: limits.memoryMb, loadTimeoutMs: d.loadTimeoutMs });
  if (!(tool instanceof ToolIsolate)) throw new Error(`bench: ToolIsolate.create failed: ${tool.message}`);
  let n = 0;
  const call = () => tool.invoke("word_count", WORD_COUNT_INPUT_JSON, `call-${n++}`, limits);
  const first = await call();
  if (first.kind !== "ok" || !first.text.includes(WORD_COUNT_OUTPUT_JSON)) throw new Error(`bench: ToolIsolate answered ${JSON.stringify(first)}`);
  return { tool, call, close: () => tool.dispose() };
}
