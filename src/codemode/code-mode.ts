/**
 * @module src/codemode/code-mode
 * Code Mode on the host: the built-in `run_code`, the declarations its
 * description carries, and the answers to a running script's requests.
 *
 * ```
 * call run_code {code} ─▶ prepare: check input, compile (esbuild), source code:<caller id>
 *   ─▶ an entry of its own ─▶ the one call path (quarantine, gate, admission, pool: fresh isolate)
 *   script: await tools.x(input) ─▶ relay ─▶ handle(): counts ─▶ runCall(x, caller of origin
 *     "codemode", nested: run in the script's worker) ─▶ {ok, result} | {ok: false, kind, message}
 *   script ends ─▶ details.calls: (tool, kind, ms) of every call it made
 * ```
 * Every nested call is a full corral call of its tool: exposure for a
 * codemode caller, quarantine, effects, gate, the tool's limits, the ledger
 * (strikes against the tool's source, committed before the script hears the
 * answer, so before its result), events and a child span of the script's.
 * The script itself is blamed under `code:<caller id>`: a model whose
 * scripts keep timing out is quarantined like any source. run_code's
 * catalog entry is run-code-entry.ts; a script's tally, script-tally.ts.
 */
import { z } from "zod";
import { CodeModeRequest, type DescribedTool, type FoundTool, type ToolAnswer } from "../../sandbox/shared/codemode-messages.js";
import { CapabilityRequest, type CapabilityRequestMessage } from "../../sandbox/shared/capability-messages.js";
import { undeclaredMessage } from "../capabilities/index.js";
import type { FastRecord, FastTool } from "../../sandbox/shared/fast-lane-schemas.js";
import type { ChannelLimits } from "../host/channels.js";
import type { CapabilityHooks } from "../pool/index.js";
import { Caller, mayReach, rankByQuery, type Catalog, type CatalogEntry, type Reach, type ScriptCallContext, type ScriptEnd } from "../registry/index.js";
import type { PathOptions } from "../host/call-path.js";
import type { ToolResult } from "../result.js";
import { codeModeDeclarations, toolMember } from "./declarations.js";
import type { ResolvedCodeModeOptions } from "./options.js";
import { PROGRAM_SCRIPT_SOURCE, RUN_CODE, RUN_CODE_INTRO, runCodeEntry } from "./run-code-entry.js";
import { noteCall, openScript, scriptDetails, type FastEnded, type Script } from "./script-tally.js";
import { scriptModule } from "./script-module.js";

export type CodeModeDeps = {
  options: ResolvedCodeModeOptions;
  catalog: Catalog;
  isQuarantined(source: string): boolean;
  /** One call through the host's call path (runCall with the host's deps). */
  call(name: string, input: unknown, options: PathOptions): Promise<ToolResult>;
  /** Whether a tool may run on a script's fast lane (fastToolOf in the call path). */
  fastTool(entry: CatalogEntry): Promise<FastTool | undefined>;
  /** A fast call's record through the call path's own steps (recordFastCall). */
  recordFast(entry: CatalogEntry, fast: { callId: string; ended: FastEnded }, caller: Caller, via: string, traceContext: ScriptCallContext["traceContext"]): { result: ToolResult; committed: Promise<void> };
  channels: ChannelLimits;
};

const RunCodeInput = (maxChars: number) => z.strictObject({ code: z.string().min(1).max(maxChars) });

export class CodeMode {
  readonly #deps: CodeModeDeps;
  readonly #scripts = new Map<string, Script>();
  readonly #input: z.ZodType<{ code: string }>;

  constructor(deps: CodeModeDeps) {
    this.#deps = deps;
    this.#input = RunCodeInput(deps.options.maxCodeChars);
  }

  /** The catalog entry of `run_code` (exposure model_only: a script cannot call it). */
  entry(): CatalogEntry {
    return runCodeEntry((input, caller) => this.#prepare(input, caller));
  }

  /** The declarations of the tools a script of `caller` may call (what run_code's description carries). */
  declarations(caller?: Caller): string {
    const reach = { origin: "codemode" as const, activated: caller?.activated ?? new Set<string>() };
    const tools = this.#reachable(reach).map((entry) => ({ ...entry.manifest }));
    return codeModeDeclarations(tools, this.#deps.options.maxDeclarationChars).text;
  }

  /** run_code's description for `caller`: what it does, then the declarations. */
  description(caller?: Caller): string {
    return `${RUN_CODE_INTRO}\n${this.declarations(caller)}`;
  }

  /** Whether `callId` is a running script (its requests are answered here, not by the capability broker). */
  owns(callId: string): boolean {
    return this.#scripts.has(callId);
  }

  #reachable(reach: Reach): CatalogEntry[] {
    return this.#deps.catalog.list().filter((entry) => entry.manifest.name !== RUN_CODE && mayReach(entry.manifest, reach) && !this.#deps.isQuarantined(entry.source));
  }

  async #prepare(input: unknown, caller: Caller | undefined): Promise<{ ok: true; entry: CatalogEntry } | { ok: false; kind: "invalid_input" | "compile_error"; message: string }> {
    const parsed = this.#input.safeParse(input);
    if (!parsed.success) {
      return { ok: false, kind: "invalid_input", message: `run_code takes { code: string } of 1 to ${this.#deps.options.maxCodeChars} characters (codeMode.maxCodeChars)` };
    }
    const source = caller === undefined ? PROGRAM_SCRIPT_SOURCE : `code:${caller.id}`;
    const compiled = await scriptModule(parsed.data.code, source);
    if (!compiled.ok) return { ok: false, kind: "compile_error", message: compiled.message };
    const { options } = this.#deps;
    // The script's own caller: origin codemode, the deferred tools its caller had found.
    const scriptCaller = new Caller({ origin: "codemode", id: source.slice(0, 128) });
    scriptCaller.activate(caller?.activated ?? []);
    // Judged once, now, for this script's caller: what its worker may run without asking per call.
    // The judgement reads each source's state afresh, so the tools declared to the script below know
    // a quarantine another process made meanwhile too.
    const judged = await Promise.all(this.#reachable(scriptCaller).map(async (entry) => ({ entry, fast: await this.#deps.fastTool(entry) })));
    const reachable = new Set(this.#reachable(scriptCaller));
    const tools = [...reachable].map((entry) => entry.manifest.name);
    const fast = judged.filter((j): j is { entry: CatalogEntry; fast: FastTool } => j.fast !== undefined && reachable.has(j.entry));
    const base = this.entry();
    return {
      ok: true,
      entry: {
        source,
        version: compiled.bundle.hash,
        manifest: { ...base.manifest, limits: { timeoutMs: options.timeoutMs, memoryMb: options.memoryMb } },
        runner: {
          kind: "script",
          bundle: compiled.bundle,
          inputJson: JSON.stringify({ tools, maxCalls: options.maxCalls, maxInFlight: options.maxInFlight }),
          ...(fast.length > 0 ? { fastLane: { tools: fast.map((j) => j.fast), maxCalls: options.maxCalls, maxInFlight: options.maxInFlight, caps: this.#deps.channels } } : {}),
          open: (callId, context) => this.#open(callId, source, scriptCaller, context, fast.map((j) => j.entry)),
        },
      },
    };
  }

  #open(callId: string, source: string, caller: Caller, context: ScriptCallContext, fast: CatalogEntry[]): (end: ScriptEnd) => Promise<Record<string, unknown>> {
    // The script's end cancels what it left: a nested call still waiting (for its gate, its turn) ends `cancelled`.
    const left = new AbortController();
    const signal = context.signal === undefined ? left.signal : AbortSignal.any([context.signal, left.signal]);
    const script = openScript(source, caller, { ...context, signal }, fast);
    this.#scripts.set(callId, script);
    return async (end) => {
      if (script.ended) return {};
      script.ended = true;
      left.abort();
      this.#scripts.delete(callId);
      // A fast call its worker's death was charged to: its strike, like any nested call's.
      const culprit = end.culprit === undefined ? undefined : fast[end.culprit.tool];
      if (culprit !== undefined && end.culprit !== undefined) this.#recordFast(script, culprit, end.culprit.id, { death: { kind: end.culprit.kind, message: end.culprit.message } }, 0);
      await script.recorded;
      return scriptDetails(script);
    };
  }

  /**
   * Records of a script's fast nested calls (in call order): each goes
   * through the call path's own record (ledger, events, span) and into the
   * script's calls; a strike is committed before a host-routed call of the
   * same script is judged and before the script's result.
   */
  readonly fastRecords = (callId: string, records: FastRecord[]): void => {
    const script = this.#scripts.get(callId);
    if (script === undefined) return;
    for (const record of records) {
      const entry = record.tool === undefined ? undefined : script.fast[record.tool];
      if (record.refused !== undefined) noteCall(script, record.refused.name, record.refused.kind, 0);
      else if (entry !== undefined && record.reply !== undefined) {
        script.fastCalls++;
        this.#recordFast(script, entry, record.callId, { reply: record.reply }, record.ms);
      }
    }
  };

  #recordFast(script: Script, entry: CatalogEntry, callId: string, ended: FastEnded, ms: number): void {
    const { result, committed } = this.#deps.recordFast(entry, { callId, ended }, script.caller, script.source, script.context.traceContext);
    noteCall(script, entry.manifest.name, result.ok ? "ok" : result.error.kind, ms);
    const before = script.recorded;
    script.recorded = Promise.all([before, committed]).then(() => undefined);
  }

  /** Answers one request of a running script (a capability request on the relay). */
  readonly handle = async (message: CapabilityRequestMessage, hooks: CapabilityHooks): Promise<{ answerJson: string; pausedMs: number }> => {
    const script = this.#scripts.get(message.callId);
    let request: CodeModeRequest;
    let raw: unknown;
    try {
      raw = JSON.parse(message.requestJson);
      request = CodeModeRequest.parse(raw);
    } catch {
      // A script's own fetch, ctx.fs or ctx.state: it declares no effects, so it is refused as any such tool's would be.
      const capability = CapabilityRequest.safeParse(raw);
      if (capability.success) return answer({ ok: false, code: "undeclared", message: undeclaredMessage(capability.data, "a Code Mode script (it declares no effects: call a tool that does)") });
      return answer({ ok: false, code: "invalid", message: "a Code Mode script can ask only for tools, search and describe" });
    }
    if (script === undefined) return answer({ ok: false, code: "failed", message: "the script is over" });
    if (request.kind === "search") return answer({ ok: true, value: this.#search(script, request.query) });
    if (request.kind === "describe") return answer({ ok: true, value: this.#describe(script, request.name) });
    return answer({ ok: true, value: await this.#callTool(script, request.name, request.inputJson, hooks) });
  };

  async #callTool(script: Script, name: string, inputJson: string, hooks: CapabilityHooks): Promise<ToolAnswer> {
    // The fast lane's records sent before this request (the worker sends them first) are
    // counted and committed before it is judged: a strike among them may have quarantined the tool.
    await script.recorded;
    const { options } = this.#deps;
    if (name === RUN_CODE) return this.#refuse(script, name, "blocked", "run_code cannot be called from a script: call the tools themselves");
    if (script.calls >= options.maxCalls) return this.#refuse(script, name, "busy", `this script made ${options.maxCalls} tool calls already (codeMode.maxCalls)`);
    if (script.inFlight >= options.maxInFlight) return this.#refuse(script, name, "busy", `this script has ${options.maxInFlight} tool calls waiting already (codeMode.maxInFlight)`);
    let input: unknown;
    try {
      input = JSON.parse(inputJson);
    } catch {
      return this.#refuse(script, name, "invalid_input", "the input is not JSON");
    }
    script.inFlight++;
    const started = performance.now();
    let result: ToolResult;
    try {
      const { context } = script;
      result = await this.#deps.call(name, input, {
        caller: script.caller,
        traceContext: context.traceContext,
        ...(context.signal !== undefined ? { signal: context.signal } : {}),
        ...(context.scope !== undefined ? { scope: context.scope } : {}),
        // The person behind the script's caller is asked about its tools' effects, as about a direct call's.
        ...(context.askUser !== undefined ? { askUser: context.askUser } : {}),
        // Its tools' progress, log messages, questions and samples go where the script's call would send its own.
        ...context.talkBack,
        nested: hooks.nested,
        via: script.source,
      });
    } finally {
      script.inFlight--;
    }
    noteCall(script, name, result.ok ? "ok" : result.error.kind, performance.now() - started);
    if (!result.ok) return { ok: false, kind: result.error.kind, message: result.error.message };
    return { ok: true, result: result.structured ?? result.output };
  }

  /** A call refused before it reached the call path: counted in the script's summary, not in the ledger. */
  #refuse(script: Script, name: string, kind: string, message: string): ToolAnswer {
    noteCall(script, name, kind, 0);
    return { ok: false, kind, message };
  }

  /** Tools the script may call or find (deferred, or left out of the declarations), ranked by the query. */
  #search(script: Script, query: string): FoundTool[] {
    const everyOne = { origin: "codemode" as const, activated: new Set(this.#deps.catalog.list().map((entry) => entry.manifest.name)) };
    const found = rankByQuery(this.#reachable(everyOne), query, 10);
    script.caller.activate(found.filter((entry) => entry.manifest.exposure === "deferred").map((entry) => entry.manifest.name));
    return found.map((entry) => ({ name: entry.manifest.name, description: entry.manifest.description }));
  }

  #describe(script: Script, name: string): DescribedTool | null {
    const entry = this.#deps.catalog.get(name);
    if (entry === undefined || entry.manifest.name === RUN_CODE || this.#deps.isQuarantined(entry.source)) return null;
    const reachable = mayReach(entry.manifest, script.caller) || entry.manifest.exposure === "deferred";
    if (!reachable) return null;
    if (entry.manifest.exposure === "deferred") script.caller.activate([name]);
    const { description, inputSchema, outputSchema } = entry.manifest;
    const described: DescribedTool = { name, description, declaration: toolMember(entry.manifest, 0), inputSchema };
    if (outputSchema !== undefined) described.outputSchema = outputSchema;
    return described;
  }
}

function answer(value: { ok: true; value: unknown } | { ok: false; code: string; message: string }): { answerJson: string; pausedMs: number } {
  return { answerJson: JSON.stringify(value), pausedMs: 0 };
}
