/**
 * @module src/cli/commands/list
 * `corral list [dir]`: the tools of [dir], else of the tools corral.json
 * lists, else of the bundled plugins, one line each. Sources that fail to load are named on stderr and make the
 * exit code 1, but do not hide the tools that did load.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { EXIT, UsageError, withCliHost, writeLines, type CliContext, type ExitCode } from "../context.js";
import { firstLine, loadFailureLines, table, toJson } from "../format.js";
import { loadTargets, toolTargets } from "../tool-targets.js";

export type ListOptions = { json: boolean };

/** Loads run one after another (loadDirectory is sequential), so one worker does. */
const LIST_WORKERS = 1;

export async function listCommand(dir: string | undefined, options: ListOptions, context: CliContext): Promise<ExitCode> {
  if (dir !== undefined && (!existsSync(resolve(dir)) || !statSync(resolve(dir)).isDirectory())) throw new UsageError(`${dir} is not a folder`);
  const targets = dir === undefined ? toolTargets([], context) : { paths: [resolve(dir)], from: "arguments" };
  if (targets.from === "bundled" && !existsSync(targets.paths[0] ?? "")) throw new UsageError(`the bundled plugins folder ${targets.paths[0]} is missing`);
  const shown = dir ?? (targets.from === "config" ? `the tools of ${context.config?.file}` : targets.paths[0]);
  return withCliHost(context, LIST_WORKERS, async (host) => {
    // A folder given is a folder of plugins, as before; the config's tools may be files and plugins too.
    if (dir !== undefined) context.progress(`loading the plugins in ${dir}`);
    const results = dir === undefined ? await loadTargets(host, targets.paths, context) : await host.loadDirectory(targets.paths[0] ?? "");
    // The loads' own tools, not host.tools(): the catalog also holds the host's built-ins.
    const tools = results.flatMap((result) => (result.ok ? result.tools : []));
    const failures = results.flatMap((result) => (result.ok ? [] : [result]));
    if (options.json) {
      context.io.stdout.write(toJson({ tools, failures }));
    } else if (tools.length === 0) {
      context.io.stdout.write(`no tools in ${shown}\n`);
    } else {
      const rows = tools.map((tool) => [tool.name, tool.source, tool.exposure, firstLine(tool.description)]);
      writeLines(context.io.stdout, table([["NAME", "SOURCE", "EXPOSURE", "DESCRIPTION"], ...rows]));
    }
    if (!options.json) writeLines(context.io.stderr, failures.flatMap(loadFailureLines));
    return failures.length === 0 ? EXIT.ok : EXIT.failed;
  });
}
