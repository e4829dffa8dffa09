/**
 * @module src/cli/commands/list
 * `corral list [dir]`: the tools of the bundled plugins, or of [dir], one
 * line each. Sources that fail to load are named on stderr and make the
 * exit code 1, but do not hide the tools that did load.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { EXIT, UsageError, withCliHost, writeLines, type CliContext, type ExitCode } from "../context.js";
import { firstLine, loadFailureLines, table, toJson } from "../format.js";
import { BUNDLED_PLUGINS_DIR } from "../plugins-dir.js";

export type ListOptions = { json: boolean };

/** Loads run one after another (loadDirectory is sequential), so one worker does. */
const LIST_WORKERS = 1;

export async function listCommand(dir: string | undefined, options: ListOptions, context: CliContext): Promise<ExitCode> {
  const path = dir === undefined ? BUNDLED_PLUGINS_DIR : resolve(dir);
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new UsageError(dir === undefined ? `the bundled plugins folder ${path} is missing` : `${dir} is not a folder`);
  }
  return withCliHost(context, LIST_WORKERS, async (host) => {
    context.progress(`loading the plugins in ${dir ?? path}`);
    const results = await host.loadDirectory(path);
    // The loads' own tools, not host.tools(): the catalog also holds the host's built-ins.
    const tools = results.flatMap((result) => (result.ok ? result.tools : []));
    const failures = results.flatMap((result) => (result.ok ? [] : [result]));
    if (options.json) {
      context.io.stdout.write(toJson({ tools, failures }));
    } else if (tools.length === 0) {
      context.io.stdout.write(`no tools in ${dir ?? path}\n`);
    } else {
      const rows = tools.map((tool) => [tool.name, tool.source, tool.exposure, firstLine(tool.description)]);
      writeLines(context.io.stdout, table([["NAME", "SOURCE", "EXPOSURE", "DESCRIPTION"], ...rows]));
    }
    if (!options.json) writeLines(context.io.stderr, failures.flatMap(loadFailureLines));
    return failures.length === 0 ? EXIT.ok : EXIT.failed;
  });
}
