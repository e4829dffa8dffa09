/**
 * @module src/host
 * createHost(options): the library's entry point. The Host owns the bundle
 * cache, the catalog and the sandbox pool, and frees the pool in close().
 *
 * Every call takes one path and never throws for a tool's failure:
 * resolve → serialise input → pool.run (worker: validate, run, normalise)
 * → check the envelope (zod) → ToolResult. Any failure along the way becomes
 * a ToolFailure with an outcome kind.
 */
import { randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import pino, { type Logger } from "pino";
import { GuestEnvelope, type BundleRef, type CallLimits, type Metrics } from "../sandbox/protocol.js";
import { BundleCache, type CompileResult } from "./compile/index.js";
import { HostClosedError } from "./errors.js";
import { resolveHostOptions, type HostOptions, type ResolvedHostOptions } from "./options.js";
import { Admission, SandboxPool, type PoolOutcome } from "./pool/index.js";
import { Catalog, checkManifests, type CatalogEntry, type Manifest } from "./registry/index.js";
import { checkSourceId, isPluginCandidate, pluginSourceId, resolvePluginPath } from "./registry/source.js";
import type { Diagnostic, ErrorKind, ToolFailure, ToolResult } from "./result.js";

export type LoadRequest =
  | { /** `agent:<id>` or `host:<name>` */ source: string; code: string }
  | { /** A tool file or a plugin folder. */ path: string; /** @default plugin:<path> */ source?: string };

export type ToolInfo = {
  name: string;
  description: string;
  source: string;
  version: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  effects: string[] | null;
  exposure: Manifest["exposure"];
  /** The limits calls get by default, after the host's caps. */
  limits: { timeoutMs: number; memoryMb: number };
};

export type LoadFailureKind = Extract<ErrorKind, "compile_error" | "timeout" | "memory" | "crash">;
export type LoadResult =
  | { ok: true; source: string; version: string; cached: boolean; tools: ToolInfo[] }
  | { ok: false; source: string; error: { kind: LoadFailureKind; message: string; diagnostics?: Diagnostic[] } };

export type CallOptions = {
  signal?: AbortSignal;
  /** Lower (never raise past the host's maximum) this call's time limit. */
  timeoutMs?: number;
  memoryMb?: number;
};

export type Host = {
  load(request: LoadRequest): Promise<LoadResult>;
  /** Loads every tool file and plugin folder directly inside `dir`. */
  loadDirectory(dir: string): Promise<LoadResult[]>;
  call(name: string, input: unknown, options?: CallOptions): Promise<ToolResult>;
  tools(): ToolInfo[];
  readonly alive: boolean;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

const ZERO_METRICS: Metrics = { wallMs: 0, cpuMs: 0, heapBytes: 0 };

export function createHost(options: HostOptions = {}): Host {
  return new CorralHost(resolveHostOptions(options));
}

class CorralHost implements Host {
  readonly #options: ResolvedHostOptions;
  readonly #logger: Logger;
  readonly #cache: BundleCache;
  readonly #catalog = new Catalog();
  readonly #manifests = new Map<string, Manifest[]>();
  readonly #pool: SandboxPool;
  readonly #admission: Admission;
  #closed = false;

  constructor(options: ResolvedHostOptions) {
    this.#options = options;
    this.#logger = options.logger ?? pino({ level: "silent" });
    this.#cache = new BundleCache(options.cacheDir);
    this.#pool = new SandboxPool({
      workers: options.workers,
      spareWorkers: options.spareWorkers,
      pipelineDepth: options.pipelineDepth,
      watchdogGraceMs: options.watchdogGraceMs,
      workerMemorySlackMb: options.workerMemorySlackMb,
      worker: {
        maxWarmIsolates: options.maxWarmIsolates,
        maxWarmHeapMb: options.maxWarmHeapMb,
        loadTimeoutMs: options.loadTimeoutMs,
      },
      logger: this.#logger,
    });
    this.#admission = new Admission({
      maxInFlight: options.maxInFlight,
      maxInFlightPerTool: options.maxInFlightPerTool,
      maxQueue: options.maxQueue,
    });
  }

  get alive(): boolean {
    return !this.#closed;
  }

  #assertAlive(): void {
    if (this.#closed) throw new HostClosedError("the host");
  }

  async load(request: LoadRequest): Promise<LoadResult> {
    this.#assertAlive();
    let source: string;
    let compiled: CompileResult;
    if ("code" in request) {
      source = request.source;
      checkSourceId(source);
      compiled = await this.#cache.compile({ kind: "text", code: request.code, sourceName: source });
    } else {
      source = request.source ?? pluginSourceId(request.path);
      checkSourceId(source);
      const resolved = resolvePluginPath(request.path);
      if ("error" in resolved) return { ok: false, source, error: { kind: "compile_error", message: resolved.error } };
      compiled = await this.#cache.compile({ kind: "file", entry: resolved.entry, root: resolved.root });
    }
    if (!compiled.ok) {
      return { ok: false, source, error: { kind: "compile_error", message: formatDiagnostics(compiled.diagnostics), diagnostics: compiled.diagnostics } };
    }
    const bundle: BundleRef = { hash: compiled.hash, filename: source };
    if (compiled.path !== undefined) bundle.path = compiled.path;
    else bundle.code = compiled.code;

    const described = await this.#describe(bundle);
    if (!described.ok) return { ok: false, source, error: described.error };
    const conflicts = this.#catalog.conflicts(source, described.manifests.map((m) => m.name));
    if (conflicts.length > 0) {
      const list = conflicts.map((c) => `"${c.name}" (owned by ${c.owner})`).join(", ");
      return { ok: false, source, error: { kind: "compile_error", message: `tool names already taken by another source: ${list}; rename the tools` } };
    }
    const entries: CatalogEntry[] = described.manifests.map((manifest) => ({ manifest, source, version: compiled.hash, bundle }));
    this.#catalog.replaceSource(source, entries);
    this.#logger.info({ event: "load", source, version: compiled.hash, tools: entries.map((e) => e.manifest.name), cached: compiled.cached }, "source loaded");
    return { ok: true, source, version: compiled.hash, cached: compiled.cached, tools: entries.map((e) => this.#info(e)) };
  }

  async #describe(bundle: BundleRef): Promise<{ ok: true; manifests: Manifest[] } | Extract<LoadResult, { ok: false }>> {
    const known = this.#manifests.get(bundle.hash);
    if (known !== undefined) return { ok: true, manifests: known };
    const limits = this.#loadLimits();
    const outcome = await this.#pool.run({ type: "describe", bundle, limits }, limits, `describe:${bundle.hash}`);
    const fail = (kind: LoadFailureKind, message: string) => ({ ok: false as const, source: bundle.filename, error: { kind, message } });
    if (!outcome.ok) return fail(outcome.kind === "cancelled" ? "crash" : outcome.kind, `loading the module failed: ${outcome.message}`);
    const reply = outcome.reply;
    if (reply.type !== "describe") return fail("crash", "the sandbox worker answered a load with a call reply");
    if (reply.end === "load_error") return fail("compile_error", reply.message ?? "the module failed to load");
    if (reply.end !== "completed" || reply.manifestsJson === undefined) {
      const kind = reply.end === "timeout" || reply.end === "memory" ? reply.end : "crash";
      return fail(kind, reply.message ?? "describing the module's tools failed");
    }
    const checked = checkManifests(reply.manifestsJson);
    if (!checked.ok) return fail("compile_error", checked.message);
    this.#manifests.set(bundle.hash, checked.manifests);
    return { ok: true, manifests: checked.manifests };
  }

  async loadDirectory(dir: string): Promise<LoadResult[]> {
    this.#assertAlive();
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

  async call(name: string, input: unknown, options: CallOptions = {}): Promise<ToolResult> {
    this.#assertAlive();
    const callId = randomUUID();
    const started = performance.now();
    const entry = typeof name === "string" ? this.#catalog.get(name) : undefined;
    const base = { tool: String(name).slice(0, 64), callId };
    if (entry === undefined) {
      return this.#finish(failure(base, "unknown_tool", `there is no tool named "${base.tool}"; list the tools with host.tools()`), started);
    }
    const info = { ...base, source: entry.source, version: entry.version };
    let inputJson: string;
    try {
      inputJson = JSON.stringify(input === undefined ? {} : input);
    } catch (error) {
      return this.#finish(failure(info, "invalid_input", `the input cannot be sent as JSON: ${(error as Error).message}`), started);
    }
    const limits = this.#callLimits(entry.manifest, options);
    const admitted = await this.#admission.admit(entry.manifest.name, options.signal);
    if (!admitted.ok) {
      return this.#finish(failure(info, admitted.reason === "busy" ? "busy" : "cancelled", admitted.message), started);
    }
    let outcome: PoolOutcome;
    try {
      outcome = await this.#pool.run(
        { type: "call", callId, bundle: entry.bundle, tool: entry.manifest.name, inputJson, limits },
        limits,
        `${entry.bundle.hash}:${limits.memoryMb}:${entry.manifest.name}`,
        options.signal,
      );
    } finally {
      admitted.release();
    }
    if (!outcome.ok) return this.#finish(failure(info, outcome.kind, outcome.message), started);
    const reply = outcome.reply;
    if (reply.type !== "call") return this.#finish(failure(info, "crash", "the sandbox worker answered a call with a load reply"), started);
    const withMetrics = { ...info, metrics: reply.metrics };
    if (reply.end !== "completed" || reply.envelopeJson === undefined) {
      const kind: ErrorKind = reply.end === "load_error" ? "tool_error" : reply.end === "completed" ? "crash" : reply.end;
      return this.#finish(failure(withMetrics, kind, reply.message ?? "the call failed"), started);
    }
    return this.#finish(fromEnvelope(withMetrics, reply.envelopeJson), started);
  }

  #finish(result: ToolResult, started: number): ToolResult {
    if (result.metrics.wallMs === 0) result.metrics = { ...result.metrics, wallMs: performance.now() - started };
    this.#logger.info(
      {
        event: "call",
        tool: result.tool,
        source: result.source,
        version: result.version,
        callId: result.callId,
        outcome: result.ok ? "ok" : result.error.kind,
        wallMs: round(result.metrics.wallMs),
        cpuMs: round(result.metrics.cpuMs),
        heapBytes: result.metrics.heapBytes,
      },
      "tool call",
    );
    return result;
  }

  #loadLimits(): CallLimits {
    return {
      timeoutMs: this.#options.loadTimeoutMs,
      memoryMb: this.#options.loadMemoryMb,
      maxOutputBytes: this.#options.maxOutputBytes,
      maxDepth: this.#options.maxDepth,
    };
  }

  #callLimits(manifest: Manifest, options: CallOptions): CallLimits {
    const o = this.#options;
    const timeoutMs = Math.min(options.timeoutMs ?? manifest.limits.timeoutMs ?? o.defaultTimeoutMs, o.maxTimeoutMs);
    const memoryMb = Math.min(options.memoryMb ?? manifest.limits.memoryMb ?? o.defaultMemoryMb, o.maxMemoryMb);
    return { timeoutMs: Math.max(1, Math.floor(timeoutMs)), memoryMb: Math.max(8, Math.floor(memoryMb)), maxOutputBytes: o.maxOutputBytes, maxDepth: o.maxDepth };
  }

  #info(entry: CatalogEntry): ToolInfo {
    const { manifest } = entry;
    const limits = this.#callLimits(manifest, {});
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
    this.#admission.close();
    await this.#pool.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

type BaseInfo = { tool: string; callId: string; source?: string; version?: string; metrics?: Metrics };

function failure(info: BaseInfo, kind: ErrorKind, message: string, extra: Partial<ToolFailure["error"]> = {}): ToolFailure {
  return { ok: false, ...info, metrics: info.metrics ?? ZERO_METRICS, error: { kind, message, ...extra } };
}

/** The guest's envelope, checked with zod: nothing the tool made is trusted as typed. */
function fromEnvelope(info: BaseInfo & { metrics: Metrics }, envelopeJson: string): ToolResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(envelopeJson);
  } catch {
    return failure(info, "crash", "the sandbox answered with text that is not JSON");
  }
  const envelope = GuestEnvelope.safeParse(parsed);
  if (!envelope.success) {
    const detail = envelope.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    return failure(info, "tool_error", `the tool's result has an invalid shape (${detail}); check its images and control fields`);
  }
  const e = envelope.data;
  const logs = e.logs !== undefined && e.logs.length > 0 ? { logs: e.logs } : {};
  if (!e.ok) {
    const extra: Partial<ToolFailure["error"]> = {};
    if (e.issues !== undefined) extra.issues = e.issues;
    if (e.stack !== undefined) extra.stack = e.stack;
    return { ...failure(info, e.kind, e.message, extra), ...logs };
  }
  const output = e.text ?? (e.structured === undefined ? "" : JSON.stringify(e.structured));
  const result: ToolResult = { ok: true, ...info, output, ...logs };
  if (e.structured !== undefined) result.structured = e.structured;
  if (e.details !== undefined) result.details = e.details;
  if (e.control !== undefined) result.control = e.control;
  if (e.images !== undefined) result.images = e.images;
  return result;
}

function formatDiagnostics(diagnostics: Diagnostic[]): string {
  return diagnostics
    .slice(0, 10)
    .map((d) => (d.file !== undefined && d.line !== undefined ? `${d.file}:${d.line}:${d.column ?? 1}: ${d.message}` : d.message))
    .join("\n");
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
