/**
 * @module src/host/call-path
 * One call, one path, never a throw for a tool's failure:
 *
 * ```
 * resolve (own keys; reachable by the caller?) ─▶ input → JSON ─▶ quarantined? ─▶ effect policy ─▶ gate
 *   (may take long; no clock runs) ─▶ admission (busy?) ─▶ tool_running
 *   ─▶ run: sandbox (pool) or built-in ─▶ ToolResult ─▶ ledger.record
 *   (awaited for a strike; queued and written behind for other outcomes
 *   unless commitBeforeResult is "all") ─▶ audit line, tool_execution_end
 * ```
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
import { askGate, decideEffects, type BeforeToolCall, type EffectDecision, type GateCall, type ResolvedEffectPolicy } from "../gate/index.js";
import { isStrike, type Ledger } from "../ledger/index.js";
import type { Admission, NestedOutcome, PoolOutcome, SandboxPool } from "../pool/index.js";
import { mayReach, type Caller, type Catalog, type CatalogEntry } from "../registry/index.js";
import type { CallSpan, Telemetry } from "../telemetry/index.js";
import { checkSourceId } from "../registry/source.js";
import type { ErrorKind, OutcomeKind, ToolResult } from "../result.js";
import { capForModel, failure, fromEnvelope, type CallInfo, type ChannelLimits } from "./channels.js";
import type { QuarantineView } from "./quarantine-view.js";
import type { CallOptions } from "./types.js";
import type { CapabilityBroker } from "../capabilities/index.js";

export type CallDeps = {
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
  let entry = typeof name === "string" ? reachable(deps.catalog.get(name), options.caller) : undefined;
  // run_code: each script is an entry of its own (source code:<caller id>, its bundle).
  const prepared = entry?.runner.kind === "codemode" ? await entry.runner.prepare(input, options.caller) : undefined;
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
  const state = await deps.quarantine.check(entry.source);
  if (state.state === "quarantined") {
    const until = state.until === null ? "until an operator releases it" : `until ${new Date(state.until).toISOString()}`;
    return failure(
      info,
      "quarantined",
      `the source ${entry.source} is quarantined since ${new Date(state.since).toISOString()} ${until}: ${state.reason}; use another tool`,
    );
  }
  const decision = decideEffects(deps.effectPolicy, checkSourceId(entry.source), entry.manifest.effects);
  if (decision === "deny") {
    return failure(info, "blocked", `"${entry.manifest.name}" declares effects the host's policy denies for ${entry.source}; it cannot run here`);
  }
  const gateStarted = performance.now();
  const verdict = await askGate(deps.gate, gateCall(info, entry, inputJson, decision), { signal: options.signal });
  span.gateWaitMs = performance.now() - gateStarted;
  if (verdict.action === "block") return failure(info, "blocked", `the call was blocked: ${verdict.reason}`);
  if (options.signal?.aborted) return failure(info, "cancelled", "the call was cancelled before it started");

  // A script's tool call runs within the script's slot.
  const admitted = options.nested !== undefined ? { ok: true as const, release: () => undefined } : await deps.admission.admit(entry.manifest.name, options.signal);
  if (!admitted.ok) return failure(info, admitted.reason === "busy" ? "busy" : "cancelled", admitted.message);
  try {
    if (deps.events.listened) deps.events.emit({ type: "tool_running", callId: info.callId, tool: info.tool, source: entry.source, at: Date.now() });
    return entry.runner.kind === "builtin"
      ? await runBuiltin(deps, entry.runner.run, JSON.parse(inputJson), info, options)
      : await runSandboxed(deps, entry, inputJson, info, options, span);
  } finally {
    admitted.release();
  }
}

/**
 * What the gate sees. Its input is a copy made from the JSON the tool will
 * get, and made only when the gate reads it: the default gate never does,
 * and parsing a large input on every call would cost more than the call.
 */
function gateCall(info: CallInfo, entry: CatalogEntry, inputJson: string, policy: Exclude<EffectDecision, "deny">): GateCall {
  let input: { value: unknown } | undefined;
  return {
    callId: info.callId,
    tool: entry.manifest.name,
    source: entry.source,
    get input() {
      input ??= { value: JSON.parse(inputJson) };
      return input.value;
    },
    effects: entry.manifest.effects,
    policy,
  };
}

async function runSandboxed(deps: CallDeps, entry: CatalogEntry, inputJson: string, info: CallInfo, options: PathOptions, span: CallSpan): Promise<ToolResult> {
  const runner = entry.runner;
  if (runner.kind !== "sandbox" && runner.kind !== "script") throw new Error("corral: runSandboxed reached with a tool that does not run in the sandbox");
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
  const key = isolateKey(runner.bundle, limits.memoryMb, entry.manifest.name, fresh ? "" : scope);
  // The call's capability requests (fetch, ctx.fs, ctx.state) are judged while it runs.
  const closeCapabilities = deps.capabilities?.open({
    callId: info.callId,
    source: entry.source,
    tool: entry.manifest.name,
    effects: entry.manifest.effects,
    timeoutMs: limits.timeoutMs,
    signal: options.signal,
  });
  // A script's tool calls are answered from here until its run is over; then they go into `details`.
  const closeScript = runner.kind === "script" ? runner.open(info.callId, { traceContext: span.context, signal: options.signal, scope: options.scope }) : undefined;
  if (runner.kind === "script" && runner.fastLane !== undefined) task.fastLane = scope === "" ? runner.fastLane : { ...runner.fastLane, scope };
  let outcome: PoolOutcome | undefined;
  try {
    outcome = options.nested !== undefined ? await options.nested(task) : await deps.pool.run(task, limits, key, options.signal);
  } finally {
    closeCapabilities?.();
    if (outcome === undefined) void closeScript?.({});
  }
  // The fast lane's last records (and a culprit's strike) are committed before the script's result returns.
  const scriptDetails = await closeScript?.(!outcome.ok && outcome.culprit !== undefined ? { culprit: outcome.culprit } : {});
  const result = resultOf(deps, outcome, info);
  if (scriptDetails !== undefined) result.details = isRecord(result.details) ? { ...result.details, ...scriptDetails } : scriptDetails;
  return result;
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
    answer = await run(input, { callId: info.callId, signal: options.signal });
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

export async function finish(deps: CallDeps, result: ToolResult, entry: CatalogEntry | undefined, input: unknown, caller: Caller | undefined, via: string | undefined): Promise<void> {
  const outcome = result.ok ? "ok" : result.error.kind;
  if (entry !== undefined) {
    // A strike is committed before its result returns (SECURITY.md, promise 5). By
    // default any other outcome is written behind: its record is queued now, in call
    // order, and commits with a later group commit while the caller has its answer.
    const waits = deps.commitBeforeResult === "all" || isStrike(outcome);
    const recorded = record(deps, result, entry, outcome, !waits, caller, via);
    if (waits) await recorded;
  }
  if (deps.logger.isLevelEnabled("info")) deps.logger.info(
    {
      event: "call",
      tool: result.tool,
      source: result.source,
      version: result.version,
      callId: result.callId,
      ...(caller !== undefined ? { caller: caller.id } : {}),
      ...(via !== undefined ? { via } : {}),
      outcome,
      wallMs: Math.round(result.metrics.wallMs * 100) / 100,
      cpuMs: Math.round(result.metrics.cpuMs * 100) / 100,
      heapBytes: result.metrics.heapBytes,
      ...(deps.logToolData ? { input, output: result.ok ? result.output : undefined } : {}),
    },
    "tool call",
  );
  if (deps.events.listened) deps.events.emit({ type: "tool_execution_end", callId: result.callId, tool: result.tool, ...(result.source ? { source: result.source } : {}), result, at: Date.now() });
}

/** Queues the call's record at once (so records keep call order); settles once it has committed, never rejects. */
function record(deps: CallDeps, result: ToolResult, entry: CatalogEntry, outcome: OutcomeKind, writeBehind: boolean, caller: Caller | undefined, via: string | undefined): Promise<void> {
  // Ledger.record is async: a bad record or a closed ledger rejects, it never throws here.
  return deps.ledger
    .record({
      source: entry.source,
      tool: entry.manifest.name,
      version: entry.version,
      callId: result.callId,
      outcome,
      wallMs: result.metrics.wallMs,
      cpuMs: result.metrics.cpuMs,
      heapBytes: result.metrics.heapBytes,
      ...(result.ok ? {} : { message: result.error.message }),
      ...(caller !== undefined ? { caller: caller.id } : {}),
      ...(via !== undefined ? { via } : {}),
    }, { writeBehind })
    .then(
      (applied) => deps.quarantine.learn(applied.state),
      // The ledger must not turn a finished call into a throw; say so loudly.
      (error: unknown) => deps.logger.error({ err: error, callId: result.callId }, "the ledger could not record a call"),
    );
}
