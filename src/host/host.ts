/**
 * @module src/host/host
 * createHost(options): the library's entry point. The Host owns the bundle
 * cache, the manifest cache, the catalog, the sandbox pool, the admission queue and the ledger,
 * and frees the pool and the ledger in close(). Loading is in loader.ts and
 * after-load.ts, the call path in call-path.ts, result channels in
 * channels.ts, a tool's limits and info in tool-info.ts, the ledger's
 * announcements in ledger-signals.ts, the calls close() waits for in
 * open-calls.ts.
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import pino, { type Logger } from "pino";
import type { CallLimits } from "../../sandbox/shared/task-parts.js";
import { builtinEntries, BUILTIN_SOURCE } from "../builtins/index.js";
import { BundleCache } from "../compile/index.js";
import { CorralError, HostClosedError } from "../errors.js";
import { EventHub, type HostEventListener } from "../events.js";
import { defaultGate, resolveEffectPolicy } from "../gate/index.js";
import { Ledger, type SourceRow, type SourceState, type StateChange } from "../ledger/index.js";
import { resolveHostOptions, type HostOptions, type ResolvedHostOptions } from "../options.js";
import { Admission, SandboxPool } from "../pool/index.js";
import { Catalog, ManifestCache } from "../registry/index.js";
import { checkSourceId, isPluginCandidate } from "../registry/source.js";
import type { ToolResult } from "../result.js";
import { hostArguments } from "./arguments.js";
import { isolationFor } from "./isolation.js";
import { Telemetry } from "../telemetry/index.js";
import { runCall, type CallDeps } from "./call-path.js";
import { fastToolOf, recordFastCall } from "./fast-calls.js";
import { createHostCapabilities, type HostCapabilities } from "../capabilities/index.js";
import { Loader } from "./loader.js";
import { poolSettingsOf } from "./pool-settings.js";
import { CodeMode, resolveCodeModeOptions } from "../codemode/index.js";
import { QuarantineView } from "./quarantine-view.js";
import { CLOSE_WAIT_MS, OpenCalls } from "./open-calls.js";
import { finishLoad, summarizeLoad, type AfterLoadDeps } from "./after-load.js";
import { announceStateChange, announceStoreStatus } from "./ledger-signals.js";
import { declarationsFor, limitsOf, memoryMbOf, toolInfoOf } from "./tool-info.js";
import { authorTools, hostLibrary, libraryStoreFor, ToolLibrary, type HostLibrary } from "../library/index.js";
import type { AuthorRequest, CallOptions, DeclarationOptions, Host, HostSourceReport, LoadRequest, LoadResult, ToolDeclaration, ToolInfo } from "./types.js";

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
  readonly #afterLoad: AfterLoadDeps;
  readonly #library: ToolLibrary;
  readonly library: HostLibrary;
  /** Calls not yet settled: close() waits for their records. */
  readonly #calls = new OpenCalls();
  #closed = false;

  constructor(options: ResolvedHostOptions) {
    this.#options = options;
    this.#logger = options.logger ?? pino({ level: "silent" });
    this.#events = new EventHub(this.#logger, options.onEvent);
    this.#ledger = new Ledger({
      ...options.ledger,
      onEvent: (event) => announceStateChange(this.#logger, this.#events, event),
      onStoreStatus: (status) => announceStoreStatus(this.#logger, this.#events, status),
    });
    this.#quarantine = new QuarantineView(this.#ledger, {
      onChangeElsewhere: (state) => this.#events.emit({ type: "state_changed_elsewhere", source: state.source, state, at: Date.now() }),
    });
    const effectPolicy = resolveEffectPolicy(options.effects);
    const gate = options.beforeToolCall ?? defaultGate;
    this.#capabilities = createHostCapabilities({
      capabilities: options.capabilities,
      ledgerStore: options.ledger?.store,
      effectPolicy,
      gate,
      logger: this.#logger,
      announce: (notice) => {
        if (!this.#events.listened) return;
        const at = Date.now();
        this.#events.emit(notice.kind === "progress" ? { type: "tool_progress", ...notice.progress, at } : { type: "tool_log", ...notice.log, at });
      },
    });
    this.#telemetry = new Telemetry(options.telemetry ?? {}, () => this.#quarantine.quarantinedCount());
    const broker = this.#capabilities.broker;
    this.#pool = new SandboxPool({
      // A running Code Mode script's requests are Code Mode's; every other call's, the broker's.
      capabilities: (message, hooks) => (this.#codeMode?.owns(message.callId) === true ? this.#codeMode.handle(message, hooks) : broker.handle(message, hooks)),
      fastRecords: (callId, records) => this.#codeMode?.fastRecords(callId, records),
      ...poolSettingsOf(options),
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
      sourceRoot: options.sourceRoot === undefined ? undefined : resolve(options.sourceRoot),
      callMemoryMb: (manifest) => memoryMbOf(options, manifest),
    });
    this.#library = new ToolLibrary({
      store: libraryStoreFor(options.ledger?.store),
      catalog: this.#catalog,
      loader: this.#loader,
      events: this.#events,
      logger: this.#logger,
      limits: { maxTools: options.maxToolsPerAgent, maxSourceBytes: options.maxAgentSourceBytes },
      now: Date.now,
    });
    this.library = hostLibrary(this.#library, () => this.#assertAlive());
    this.#callDeps = {
      libraryReady: this.#library.ready(),
      catalog: this.#catalog,
      pool: this.#pool,
      admission: this.#admission,
      events: this.#events,
      ledger: this.#ledger,
      quarantine: this.#quarantine,
      effectPolicy,
      gate,
      capabilities: this.#capabilities.broker,
      limitsFor: (entry, callOptions) => limitsOf(options, entry, callOptions),
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
      call: (name, input, callOptions) => this.#calls.track(runCall(this.#callDeps, name, input, callOptions)),
      fastTool: (entry) => fastToolOf(this.#callDeps, entry),
      recordFast: (entry, fast, caller, via, traceContext) => recordFastCall(this.#callDeps, entry, fast, caller, via, traceContext),
      channels: this.#callDeps.channels,
    });
    this.#afterLoad = {
      options,
      logger: this.#logger,
      catalog: this.#catalog,
      ledger: this.#ledger,
      events: this.#events,
      pool: this.#pool,
      quarantine: this.#quarantine,
      closed: () => this.#closed,
    };
    this.#registerBuiltins();
  }

  #registerBuiltins(): void {
    const createTool = this.#options.createTool;
    this.#catalog.replaceSource(BUILTIN_SOURCE, builtinEntries({
      catalog: this.#catalog,
      isQuarantined: (source) => this.#quarantine.isQuarantined(source),
      createTool: createTool === undefined ? undefined : { exposure: createTool.exposure ?? "hidden", author: (code, caller) => this.#author(createTool.agent, caller, code) },
      codeMode: this.#codeMode,
    }));
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
    return this.#telemetry.traceLoad(async () => finishLoad(this.#afterLoad, await this.#loader.load(checked)), summarizeLoad);
  }

  async author(given: AuthorRequest): Promise<LoadResult> {
    this.#assertAlive();
    const request = hostArguments.author(given);
    return this.#author(request.agent, null, request.code);
  }

  #author(agent: string, caller: string | null, code: string): Promise<LoadResult> {
    const deps = { library: this.#library, check: (source: string) => this.#quarantine.check(source) };
    return this.#telemetry.traceLoad(async () => finishLoad(this.#afterLoad, await authorTools(deps, agent, caller, code)), summarizeLoad);
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
    return this.#catalog.list().map((entry) => toolInfoOf(this.#options, entry));
  }

  declarations(given?: DeclarationOptions): ToolDeclaration[] {
    this.#assertAlive();
    const options = hostArguments.declarations(given);
    return declarationsFor(this.#catalog.list(), (source) => this.#quarantine.isQuarantined(source), this.#codeMode, options);
  }

  codeModeDeclarations(given?: DeclarationOptions): string {
    this.#assertAlive();
    const options = hostArguments.declarations(given);
    if (this.#codeMode === undefined) throw new CorralError("code_mode_off", "Code Mode is off on this host: create it with createHost({ codeMode: {} }) to use run_code and its declarations");
    return this.#codeMode.declarations(options.caller);
  }

  async call(name: string, input: unknown, options?: CallOptions): Promise<ToolResult> {
    this.#assertAlive();
    return this.#calls.track(runCall(this.#callDeps, name, input, hostArguments.call(name, options)));
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

  auditSource(source: string): Promise<HostSourceReport | null> {
    this.#assertAlive();
    return this.#ledger.sourceReport(source).then(async (report) => (report === null ? null : { ...report, capabilities: await this.#capabilities.readUses(source) }));
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
      await this.#calls.settledWithin(CLOSE_WAIT_MS);
      await this.#capabilities.close();
      await this.#library.close();
      await this.#ledger.close();
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
