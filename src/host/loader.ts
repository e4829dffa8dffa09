/**
 * @module src/host/loader
 * From source to registered tools: compile (cached), describe in a fresh
 * isolate and check the manifests on the host (both skipped for a bundle
 * whose checked manifests are cached: registry/manifest-cache.ts), refuse
 * names another source owns, then replace the source's tools in the catalog.
 * Agents' submissions go through the same path with their own limits.
 *
 * Every call of a tool reruns its module's top level in an isolate of the
 * call's memory limit. A module is described under `loadMemoryMb`; when a
 * tool of it runs its calls under less, the top level is run once more
 * under that smaller limit (once per bundle and limit in this host), and a
 * top level that does not fit is refused here, `memory`, with both figures:
 * it would otherwise load `ok` and fail every call `memory`, a strike each.
 */
import type { BundleRef, CallLimits } from "../../sandbox/shared/task-parts.js";
import type { BundleCache, CompileResult } from "../compile/index.js";
import type { SandboxPool } from "../pool/index.js";
import { checkManifests, type Catalog, type CatalogEntry, type Manifest, type ManifestCache, type ManifestOrigin } from "../registry/index.js";
import { checkSourceId, pluginSourceId, resolvePluginPath } from "../registry/source.js";
import type { Diagnostic, OutcomeKind } from "../result.js";
import type { LoadFailureKind, LoadRequest, LoadResult } from "./types.js";

/** The share of a tool's call memory its module's top level must run within at load (see #fitsCallMemory). */
const TOP_LEVEL_HEADROOM = 0.75;
/** The smallest isolate the check runs in (the options' floor for any memory limit). */
const MIN_CHECK_MB = 8;
const BYTES_PER_MB = 1024 * 1024;

export type LoaderDeps = {
  cache: BundleCache;
  pool: SandboxPool;
  catalog: Catalog;
  /** Checked manifests of bundles seen before; its describe limits are `loadLimits`. */
  manifests: ManifestCache;
  loadLimits: CallLimits;
  /** What `plugin:<path>` ids are relative to; undefined: the working directory at each load. */
  sourceRoot: string | undefined;
  /** The memory limit a call of this tool runs under when the caller asks for none (limitsOf). */
  callMemoryMb(manifest: Manifest): number;
};

type Described = { ok: true; manifests: Manifest[]; origin: ManifestOrigin } | { ok: false; kind: LoadFailureKind; message: string };

export type AuthorLimits = { maxTools: number; maxSourceBytes: number };

/** A module compiled, described and checked, not yet registered. */
export type Built = { ok: true; source: string; bundle: BundleRef; manifests: Manifest[]; cached: boolean; origin: ManifestOrigin };

/** The catalog entries of a built module: one per tool, all running its bundle. */
export function entriesOf(built: Built): CatalogEntry[] {
  return built.manifests.map((manifest) => ({ manifest, source: built.source, version: built.bundle.hash, runner: { kind: "sandbox", bundle: built.bundle } }));
}

export function conflictMessage(conflicts: { name: string; owner: string }[]): string {
  return `tool names already taken by another source: ${conflicts.map((c) => `"${c.name}" (owned by ${c.owner})`).join(", ")}; rename the tools`;
}

function failed(source: string, kind: LoadFailureKind, message: string, diagnostics?: Diagnostic[]): Extract<LoadResult, { ok: false }> {
  return { ok: false, source, error: diagnostics === undefined ? { kind, message } : { kind, message, diagnostics } };
}

export class Loader {
  readonly #deps: LoaderDeps;
  /** `<bundle hash>:<MB>`: top levels seen to run within that call memory limit. */
  readonly #fits = new Set<string>();

  constructor(deps: LoaderDeps) {
    this.#deps = deps;
  }

  /** The source id a request will load under (checked). */
  sourceOf(request: LoadRequest): string {
    const source = "code" in request ? request.source : (request.source ?? pluginSourceId(request.path, this.#deps.sourceRoot));
    checkSourceId(source);
    return source;
  }

  async load(request: LoadRequest, authorLimits?: AuthorLimits): Promise<LoadResult> {
    const built = await this.build(request, authorLimits);
    if (!built.ok) return built;
    const { source, bundle, manifests } = built;
    const conflicts = this.#deps.catalog.conflicts(source, manifests.map((manifest) => manifest.name));
    if (conflicts.length > 0) return failed(source, "compile_error", conflictMessage(conflicts));
    this.#deps.catalog.replaceSource(source, entriesOf(built));
    return { ok: true, source, version: bundle.hash, cached: built.cached, manifestsFrom: built.origin, tools: [] };
  }

  /**
   * Compiles and describes a module and checks its manifests, changing
   * nothing: the load above, and the library (src/library), which registers
   * what it built only once its store took the versions.
   */
  async build(request: LoadRequest, authorLimits?: AuthorLimits): Promise<Built | Extract<LoadResult, { ok: false }>> {
    const source = this.sourceOf(request);
    const fail = (kind: LoadFailureKind, message: string, diagnostics?: Diagnostic[]) => failed(source, kind, message, diagnostics);
    let compiled: CompileResult;
    if ("code" in request) {
      if (authorLimits !== undefined && Buffer.byteLength(request.code) > authorLimits.maxSourceBytes) {
        return fail("compile_error", `the source is larger than ${authorLimits.maxSourceBytes} bytes; submit a smaller module`);
      }
      compiled = await this.#deps.cache.compile({ kind: "text", code: request.code, sourceName: source });
    } else {
      const resolved = resolvePluginPath(request.path);
      if ("error" in resolved) return fail("compile_error", resolved.error);
      compiled = await this.#deps.cache.compile({ kind: "file", entry: resolved.entry, root: resolved.root });
    }
    if (!compiled.ok) return fail("compile_error", formatDiagnostics(compiled.diagnostics), compiled.diagnostics);

    const bundle: BundleRef = { hash: compiled.hash, filename: source };
    if (compiled.path !== undefined) bundle.path = compiled.path;
    else bundle.code = compiled.code;

    const described = await this.#describe(bundle);
    if (!described.ok) return fail(described.kind, described.message);
    const fits = await this.#fitsCallMemory(bundle, described.manifests);
    if (fits !== undefined) return fail("memory", fits);
    if (authorLimits !== undefined && described.manifests.length > authorLimits.maxTools) {
      return fail("compile_error", `the module defines ${described.manifests.length} tools; an agent may have at most ${authorLimits.maxTools}`);
    }
    return { ok: true, source, bundle, manifests: described.manifests, cached: compiled.cached, origin: described.origin };
  }

  /**
   * Why the module's top level cannot run under the smallest call memory
   * limit of its tools (a message naming both figures), or undefined when it
   * can, or when no tool's limit is below the load limit. Only a `memory`
   * verdict refuses: any other failure of the second run leaves the verdict
   * to the calls, as before.
   */
  async #fitsCallMemory(bundle: BundleRef, manifests: Manifest[]): Promise<string | undefined> {
    const load = this.#deps.loadLimits;
    let tightest: { name: string; memoryMb: number } | undefined;
    for (const manifest of manifests) {
      const memoryMb = this.#deps.callMemoryMb(manifest);
      if (memoryMb < load.memoryMb && (tightest === undefined || memoryMb < tightest.memoryMb)) tightest = { name: manifest.name, memoryMb };
    }
    if (tightest === undefined || this.#fits.has(`${bundle.hash}:${tightest.memoryMb}`)) return undefined;
    // V8's heap limit is soft: a top level close to it fits one run and not
    // the next (seen on Node 26: a 20 MB top level passed a 16 MB check, then
    // failed the call). Checked with headroom, a load refused costs no strike;
    // one passed that fails its calls costs a strike on every call.
    const checkMb = Math.max(MIN_CHECK_MB, Math.floor(tightest.memoryMb * TOP_LEVEL_HEADROOM));
    const limits = { ...load, memoryMb: checkMb };
    const outcome = await this.#deps.pool.run({ type: "describe", bundle, limits }, limits, `describe:${bundle.hash}:${tightest.memoryMb}`);
    const kind = outcome.ok ? outcome.reply.kind : outcome.kind;
    // Not every allocation past the limit is stopped as it happens (on Node 26
    // a top level of large arrays was let run at 23 MB in a 12 MB isolate):
    // the heap the run left is weighed too.
    const heldTooMuch = outcome.ok && kind === "ok" && outcome.reply.metrics.heapBytes > checkMb * BYTES_PER_MB;
    if (kind !== "memory" && !heldTooMuch) {
      if (kind === "ok") this.#fits.add(`${bundle.hash}:${tightest.memoryMb}`);
      return undefined;
    }
    return (
      `the module's top level does not run within ${checkMb} MB (${TOP_LEVEL_HEADROOM * 100}% of ${tightest.memoryMb} MB, the memory limit a call of "${tightest.name}" runs under, for V8's soft limit) ` +
      `(it loaded within loadMemoryMb, ${load.memoryMb} MB): every call reruns the top level, so every call would fail memory; ` +
      `allocate less at the top level (do the work in run) or give the tool more memory (limits.memoryMb)`
    );
  }

  async #describe(bundle: BundleRef): Promise<Described> {
    const known = this.#deps.manifests.get(bundle.hash);
    if (known !== undefined) return { ok: true, manifests: known.manifests, origin: known.origin };
    const limits = this.#deps.loadLimits;
    const outcome = await this.#deps.pool.run({ type: "describe", bundle, limits }, limits, `describe:${bundle.hash}`);
    if (!outcome.ok) {
      return { ok: false, kind: outcome.kind === "cancelled" || outcome.kind === "tool_error" ? "crash" : outcome.kind, message: `loading the module failed: ${outcome.message}` };
    }
    const reply = outcome.reply;
    if (reply.type !== "describe") return { ok: false, kind: "crash", message: "the sandbox worker answered a load with a call reply" };
    // The worker classified the load (sandbox/shared/classify.ts).
    if (reply.kind !== "ok" || reply.manifestsJson === undefined) {
      return { ok: false, kind: loadFailureKind(reply.kind), message: reply.message ?? "describing the module's tools failed" };
    }
    const checked = checkManifests(reply.manifestsJson);
    if (!checked.ok) return { ok: false, kind: "compile_error", message: checked.message };
    // Only a describe that completed and passed the host's check is kept.
    this.#deps.manifests.set(bundle.hash, checked.manifests);
    return { ok: true, manifests: checked.manifests, origin: "worker" };
  }
}

/** A load answers only load kinds: anything else the worker said (its own failure) reads as the module's compile_error. */
function loadFailureKind(kind: OutcomeKind): LoadFailureKind {
  return kind === "timeout" || kind === "memory" || kind === "crash" || kind === "compile_error" ? kind : "compile_error";
}

export function formatDiagnostics(diagnostics: Diagnostic[]): string {
  return diagnostics
    .slice(0, 10)
    .map((d) => (d.file !== undefined && d.line !== undefined ? `${d.file}:${d.line}:${d.column ?? 1}: ${d.message}` : d.message))
    .join("\n");
}
