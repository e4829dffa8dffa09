/**
 * @module src/registry/source
 * Source ids (`plugin:<path>`, `agent:<id>`, `host:<name>`, and `code:<caller
 * id>` for Code Mode scripts: who is blamed for a tool or a script) and how a
 * plugin path becomes an entry file and a root folder.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { CorralError } from "../errors.js";

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

/** `plugin:` plus the path relative to the working directory, with / separators. */
export function pluginSourceId(path: string): string {
  const absolute = resolve(path);
  const rel = relative(process.cwd(), absolute);
  const shown = rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? absolute : rel;
  return `plugin:${shown.split(sep).join("/")}`;
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
