/**
 * @module src/cli/plugins-dir
 * Where the package's own files are: the bundled plugins/ folder (what
 * `corral run <name>` and `corral list` use) and package.json.
 *
 * Paths are taken from this module's compiled location, dist/src/cli/, so
 * they hold wherever the package is installed and whatever the working
 * directory. Running this file from src/ directly would miss by one level.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TOOL_NAME_PATTERN } from "../registry/index.js";
import { BUNDLED_PLUGINS_DIR } from "../registry/bundled-plugins.js";

export { BUNDLED_PLUGINS_DIR };
export const PACKAGE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const PLUGIN_FILE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

/** Anything else cannot name a bundled tool, so it is not looked for. */
export function isToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

/**
 * The bundled plugin that is most likely to hold tool `name`: plugin folders
 * are kebab-case while tool names are often snake_case, so `text_stats`
 * finds `plugins/text-stats/`. Undefined when no folder or file matches; the
 * caller then has to load them all to find the tool.
 */
export function findBundledPlugin(name: string, pluginsDir: string = BUNDLED_PLUGINS_DIR): string | undefined {
  if (!isToolName(name)) return undefined;
  const stems = [...new Set([name, name.replaceAll("_", "-"), name.replaceAll("-", "_")])];
  for (const stem of stems) {
    const folder = join(pluginsDir, stem);
    if (existsSync(folder) && statSync(folder).isDirectory()) return folder;
    for (const extension of PLUGIN_FILE_EXTENSIONS) {
      const file = folder + extension;
      if (existsSync(file)) return file;
    }
  }
  return undefined;
}

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}
