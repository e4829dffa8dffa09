/**
 * @module src/registry/bundled-plugins
 * Where the plugins that ship with corral are, and the source-id prefix
 * they are known by wherever the package is installed.
 *
 * The folder is taken from this module's compiled location,
 * dist/src/registry/, so it holds whatever the working directory and
 * wherever npm put the package. Its real path is kept too, so a package
 * reached through a symlink (npm link, pnpm) still maps to the same ids.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const BUNDLED_PLUGINS_DIR = fileURLToPath(new URL("../../../plugins", import.meta.url));

/**
 * `plugin:corral/<folder>`: a bundled plugin's id names the package, not a
 * path, so its strike history is one whatever folder it was run from.
 */
export const BUNDLED_SOURCE_PREFIX = "corral";

/** The folder's real path, or the folder itself when it is missing (a build without plugins). */
export const BUNDLED_PLUGINS_REAL_DIR = realOrSame(BUNDLED_PLUGINS_DIR);

export function realOrSame(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
