/**
 * @module src/cli/tool-targets
 * Which tools a command loads, and loading them: the paths given on the
 * command line (relative to the working folder), else the config's `tools`
 * (relative to the config's folder, resolved when it was read), else
 * corral's bundled plugins. Each target is a tool file, a plugin folder or a
 * folder of plugins.
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Host, LoadResult } from "../index.js";
import { resolvePluginPath } from "../registry/source.js";
import { UsageError, type CliContext } from "./context.js";
import { BUNDLED_PLUGINS_DIR } from "./plugins-dir.js";

export type ToolTargets = {
  /** Absolute paths, in the order given. */
  paths: string[];
  /** Where they came from, for messages. */
  from: "arguments" | "config" | "bundled";
};

/** The paths given, else the config's tools, else the bundled plugins; a given path must exist. */
export function toolTargets(given: readonly string[], context: CliContext): ToolTargets {
  if (given.length > 0) {
    const paths = given.map((path) => resolve(path));
    paths.forEach((path, index) => {
      if (!existsSync(path)) throw new UsageError(`${given[index] ?? path} does not exist; give tool files, plugin folders or folders of plugins`);
    });
    return { paths, from: "arguments" };
  }
  const configured = context.config?.config.tools;
  if (configured !== undefined) return { paths: configured, from: "config" };
  return { paths: [BUNDLED_PLUGINS_DIR], from: "bundled" };
}

/** Loads each target (a folder of plugins plugin by plugin), in order; failures are results, not throws. */
export async function loadTargets(host: Host, paths: readonly string[], context: CliContext): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  for (const path of paths) {
    context.progress(`loading ${path}`);
    if (isFolderOfPlugins(path)) results.push(...(await host.loadDirectory(path)));
    else results.push(await host.load({ path }));
  }
  return results;
}

/**
 * A folder that names no entry (no package.json, no index.*) cannot be a
 * plugin itself, so it is taken as a folder of plugins. One with a broken
 * package.json is still checked as a plugin, so that its error is shown.
 */
export function isFolderOfPlugins(path: string): boolean {
  if (!statSync(path).isDirectory() || existsSync(join(path, "package.json"))) return false;
  return "error" in resolvePluginPath(path);
}
