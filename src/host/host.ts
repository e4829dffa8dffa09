/**
 * @module src/host/host
 * createHost(options): the library's entry point. The Host owns the bundle
 * cache, the manifest cache, the catalog, the sandbox pool, the admission queue and the ledger,
 * and frees the pool and the ledger in close(). Loading is in loader.ts, the
 * call path in call-path.ts, result channels in channels.ts.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import pino, { type Logger } from "pino";
import type { CallLimits } from "../../sandbox/shared/task-parts.js";
import { createToolTool, toolSearchTool, BUILTIN_SOURCE, TOOL_SEARCH } from "../builtins/index.js";
import { BundleCache } from "../compile/index.js";
import { CorralError, HostClosedError } from "../errors.js";
import { EventHub, type HostEventListener } from "../events.js";
import { defaultGate, resolveEffectPolicy } from "../gate/index.js";
import { Ledger, type SourceReport, type SourceRow, type SourceState, type StateChange, type StoreStatus } from "../ledger/index.js";
import { resolveHostOptions, type HostOptions, type ResolvedHostOptions } from "../options.js";
import { Admission, SandboxPool } from "../pool/index.js";
import { Catalog, declare, ManifestCache, type CatalogEntry } from "../registry/index.js";
import { checkSourceId, isPluginCandidate } from "../registry/source.js";
import type { ToolResult } from "../result.js";
import { hostArguments } from "./arguments.js";
import { isolationFor } from "./isolation.js";
import { Telemetry, type LoadSummary } from "../telemetry/index.js";
import { runCall, type CallDeps } from "./call-path.js";
import { fastToolOf, recordFastCall } from "./fast-calls.js";
import { createHostCapabilities, type HostCapabilities } from "../capabilities/index.js";
import { Loader } from "./loader.js";
import { CodeMode, RUN_CODE, resolveCodeModeOptions } from "../codemode/index.js";
import { QuarantineView } from "./quarantine-view.js";
import type { AuthorRequest, CallOptions, DeclarationOptions, Host, LoadRequest, LoadResult, ToolDeclaration, ToolInfo } from "./types.js";

const AGENT_ID = /^[A-Za-z0-9_.-]{1,128}$/;

export function createHost(options: HostOptions = {}): Host {
  return new CorralHost(resolveHostOptions(options));
}

class CorralHost implements Host {
  readonly #options: ResolvedHostOptions;
  readonly #logger: Logger;
  readonly #catalog = new Catalog();
  readonly #pool: SandboxPool;
  readonly #admission: Admission;
  readonly #events: EventHub;
  readonly #ledger: Ledger;
  readonly #capabilities: HostCapabilities;
  readonly #quarantine: QuarantineView;
  readonly #loader: Loader;
  readonly #callDeps: CallDeps;
  readonly #telemetry: Telemetry;
  readonly #codeMode: CodeMode | undefined;
  /** Calls not yet settled (see #track). */
  readonly #calls = new Set<Promise<ToolResult>>();
  #closed = false;

  constructor(options: ResolvedHostOptions) {
    this.#options = options;
    this.#logger = options.logger ?? pino({ level: "silent" });
    this.#events = new EventHub(this.#logger, options.onEvent);
    this.#ledger = new Ledger({
      ...options.ledger,
      onEvent: (event) => {
        this.#logger.info({ event: "state", ...event }, `source ${event.kind}`);
        if (event.kind === "release" || event.kind === "expire") {
          this.#events.emit({ type: "release", source: event.source, actor: event.actor, at: event.at });
        } else {
          this.#events.emit({ type: "quarantine", source: event.source, reason: event.reason, since: event.at, until: event.until, at: event.at });
        }
      },
      onStoreStatus: (status) => this.#storeStatus(status),
    });
    this.#quarantine = new QuarantineView(this.#ledger, {
      onChangeElsewhere: (state) => this.#events.emit({ type: "state_changed_elsewhere", source: state.source, state, at: Date.now() }),
    });
    const effectPolicy = resolveEffectPolicy(options.effects);
    const gate = options.beforeToolCall ?? defaultGate;
    this.#capabilities = createHostCapabilities({ capabilities: options.capabilities, ledgerStore: options.ledger?.store, effectPolicy, gate, logger: this.#logger });
    this.#telemetry = new Telemetry(options.telemetry ?? {}, () => this.#quarantine.quarantinedCount());
    const broker = this.#capabilities.broker;
    this.#pool = new SandboxPool({
      // A running Code Mode script's requests are Code Mode's; every other call's, the broker's.
      capabilities: (message, hooks) => (this.#codeMode?.owns(message.callId) === true ? this.#codeMode.handle(message, hooks) : broker.handle(message, hooks)),
      fastRecords: (callId, records) => this.#codeMode?.fastRecords(callId, records),
      workers: options.workers,
      spareWorkers: options.spareWorkers,
      pipelineDepth: options.pipelineDepth,
      quickPipelineDepth: options.quickPipelineDepth,
      watchdogGraceMs: options.watchdogGraceMs,
      workerMemorySlackMb: options.workerMemorySlackMb,
      worker: {
        maxWarmIsolates: options.maxWarmIsolates,
        maxWarmHeapMb: options.maxWarmHeapMb,
        loadTimeoutMs: options.loadTimeoutMs,
        defaultMemoryMb: options.defaultMemoryMb,
      },
      logger: this.#logger,
      onWorkerRestart: () => this.#telemetry.workerRestarted(),
    });
    this.#admission = new Admission({ maxInFlight: options.maxInFlight, maxInFlightPerTool: options.maxInFlightPerTool, maxQueue: options.maxQueue });
    const loadLimits: CallLimits = { timeoutMs: options.loadTimeoutMs, memoryMb: options.loadMemoryMb, maxOutputBytes: options.maxOutputBytes, maxDepth: options.maxDepth };
    this.#loader = new Loader({
      cache: new BundleCache(options.cacheDir),
      pool: this.#pool,
      catalog: this.#catalog,
      manifests: new ManifestCache({ dir: options.cacheDir, describeLimits: loadLimits, logger: this.#logger }),
      loadLimits,
    });
    this.#callDeps = {
      catalog: this.#catalog,
      pool: this.#pool,
      admission: this.#admission,
      events: this.#events,
      ledger: this.#ledger,
      quarantine: this.#quarantine,
      effectPolicy,
      gate,
      capabilities: this.#capabilities.broker,
      limitsFor: (entry, callOptions) => this.#limits(entry, callOptions),
      isolationFor: (source) => isolationFor(options.isolation, source),
      channels: { maxModelOutputChars: options.maxModelOutputChars, maxModelOutputLines: options.maxModelOutputLines, maxImageBytes: options.maxImageBytes },
      logger: this.#logger,
      logToolData: options.logToolData,
      commitBeforeResult: options.commitBeforeResult,
      telemetry: this.#telemetry,
    };
    this.#codeMode = options.codeMode === undefined ? undefined : new CodeMode({
      options: resolveCodeModeOptions(options.codeMode),
      catalog: this.#catalog,
      isQuarantined: (source) => this.#quarantine.isQuarantined(source),
      call: (name, input, callOptions) => this.#track(runCall(this.#callDeps, name, input, callOptions)),
      fastTool: (entry) => fastToolOf(this.#callDeps, entry),
      recordFast: (entry, fast, caller, via, traceContext) => recordFastCall(this.#callDeps, entry, fast, caller, via, traceContext),
      channels: this.#callDeps.channels,
    });
    this.#registerBuiltins();
  }

  /** A ledger server's outage and return, in the log and as a `ledger_store` event; a record refused or lost is an error. */
  #storeStatus(status: StoreStatus): void {
    const { type, ...detail } = status;
    if (type === "restored") this.#logger.info({ event: "ledger_store", status: type, ...detail }, "the ledger's database is back; buffered records written");
    else if (type === "unavailable") this.#logger.warn({ event: "ledger_store", status: type, ...detail }, "the ledger's database is unreachable; records wait in memory");
    else this.#logger.error({ event: "ledger_store", status: type, ...detail }, type === "record_refused" ? "a call's record was not kept: the ledger's buffer is full" : "buffered ledger records were lost at close");
    this.#events.emit({ type: "ledger_store", status, at: Date.now() });
  }

  #registerBuiltins(): void {
    const builtins: CatalogEntry[] = [toolSearchTool(() => this.#catalog.list(), (source) => this.#quarantine.isQuarantined(source))];
    if (this.#options.createTool !== undefined) {
      const { agent, exposure } = this.#options.createTool;
      builtins.push(createToolTool(exposure ?? "hidden", (code) => this.author({ agent, code })));
    }
    if (this.#codeMode !== undefined) builtins.push(this.#codeMode.entry());
    this.#catalog.replaceSource(BUILTIN_SOURCE, builtins);
  }

  get alive(): boolean {
    return !this.#closed;
  }

  #assertAlive(): void {
    if (this.#closed) throw new HostClosedError("the host");
  }

  async load(request: LoadRequest | string): Promise<LoadResult> {
    this.#assertAlive();
    const checked = hostArguments.load(request);
    return this.#telemetry.traceLoad(async () => this.#finishLoad(await this.#loader.load(checked)), summarizeLoad);
  }

  async author(given: AuthorRequest): Promise<LoadResult> {
    this.#assertAlive();
    const request = hostArguments.author(given);
    const source = `agent:${request.agent}`;
    if (typeof request.agent !== "string" || !AGENT_ID.test(request.agent)) {
      return { ok: false, source, error: { kind: "compile_error", message: "an agent id is 1-128 letters, digits, '_', '.' or '-'" } };
    }
    const state = await this.#quarantine.check(source);
    if (state.state === "quarantined") {
      return { ok: false, source, error: { kind: "quarantined", message: `${source} is quarantined (${state.reason}); it cannot register tools until an operator releases it` } };
    }
    const limits = { maxTools: this.#options.maxToolsPerAgent, maxSourceBytes: this.#options.maxAgentSourceBytes };
    return this.#telemetry.traceLoad(async () => this.#finishLoad(await this.#loader.load({ source, code: request.code }, limits)), summarizeLoad);
  }

  async #finishLoad(result: LoadResult): Promise<LoadResult> {
    if (!result.ok) {
      this.#logger.info({ event: "load", source: result.source, outcome: result.error.kind }, "source failed to load");
      return result;
    }
    // After the caller's own next steps: a call made at once builds the
    // isolate itself (so the warm-up is skipped), and it does not wait for
    // the warm-up's message, whose write can cost a millisecond or more when
    // it wakes an idle worker on a virtual machine.
    if (result.manifestsFrom !== "worker") setImmediate(() => this.#warmAhead(result.source));
    const tools = this.#catalog.ofSource(result.source).map((entry) => this.#info(entry));
    // The ledger knows a source from its first successful load, before any
    // call: an operator's audit shows it and its tools with zero calls.
    // A ledger that cannot be reached (a server store in an outage) does not
    // fail the load: the source becomes known at its first recorded call.
    try {
      await this.#ledger.recordLoad({ source: result.source, version: result.version, tools: tools.map((t) => t.name) });
    } catch (error) {
      if (!(error instanceof CorralError && error.code === "ledger_unavailable")) throw error;
      this.#logger.warn({ event: "load", source: result.source, err: error.message }, "the ledger could not record the load");
    }
    this.#events.emit({ type: "tools_changed", source: result.source, tools: tools.map((tool) => tool.name), at: Date.now() });
    this.#logger.info({ event: "load", source: result.source, version: result.version, tools: tools.map((t) => t.name), cached: result.cached, manifestsFrom: result.manifestsFrom }, "source loaded");
    return { ...result, tools };
  }

  /**
   * A load that took its manifests from a cache ran no describe, so nothing
   * built the isolate a describe keeps for a module of one tool: build it
   * while the caller moves on, so a first call that comes a moment later
   * finds it warm as it would after a describe. Never for a quarantined
   * source, nor for a key a worker is home to (a call made at once).
   */
  #warmAhead(source: string): void {
    if (this.#closed) return;
    const entries = this.#catalog.ofSource(source);
    const entry = entries[0];
    if (entries.length !== 1 || entry === undefined || entry.runner.kind !== "sandbox" || this.#quarantine.isQuarantined(source)) return;
    const tool = entry.manifest.name;
    const warm = this.#pool.warmAhead({ type: "warm", bundle: entry.runner.bundle, tool, limits: this.#limits(entry, {}) });
    void warm?.then((outcome) => {
      const kind = outcome.ok ? outcome.reply.kind : outcome.kind;
      if (kind !== "ok") this.#logger.debug({ event: "warm_ahead", source, tool, kind }, "the tool's isolate was not built ahead; its first call builds it");
    });
  }

  async loadDirectory(given: string): Promise<LoadResult[]> {
    this.#assertAlive();
    const dir = hostArguments.loadDirectory(given);
    const names = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => isPluginCandidate(entry.name, entry.isDirectory()))
      .map((entry) => entry.name)
      .sort();
    const results: LoadResult[] = [];
    for (const name of names) results.push(await this.load({ path: join(dir, name) }));
    return results;
  }

  tools(): ToolInfo[] {
    this.#assertAlive();
    return this.#catalog.list().map((entry) => this.#info(entry));
  }

  declarations(given?: DeclarationOptions): ToolDeclaration[] {
    this.#assertAlive();
    const options = hostArguments.declarations(given);
    const entries = this.#catalog.list();
    const activated = new Set([...(options.caller?.activated ?? []), ...(options.activated ?? [])]);
    const waiting = entries.some((entry) => entry.manifest.exposure === "deferred" && !activated.has(entry.manifest.name) && !this.#quarantine.isQuarantined(entry.source));
    // tool_search is declared only while deferred tools wait to be found.
    const declared = declare(entries, (source) => this.#quarantine.isQuarantined(source), activated).filter((d) => d.name !== TOOL_SEARCH || waiting);
    // run_code's description carries the declarations of what a script may call now.
    const codeMode = this.#codeMode;
    return codeMode === undefined ? declared : declared.map((d) => (d.name === RUN_CODE ? { ...d, description: codeMode.description(options.caller) } : d));
  }

  codeModeDeclarations(given?: DeclarationOptions): string {
    this.#assertAlive();
    const options = hostArguments.declarations(given);
    if (this.#codeMode === undefined) throw new CorralError("code_mode_off", "Code Mode is off on this host: create it with createHost({ codeMode: {} }) to use run_code and its declarations");
    return this.#codeMode.declarations(options.caller);
  }

  async call(name: string, input: unknown, options?: CallOptions): Promise<ToolResult> {
    this.#assertAlive();
    return this.#track(runCall(this.#callDeps, name, input, hostArguments.call(name, options)));
  }

  /**
   * Keeps a call until it settles, so close() can wait for its record: a call
   * the closing pool ends (cancelled, or its worker stopped) still reaches
   * the ledger before the ledger closes.
   */
  #track(call: Promise<ToolResult>): Promise<ToolResult> {
    this.#calls.add(call);
    void call.finally(() => this.#calls.delete(call)).catch(() => undefined);
    return call;
  }

  on(listener: HostEventListener): () => void {
    return this.#events.on(hostArguments.on(listener));
  }

  async sourceState(source: string): Promise<SourceState> {
    this.#assertAlive();
    checkSourceId(source);
    return this.#quarantine.check(source);
  }

  async quarantine(source: string, given: { reason: string; until?: number | null; actor?: string }): Promise<StateChange> {
    this.#assertAlive();
    checkSourceId(source);
    const options = hostArguments.quarantine(given);
    const change = await this.#ledger.quarantine(source, { reason: options.reason, until: options.until ?? null, actor: options.actor ?? "operator" });
    this.#quarantine.learn(change.state);
    return change;
  }

  async release(source: string, given?: { reason?: string; actor?: string }): Promise<StateChange> {
    this.#assertAlive();
    checkSourceId(source);
    const options = hostArguments.release(given);
    const change = await this.#ledger.release(source, { actor: options.actor ?? "operator", ...(options.reason ? { reason: options.reason } : {}) });
    this.#quarantine.learn(change.state);
    return change;
  }

  audit(): Promise<SourceRow[]> {
    this.#assertAlive();
    return this.#ledger.summary();
  }

  auditSource(source: string): Promise<SourceReport | null> {
    this.#assertAlive();
    return this.#ledger.sourceReport(source);
  }

  #limits(entry: CatalogEntry, options: CallOptions): CallLimits {
    const o = this.#options;
    const timeoutMs = Math.min(options.timeoutMs ?? entry.manifest.limits.timeoutMs ?? o.defaultTimeoutMs, o.maxTimeoutMs);
    const memoryMb = Math.min(options.memoryMb ?? entry.manifest.limits.memoryMb ?? o.defaultMemoryMb, o.maxMemoryMb);
    return { timeoutMs: Math.max(1, Math.floor(timeoutMs)), memoryMb: Math.max(8, Math.floor(memoryMb)), maxOutputBytes: o.maxOutputBytes, maxDepth: o.maxDepth };
  }

  #info(entry: CatalogEntry): ToolInfo {
    const { manifest } = entry;
    const limits = this.#limits(entry, {});
    const info: ToolInfo = {
      name: manifest.name,
      description: manifest.description,
      source: entry.source,
      version: entry.version,
      inputSchema: manifest.inputSchema,
      effects: manifest.effects,
      exposure: manifest.exposure,
      limits: { timeoutMs: limits.timeoutMs, memoryMb: limits.memoryMb },
    };
    if (manifest.outputSchema !== undefined) info.outputSchema = manifest.outputSchema;
    return info;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#quarantine.close();
    this.#admission.close();
    try {
      await this.#pool.close();
    } finally {
      // The pool has answered every call it held: their records are written
      // now. A call still waiting on a gate that never answers has no record
      // to write; it is not waited for past CLOSE_WAIT_MS.
      await settledWithin(this.#calls, CLOSE_WAIT_MS);
      await this.#capabilities.close();
      await this.#ledger.close();
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** How long close() waits for calls the closing pool ended to write their records. */
const CLOSE_WAIT_MS = 2_000;

async function settledWithin(calls: Iterable<Promise<unknown>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([Promise.allSettled([...calls]), waited]);
  clearTimeout(timer);
}

/** What a `corral.load` span records of a load's result. */
function summarizeLoad(result: LoadResult): LoadSummary {
  return result.ok
    ? { ok: true, source: result.source, version: result.version, tools: result.tools.length, cached: result.cached, manifestsFrom: result.manifestsFrom }
    : { ok: false, source: result.source, kind: result.error.kind, message: result.error.message };
}
