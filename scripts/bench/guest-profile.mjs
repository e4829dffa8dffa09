// Profiles the guest side of a warm call: what runs inside the isolate. V8's
// profiler inside an isolated-vm 5.0.4 isolate deadlocks at random (an entry
// into a profiled isolate sometimes never returns), so the guest runtime runs
// here in a node:vm context instead: the same V8, the same script (built
// with scripts/build.mjs's options, identifiers kept and a source map added,
// so the profile names functions), set up as ToolIsolate sets it up (runtime
// first, the tool bundle wrapped as a CommonJS factory, then `start` + `poll`
// per call). Values cross without isolated-vm's copies; the JS is the same.
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { SourceMap } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { createContext, runInContext } from "node:vm";
import * as esbuild from "esbuild";
import { isolateScriptOptions } from "../isolate-script.mjs";
import { importCorral } from "./dist.mjs";
import { WORD_COUNT_INPUT_JSON, WORD_COUNT_OUTPUT_JSON } from "./tools.mjs";
import { compileWordCount } from "./direct-worker.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const { HOST_DEFAULTS } = await importCorral();
const RUNTIME_FILENAME = "corral:runtime";

/** The guest runtime as scripts/build.mjs bundles it, but with names kept and a source map. */
async function buildRuntime() {
  const result = await esbuild.build({
    ...isolateScriptOptions("api"),
    entryPoints: [join(ROOT, "sandbox/guest/runtime.ts")],
    outfile: join(ROOT, "runtime.profile.js"),
    write: false,
    // Names kept, so that the profile can tell the functions apart.
    minify: false,
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: "external",
  });
  const code = result.outputFiles.find((f) => f.path.endsWith(".js")).text;
  const map = JSON.parse(result.outputFiles.find((f) => f.path.endsWith(".map")).text);
  return { code, map };
}

/**
 * Answers the CPU profile of `calls` warm calls of word_count in the guest
 * runtime, and a function that maps a frame of the runtime to its source.
 */
export async function profileGuest(tempDir, { calls, warmup = 2_000 }) {
  const bundle = await compileWordCount(join(tempDir, "guest-cache"));
  const toolCode = bundle.code ?? readFileSync(bundle.path, "utf8");
  const runtime = await buildRuntime();
  const context = createContext({});
  // The worker lends these two callbacks; here nothing waits on them.
  runInContext("globalThis.__corral_wake = () => {}; globalThis.__corral_capability = () => {}; globalThis.__corral_done = () => {}; globalThis.__corral_random = (n) => '\\0'.repeat(n); globalThis.__corral_load_url = () => {}; globalThis.__corral_load_streams = () => {}; globalThis.__corral_load_web = () => {}; globalThis.__corral_encoding = () => ''; globalThis.__corral_decode = () => 2;", context);
  const api = runInContext(runtime.code, context, { filename: RUNTIME_FILENAME });
  const factory = runInContext(`(function (module, exports, require) {\n${toolCode}\n})`, context, { filename: "agent:bench", lineOffset: -1 });
  const loaded = api.load(factory);
  if (!loaded.ok) throw new Error(`bench: the guest runtime refused word_count: ${loaded.message}`);
  let seq = 0;
  // The runtime's API (sandbox/shared/guest-api.ts): start answers at once or null; poll answers "pending" until it settles.
  const call = async () => {
    seq++;
    let answer = api.start({ seq, tool: "word_count", inputJson: WORD_COUNT_INPUT_JSON, callId: `call-${seq}`, maxBytes: HOST_DEFAULTS.maxOutputBytes, maxDepth: HOST_DEFAULTS.maxDepth });
    // In the isolate a microtask checkpoint runs between start and poll.
    while (answer === null || answer === "pending") {
      await null;
      answer = api.poll(seq);
      if (answer === null) throw new Error("bench: the guest lost call " + seq);
    }
    return answer.text;
  };
  const first = await call();
  if (!first.includes(WORD_COUNT_OUTPUT_JSON)) throw new Error(`bench: the guest answered ${first}`);
  for (let i = 0; i < warmup; i++) await call();

  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 50 });
    await session.post("Profiler.start");
    const started = performance.now();
    for (let i = 0; i < calls; i++) await call();
    const wallMs = performance.now() - started;
    const { profile } = await session.post("Profiler.stop");
    const sourceMap = new SourceMap(runtime.map);
    const locate = (frame) => {
      if (frame.url !== RUNTIME_FILENAME) return undefined;
      const entry = sourceMap.findEntry(frame.lineNumber, frame.columnNumber);
      if (entry?.originalSource === undefined) return undefined;
      const source = relative(ROOT, fileURLToPath(new URL(entry.originalSource, `file://${ROOT}/runtime.profile.js`)));
      return `${source}:${entry.originalLine + 1}`;
    };
    return { profile, calls, wallMs, locate };
  } finally {
    session.disconnect();
  }
}
