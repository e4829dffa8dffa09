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
import { serialize, OutputTooLarge, type SerializeBudget } from "./serialize.js";
import { describeThrown, MESSAGE_MAX_CHARS } from "./describe-thrown.js";
import { createTimers } from "./timers.js";
import { createConsole } from "./console.js";
import { collectTools, manifestOf, ModuleError } from "./module-tools.js";
import { isBlocked, isSignal } from "./signals.js";
import { installWebGlobals } from "./web/index.js";
import { createFetch } from "./web/fetch.js";
import { createCapabilityClient } from "./capability-client.js";
import { createCapabilityApi } from "./capability-api.js";
import { createCodeMode } from "./codemode.js";
import { answerOf, clipText, createAnswers, isAllocationRefusal, issuesOf, summarise } from "./answers.js";
import type { GuestAnswer, GuestAnswerKind, GuestApi, GuestLent, GuestLoadAnswer, StartRequest } from "../shared/guest-api.js";

const globalObject = globalThis as Record<string, unknown>;
// The callbacks the worker lends (GuestLent in sandbox/shared/guest-api.ts):
// taken off the global object before any tool code exists.
const FERAL_WAKE = lent("__corral_wake");
const FERAL_DONE = lent("__corral_done");
const FERAL_RANDOM = lent("__corral_random");
const FERAL_LOAD_URL = lent("__corral_load_url");
const FERAL_CAPABILITY = lent("__corral_capability");

function lent<K extends keyof GuestLent>(name: K): GuestLent[K] {
  const value = globalObject[name];
  delete globalObject[name];
  if (typeof value !== "function") throw new Error(`corral runtime: the worker lent no ${name}`);
  return value as GuestLent[K];
}

/** The call in progress; a timer callback that throws fails it. */
let failCurrentCall: ((error: unknown) => void) | undefined;

const timers = createTimers({
  wake: (delayMs) => FERAL_WAKE(delayMs),
  onUncaught: (error) => failCurrentCall?.(error),
});
const guestConsole = createConsole();
const { successAnswer, errorAnswer, successRecord } = createAnswers(() => guestConsole.take());

function defineGlobal(name: string, value: unknown): void {
  I.ObjectDefineProperty(globalObject, name, { value, writable: true, configurable: true, enumerable: false });
}
for (const name of I.ObjectKeys(timers.globals)) defineGlobal(name, (timers.globals as Record<string, unknown>)[name]);
defineGlobal("console", guestConsole.console);
// URL, TextEncoder, crypto (random bytes from the worker's CSPRNG), fetch's classes ...
installWebGlobals(globalObject, { random: (count) => FERAL_RANDOM(count), loadUrl: () => FERAL_LOAD_URL() });
// fetch, ctx.fs and ctx.state: requests the host performs (and judges) for the current call.
const capabilities = createCapabilityClient((seq, requestJson) => FERAL_CAPABILITY(seq, requestJson));
const capabilityApi = createCapabilityApi(capabilities);
const ourFetch = createFetch(capabilities);

/**
 * `fetch` is a global only for a tool that declared `net_read` or
 * `net_write`. An isolate serves calls of one tool, so this changes the
 * global at most once in it (a describe isolate never calls).
 */
let fetchFor: Tool | undefined;
function syncFetchGlobal(tool: Tool): void {
  if (fetchFor === tool) return;
  fetchFor = tool;
  const effects = tool.effects as readonly string[];
  let wantsNet = false;
  for (let i = 0; I.ArrayIsArray(effects) && i < effects.length; i++) wantsNet ||= effects[i] === "net_read" || effects[i] === "net_write";
  if (wantsNet) defineGlobal("fetch", ourFetch);
  else if (globalObject.fetch === ourFetch) delete globalObject.fetch;
}
const FETCH_HINT = " (fetch is there only for tools that declare the net_read or net_write effect)";

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
// Code Mode scripts' `tools`, `search` and `describe` (the host answers them only for a script).
MODULES["corral:codemode"] = createCodeMode(capabilities);

function requireModule(specifier: unknown): unknown {
  if (typeof specifier === "string" && I.hasOwn(MODULES, specifier)) return MODULES[specifier];
  throw new I.Error(`module "${I.String(specifier)}" is not available inside a tool: only "corral" and "zod" are`);
}

let tools = new I.Map<string, Tool>();

/**
 * Runs a call. A tool whose `run` returns a plain value is answered in this
 * same entry; one that returns a promise (or any thenable) is answered by the
 * promise this returns. Never throws, never rejects.
 */
function invoke(name: string, inputJson: string, callId: string, budget: SerializeBudget): GuestAnswer | Promise<GuestAnswer> {
  const tool = I.mapGet(tools, name);
  if (tool === undefined) return errorAnswer("unknown_tool", `this module has no tool named "${clipText(name, 200)}"`);
  return invokeTool(tool, name, inputJson, callId, budget);
}

function invokeTool(tool: Tool, name: string, inputJson: string, callId: string, budget: SerializeBudget): GuestAnswer | Promise<GuestAnswer> {
  let value: unknown;
  try {
    let input: unknown;
    try {
      input = I.JSONParse(inputJson);
    } catch {
      return errorAnswer("invalid_input", "the input is not valid JSON");
    }
    const parsed = tool.input.safeParse(input);
    if (!parsed.success) {
      const issues = issuesOf(parsed.error);
      return errorAnswer("invalid_input", `the input does not match the tool's schema: ${summarise(issues)}`, { issues });
    }
    syncFetchGlobal(tool);
    value = I.apply(tool.run, tool, [parsed.data, I.ObjectFreeze({ callId, tool: name, fs: capabilityApi.fs, state: capabilityApi.state })]);
    if (!isThenable(value)) return answer(tool, value, budget);
  } catch (thrown) {
    return failureAnswer(thrown);
  }
  return settle(tool, value, budget);
}

/** Reading `then` may run the tool's own getter: that is tool code, inside invoke's try. */
function isThenable(value: unknown): boolean {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
}

/**
 * Waits for the tool's thenable through a promise of the runtime's own
 * (resolving it with the thenable runs the tool's `then`, as tool code), so
 * a replaced Promise.prototype.then or species cannot stall the answer.
 */
function settle(tool: Tool, pending: unknown, budget: SerializeBudget): Promise<GuestAnswer> {
  return I.ownPromise<GuestAnswer>((resolveAnswer) => {
    const waiting = I.ownPromise<unknown>((resolve, reject) => {
      // A timer callback of this call that throws fails it: `waiting` is not
      // resolved with the tool's thenable (that would lock it to it), it
      // follows a promise that is.
      failCurrentCall = reject;
      I.ownThen(I.ownPromise<unknown>((follow) => follow(pending)), resolve, reject);
    });
    I.ownThen(
      waiting,
      (value) => {
        failCurrentCall = undefined;
        resolveAnswer(answer(tool, value, budget));
      },
      (thrown) => {
        failCurrentCall = undefined;
        resolveAnswer(failureAnswer(thrown));
      },
    );
  });
}

/** The answer of what `run` gave; a result past the budget becomes an error answer. */
function answer(tool: Tool, value: unknown, budget: SerializeBudget): GuestAnswer {
  try {
    const record = successRecord(tool, value);
    return isAnswer(record) ? record : successAnswer(record, budget);
  } catch (thrown) {
    return failureAnswer(thrown);
  }
}

function isAnswer(value: Record<string, unknown> | GuestAnswer): value is GuestAnswer {
  return I.ObjectGetPrototypeOf(value) !== null;
}

/** Never throws: describing the thrown value is guarded, and errorAnswer clips. */
function failureAnswer(thrown: unknown): GuestAnswer {
  try {
    if (isSignal(thrown) && thrown instanceof OutputTooLarge) {
      return errorAnswer("output_too_large", `${thrown.reason}: return less data, or page through it`);
    }
    const { message, stack } = describeThrown(thrown);
    // The host's policy or gate refused a capability and the tool let it through.
    if (isBlocked(thrown)) return errorAnswer("blocked", message);
    const hinted = fetchFor !== undefined && globalObject.fetch === undefined && /\bfetch is not defined\b/.test(message) ? `${message}${FETCH_HINT}` : message;
    const failed = errorAnswer("tool_error", hinted, stack === undefined ? undefined : { stack });
    if (isAllocationRefusal(thrown)) failed.refused = true;
    return failed;
  } catch {
    return errorAnswer("tool_error", "the tool threw a value that could not be described");
  }
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
