/**
 * @module src/library/library
 * ToolLibrary: the host's side of the library of agent-written tools.
 *
 * ```
 * host.author ─▶ loader.build (compile, describe, check: in a worker) ─▶ store.publish (one transaction)
 *             ─▶ catalog.upsert (this host serves it at once)
 * store change (start-up, NOTIFY, data_version) ─▶ sync: store.current() ─▶ catalog
 *     new or moved row ─▶ a `stored` entry: the row's manifest, loaded on first call (stored-entry.ts)
 *     retired, rolled away ─▶ out of the catalog (or back to the row's version)
 * ```
 *
 * Only tools the library manages are touched: a plugin's tools, and an
 * `agent:` source loaded with host.load, are left alone. A row whose name
 * another source owns in this host, or whose manifest does not pass the
 * host's check, is skipped with an error in the log.
 */
import type { Logger } from "pino";
import { CorralError } from "../errors.js";
import type { EventHub } from "../events.js";
import { conflictMessage, entriesOf, type Loader } from "../host/loader.js";
import type { LoadResult } from "../host/types.js";
import { checkManifestList, type Catalog, type CatalogEntry, type Manifest } from "../registry/index.js";
import { sha256 } from "../compile/bundle.js";
import { StoredModules } from "./stored-entry.js";
import type { LibraryStore } from "./store.js";
import { ContentHash, StoredTool, type Change, type CurrentTool, type Published, type StoredVersion } from "./types.js";

export type LibraryLimits = { maxTools: number; maxSourceBytes: number };

/** A tool this host serves from the library: the row it came from. */
type Managed = { agent: string; hash: string; version: number };

export type LibraryDeps = {
  store: LibraryStore;
  catalog: Catalog;
  loader: Loader;
  events: EventHub;
  logger: Logger;
  limits: LibraryLimits;
  now: () => number;
};

export class ToolLibrary {
  readonly #deps: LibraryDeps;
  readonly #modules: StoredModules;
  readonly #managed = new Map<string, Managed>();
  readonly #stopWatching: (() => void) | undefined;
  #ready: Promise<void>;
  #syncing: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(deps: LibraryDeps) {
    this.#deps = deps;
    this.#modules = new StoredModules({ store: deps.store, loader: deps.loader, logger: deps.logger, limits: deps.limits });
    this.#ready = this.sync();
    this.#stopWatching = deps.store.watch?.(() => void this.sync());
  }

  /** Settles once the library's tools are in the catalog (a store that cannot be read is logged, not thrown). */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Brings the catalog to the store's current tools; a sync asked for while one runs runs again after it. */
  sync(): Promise<void> {
    if (this.#syncing !== undefined) {
      this.#again = true;
      return this.#syncing;
    }
    this.#syncing = (async () => {
      do {
        this.#again = false;
        try {
          if (!this.#closed) this.#apply(await this.#deps.store.current());
        } catch (error) {
          this.#deps.logger.warn({ event: "library_sync", err: (error as Error).message }, "the tool library could not be read; its tools stay as they were");
        }
      } while (this.#again && !this.#closed);
    })().finally(() => {
      this.#syncing = undefined;
    });
    return this.#syncing;
  }

  #apply(rows: CurrentTool[]): void {
    const { catalog } = this.#deps;
    const touched = new Set<string>();
    const wanted = new Set<string>();
    const upserts: CatalogEntry[] = [];
    for (const row of rows) {
      const { hash, manifestJson: _manifest, ...tool } = row;
      if (!StoredTool.safeParse(tool).success || !ContentHash.safeParse(hash).success) {
        this.#deps.logger.error({ event: "library_sync", tool: String(row.name).slice(0, 64) }, "a row of the tool library cannot be read (edited outside corral?); it is not served");
        continue;
      }
      const manifest = this.#manifestOf(row);
      if (manifest === undefined) continue;
      const owner = catalog.get(row.name)?.source;
      if (owner !== undefined && !this.#managed.has(row.name)) {
        this.#deps.logger.error({ event: "library_sync", tool: row.name, source: `agent:${row.agent}`, owner }, `the library's "${row.name}" is not served here: ${owner} owns that name in this host`);
        continue;
      }
      wanted.add(row.name);
      const known = this.#managed.get(row.name);
      if (known !== undefined && known.hash === row.hash && known.version === row.current && known.agent === row.agent) continue;
      this.#managed.set(row.name, { agent: row.agent, hash: row.hash, version: row.current });
      upserts.push(this.#storedEntry(row, manifest));
      touched.add(`agent:${row.agent}`);
    }
    const gone = [...this.#managed.keys()].filter((name) => !wanted.has(name));
    for (const name of gone) {
      touched.add(`agent:${this.#managed.get(name)?.agent}`);
      this.#managed.delete(name);
    }
    if (upserts.length > 0) catalog.upsert(upserts);
    if (gone.length > 0) catalog.remove(gone);
    this.#modules.keepOnly(new Set(rows.map((row) => row.hash)));
    for (const source of touched) this.#announce(source);
  }

  #manifestOf(row: CurrentTool): Manifest | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.manifestJson);
    } catch {
      parsed = undefined;
    }
    const checked = checkManifestList([parsed]);
    if (checked.ok && checked.manifests[0]?.name === row.name) return checked.manifests[0];
    this.#deps.logger.error({ event: "library_sync", tool: row.name, source: `agent:${row.agent}`, version: row.current }, `the library's "${row.name}" has a manifest corral cannot use (${checked.ok ? "another tool's name" : checked.message}); it is not served`);
    return undefined;
  }

  /** A row's tool before its first call: its stored manifest, its content hash as its version. */
  #storedEntry(row: CurrentTool, manifest: Manifest): CatalogEntry {
    const source = `agent:${row.agent}`;
    const entry: CatalogEntry = {
      manifest,
      source,
      version: row.hash,
      runner: {
        kind: "stored",
        load: async () => {
          const loaded = await this.#modules.entryFor(row, manifest);
          if (!loaded.ok) return { ok: false, kind: "compile_error", message: loaded.message };
          // Only if the row is still the one served: a sync may have moved it meanwhile.
          if (this.#deps.catalog.get(row.name) === entry) this.#deps.catalog.upsert([loaded.entry]);
          return loaded;
        },
      },
    };
    return entry;
  }

  #announce(source: string): void {
    const tools = this.#deps.catalog.ofSource(source).map((entry) => entry.manifest.name);
    this.#deps.events.emit({ type: "tools_changed", source, tools, at: Date.now() });
  }

  /**
   * Registers an agent's module: built (compiled, described, checked) first,
   * then its versions written in one transaction, then served here.
   */
  async publish(agent: string, caller: string | null, code: string): Promise<LoadResult & { versions?: Published[] }> {
    await this.#ready;
    const source = `agent:${agent}`;
    const built = await this.#deps.loader.build({ source, code }, this.#deps.limits);
    if (!built.ok) return built;
    const names = built.manifests.map((manifest) => manifest.name);
    const conflicts = this.#deps.catalog.conflicts(source, names).filter((conflict) => !this.#managed.has(conflict.name));
    if (conflicts.length > 0) return { ok: false, source, error: { kind: "compile_error", message: conflictMessage(conflicts) } };
    const hash = sha256(code);
    let outcome;
    try {
      outcome = await this.#deps.store.publish({ agent, caller, code, hash, manifests: built.manifests.map((manifest) => ({ name: manifest.name, json: JSON.stringify(manifest) })), at: this.#deps.now() }, { maxTools: this.#deps.limits.maxTools });
    } catch (error) {
      if (!(error instanceof CorralError)) throw error;
      return { ok: false, source, error: { kind: "busy", message: `the tool library cannot be written (${error.message}); nothing was registered: try again later` } };
    }
    if (!outcome.ok) {
      const message = outcome.reason === "name_taken"
        ? `the tool name "${outcome.name}" is taken by ${outcome.owner}; rename the tool`
        : `an agent may have at most ${outcome.max} tools and this would make ${outcome.have}; retire some first`;
      return { ok: false, source, error: { kind: "compile_error", message } };
    }
    for (const published of outcome.tools) this.#managed.set(published.name, { agent, hash, version: published.version });
    this.#deps.catalog.upsert(entriesOf(built));
    return { ok: true, source, version: built.bundle.hash, cached: built.cached, manifestsFrom: built.origin, tools: [], versions: outcome.tools };
  }

  tools(agent?: string): Promise<StoredTool[]> {
    return this.#deps.store.tools(agent);
  }

  versions(name: string): Promise<StoredVersion[]> {
    return this.#deps.store.versions(name);
  }

  async rollback(name: string, version: number, agent?: string): Promise<StoredTool> {
    return this.#changed(await this.#deps.store.setCurrent(name, version, { ...(agent === undefined ? {} : { agent }), at: this.#deps.now() }));
  }

  async retire(name: string, agent?: string): Promise<StoredTool> {
    return this.#changed(await this.#deps.store.retire(name, { ...(agent === undefined ? {} : { agent }), at: this.#deps.now() }));
  }

  async #changed(change: Change): Promise<StoredTool> {
    if (!change.ok) throw new CorralError("not_in_library", change.message, { reason: change.reason });
    await this.sync();
    return change.tool;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopWatching?.();
    await this.#syncing?.catch(() => undefined);
    await this.#deps.store.close();
  }
}
