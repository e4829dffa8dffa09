// `node --expose-gc --no-node-snapshot scripts/bench/runtime-heap.mjs [dist]`:
// what each lazily built part of the web runtime costs an isolate's heap.
// For each part, a fresh isolate runs the guest runtime (as a worker's
// does), touches that one global, and is measured after a full GC
// (used_heap_size), so garbage and the tool's own objects count for
// nothing; "nothing" is the isolate of a tool that touches no web global.
// The first touch's time includes compiling the part's script (later
// isolates of the worker use its code cache). Pass another build's dist/ to
// compare. Prints one JSON line.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

if (typeof globalThis.gc !== "function") throw new Error("run with --expose-gc (the isolates get gc() from the same flag)");
const dist = resolve(process.argv[2] ?? new URL("../../dist/", import.meta.url).pathname);
const load = (relative) => import(pathToFileURL(join(dist, relative)).href);
const { ivm } = await load("sandbox/worker/load-isolated-vm.js");
const { runGuestRuntime } = await load("sandbox/worker/isolate-setup.js");

const PARTS = {
  nothing: "0",
  EventTarget: "typeof EventTarget",
  Response: "typeof Response",
  "crypto.subtle": "typeof crypto.subtle",
  structuredClone: "typeof structuredClone",
  Blob: "typeof Blob",
  ReadableStream: "typeof ReadableStream",
  URL: "typeof URL",
  URLPattern: "typeof URLPattern",
};
const SAMPLES = 3;
const rows = {};
for (const [name, touch] of Object.entries(PARTS)) {
  const heaps = [];
  let firstMs = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    try {
      const context = isolate.createContextSync();
      runGuestRuntime(isolate, context, [], { wake() {}, done() {}, capability: () => undefined }, 5000);
      const started = performance.now();
      const kind = context.evalSync(touch);
      if (i === 0) firstMs = performance.now() - started;
      if (kind === "undefined") throw new Error(`${name} is not there in this build`);
      for (let j = 0; j < 3; j++) context.evalSync("gc()");
      heaps.push(isolate.getHeapStatisticsSync().used_heap_size);
    } catch (error) {
      heaps.push(Number.NaN);
      rows[name] = { missing: String(error.message).slice(0, 60) };
    } finally {
      isolate.dispose();
    }
  }
  if (rows[name] === undefined) rows[name] = { heapKiB: Math.round(Math.min(...heaps) / 1024), firstTouchMs: +firstMs.toFixed(2) };
}
process.stdout.write(`${JSON.stringify({ dist, rows })}\n`);
