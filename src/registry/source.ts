/**
 * @module src/registry/source
 * Source ids (`plugin:<path>`, `agent:<id>`, `host:<name>`, and `code:<caller
 * id>` for Code Mode scripts: who is blamed for a tool or a script) and how a
 * plugin path becomes an entry file and a root folder.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { CorralError } from "../errors.js";
import { BUNDLED_PLUGINS_REAL_DIR, BUNDLED_SOURCE_PREFIX, realOrSame } from "./bundled-plugins.js";

/** A kind, a colon, then 1-1024 characters with no control characters (a plugin path may hold spaces). */
export const SOURCE_PATTERN = /^(plugin|agent|host|code):[^\u0000-\u001f\u007f]{1,1024}$/;
export type SourceKind = "plugin" | "agent" | "host" | "code";

export function checkSourceId(source: unknown): SourceKind {
  if (typeof source !== "string" || !SOURCE_PATTERN.test(source)) {
    const shown = typeof source === "string" ? `"${source.slice(0, 80)}"` : `a ${source === null ? "null" : typeof source}`;
    throw new CorralError(
      "invalid_source",
      `${shown} is not a source id: use plugin:<path>, agent:<id>, host:<name> or code:<caller id> (at most 1024 characters, no control characters)`,
      { source },
    );
  }
  return source.slice(0, source.indexOf(":")) as SourceKind;
}

/**
 * The id a plugin path loads under, with / separators:
 *
 * ```
 * inside corral's own plugins/ folder ─▶ plugin:corral/<path inside it>
 * inside `root` ──────────────────────▶ plugin:<path relative to root>
 *   (one whose first folder is `corral` ▶ plugin:./corral/<…>)
 * elsewhere ──────────────────────────▶ plugin:<absolute path>
 * ```
 *
 * `root` is the host's `sourceRoot` (the config's folder for the CLI), else
 * the working directory at the load. Both sides are compared by real path,
 * so a symlinked checkout or package gives the same ids. A project's own
 * `corral/` folder is shown with a leading `./`: without it, its plugins
 * would share ids, and so strikes and quarantine, with the bundled ones.
 */
export function pluginSourceId(path: string, root: string = process.cwd()): string {
  const absolute = realOrSame(resolve(path));
  const bundled = inside(BUNDLED_PLUGINS_REAL_DIR, absolute);
  if (bundled !== undefined) return `plugin:${BUNDLED_SOURCE_PREFIX}${bundled === "" ? "" : `/${bundled.split(sep).join("/")}`}`;
  const rel = inside(realOrSame(resolve(root)), absolute);
  const shown = rel === undefined ? absolute : rel === "" ? "." : rel;
  const id = shown.split(sep).join("/");
  return `plugin:${isBundledLookalike(id) ? `./${id}` : id}`;
}

function isBundledLookalike(id: string): boolean {
  return id === BUNDLED_SOURCE_PREFIX || id.startsWith(`${BUNDLED_SOURCE_PREFIX}/`);
}

/** `path` relative to `dir` when it is inside it ("" for `dir` itself), else undefined. */
function inside(dir: string, path: string): string | undefined {
  const rel = relative(dir, path);
  return rel.startsWith("..") || isAbsolute(rel) ? undefined : rel;
}

const ENTRY_CANDIDATES = ["index.ts", "index.mts", "index.js", "index.mjs"];

/**
 * A plugin file is its own entry, with its folder as root. A plugin folder's
 * entry is package.json's `corral.entry` or `main`, else index.(ts|js).
 */
export function resolvePluginPath(path: string): { entry: string; root: string } | { error: string } {
  const absolute = resolve(path);
  let stats;
  try {
    stats = statSync(absolute);
  } catch {
    return { error: `${path} does not exist` };
  }
  if (stats.isFile()) return { entry: absolute, root: join(absolute, "..") };
  if (!stats.isDirectory()) return { error: `${path} is neither a file nor a folder` };
  const manifestPath = join(absolute, "package.json");
  if (existsSync(manifestPath)) {
    try {
      const pkg = JSON.parse(readFileSync(manifestPath, "utf8")) as { main?: unknown; corral?: { entry?: unknown } };
      const named = typeof pkg.corral?.entry === "string" ? pkg.corral.entry : typeof pkg.main === "string" ? pkg.main : undefined;
      if (named !== undefined) return { entry: resolve(absolute, named), root: absolute };
    } catch {
      return { error: `${manifestPath} is not valid JSON` };
    }
  }
  for (const candidate of ENTRY_CANDIDATES) {
    const entry = join(absolute, candidate);
    if (existsSync(entry)) return { entry, root: absolute };
  }
  return { error: `${path} has no entry: add index.ts, or name one in package.json ("main")` };
}

/** Whether a directory entry looks like a plugin: a folder, or a tool file that is not a test. */
export function isPluginCandidate(name: string, isDirectory: boolean): boolean {
  if (name.startsWith(".") || name === "node_modules") return false;
  if (isDirectory) return true;
  return /\.(ts|mts|js|mjs)$/.test(name) && !/\.(test|spec|d)\.[mc]?[tj]s$/.test(name);
}
