/**
 * @module src/library/stored-entry
 * A library row becoming a tool this host can run, on first need: the
 * module's text is read from the store, must hash to the row's content
 * hash, is compiled and described in a worker (the caches skip both when
 * this build saw the bundle), and each tool's manifest must still declare
 * what the row says it does (effects, exposure, limits: what a policy
 * reads). A row that fails any of it is refused with a message that names
 * the tool, its version and the reason; the refusal is kept for that row,
 * so a bad row costs one attempt, not one per call.
 */
import type { Logger } from "pino";
import { sha256 } from "../compile/bundle.js";
import type { Built, Loader } from "../host/loader.js";
import type { CatalogEntry, Manifest } from "../registry/index.js";
import type { LibraryStore } from "./store.js";
import type { CurrentTool } from "./types.js";

export type LoadedModule = { ok: true; built: Built } | { ok: false; message: string };


/** What a policy reads of a manifest: a stored row that differs here from what its module declares was changed outside corral. */
function policyView(manifest: Pick<Manifest, "name" | "effects" | "exposure" | "limits">): string {
  return JSON.stringify([manifest.name, manifest.effects, manifest.exposure, manifest.limits]);
}

export class StoredModules {
  readonly #store: LibraryStore;
  readonly #loader: Loader;
  readonly #logger: Logger;
  readonly #limits: { maxTools: number; maxSourceBytes: number };
  /** One load per module hash at a time, and its answer kept (a refusal too). */
  readonly #modules = new Map<string, Promise<LoadedModule>>();

  constructor(deps: { store: LibraryStore; loader: Loader; logger: Logger; limits: { maxTools: number; maxSourceBytes: number } }) {
    this.#store = deps.store;
    this.#loader = deps.loader;
    this.#logger = deps.logger;
    this.#limits = deps.limits;
  }

  /** The entry that runs `row`'s tool, or why the row is refused. */
  async entryFor(row: CurrentTool, stored: Manifest): Promise<{ ok: true; entry: CatalogEntry } | { ok: false; message: string }> {
    let loading = this.#modules.get(row.hash);
    if (loading === undefined) {
      loading = this.#load(row);
      this.#modules.set(row.hash, loading);
    }
    const module = await loading;
    const refuse = (why: string) => {
      const message = `the library's "${row.name}" (agent:${row.agent}, version ${row.current}) is refused: ${why}`;
      this.#logger.warn({ event: "library_refused", tool: row.name, source: `agent:${row.agent}`, version: row.current, hash: row.hash }, message);
      return { ok: false as const, message };
    };
    if (!module.ok) return refuse(module.message);
    const manifest = module.built.manifests.find((candidate) => candidate.name === row.name);
    if (manifest === undefined) return refuse("its module no longer defines it");
    if (policyView(manifest) !== policyView(stored)) return refuse("its stored manifest does not match what its module declares (effects, exposure or limits were changed outside corral); publish it again");
    return { ok: true, entry: { manifest, source: `agent:${row.agent}`, version: module.built.bundle.hash, runner: { kind: "sandbox", bundle: module.built.bundle } } };
  }

  async #load(row: CurrentTool): Promise<LoadedModule> {
    let code: string | undefined;
    try {
      code = await this.#store.code(row.hash);
    } catch (error) {
      // A store that cannot be reached is no verdict on the row: the next call tries again.
      this.#modules.delete(row.hash);
      return { ok: false, message: `the library cannot be read (${(error as Error).message}); try again` };
    }
    if (code === undefined) return { ok: false, message: "its module's source is missing from the library" };
    if (sha256(code) !== row.hash) return { ok: false, message: "its source does not match its content hash (the row was changed outside corral)" };
    const built = await this.#loader.build({ source: `agent:${row.agent}`, code }, this.#limits);
    if (!built.ok) return { ok: false, message: `its module does not load: ${built.error.message}` };
    return { ok: true, built };
  }

  /** Forgets what is known of modules no row uses any more. */
  keepOnly(hashes: ReadonlySet<string>): void {
    for (const hash of this.#modules.keys()) if (!hashes.has(hash)) this.#modules.delete(hash);
  }
}
