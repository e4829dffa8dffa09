/**
 * @module sandbox/guest/runtime
 * The guest runtime: the first script run in every tool context, bundled with
 * zod and the SDK into one script (dist/sandbox/guest/runtime.bundle.js). Its
 * completion value is the API the worker drives through References; nothing
 * of it is left on the global object.
 *
 * Invariants:
 * - Every entry point returns a string or nothing. Nothing the tool made
 *   leaves the isolate except through `serialize`, which runs here under the
 *   call's limits and bounds the text.
 * - `invoke` never rejects: every throw, including a hostile thrown object,
 *   becomes an envelope with a plain message. A rejection seen by the worker
 *   therefore comes from isolated-vm itself (timeout, disposal).
 * - The runtime uses only intrinsics captured before the tool ran.
 */
import * as zod from "zod";
import * as sdk from "../sdk/index.js";
import type { Tool } from "../sdk/index.js";
import { intrinsics as I } from "./intrinsics.js";
import { serialize, type SerializeBudget } from "./serialize.js";
import { describeThrown, MESSAGE_MAX_CHARS } from "./describe-thrown.js";
import { createTimers } from "./timers.js";
import { createConsole } from "./console.js";
import { collectTools, manifestOf, ModuleError } from "./module-tools.js";
import { isSignal } from "./signals.js";
import { installWebGlobals } from "./web/index.js";
import { createFetch } from "./web/fetch.js";
import { installWasm } from "./wasm.js";
import { removeWaitAsync } from "./atomics.js";
import { nameFunction } from "./standard-names.js";
import { createCapabilityClient } from "./capability-client.js";
import { createCapabilityApi } from "./capability-api.js";
import { createTalkBackApi } from "./talk-back-api.js";
import { createCodeMode } from "./codemode.js";
import { answerOf, clipText, createAnswers } from "./answers.js";
import { createToolCalls } from "./tool-call.js";
import type { GuestAnswer, GuestAnswerKind, GuestApi, GuestLent, GuestLoadAnswer, StartRequest } from "../shared/guest-api.js";

const globalObject = globalThis as Record<string, unknown>;
// The callbacks the worker lends (GuestLent in sandbox/shared/guest-api.ts):
// taken off the global object before any tool code exists.
const FERAL_WAKE = lent("__corral_wake");
const FERAL_DONE = lent("__corral_done");
const FERAL_RANDOM = lent("__corral_random");
const FERAL_LOAD_URL = lent("__corral_load_url");
const FERAL_LOAD_STREAMS = lent("__corral_load_streams");
const FERAL_LOAD_WEB = lent("__corral_load_web");
const FERAL_ENCODING = lent("__corral_encoding");
const FERAL_DECODE = lent("__corral_decode");
const FERAL_CAPABILITY = lent("__corral_capability");

function lent<K extends keyof GuestLent>(name: K): GuestLent[K] {
  const value = globalObject[name];
  delete globalObject[name];
  if (typeof value !== "function") throw new Error(`corral runtime: the worker lent no ${name}`);
  return value as GuestLent[K];
}

const timers = createTimers({
  wake: (delayMs) => FERAL_WAKE(delayMs),
  onUncaught: (error) => failCurrentCall(error),
});
const guestConsole = createConsole();
const answers = createAnswers(() => guestConsole.take());
const { errorAnswer } = answers;

/** A global of the runtime's, under its standard name (the bundle's own names are minified). */
function defineGlobal(name: string, value: unknown): void {
  I.ObjectDefineProperty(globalObject, name, { __proto__: null, value: nameFunction(value, name), writable: true, configurable: true, enumerable: false } as PropertyDescriptor);
}
for (const name of I.ObjectKeys(timers.globals)) defineGlobal(name, (timers.globals as Record<string, unknown>)[name]);
defineGlobal("console", guestConsole.console);
// URL, TextEncoder, crypto (random bytes from the worker's CSPRNG), fetch's classes ...
// reportError's uncancelled errors go to the tool's console as "Uncaught <name>: <message>" (describeThrown reads them safely).
installWebGlobals(globalObject, {
  random: (count) => FERAL_RANDOM(count),
  loadUrl: () => FERAL_LOAD_URL(),
  loadStreams: () => FERAL_LOAD_STREAMS(),
  loadWeb: () => FERAL_LOAD_WEB(),
  // Answered by the worker itself (sandbox/worker/web-crypto-bridge.ts, compression-bridge.ts); `capabilities` is made below, before any tool runs.
  askWorker: (request, payload) => capabilities.exchange(request as never, payload),
  decode: { encoding: (label) => FERAL_ENCODING(label), decode: (handle, encoding, flags, bytes, stream) => FERAL_DECODE(handle, encoding, flags, bytes, stream) },
  reportToConsole: (error) => guestConsole.error(`Uncaught ${describeThrown(error).message}`),
});
// WebAssembly.compile/instantiate from the synchronous constructors: the engine's own never settle in an isolate (wasm.ts).
installWasm(globalObject);
// Atomics.waitAsync settles from a posted task too, and one with a timeout aborts the worker (atomics.ts).
removeWaitAsync(globalObject);
// fetch, ctx.fs and ctx.state: requests the host performs (and judges) for the current call.
const capabilities = createCapabilityClient((seq, requestJson, payload) => (payload === undefined ? FERAL_CAPABILITY(seq, requestJson) : FERAL_CAPABILITY(seq, requestJson, payload)));
// fetch is in every isolate, as in Node: the host refuses a use the tool's effects do not declare (`undeclared`).
defineGlobal("fetch", createFetch(capabilities));
// Code Mode scripts' `tools`, `search` and `describe` (the host answers them only for a script).
const codeMode = createCodeMode(capabilities);
// One call of a tool: its input, its run, its answer (tool-call.ts).
const { invokeTool, failCurrentCall } = createToolCalls({
  answers,
  plainOnly: codeMode.isScript,
  capabilityApi: Object.freeze({ ...createCapabilityApi(capabilities), ...createTalkBackApi(capabilities) }),
});

/** A call is over: its timers and capability requests are forgotten. */
function resetCall(): void {
  timers.reset();
  capabilities.reset();
}

// zod would compile a parser for each object schema with `new Function` on
// its first parse: in a new isolate that costs more than it saves (~0.4 ms
// of its first call and ~0.1 ms of its second, measured; warm calls took as
// long either way), and the runtime then makes no code from strings. A tool
// may still turn it on in its own isolate.
zod.config({ jitless: true });

const MODULES: Record<string, unknown> = I.ObjectCreate(null);
MODULES.zod = zod;
MODULES["zod/v4"] = zod;
MODULES.corral = sdk;
MODULES["corral/sdk"] = sdk;
MODULES["corral:codemode"] = I.ObjectFreeze({ script: codeMode.script });

function requireModule(specifier: unknown): unknown {
  if (typeof specifier === "string" && I.hasOwn(MODULES, specifier)) return MODULES[specifier];
  throw new I.Error(`module "${I.String(specifier)}" is not available inside a tool: only "corral" and "zod" are`);
}

let tools = new I.Map<string, Tool>();

/** Runs a call of the loaded tool `name` (see createToolCalls). Never throws, never rejects. */
function invoke(name: string, inputJson: string, callId: string, budget: SerializeBudget): GuestAnswer | Promise<GuestAnswer> {
  const tool = I.mapGet(tools, name);
  if (tool === undefined) return errorAnswer("unknown_tool", `this module has no tool named "${clipText(name, 200)}"`);
  return invokeTool(tool, name, inputJson, callId, budget);
}

/**
 * Starts a call, entered with a synchronous apply (no thread hop). A tool
 * that answers at once is answered here: `start` returns its answer, and
 * the call is over. Otherwise `start` returns null and the worker asks `poll`
 * right away: a tool waiting only on promises has settled by then (the
 * microtask checkpoint runs between the two entries). A tool still waiting
 * (timers) calls the worker's `done(seq)` when it settles.
 */
let settled: { seq: number; answer: GuestAnswer } | undefined;
/** The call waiting on promises or timers, until its answer is handed over. */
let waitingSeq: number | undefined;
function start(request: StartRequest): GuestAnswer | null {
  settled = undefined;
  waitingSeq = undefined;
  const { seq } = request;
  const result = invoke(request.tool, request.inputJson, request.callId, { maxBytes: request.maxBytes, maxDepth: request.maxDepth });
  // An answer is a plain object of answerOf's; a pending call is a promise of
  // the runtime's own (a prototype check runs no tool code, unlike instanceof).
  if (I.ObjectGetPrototypeOf(result) === I.ObjectPrototype) {
    // Kept for poll too: the entry can still throw after this returns (a
    // detached promise of the tool rejected in the checkpoint), and then the
    // worker asks poll for the answer.
    const answered = result as GuestAnswer;
    settled = { seq, answer: answered };
    resetCall();
    return answered;
  }
  waitingSeq = seq;
  I.ownThen(
    result as Promise<GuestAnswer>,
    (answered) => {
      settled = { seq, answer: answered as GuestAnswer };
      FERAL_DONE(seq);
    },
    () => undefined, // invoke never rejects
  );
  return null;
}

/**
 * The settled answer of call `seq`, once; null while it is still running.
 * Handing the answer over ends the call: its timers are forgotten.
 */
function poll(seq: number): GuestAnswer | "pending" | null {
  if (settled === undefined || settled.seq !== seq) return waitingSeq === seq ? "pending" : null;
  const { answer: answered } = settled;
  settled = undefined;
  waitingSeq = undefined;
  resetCall();
  return answered;
}

/**
 * Runs the runtime's own paths once (describe, an input check that passes
 * and one that fails, a result through the serializer) on a tool of its own
 * that no module can reach, so that a prepared isolate's first real load and
 * call find them compiled (~2 ms of a cold tool's first call here). Leaves
 * nothing behind: no tool registered, no log line, no timer.
 */
function warm(): void {
  const tool = sdk.defineTool({
    name: "corral_warm_up",
    description: "warms the runtime",
    input: zod.object({ text: zod.string(), count: zod.number().int().optional() }),
    effects: [],
    run: (input: { text: string }) => ({ length: input.text.length, at: new I.Date(0), list: [1, "a", null, true] }),
  });
  manifestOf(tool);
  const budget = { maxBytes: 64 * 1024, maxDepth: 8 };
  invokeTool(tool, "corral_warm_up", '{"text":"a b c","count":1}', "warm-up", budget);
  invokeTool(tool, "corral_warm_up", '{"text":1}', "warm-up", budget);
  errorAnswer("tool_error", "warm-up", { stack: "Error: warm-up\n    at warm" });
  guestConsole.take();
  resetCall();
}

/** Runs the bundle's top level and keeps its tools. Never throws; the reason a module is refused comes clipped. */
function load(factory: Function): GuestLoadAnswer {
  try {
    const module: { exports: unknown } = { exports: {} };
    I.apply(factory, undefined, [module, module.exports, requireModule]);
    tools = collectTools(module.exports);
    // Lines the top level logged belong to no call; timers it set never fire.
    guestConsole.take();
    resetCall();
    return { ok: true };
  } catch (thrown) {
    guestConsole.take();
    resetCall();
    try {
      if (isSignal(thrown) && thrown instanceof ModuleError) return { ok: false, message: clipText(thrown.message, MESSAGE_MAX_CHARS), threw: false };
      const { message, stack } = describeThrown(thrown);
      const refused: GuestLoadAnswer = { ok: false, message: `the module threw while loading: ${message}`, threw: true };
      if (stack !== undefined) refused.stack = stack;
      return refused;
    } catch {
      return { ok: false, message: "the module threw a value that could not be described while loading", threw: true };
    }
  }
}

/** The manifests of the loaded tools, as JSON text. Never throws. */
function describe(maxBytes: number): GuestAnswer {
  try {
    const list: unknown[] = [];
    I.mapForEach(tools as Map<unknown, unknown>, (tool) => {
      I.arrayPush(list, manifestOf(tool as Tool));
    });
    return answerOf("ok", serialize({ ok: true, tools: list }, { maxBytes, maxDepth: 64 }));
  } catch (thrown) {
    let message: string;
    try {
      message = describeThrown(thrown).message;
    } catch {
      message = "a value that could not be described was thrown";
    }
    return answerOf("tool_error", `describing the tools failed: ${clipText(message, MESSAGE_MAX_CHARS)}`);
  }
}

// The script's completion value. esbuild wraps this module so the worker
// receives it from `script.run` without a global.
export const api: GuestApi = I.ObjectFreeze({ load, describe, start, poll, warm, fire: timers.fire, capability: capabilities.settle } satisfies GuestApi);
