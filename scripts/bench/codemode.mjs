// Code Mode's nested calls: one script makes 1,000 calls of word_count (warm
// in the script's worker) one after another, timing each with the isolate's
// own clock; beside it, in the same run, ToolIsolate.invoke of the same tool
// in this process (the floor a call inside the worker cannot beat) and one
// ordinary host.call. Every nested call today is routed through the host:
// script → worker → host (judge, ledger) → worker (run the tool) → host →
// worker → script, two IPC round trips per call.
//
//   node --no-node-snapshot scripts/bench/codemode.mjs   (after npm run build; prints JSON)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callOk, createInProcessToolIsolate, createWarmCorral } from "./contenders.mjs";
import { median, summarize, timeSerial } from "./harness.mjs";

const NESTED_SCRIPT = (calls) => `
const times = [];
for (let i = 0; i < ${calls}; i++) {
  const started = performance.now();
  await tools.word_count({ text: "the quick brown fox jumps over the lazy dog" });
  times.push(performance.now() - started);
}
return times;`;

/** Answers p50s (ms) per round, and the median of rounds, of: a nested call, ToolIsolate.invoke, host.call, and the whole script per nested call. */
export async function measureCodeMode(tempDir, { rounds, calls, log }) {
  const corral = await createWarmCorral(tempDir, { codeMode: { maxCalls: calls, timeoutMs: 60_000 } });
  const toolIsolate = await createInProcessToolIsolate(tempDir);
  const perRound = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const script = await callOk(corral.host, "run_code", { code: NESTED_SCRIPT(calls) });
      const scriptMs = performance.now() - started;
      const nested = summarize(script.structured);
      const invoke = summarize(await timeSerial(toolIsolate.call, calls));
      const hostCall = summarize(await timeSerial(corral.call, Math.min(calls, 500)));
      perRound.push({ nestedP50: nested.p50, nestedP99: nested.p99, invokeP50: invoke.p50, hostCallP50: hostCall.p50, scriptPerCallMs: scriptMs / calls });
      log?.(`code mode round ${round + 1}/${rounds}`);
    }
  } finally {
    await toolIsolate.close();
    await corral.close();
  }
  const of = (key) => median(perRound.map((r) => r[key]));
  return { calls, rounds, nestedP50: of("nestedP50"), nestedP99: of("nestedP99"), invokeP50: of("invokeP50"), hostCallP50: of("hostCallP50"), scriptPerCallMs: of("scriptPerCallMs") };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tempDir = mkdtempSync(join(tmpdir(), "corral-bench-codemode-"));
  try {
    const result = await measureCodeMode(tempDir, { rounds: 3, calls: 1_000, log: (m) => console.error(m) });
    console.log(JSON.stringify({ ...result, nestedOverInvoke: result.nestedP50 / result.invokeP50, nestedOverHostCall: result.nestedP50 / result.hostCallP50 }, null, 2));
  } finally {
    rmSync(tempDir, { recursive: true, force: true });
  }
  process.exit(0);
}
