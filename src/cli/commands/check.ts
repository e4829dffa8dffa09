/**
 * @module src/cli/commands/check
 * `corral check [file|dir]`: compile and load without calling anything, and
 * show what a reviewer must see before trusting a tool: its manifest, or why
 * it did not load. A folder without an entry of its own is a folder of
 * plugins, and each plugin in it is checked. Without a target, the tools
 * corral.json lists are checked.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { LoadResult } from "../../index.js";
import { EXIT, UsageError, withCliHost, writeLines, type CliContext, type ExitCode } from "../context.js";
import { loadFailureLines, manifestLines, toJson } from "../format.js";
import { isFolderOfPlugins, loadTargets } from "../tool-targets.js";

export { isFolderOfPlugins };

export type CheckOptions = { json: boolean };

/** Loads run one after another (loadDirectory is sequential), so one worker does. */
const CHECK_WORKERS = 1;

export async function checkCommand(target: string | undefined, options: CheckOptions, context: CliContext): Promise<ExitCode> {
  if (target === undefined) return checkConfigured(options, context);
  const path = resolve(target);
  if (!existsSync(path)) throw new UsageError(`${target} does not exist; give a tool file, a plugin folder or a folder of plugins`);
  const ofPlugins = isFolderOfPlugins(path);

  return withCliHost(context, CHECK_WORKERS, async (host) => {
    let results: LoadResult[];
    if (ofPlugins) {
      context.progress(`checking each plugin in ${target}`);
      results = await host.loadDirectory(path);
    } else {
      results = [await host.load({ path })];
    }
    if (options.json) context.io.stdout.write(toJson(ofPlugins ? results : results[0]));
    else writeLines(context.io.stdout, reportLines(results, target));
    return results.length > 0 && results.every((result) => result.ok) ? EXIT.ok : EXIT.failed;
  });
}

/** Every tool corral.json lists, as one report (JSON: an array of LoadResults). */
async function checkConfigured(options: CheckOptions, context: CliContext): Promise<ExitCode> {
  const config = context.config;
  if (config?.config.tools === undefined) {
    throw new UsageError(`give a tool file, a plugin folder or a folder of plugins to check${config === undefined ? "" : `, or list them in ${config.file} ("tools")`}`);
  }
  const paths = config.config.tools;
  return withCliHost(context, CHECK_WORKERS, async (host) => {
    const results = await loadTargets(host, paths, context);
    if (options.json) context.io.stdout.write(toJson(results));
    else writeLines(context.io.stdout, reportLines(results, `the tools of ${config.file}`));
    return results.length > 0 && results.every((result) => result.ok) ? EXIT.ok : EXIT.failed;
  });
}

function reportLines(results: LoadResult[], target: string): string[] {
  if (results.length === 0) return [`${target} holds no tool files or plugin folders`];
  const lines: string[] = [];
  for (const result of results) {
    if (lines.length > 0) lines.push("");
    if (!result.ok) {
      lines.push(...loadFailureLines(result));
      continue;
    }
    // Bundle from the compile cache; manifests described again, or checked from the cache folder.
    const cached = result.cached ? (result.manifestsFrom === "worker" ? ", bundle from cache" : ", bundle and manifests from cache") : "";
    lines.push(`ok   ${result.source} (${result.tools.length} tool${result.tools.length === 1 ? "" : "s"}${cached})`);
    for (const tool of result.tools) lines.push(...manifestLines(tool).map((line) => `  ${line}`));
  }
  const failed = results.filter((result) => !result.ok).length;
  lines.push("", failed === 0 ? `${results.length} checked, all loaded` : `${results.length} checked, ${failed} failed`);
  return lines;
}
