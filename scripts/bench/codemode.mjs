// Code Mode's nested calls: one script makes 1,000 calls of word_count (warm
// in the script's worker, pre-authorized: the fast lane) one after another;
// beside it, in the same run, ToolIsolate.invoke of the same tool in this
// process (the floor a call inside the worker cannot beat), the same fast
// lane driven in this process (WorkerCore + FastLane and its journal, no
// IPC: what one script → worker → tool → worker → script hop costs with
// isolated-vm), one ordinary host.call, and what a lane call's two journal
// lines cost alone (written with writeSync, as the worker does).
//
// The guest's clock has 1 ms resolution, so the script times blocks of
// BLOCK calls and a nested call's p50 is the median of the blocks' means
// (to 10 µs). Every worker has run a script before any is timed.
//
//   node --no-node-snapshot scripts/bench/codemode.mjs   (after npm run build; prints JSON)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callOk, createInProcessToolIsolate, createWarmCorral } from "./contenders.mjs";
import { distUrl } from "./dist.mjs";
import { compileWordCount } from "./direct-worker.mjs";
import { median, percentile, summarize, timeSerial } from "./harness.mjs";
import { WORD_COUNT_INPUT_JSON } from "./tools.mjs";

const BLOCK = 100;
/** Scripts run at once before the timed ones: at least one per worker of the default pool. */
const WARM_UP_SCRIPTS = 4;

const NESTED_SCRIPT = (calls) => `
const blocks = [];
for (let b = 0; b < ${calls / BLOCK}; b++) {
  const started = Date.now();
  for (let i = 0; i < ${BLOCK}; i++) await tools.word_count(${WORD_COUNT_INPUT_JSON});
  blocks.push(Date.now() - started);
}
return blocks;`;

/**
 * The fast lane in this process: a script isolate and word_count's isolate in
 * one WorkerCore, its journal written to a file as in a worker. Answers the script's wall time per nested call (ms).
 */
async function createInProcessLane(tempDir, calls) {
  const { WorkerCore } = await import(distUrl("sandbox/worker/worker-core.js"));
  const { FastLane } = await import(distUrl("sandbox/worker/fast-lane.js"));
  const { NestedQueue } = await import(distUrl("sandbox/worker/nested-queue.js"));
  const { openJournal } = await import(distUrl("sandbox/worker/journal-writer.js"));
  const { scriptModule } = await import(distUrl("src/codemode/script-module.js"));
  const { HOST_DEFAULTS: d } = await import(distUrl("src/index.js"));
  const compiled = await compileWordCount(join(tempDir, "lane-cache"));
  const bundle = { hash: compiled.hash, filename: "agent:bench", code: compiled.code ?? readFileSync(compiled.path, "utf8") };
  const core = new WorkerCore({ maxWarmIsolates: 8, maxWarmHeapMb: 256, loadTimeoutMs: d.loadTimeoutMs, defaultMemoryMb: d.defaultMemoryMb });
  const limits = { timeoutMs: d.defaultTimeoutMs, memoryMb: d.defaultMemoryMb, maxOutputBytes: d.maxOutputBytes, maxDepth: d.maxDepth };
  const script = await scriptModule(`for (let i = 0; i < ${calls}; i++) await tools.word_count(${WORD_COUNT_INPUT_JSON}); return 1;`, "code:bench");
  const queue = new NestedQueue();
  const caps = { maxModelOutputChars: d.maxModelOutputChars, maxModelOutputLines: d.maxModelOutputLines, maxImageBytes: d.maxImageBytes };
  let n = 0;
  return {
    run: async () => {
      const callId = `lane-${n++}`;
      const lane = { tools: [{ name: "word_count", source: "agent:bench", bundle, limits }], maxCalls: calls, maxInFlight: 1, caps };
      const journal = join(tempDir, `${callId}.jsonl`);
      writeFileSync(journal, "");
      const fast = new FastLane(callId, lane, { core, queue, journal: openJournal(journal), sendRecords: () => Promise.resolve(), wake: () => undefined });
      const task = { type: "call", callId, bundle: script.bundle, tool: "run_code", inputJson: JSON.stringify({ tools: ["word_count"], maxCalls: calls, maxInFlight: 1 }), limits: { ...limits, timeoutMs: 60_000 }, fresh: true };
      const started = performance.now();
      const reply = await core.handle(task);
      await queue.idle();
      fast.close();
      rmSync(journal, { force: true });
      if (reply.kind !== "ok") throw new Error(`bench: the in-process lane's script answered ${JSON.stringify(reply)}`);
      return (performance.now() - started) / calls;
    },
    close: () => core.close(),
  };
}

/**
 * What a lane call's two journal lines cost (the "lane" line before the tool
 * runs, its record after): corral's JournalWriter, writeSync per line, to a
 * file in tempDir, lines shaped as a warm word_count call's. Answers the p50
 * (ms) of one pair.
 */
async function measureJournalPair(tempDir, n) {
  const { openJournal } = await import(distUrl("sandbox/worker/journal-writer.js"));
  const path = join(tempDir, "journal-pair.jsonl");
  writeFileSync(path, "");
  const journal = openJournal(path);
  const reply = { type: "call", kind: "ok", envelopeJson: JSON.stringify({ ok: true, kind: "ok", output: { text: '{"words":9}', structured: { words: 9 } } }), metrics: { wallMs: 0.02, cpuMs: 0.02, heapBytes: 1_500_000 }, warm: true };
  const samples = [];
  try {
    for (let i = 0; i < n; i++) {
      const id = `lane-${i}`;
      const started = performance.now();
      journal.write({ corral: 1, type: "lane", callId: "script", id, tool: 0 });
      journal.write({ corral: 1, type: "fast", callId: "script", records: [{ tool: 0, callId: id, ms: 0.02, reply }] });
      samples.push(performance.now() - started);
    }
  } finally {
    journal.close();
    rmSync(path, { force: true });
  }
  return median(samples);
}

/** Answers p50s (ms) per round, and the median of rounds, of: a nested call, the in-process lane, ToolIsolate.invoke, host.call, and the whole script per nested call. */
export async function measureCodeMode(tempDir, { rounds, calls, log }) {
  const corral = await createWarmCorral(tempDir, { codeMode: { maxCalls: calls, timeoutMs: 60_000 } });
  const toolIsolate = await createInProcessToolIsolate(tempDir);
  const lane = await createInProcessLane(tempDir, calls);
  const perRound = [];
  try {
    // Warm as the other contenders are: the first script a worker runs
    // compiles the lane's code there (ARCHITECTURE: Code Mode, Cost), so a
    // script runs in every worker before any is timed (scripts running at
    // once go to different workers).
    await Promise.all(Array.from({ length: WARM_UP_SCRIPTS }, () => callOk(corral.host, "run_code", { code: NESTED_SCRIPT(calls) })));
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const script = await callOk(corral.host, "run_code", { code: NESTED_SCRIPT(calls) });
      const scriptMs = performance.now() - started;
      if (script.details.fastCalls !== calls) throw new Error(`bench: ${script.details.fastCalls} of ${calls} nested calls took the fast lane`);
      const blocks = script.structured.map((ms) => ms / BLOCK).sort((a, b) => a - b);
      const inWorker = script.details.calls.map((c) => c.ms).sort((a, b) => a - b);
      const laneMs = await lane.run();
      const invoke = summarize(await timeSerial(toolIsolate.call, calls));
      const hostCall = summarize(await timeSerial(corral.call, Math.min(calls, 500)));
      const journalPair = await measureJournalPair(tempDir, calls);
      perRound.push({
        nestedP50: percentile(blocks, 0.5),
        nestedMax: blocks[blocks.length - 1],
        inWorkerP50: percentile(inWorker, 0.5),
        inProcessLane: laneMs,
        invokeP50: invoke.p50,
        hostCallP50: hostCall.p50,
        scriptPerCallMs: scriptMs / calls,
        journalPair,
      });
      log?.(`code mode round ${round + 1}/${rounds}`);
    }
  } finally {
    await lane.close();
    await toolIsolate.close();
    await corral.close();
  }
  const of = (key) => median(perRound.map((r) => r[key]));
  return {
    calls,
    rounds,
    block: BLOCK,
    nestedP50: of("nestedP50"),
    nestedMax: of("nestedMax"),
    inWorkerP50: of("inWorkerP50"),
    inProcessLane: of("inProcessLane"),
    invokeP50: of("invokeP50"),
    hostCallP50: of("hostCallP50"),
    scriptPerCallMs: of("scriptPerCallMs"),
    journalPair: of("journalPair"),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tempDir = mkdtempSync(join(tmpdir(), "corral-bench-codemode-"));
  try {
    const result = await measureCodeMode(tempDir, { rounds: 5, calls: 1_000, log: (m) => console.error(m) });
    console.log(JSON.stringify({ ...result, nestedOverInvoke: result.nestedP50 / result.invokeP50, laneOverInvoke: result.inProcessLane / result.invokeP50, nestedOverHostCall: result.nestedP50 / result.hostCallP50 }, null, 2));
  } finally {
    rmSync(tempDir, { recursive: true, force: true });
  }
  process.exit(0);
}
