/**
 * @module src/cli/commands/init
 * `corral init [dir]`: starts a project. Writes a commented corral.json and
 * a sample tool (tools/hello.ts), then prints how a desktop MCP client
 * starts corral over stdio (absolute paths to node, to this package's bin
 * and to the config) and how an HTTP client reaches `corral mcp --http`.
 *
 * It never overwrites: if either file exists, nothing is written and the
 * command fails (exit 1) naming it. It reads no config: the one it writes
 * is checked with the same schema as every other, before it is written.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { checkConfigText, CONFIG_FILE_NAME } from "../../config/index.js";
import { CliFailure, EXIT, writeLines, type CliContext, type ExitCode } from "../context.js";
import { configText, httpSnippet, SAMPLE_TOOL, SAMPLE_TOOL_PATH, stdioSnippet } from "../init-files.js";
import { PACKAGE_ROOT } from "../plugins-dir.js";

export const SCHEMA_FILE_NAME = "corral.schema.json";
/** The port the printed HTTP snippet names; any free one works. */
const HTTP_SNIPPET_PORT = 8765;

export async function initCommand(dir: string | undefined, context: CliContext): Promise<ExitCode> {
  const root = resolve(dir ?? ".");
  const configFile = join(root, CONFIG_FILE_NAME);
  const toolFile = join(root, SAMPLE_TOOL_PATH);
  const existing = [configFile, toolFile].filter((file) => existsSync(file));
  if (existing.length > 0) {
    throw new CliFailure(`${existing.join(" and ")} already exist${existing.length === 1 ? "s" : ""}; corral init never overwrites a file: move it away, or run corral init in another folder`);
  }
  const text = configText(schemaRef(root));
  mkdirSync(dirname(toolFile), { recursive: true });
  // "wx": a file that appeared since the check is still not overwritten.
  writeFileSync(toolFile, SAMPLE_TOOL, { flag: "wx" });
  // What init writes must pass the check every command makes of it (its tools folder exists now).
  checkConfigText(text, configFile);
  writeFileSync(configFile, text, { flag: "wx" });

  const bin = join(PACKAGE_ROOT, "bin", "corral.js");
  writeLines(context.io.stdout, [
    `wrote ${configFile}`,
    `wrote ${toolFile}`,
    "",
    "Try it:",
    "  corral list",
    `  corral run hello --input '{"name":"world"}'`,
    "",
    "A desktop MCP client (Claude Desktop's claude_desktop_config.json, Cursor's mcp.json) starts corral over stdio:",
    stdioSnippet(process.execPath, bin, configFile),
    "",
    `Over HTTP: set CORRAL_MCP_TOKEN, run \`corral mcp --http --port ${HTTP_SNIPPET_PORT}\` here, and point the client at it:`,
    httpSnippet(HTTP_SNIPPET_PORT),
  ]);
  return EXIT.ok;
}

/** The schema as the project's editor finds it: through its own node_modules when corral is installed there, else this package's file. */
function schemaRef(root: string): string {
  const local = join(root, "node_modules", "corral", SCHEMA_FILE_NAME);
  if (existsSync(local)) return `./${relative(root, local).split("\\").join("/")}`;
  return pathToFileURL(join(PACKAGE_ROOT, SCHEMA_FILE_NAME)).href;
}
