/**
 * @module src/cli/commands/run
 * `corral run <file|name>`: load one module (a path, or a bundled plugin by
 * tool name), call one of its tools once, print the answer.
 *
 * ```
 * <target> exists as a path ──────────────▶ host.load({ path })
 * else corral.json lists tools ───────────▶ load them all, find the tool
 * else a bundled plugin folder matches ───▶ host.load({ path: plugins/<folder> })
 * else ───────────────────────────────────▶ host.loadDirectory(plugins/), find the tool
 *                     load failed ─▶ print diagnostics, exit 1
 *                     pick the tool (--tool) ─▶ host.call ─▶ exit 0 | 1
 * ```
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { CallOptions, Host, LoadResult } from "../../index.js";
import { EXIT, UsageError, withCliHost, writeLines, type CliContext, type ExitCode } from "../context.js";
import { failureLines, toJson } from "../format.js";
import { BUNDLED_PLUGINS_DIR, findBundledPlugin, isToolName } from "../plugins-dir.js";
import { loadTargets } from "../tool-targets.js";

export type RunOptions = {
  /** Already parsed from `--input`; `{}` when not given. */
  input: unknown;
  tool?: string;
  json: boolean;
  timeoutMs?: number;
  memoryMb?: number;
};

/** One call needs one worker; starting more would only slow the CLI down. */
const RUN_WORKERS = 1;

export async function runCommand(target: string, options: RunOptions, context: CliContext): Promise<ExitCode> {
  return withCliHost(context, RUN_WORKERS, async (host) => {
    const found = await loadTarget(host, target, options, context);
    if (!found.ok) return reportLoadFailure(found.failure, options, context);
    const callOptions: CallOptions = {};
    if (options.timeoutMs !== undefined) callOptions.timeoutMs = options.timeoutMs;
    if (options.memoryMb !== undefined) callOptions.memoryMb = options.memoryMb;
    const result = await host.call(found.tool, options.input, callOptions);

    const { stdout, stderr } = context.io;
    if (options.json) stdout.write(toJson(result));
    else if (result.ok) stdout.write(result.output.endsWith("\n") || result.output === "" ? result.output : `${result.output}\n`);
    else writeLines(stderr, failureLines(result.error));
    // A tool's console lines are diagnostics, not its answer: they stay off stdout.
    if (!options.json) writeLines(stderr, result.logs ?? []);
    return result.ok ? EXIT.ok : EXIT.failed;
  });
}

type Found = { ok: true; tool: string } | { ok: false; failure: Extract<LoadResult, { ok: false }> };

async function loadTarget(host: Host, target: string, options: RunOptions, context: CliContext): Promise<Found> {
  if (existsSync(resolve(target))) return loadModule(host, resolve(target), (names) => pickTool(names, options.tool, target));
  if (!isToolName(target)) throw new UsageError(`"${target}" is neither an existing file or folder nor a tool name`);
  const configured = context.config?.config.tools;
  if (configured !== undefined) return findAmong(host, configured, target, options, { among: `the tools of ${context.config?.file}`, what: "a tool of the config" }, context);

  const plugin = findBundledPlugin(target);
  if (plugin !== undefined) {
    // The target named the plugin's folder, or (more often) its tool.
    return loadModule(host, plugin, (names) => pickTool(names, options.tool ?? (names.includes(target) ? target : undefined), target));
  }

  const among = { among: `the bundled plugins in ${BUNDLED_PLUGINS_DIR}`, what: "a bundled tool" };
  return findAmong(host, existsSync(BUNDLED_PLUGINS_DIR) ? [BUNDLED_PLUGINS_DIR] : [], target, options, among, context);
}

/** Loads every one of `paths` and answers tool `target` if one of them has it. */
async function findAmong(host: Host, paths: readonly string[], target: string, options: RunOptions, { among, what }: { among: string; what: string }, context: CliContext): Promise<Found> {
  if (options.tool !== undefined && options.tool !== target) {
    throw new UsageError(`--tool applies to a file, a folder or a bundled plugin; "${target}" is none of them`);
  }
  context.progress(`looking for tool "${target}" among ${among}`);
  const results = await loadTargets(host, paths, context);
  const loaded = results.flatMap((result) => (result.ok ? result.tools : []));
  if (loaded.some((tool) => tool.name === target)) return { ok: true, tool: target };
  const failed = results.filter((r) => !r.ok).map((r) => r.source);
  const hint = failed.length > 0 ? `; these plugins failed to load: ${failed.join(", ")}` : "";
  throw new UsageError(`"${target}" is neither an existing file or folder nor ${what} (see \`corral list\`)${hint}`);
}

async function loadModule(host: Host, path: string, choose: (names: string[]) => string): Promise<Found> {
  const loaded = await host.load({ path });
  if (!loaded.ok) return { ok: false, failure: loaded };
  return { ok: true, tool: choose(loaded.tools.map((tool) => tool.name)) };
}

/** `wanted` when given (it must be one of the module's tools), else the module's only tool. */
function pickTool(names: string[], wanted: string | undefined, shown: string): string {
  if (wanted !== undefined) {
    if (names.includes(wanted)) return wanted;
    throw new UsageError(`${shown} has no tool named "${wanted}"; its tools: ${names.join(", ")}`);
  }
  if (names.length === 1) return names[0] as string;
  // The host refuses a module without tools at load; reaching this is a host bug.
  if (names.length === 0) throw new Error(`unreachable: ${shown} loaded with no tools`);
  throw new UsageError(`${shown} has ${names.length} tools; pick one with --tool <name>: ${names.join(", ")}`);
}

function reportLoadFailure(failure: Extract<LoadResult, { ok: false }>, options: RunOptions, context: CliContext): ExitCode {
  if (options.json) context.io.stdout.write(toJson(failure));
  else writeLines(context.io.stderr, failureLines(failure.error));
  return EXIT.failed;
}
