/**
 * @module src/host/call-path
 * One call, one path, never a throw for a tool's failure:
 *
 * ```
 * runCall: resolve (own keys; reachable by the caller?) ─▶ runEntry: input → JSON
 *   ─▶ call-checks.ts: quarantined? ─▶ effect policy ─▶ gate (may take long; no clock runs)
 *   ─▶ admission (busy?) ─▶ tool_running
 *   ─▶ run: sandbox (sandboxRun: the task; pool.run) or built-in ─▶ ToolResult (resultOf)
 *   ─▶ call-record.ts: ledger.record (awaited for a strike; queued and written
 *      behind for other outcomes unless commitBeforeResult is "all") ─▶ audit line, tool_execution_end
 * ```
 * A warm call awaits only the pool's answer (and a strike's commit): the
 * checks and the admission answer at once when they can.
 * Every step that fails makes a ToolFailure with its outcome kind. Every call
 * that reached a source is recorded in the ledger, refused ones included (a
 * refusal is not a strike). A tool the caller may not reach is resolved as
 * no tool at all: same `unknown_tool` text, nothing recorded, nothing run.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { isolateKey, type CallLimits } from "../../sandbox/shared/task-parts.js";
import type { CallTask } from "../../sandbox/shared/tasks.js";
import type { IsolationMode } from "./isolation.js";
import type { EventHub } from "../events.js";
import type { BeforeToolCall, GateContext, ResolvedEffectPolicy } from "../gate/index.js";
import type { Ledger } from "../ledger/index.js";
import type { Admission, NestedOutcome, PoolOutcome, SandboxPool } from "../pool/index.js";
import { mayReach, type Caller, type Catalog, type CatalogEntry, type ScriptEnd } from "../registry/index.js";
import type { CallSpan, Telemetry } from "../telemetry/index.js";
import type { ErrorKind, ToolResult } from "../result.js";
import { capForModel, failure, fromEnvelope, type CallInfo, type ChannelLimits } from "./channels.js";
import { refusalOf } from "./call-checks.js";
import { finish } from "./call-record.js";
import type { QuarantineView } from "./quarantine-view.js";
import type { CallOptions } from "./types.js";
import type { CapabilityBroker } from "../capabilities/index.js";
import { talkBackOf } from "../capabilities/talk-back.js";

export type CallDeps = {
  /** Settles once the library's tools are in the catalog: the first calls wait for it. */
  libraryReady?: Promise<void>;
  catalog: Catalog;
  pool: SandboxPool;
  admission: Admission;
  events: EventHub;
  ledger: Ledger;
  quarantine: QuarantineView;
  effectPolicy: ResolvedEffectPolicy;
  gate: BeforeToolCall;
  limitsFor(entry: CatalogEntry, options: CallOptions): CallLimits;
  /** The source's isolation: "call" runs every call in a fresh isolate. */
  isolationFor(source: string): IsolationMode;
  channels: ChannelLimits;
  logger: Logger;
  logToolData: boolean;
  commitBeforeResult: "strikes" | "all";
  /** Judges and performs the capability requests of running calls. */
  capabilities?: CapabilityBroker;
  telemetry: Telemetry;
};

/**
 * The call path's own options besides the public ones: a Code Mode script's
 * tool call runs in the script's worker (`nested`), inside the script's
 * admission slot (taking another could wait for ever on the script itself),
 * and its record names the script's source (`via`, `code:<caller id>`), so
 * the ledger knows which tools each script source called.
 */
export type PathOptions = CallOptions & { nested?: (task: CallTask) => Promise<NestedOutcome>; via?: string };

export async function runCall(deps: CallDeps, name: string, input: unknown, options: PathOptions): Promise<ToolResult> {
  const callId = randomUUID();
  const started = performance.now();
  const tool = String(name).slice(0, 64);
  if (deps.libraryReady !== undefined) {
    await deps.libraryReady;
    deps.libraryReady = undefined;
  }
  let entry = typeof name === "string" ? reachable(deps.catalog.get(name), options.caller) : undefined;
  // run_code: each script is an entry of its own (source code:<caller id>, its bundle); a library tool is loaded on its first call.
  const prepared = entry?.runner.kind === "codemode" ? await entry.runner.prepare(input, options.caller) : entry?.runner.kind === "stored" ? await entry.runner.load() : undefined;
  if (prepared?.ok === true) entry = prepared.entry;
  const span = deps.telemetry.startCall(tool, callId, options.traceContext);
  // Events and the call's log line are built only when someone takes them: each is garbage the host collects otherwise.
  if (deps.events.listened) deps.events.emit({ type: "tool_execution_start", callId, tool, ...(entry ? { source: entry.source } : {}), at: Date.now() });
  const result = entry === undefined
    ? failure({ tool, callId }, "unknown_tool", `there is no tool named "${tool}"; the tools are listed by host.tools()`)
    : prepared?.ok === false
      ? failure({ tool, callId, source: entry.source, version: entry.version }, prepared.kind, prepared.message)
      : await runEntry(deps, entry, input, options, { tool, callId, source: entry.source, version: entry.version }, span);
  if (result.metrics.wallMs === 0) result.metrics = { ...result.metrics, wallMs: performance.now() - started };
  if (options.caller !== undefined && entry?.runner.kind === "builtin" && result.ok) options.caller.activate(result.control?.add_tools ?? []);
  await finish(deps, result, entry, input, options.caller, options.via);
  span.end(result);
  return result;
}

/** Model callers reach only what their exposure rule lets them; the embedding program reaches all. */
function reachable(entry: CatalogEntry | undefined, caller: Caller | undefined): CatalogEntry | undefined {
  return entry === undefined || caller === undefined || mayReach(entry.manifest, caller) ? entry : undefined;
}

async function runEntry(deps: CallDeps, entry: CatalogEntry, input: unknown, options: PathOptions, info: CallInfo, span: CallSpan): Promise<ToolResult> {
  let inputJson: string;
  try {
    inputJson = JSON.stringify(input === undefined ? {} : input) ?? "null";
  } catch (error) {
    return failure(info, "invalid_input", `the input cannot be sent as JSON: ${(error as Error).message}`);
  }
  // What the gate is told of the asker, for the call's checks and its capability requests alike.
  const gate = gateContext(options);
  const checked = refusalOf(deps, entry, info, inputJson, gate, span);
  const refused = checked instanceof Promise ? await checked : checked;
  if (refused !== undefined) return refused;
  // A script's tool call runs within the script's slot.
  const admission = options.nested !== undefined ? NESTED_ADMISSION : deps.admission.admit(entry.manifest.name, options.signal);
  const admitted = admission instanceof Promise ? await admission : admission;
  if (!admitted.ok) return failure(info, admitted.reason === "busy" ? "busy" : "cancelled", admitted.message);
  try {
    if (deps.events.listened) deps.events.emit({ type: "tool_running", callId: info.callId, tool: info.tool, source: entry.source, at: Date.now() });
    if (entry.runner.kind === "builtin") return await runBuiltin(deps, entry.runner.run, JSON.parse(inputJson), info, options);
    // In the sandbox: the task goes to the pool (or, for a script's tool call, the script's worker).
    const run = sandboxRun(deps, entry, inputJson, info, options, span, gate);
    let outcome: PoolOutcome | undefined;
    try {
      outcome = options.nested !== undefined ? await options.nested(run.task) : await deps.pool.run(run.task, run.task.limits, run.key, options.signal);
    } finally {
      run.closeCapabilities?.();
      if (outcome === undefined) void run.closeScript?.({});
    }
    // The fast lane's last records (and a culprit's strike) are committed before the script's result returns.
    const scriptDetails = run.closeScript === undefined ? undefined : await run.closeScript(!outcome.ok && outcome.culprit !== undefined ? { culprit: outcome.culprit } : {});
    const result = resultOf(deps, outcome, info);
    if (scriptDetails !== undefined) result.details = isRecord(result.details) ? { ...result.details, ...scriptDetails } : scriptDetails;
    return result;
  } finally {
    admitted.release();
  }
}

const both = (first: (() => void) | undefined, second: () => void) => () => {
  first?.();
  second();
};

const NESTED_ADMISSION = { ok: true as const, release: () => undefined };

type SandboxRun = {
  task: CallTask;
  /** The isolate key the pool routes by. */
  key: string;
  closeCapabilities?: () => void;
  closeScript?: (end: ScriptEnd) => Promise<Record<string, unknown>>;
};

/** The task a sandboxed call sends, its routing key, and what listens while it runs (its capability requests; a script's tool calls). */
function sandboxRun(deps: CallDeps, entry: CatalogEntry, inputJson: string, info: CallInfo, options: PathOptions, span: CallSpan, gate: GateContext): SandboxRun {
  const runner = entry.runner;
  if (runner.kind !== "sandbox" && runner.kind !== "script") throw new Error("corral: sandboxRun reached with a tool that does not run in the sandbox");
  const limits = deps.limitsFor(entry, options);
  // A script gets its input from its runner (the tools it may call, its limits), and a fresh isolate.
  const task: CallTask = { type: "call", callId: info.callId, bundle: runner.bundle, tool: entry.manifest.name, inputJson: runner.kind === "script" ? runner.inputJson : inputJson, limits };
  const scope = options.scope ?? "";
  const fresh = runner.kind === "script" || deps.isolationFor(entry.source) === "call";
  if (fresh) task.fresh = true;
  else if (scope !== "") task.scope = scope;
  // A scope's calls are routed by the scope's own key, so each scope's warm
  // isolate has its home; a fresh call by the key without scope, where an
  // isolate no call has used yet (a describe's) may wait for it.
  const run: SandboxRun = { task, key: isolateKey(runner.bundle, limits.memoryMb, entry.manifest.name, fresh ? "" : scope) };
  // The call's capability requests (fetch, ctx.fs, ctx.state, its talk-back) are judged while it runs.
  const talkBack = talkBackOf(options);
  const closeCapabilities = deps.capabilities?.open({
    callId: info.callId,
    source: entry.source,
    tool: entry.manifest.name,
    effects: entry.manifest.effects,
    timeoutMs: limits.timeoutMs,
    gate,
    talkBack,
  });
  if (closeCapabilities !== undefined) run.closeCapabilities = closeCapabilities;
  // The worker holds the call's payloads to its grant's caps before it copies them on.
  const payloadCaps = deps.capabilities?.payloadCaps(entry.source);
  if (payloadCaps !== undefined) task.payloadCaps = payloadCaps;
  if (runner.kind === "script") {
    // A script's tool calls are answered from here until its run is over; then they go into `details`.
    run.closeScript = runner.open(info.callId, { traceContext: span.context, signal: options.signal, scope: options.scope, askUser: options.askUser, talkBack });
    if (runner.fastLane !== undefined) {
      task.fastLane = scope === "" ? runner.fastLane : { ...runner.fastLane, scope };
      // The lane's calls run under ids the host never opened: their capability requests are judged as their tools'.
      const closeLane = deps.capabilities?.openLane({ callId: info.callId, gate, talkBack }, runner.fastLane.tools);
      if (closeLane !== undefined) run.closeCapabilities = both(run.closeCapabilities, closeLane);
    }
  }
  return run;
}

/** What the gate is told of a call's asker: who, and how to reach the person behind them. */
function gateContext(options: PathOptions): GateContext {
  const context: GateContext = { signal: options.signal };
  if (options.caller !== undefined) context.caller = options.caller;
  if (options.askUser !== undefined) context.askUser = options.askUser;
  return context;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function resultOf(deps: CallDeps, outcome: Awaited<ReturnType<SandboxPool["run"]>>, info: CallInfo): ToolResult {
  if (!outcome.ok) {
    if (outcome.kind === "crash" || outcome.kind === "memory") {
      deps.events.emit({ type: "worker_crash", message: outcome.message, at: Date.now() });
    }
    return failure(info, outcome.kind, outcome.message);
  }
  const reply = outcome.reply;
  if (reply.type !== "call") return failure(info, "crash", "the sandbox worker answered a call with a load reply");
  const withMetrics = { ...info, metrics: reply.metrics, warm: reply.warm };
  // The worker classified the call (sandbox/shared/classify.ts); the
  // envelope, when the guest's answer stood, carries its data and words.
  if (reply.envelopeJson === undefined) {
    const kind: ErrorKind = reply.kind === "ok" ? "crash" : reply.kind;
    return failure(withMetrics, kind, reply.message ?? "the call failed");
  }
  return fromEnvelope(withMetrics, reply.envelopeJson, deps.channels);
}

async function runBuiltin(
  deps: CallDeps,
  run: Extract<CatalogEntry["runner"], { kind: "builtin" }>["run"],
  input: unknown,
  info: CallInfo,
  options: CallOptions,
): Promise<ToolResult> {
  const started = performance.now();
  let answer;
  try {
    answer = await run(input, { callId: info.callId, signal: options.signal, caller: options.caller?.id });
  } catch (error) {
    answer = { ok: false as const, kind: "crash" as const, message: `the built-in tool failed: ${(error as Error).message}` };
  }
  const metrics = { wallMs: performance.now() - started, cpuMs: 0, heapBytes: 0 };
  if (!answer.ok) return failure({ ...info, metrics }, answer.kind, answer.message);
  const result: ToolResult = { ok: true, ...info, metrics, output: capForModel(answer.text, deps.channels) };
  if (answer.structured !== undefined) result.structured = answer.structured;
  if (answer.control !== undefined) result.control = answer.control;
  return result;
}
