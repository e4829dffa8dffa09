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
import { isSignal } from "./signals.js";
import { installWebGlobals } from "./web/index.js";
import { createFetch } from "./web/fetch.js";
import { createCapabilityClient } from "./capability-client.js";
import { createCapabilityApi } from "./capability-api.js";

type Schedule = (id: number, delayMs: number) => void;

const globalObject = globalThis as Record<string, unknown>;
// The two callbacks the worker lends (fire-and-forget, plain numbers in):
// taken off the global object before any tool code exists.
const FERAL_SCHEDULE = globalObject.__corral_schedule as Schedule | undefined;
const FERAL_DONE = globalObject.__corral_done as ((seq: number) => void) | undefined;
const FERAL_RANDOM = globalObject.__corral_random as ((count: number) => string) | undefined;
const FERAL_LOAD_URL = globalObject.__corral_load_url as (() => void) | undefined;
const FERAL_CAPABILITY = globalObject.__corral_capability as ((seq: number, requestJson: string) => void) | undefined;
delete globalObject.__corral_schedule;
delete globalObject.__corral_done;
delete globalObject.__corral_random;
delete globalObject.__corral_load_url;
delete globalObject.__corral_capability;
if (
  typeof FERAL_SCHEDULE !== "function" ||
  typeof FERAL_DONE !== "function" ||
  typeof FERAL_RANDOM !== "function" ||
  typeof FERAL_LOAD_URL !== "function" ||
  typeof FERAL_CAPABILITY !== "function"
) {
  throw new Error("corral runtime: the worker lent no callbacks");
}

/** The call in progress; a timer callback that throws fails it. */
let failCurrentCall: ((error: unknown) => void) | undefined;

const timers = createTimers(
  (id, delayMs) => {
    FERAL_SCHEDULE(id, delayMs);
  },
  { onUncaught: (error) => failCurrentCall?.(error) },
);
const guestConsole = createConsole();

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

function requireModule(specifier: unknown): unknown {
  if (typeof specifier === "string" && I.hasOwn(MODULES, specifier)) return MODULES[specifier];
  throw new I.Error(`module "${I.String(specifier)}" is not available inside a tool: only "corral" and "zod" are`);
}

let tools = new I.Map<string, Tool>();

function envelope(record: Record<string, unknown>, budget: SerializeBudget): string {
  const logs = guestConsole.take();
  if (logs.length > 0) record.logs = logs;
  return serialize(record, budget);
}

function errorEnvelope(kind: string, message: string, extra?: Record<string, unknown>): string {
  const record = I.ObjectCreate(null) as Record<string, unknown>;
  record.ok = false;
  record.kind = kind;
  record.message = message;
  if (extra !== undefined) {
    const keys = I.ObjectKeys(extra);
    for (let i = 0; i < keys.length; i++) record[keys[i] as string] = extra[keys[i] as string];
  }
  // Error envelopes are ours and small; they get a fixed budget of their own.
  return envelope(record, { maxBytes: 64 * 1024, maxDepth: 8 });
}

function issuesOf(error: zod.ZodError): unknown[] {
  const issues: unknown[] = [];
  const list = error.issues;
  for (let i = 0; i < list.length && i < 50; i++) {
    const issue = list[i] as zod.core.$ZodIssue;
    const path: (string | number)[] = [];
    const parts = issue.path;
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j];
      I.arrayPush(path, typeof part === "number" ? part : I.String(part));
    }
    I.arrayPush(issues, { path, message: I.String(issue.message), code: I.String(issue.code) });
  }
  return issues;
}

function summarise(issues: unknown[]): string {
  const parts: string[] = [];
  const list = issues as { path: unknown[]; message: string }[];
  for (let i = 0; i < list.length; i++) {
    const issue = list[i] as { path: unknown[]; message: string };
    const where = issue.path.length > 0 ? I.arrayJoin(issue.path, ".") : "(root)";
    I.arrayPush(parts, `${where}: ${issue.message}`);
  }
  return I.stringSlice(I.arrayJoin(parts, "; "), 0, MESSAGE_MAX_CHARS);
}

/** Builds the success envelope from what `run` returned. */
function successRecord(tool: Tool, value: unknown): Record<string, unknown> | string {
  const record = I.ObjectCreate(null) as Record<string, unknown>;
  record.ok = true;
  let structured: unknown;
  if (sdk.isToolResult(value)) {
    const { text, structured: data, details, control, images } = value;
    if (text !== undefined && typeof text !== "string") return errorEnvelope("tool_error", "toolResult({ text }) must be a string");
    if (text !== undefined) record.text = text;
    structured = data;
    if (details !== undefined) record.details = details;
    if (control !== undefined) record.control = control;
    if (images !== undefined) record.images = images;
  } else if (typeof value === "string") {
    record.text = value;
  } else {
    structured = value;
  }
  if (tool.output !== undefined) {
    const checked = tool.output.safeParse(structured);
    if (!checked.success) {
      const issues = issuesOf(checked.error);
      return errorEnvelope(
        "tool_error",
        `the tool's result does not match its output schema (${summarise(issues)}); this is a bug in the tool`,
        { issues },
      );
    }
    structured = checked.data;
  }
  if (structured !== undefined) record.structured = structured;
  return record;
}

/**
 * Runs a call. A tool whose `run` returns a plain value is answered in this
 * same entry, as text; one that returns a promise (or any thenable) is
 * answered by the promise this returns. Never throws, never rejects.
 */
function invoke(name: string, inputJson: string, callId: string, maxBytes: number, maxDepth: number): string | Promise<string> {
  const budget = { maxBytes, maxDepth };
  const tool = I.mapGet(tools, name);
  if (tool === undefined) return errorEnvelope("unknown_tool", `this module has no tool named "${name}"`);
  return invokeTool(tool, name, inputJson, callId, budget);
}

function invokeTool(tool: Tool, name: string, inputJson: string, callId: string, budget: SerializeBudget): string | Promise<string> {
  let value: unknown;
  try {
    let input: unknown;
    try {
      input = I.JSONParse(inputJson);
    } catch {
      return errorEnvelope("invalid_input", "the input is not valid JSON");
    }
    const parsed = tool.input.safeParse(input);
    if (!parsed.success) {
      const issues = issuesOf(parsed.error);
      return errorEnvelope("invalid_input", `the input does not match the tool's schema: ${summarise(issues)}`, { issues });
    }
    syncFetchGlobal(tool);
    value = I.apply(tool.run, tool, [parsed.data, I.ObjectFreeze({ callId, tool: name, fs: capabilityApi.fs, state: capabilityApi.state })]);
    if (!isThenable(value)) return answer(tool, value, budget);
  } catch (thrown) {
    return failureEnvelope(thrown);
  }
  return settle(tool, value, budget);
}

/** Reading `then` may run the tool's own getter: that is tool code, inside invoke's try. */
function isThenable(value: unknown): boolean {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
}

async function settle(tool: Tool, pending: unknown, budget: SerializeBudget): Promise<string> {
  try {
    const value = await new I.Promise<unknown>((resolve, reject) => {
      // A timer callback of this call that throws fails it.
      failCurrentCall = reject;
      I.promiseThen(I.Promise.resolve(pending), resolve, reject);
    });
    return answer(tool, value, budget);
  } catch (thrown) {
    return failureEnvelope(thrown);
  } finally {
    failCurrentCall = undefined;
  }
}

/** The envelope of what `run` gave; a result past the budget becomes an error envelope. */
function answer(tool: Tool, value: unknown, budget: SerializeBudget): string {
  try {
    const record = successRecord(tool, value);
    return typeof record === "string" ? record : envelope(record, budget);
  } catch (thrown) {
    return failureEnvelope(thrown);
  }
}

function failureEnvelope(thrown: unknown): string {
  if (isSignal(thrown) && thrown instanceof OutputTooLarge) {
    return errorEnvelope("output_too_large", `${thrown.reason}: return less data, or page through it`);
  }
  const { message, stack } = describeThrown(thrown);
  const hinted = fetchFor !== undefined && globalObject.fetch === undefined && /\bfetch is not defined\b/.test(message) ? `${message}${FETCH_HINT}` : message;
  return errorEnvelope("tool_error", hinted, stack === undefined ? undefined : { stack });
}

/**
 * Starts a call, entered with a synchronous apply (no thread hop). A tool
 * that answers at once is answered here: `start` returns its envelope, and
 * the call is over. Otherwise `start` returns "" and the worker asks `poll`
 * right away: a tool waiting only on promises has settled by then (the
 * microtask checkpoint runs between the two entries). A tool still waiting
 * (timers) calls the worker's `done(seq)` when it settles.
 */
let settled: { seq: number; text: string } | undefined;
function start(seq: number, name: string, inputJson: string, callId: string, maxBytes: number, maxDepth: number): string {
  settled = undefined;
  const result = invoke(name, inputJson, callId, maxBytes, maxDepth);
  if (typeof result === "string") {
    // Kept for poll too: the entry can still throw after this returns (a
    // detached promise of the tool rejected in the checkpoint), and then the
    // worker asks poll for the answer.
    settled = { seq, text: result };
    resetCall();
    return result;
  }
  I.promiseThen(
    result,
    (text) => {
      settled = { seq, text: text as string };
      FERAL_DONE?.(seq);
    },
    () => undefined, // invoke never rejects
  );
  return "";
}

/**
 * The settled envelope of call `seq`, once; "" while it is still running.
 * Handing the envelope over ends the call: its timers are forgotten.
 */
function poll(seq: number): string {
  if (settled === undefined || settled.seq !== seq) return "";
  const { text } = settled;
  settled = undefined;
  resetCall();
  return text;
}

/**
 * Runs the runtime's own paths once (describe, an input check that passes
 * and one that fails, a result through the serializer) on a tool of its own
 * that no module can reach, so that a prepared isolate's first real load and
 * call find them compiled (~2 ms of a cold tool's first call here). Leaves
 * nothing behind: no tool registered, no log line, no timer.
 */
function warm(): string {
  const tool = sdk.defineTool({
    name: "corral_warm_up",
    description: "warms the runtime",
    input: zod.object({ text: zod.string(), count: zod.number().int().optional() }),
    effects: [],
    run: (input: { text: string }) => ({ length: input.text.length, at: new I.Date(0), list: [1, "a", null, true] }),
  });
  manifestOf(tool);
  const budget = { maxBytes: 64 * 1024, maxDepth: 8 };
  const answered = invokeTool(tool, "corral_warm_up", '{"text":"a b c","count":1}', "warm-up", budget);
  invokeTool(tool, "corral_warm_up", '{"text":1}', "warm-up", budget);
  guestConsole.take();
  resetCall();
  return typeof answered === "string" ? answered : "";
}

/** Runs the bundle's top level and keeps its tools. Answers "" or an error text. */
function load(factory: Function): string {
  try {
    const module: { exports: unknown } = { exports: {} };
    I.apply(factory, undefined, [module, module.exports, requireModule]);
    tools = collectTools(module.exports);
    // Lines the top level logged belong to no call; timers it set never fire.
    guestConsole.take();
    resetCall();
    return "";
  } catch (thrown) {
    const record = I.ObjectCreate(null) as Record<string, unknown>;
    if (isSignal(thrown) && thrown instanceof ModuleError) record.message = thrown.message;
    else {
      const { message, stack } = describeThrown(thrown);
      record.message = `the module threw while loading: ${message}`;
      if (stack !== undefined) record.stack = stack;
    }
    return serialize(record, { maxBytes: 64 * 1024, maxDepth: 4 });
  }
}

/** The manifests of the loaded tools, as JSON text. */
function describe(maxBytes: number): string {
  try {
    const list: unknown[] = [];
    I.mapForEach(tools as Map<unknown, unknown>, (tool) => {
      I.arrayPush(list, manifestOf(tool as Tool));
    });
    return serialize({ ok: true, tools: list }, { maxBytes, maxDepth: 64 });
  } catch (thrown) {
    const { message } = describeThrown(thrown);
    return serialize({ ok: false, message: `describing the tools failed: ${message}` }, { maxBytes: 64 * 1024, maxDepth: 4 });
  }
}

// The script's completion value. esbuild wraps this module so the worker
// receives it from `script.run` without a global.
export const api = I.ObjectFreeze({ load, describe, start, poll, warm, fire: timers.fire, capability: capabilities.settle });
