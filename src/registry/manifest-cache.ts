/**
 * @module src/registry/manifest-cache
 * Checked manifests by bundle, in memory and in the host's cache folder, so a
 * new host over the same folder registers a bundle it has seen before without
 * describing it again in a worker.
 *
 * The key holds everything that shapes a describe's answer: the bundle's
 * sha256, the guest runtime that ran it (the sha256 of
 * `dist/sandbox/guest/runtime.bundle.js`: zod, the SDK, `toJSONSchema`), the
 * limits it ran under, and FORMAT_VERSION. A rebuilt runtime gets other keys,
 * so a file written by another runtime is never read. The host's own check is
 * left out of the key on purpose: every file read goes through it again.
 *
 * ```
 * describe in a worker ─▶ checkManifests passes ─▶ memory + <dir>/manifests/<key>.json
 * load ─▶ memory? ─▶ file: JSON, FileShape, same key + bundle + runtime,
 *                          checkManifestList passes ─▶ used ("disk")
 *                     anything else ─▶ a miss (debug log); the describe that
 *                                      follows writes the file again
 * ```
 *
 * A file is written only after a describe whose answer passed the host's check,
 * atomically (temporary file + rename). Reading never throws: a bad file costs
 * a describe, not the load. A file that passes is trusted as the tool's own
 * declaration (effects, exposure, limits), so the folder must be writable by
 * the host's user only (SECURITY.md).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import { z } from "zod";
import type { CallLimits } from "../../sandbox/shared/task-parts.js";
import { sha256, writeAtomically } from "../compile/index.js";
import { checkManifestList, type Manifest } from "./manifest.js";

/** Bump when what a file holds, or the defaults the host's check fills in, change. */
const FORMAT_VERSION = 1;

/** The guest runtime the workers load (dist/src/registry → dist/sandbox/guest). */
const RUNTIME_PATH = fileURLToPath(new URL("../../sandbox/guest/runtime.bundle.js", import.meta.url));

const HASH = z.string().regex(/^[0-9a-f]{64}$/);

const FileShape = z.strictObject({
  format: z.literal(FORMAT_VERSION),
  key: HASH,
  bundleHash: HASH,
  runtime: z.string().min(1),
  manifests: z.array(z.unknown()),
});
type FileShape = z.infer<typeof FileShape>;

/** Where a load's manifests came from: a describe in a worker, this host's memory, or the cache folder. */
export type ManifestOrigin = "worker" | "memory" | "disk";

export type ManifestCacheOptions = {
  /** The host's cache folder; `false`: memory only. */
  dir: string | false;
  /** The limits every describe of this host runs under. */
  describeLimits: CallLimits;
  logger: Logger;
  /** The guest runtime's identity. @default the sha256 of runtime.bundle.js; memory only when it cannot be read */
  runtimeId?: string;
};

let runtimeOnDisk: string | null | undefined;

/** The sha256 of the guest runtime bundle, read once per process; `undefined` if it cannot be read. */
export function guestRuntimeId(): string | undefined {
  if (runtimeOnDisk === undefined) {
    try {
      runtimeOnDisk = sha256(readFileSync(RUNTIME_PATH));
    } catch {
      runtimeOnDisk = null;
    }
  }
  return runtimeOnDisk ?? undefined;
}

export class ManifestCache {
  /** `undefined`: no disk cache (no folder, or no runtime identity to key it with). */
  readonly #dir: string | undefined;
  readonly #runtimeId: string | undefined;
  readonly #limits: CallLimits;
  readonly #logger: Logger;
  readonly #memory = new Map<string, Manifest[]>();

  constructor(options: ManifestCacheOptions) {
    this.#runtimeId = options.runtimeId ?? guestRuntimeId();
    this.#dir = options.dir === false || this.#runtimeId === undefined ? undefined : join(options.dir, "manifests");
    this.#limits = options.describeLimits;
    this.#logger = options.logger;
  }

  /** Known manifests of a bundle, or `undefined`: describe it. Never throws. */
  get(bundleHash: string): { manifests: Manifest[]; origin: Exclude<ManifestOrigin, "worker"> } | undefined {
    const known = this.#memory.get(bundleHash);
    if (known !== undefined) return { manifests: known, origin: "memory" };
    const read = this.#read(bundleHash);
    if (read === undefined) return undefined;
    this.#memory.set(bundleHash, read);
    return { manifests: read, origin: "disk" };
  }

  /** Keeps manifests that passed `checkManifests` after a describe of this bundle. */
  set(bundleHash: string, manifests: Manifest[]): void {
    this.#memory.set(bundleHash, manifests);
    if (this.#dir === undefined || this.#runtimeId === undefined) return;
    const key = this.#key(bundleHash);
    const file: FileShape = { format: FORMAT_VERSION, key, bundleHash, runtime: this.#runtimeId, manifests };
    try {
      mkdirSync(this.#dir, { recursive: true });
      writeAtomically(join(this.#dir, `${key}.json`), JSON.stringify(file));
    } catch (error) {
      // A read-only or full disk costs the next host a describe, not this load.
      this.#logger.debug({ event: "manifest_cache", bundle: bundleHash, error: String(error) }, "manifests not written to the cache folder");
    }
  }

  #read(bundleHash: string): Manifest[] | undefined {
    if (this.#dir === undefined) return undefined;
    const key = this.#key(bundleHash);
    const miss = (reason: string): undefined => {
      this.#logger.debug({ event: "manifest_cache", bundle: bundleHash, key, reason }, "cached manifests not used; describing again");
      return undefined;
    };
    let text: string;
    try {
      text = readFileSync(join(this.#dir, `${key}.json`), "utf8");
    } catch (error) {
      // No file is the ordinary miss; anything else is worth a line.
      return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : miss(`unreadable: ${String(error)}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return miss("not JSON");
    }
    const file = FileShape.safeParse(raw);
    if (!file.success) return miss("not a manifest file of this format");
    if (file.data.key !== key) return miss("written under another key");
    if (file.data.bundleHash !== bundleHash) return miss("written for another bundle");
    if (file.data.runtime !== this.#runtimeId) return miss("written by another guest runtime");
    const checked = checkManifestList(file.data.manifests);
    if (!checked.ok) return miss(`failed the host's check: ${checked.message}`);
    return checked.manifests;
  }

  #key(bundleHash: string): string {
    const { timeoutMs, memoryMb, maxOutputBytes, maxDepth } = this.#limits;
    return sha256(JSON.stringify([FORMAT_VERSION, bundleHash, this.#runtimeId ?? "", timeoutMs, memoryMb, maxOutputBytes, maxDepth]));
  }
}
