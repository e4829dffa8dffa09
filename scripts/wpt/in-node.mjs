/**
 * Runs one WPT test in a fresh Node worker thread (plain Node: its own web
 * globals, nothing of corral's), reading resource files from the WPT folder.
 */
import { Worker } from "node:worker_threads";
import { RUN_WPT } from "./harness.mjs";

const WORKER = `
const { workerData, parentPort } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const runWpt = new Function(${JSON.stringify(RUN_WPT)} + "; return runWpt;")();
const load = (path) => { try { return new Uint8Array(readFileSync(join(workerData.wpt, path))); } catch { return undefined; } };
runWpt(workerData.input, load).then((answer) => parentPort.postMessage(answer), (e) => parentPort.postMessage({ failed: String(e && e.stack || e) }));
`;

/** `{ tests, harness, errors, requested }`, or `{ failed }` if the thread died or overran. */
export function runInNode(wpt, input) {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { wpt, input }, resourceLimits: { maxOldGenerationSizeMb: 512 }, stdout: true, stderr: true });
    const kill = setTimeout(() => { worker.terminate(); resolve({ failed: "overran its time in Node" }); }, input.timeoutMs + 10_000);
    worker.once("message", (answer) => { clearTimeout(kill); worker.terminate(); resolve(answer); });
    worker.once("error", (e) => { clearTimeout(kill); resolve({ failed: String(e && e.stack || e) }); });
    worker.once("exit", (code) => { clearTimeout(kill); resolve({ failed: "exited " + code }); });
  });
}
