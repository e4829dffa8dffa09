/**
 * @module src/compile/cache
 * Compiled bundles by content, in memory and on disk, so loading the same
 * source twice compiles once, across restarts too. A text source is keyed by
 * its text; a file source by its entry path, and a hit is checked by
 * re-hashing every file the bundle was made from. The key includes esbuild's
 * version and corral's policy version, so an upgrade never reuses stale code.
 *
 * Disk layout under `dir`: bundles/<sha256>.js (what workers read, checked
 * against its hash there) and entries/<key>.json (inputs and their hashes).
 * manifests/ in the same folder belongs to registry/manifest-cache.ts.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import * as esbuild from "esbuild";
import { bundle, hashFile, sha256, type BundleInput, type BundleOutput } from "./bundle.js";
import { writeAtomically } from "./write-atomically.js";

/** Bump when the import policy or bundle format changes. */
const POLICY_VERSION = "2";

export type CompiledBundle = { code: string; hash: string; /** The bundle's file in the disk cache. */ path?: string };
export type CompileResult = ({ ok: true; cached: boolean } & CompiledBundle) | Extract<BundleOutput, { ok: false }>;

const Entry = z.strictObject({
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  inputs: z.array(z.strictObject({ path: z.string(), sha256: z.string() })),
});
type Entry = z.infer<typeof Entry>;

export class BundleCache {
  readonly #dir: string | undefined;
  readonly #entries = new Map<string, Entry>();
  readonly #bundles = new Map<string, CompiledBundle>();
  hits = 0;
  misses = 0;

  constructor(dir: string | false) {
    this.#dir = dir === false ? undefined : dir;
    if (this.#dir !== undefined) {
      mkdirSync(join(this.#dir, "bundles"), { recursive: true });
      mkdirSync(join(this.#dir, "entries"), { recursive: true });
    }
  }

  async compile(input: BundleInput): Promise<CompileResult> {
    const key = sha256(
      [POLICY_VERSION, esbuild.version, input.kind, input.kind === "text" ? `${input.sourceName}\0${input.code}` : `${input.root}\0${input.entry}`].join("\0"),
    );
    const hit = this.#lookup(key);
    if (hit !== undefined) {
      this.hits++;
      return { ok: true, cached: true, ...hit };
    }
    this.misses++;
    const output = await bundle(input);
    if (!output.ok) return output;
    const inputs = output.inputs.flatMap((path) => {
      const digest = hashFile(path);
      return digest === undefined ? [] : [{ path, sha256: digest }];
    });
    const compiled = this.#store(key, { hash: output.hash, inputs }, output.code);
    return { ok: true, cached: false, ...compiled };
  }

  #lookup(key: string): CompiledBundle | undefined {
    const entry = this.#entries.get(key) ?? this.#readEntry(key);
    if (entry === undefined) return undefined;
    if (entry.inputs.some((input) => hashFile(input.path) !== input.sha256)) return undefined;
    const known = this.#bundles.get(entry.hash) ?? this.#readBundle(entry.hash);
    if (known === undefined) return undefined;
    this.#entries.set(key, entry);
    this.#bundles.set(entry.hash, known);
    return known;
  }

  #readEntry(key: string): Entry | undefined {
    if (this.#dir === undefined) return undefined;
    try {
      const parsed = Entry.safeParse(JSON.parse(readFileSync(join(this.#dir, "entries", `${key}.json`), "utf8")));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  #readBundle(hash: string): CompiledBundle | undefined {
    if (this.#dir === undefined) return undefined;
    const path = join(this.#dir, "bundles", `${hash}.js`);
    try {
      const code = readFileSync(path, "utf8");
      return sha256(code) === hash ? { code, hash, path } : undefined;
    } catch {
      return undefined;
    }
  }

  #store(key: string, entry: Entry, code: string): CompiledBundle {
    const compiled: CompiledBundle = { code, hash: entry.hash };
    if (this.#dir !== undefined) {
      try {
        compiled.path = join(this.#dir, "bundles", `${entry.hash}.js`);
        writeAtomically(compiled.path, code);
        writeAtomically(join(this.#dir, "entries", `${key}.json`), JSON.stringify(entry));
      } catch {
        // A read-only or full disk costs the disk cache, not the load.
        delete compiled.path;
      }
    }
    this.#entries.set(key, entry);
    this.#bundles.set(entry.hash, compiled);
    return compiled;
  }
}
