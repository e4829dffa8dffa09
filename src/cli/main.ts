/**
 * @module src/cli/main
 * The `corral` command line: commander wiring, global options, and the one
 * place that turns what happened into an exit code.
 *
 * main() returns the code and never exits the process: tests call it in
 * place, and bin/corral.js sets process.exitCode. So commander runs with
 * exitOverride (it throws instead of exiting) and prints through `io`.
 *
 *   0  the tool (or every load) succeeded; --help, --version
 *   1  a tool call or a load failed (its outcome is printed); no ledger
 *      file, or a source it never saw (a CliFailure)
 *   2  misuse: unknown command or flag, bad JSON, no such tool, a malformed
 *      source id, bad CORRAL_LOG, or a CorralError thrown by the host
 */
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { CorralError } from "../index.js";
import { LEDGER_DEFAULTS } from "../ledger/index.js";
import {
  auditCommand,
  dashboardCommand,
  checkCommand,
  demoCommand,
  listCommand,
  MCP_TOKEN_ENV,
  parseUntil,
  quarantineCommand,
  releaseCommand,
  runCommand,
  type RunOptions,
} from "./commands/index.js";
import { CliFailure, EXIT, PROCESS_IO, UsageError, type CliContext, type CliIo, type ExitCode } from "./context.js";
import { createCliLogger } from "./logger.js";
import { packageVersion } from "./plugins-dir.js";

/** The host's own default, relative to the working directory. */
const DEFAULT_CACHE_DIR = ".corral/cache";
/** The host's own default, relative to the working directory. */
const DEFAULT_LEDGER_FILE = ".corral/ledger.db";

type GlobalOptions = { verbose?: boolean; cacheDir: string; ledger: string };

export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  let exitCode: ExitCode = EXIT.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    return exitCodeOf(error, io);
  }
}

function exitCodeOf(error: unknown, io: CliIo): ExitCode {
  // commander has already printed its own message (through io.stderr).
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof CliFailure) {
    io.stderr.write(`corral: ${error.message}\n`);
    return EXIT.failed;
  }
  if (error instanceof UsageError || error instanceof CorralError) {
    io.stderr.write(`corral: ${error.message}\n`);
    return EXIT.usage;
  }
  io.stderr.write(`corral: unexpected failure (a bug in corral): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT.failed;
}

function buildProgram(io: CliIo, setExitCode: (code: ExitCode) => void): Command {
  const program = new Command("corral");
  // Set before any .command(): subcommands copy these settings when created.
  program
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
    })
    .showHelpAfterError("(add --help for usage)")
    // A command's --help then lists --ledger and --cache-dir too: they change what it does.
    .configureHelp({ showGlobalOptions: true })
    .description("Compile untrusted tool modules with esbuild and run them in isolated sandboxes.")
    .version(packageVersion(), "-V, --version", "print corral's version")
    .helpOption("-h, --help", "show help")
    .option("--verbose", "log what the host does (pino) to stderr")
    .option("--cache-dir <dir>", "where compiled bundles and their checked manifests are cached", DEFAULT_CACHE_DIR)
    .option("--ledger <file|url>", "the ledger hosts record calls in, and audit, quarantine and release read: a SQLite file, or a postgres:// URL several hosts share", parseNonEmpty("a file path or a postgres:// URL"), DEFAULT_LEDGER_FILE)
    .addHelpText(
      "after",
      `
Exit codes: 0 ok, 1 a tool or a load failed (or no ledger, an unknown source), 2 usage error.
Logs: --verbose, or CORRAL_LOG=<level> (fatal, error, warn, info, debug, trace).

Examples:
  corral run ./my-tool.ts --input '{"text":"hello"}'
  corral run text_stats --input '{"text":"hello"}' --json
  corral check ./plugins
  corral list
  corral demo
  corral audit
  corral quarantine agent:helper --until 2h --reason "loops on empty input"`,
    );

  // The command object is commander's last argument to every action; the
  // context is built from it so that global options given after the command count.
  const perform: Perform = async (command, fn) => {
    setExitCode(await fn(contextFor(command, io)));
  };

  program
    .command("run")
    .description("load a tool module (a file, a folder, or a bundled tool by name) and call one tool")
    .argument("<file|name>", "a tool file or plugin folder, or the name of a bundled tool")
    .addOption(new Option("--input <json>", "the tool's input, as JSON").argParser(parseJsonInput).default({}, "{}"))
    .option("--tool <name>", "which tool to call when the module has several")
    .option("--json", "print the whole result as JSON on stdout")
    .option("--timeout <ms>", "this call's time limit (capped by the host's maximum)", parsePositive("milliseconds"))
    .option("--memory <mb>", "this call's memory limit (capped by the host's maximum)", parsePositive("megabytes"))
    .addHelpText(
      "after",
      `
Prints the tool's output on stdout, or "error <kind>: <message>" on stderr.
With --json, prints the ToolResult (or the failed LoadResult) on stdout.`,
    )
    .action(async (target: string, options: RunCliOptions, command: Command) =>
      perform(command, (context) => runCommand(target, toRunOptions(options), context)),
    );

  program
    .command("check")
    .description("compile and load tools without calling them; print their manifests or diagnostics")
    .argument("<file|dir>", "a tool file, a plugin folder, or a folder of plugins")
    .option("--json", "print the LoadResult (an array of them for a folder of plugins) as JSON")
    .action(async (target: string, options: { json?: boolean }, command: Command) =>
      perform(command, (context) => checkCommand(target, { json: options.json === true }, context)),
    );

  program
    .command("list")
    .description("list the tools of the bundled plugins, or of a folder of plugins")
    .argument("[dir]", "a folder of plugins (default: the bundled plugins)")
    .option("--json", "print { tools, failures } as JSON")
    .action(async (dir: string | undefined, options: { json?: boolean }, command: Command) =>
      perform(command, (context) => listCommand(dir, { json: options.json === true }, context)),
    );

  program
    .command("demo")
    .description("run the bundled plugins and two runaway agent-written tools through one host (npm start)")
    .action(async (_options: unknown, command: Command) => perform(command, (context) => demoCommand(context)));

  program
    .command("mcp")
    .description("serve tools to MCP clients (desktop and IDE agents) over stdio, or Streamable HTTP with --http")
    .argument("[paths...]", "tool files, plugin folders or folders of plugins (default: the bundled plugins)")
    .option("--http", "serve Streamable HTTP at /mcp instead of stdio")
    .option("--port <n>", "the HTTP port (default: any free one, printed)", parseCount)
    .option("--host <address>", "the HTTP address to bind (default 127.0.0.1; anything else exposes the tools to the network)", parseNonEmpty("an address"))
    .option("--token <token>", `the bearer token HTTP clients must send (default: $${MCP_TOKEN_ENV}, else a random one, printed)`, parseNonEmpty("a token"))
    .option("--allowed-host <name>", "a name clients reach the server by (its DNS name, a proxy's), as name or name:port; repeat for more", (name: string, previous: string[] = []) => [...previous, name])
    .option("--workers <n>", "sandbox worker processes (default 2)", parsePositive("workers"))
    .addHelpText(
      "after",
      `
Over stdio, stdout carries only MCP messages; logs and progress go to stderr.
Over HTTP, requests need "Authorization: Bearer <token>" and a Host (and Origin, if any)
naming this server: the address the client connected to, localhost from this machine, or
a name given with --allowed-host (DNS rebinding protection).`,
    )
    .action(async (paths: string[], options: { http?: boolean; port?: number; host?: string; token?: string; allowedHost?: string[]; workers?: number }, command: Command) =>
      perform(command, async (context) => {
        const token = options.token ?? (process.env[MCP_TOKEN_ENV] || undefined);
        // Loaded here: the MCP SDK would slow every other command's start.
        const { mcpCommand } = await import("./commands/mcp.js");
        return mcpCommand(paths, {
          http: options.http === true,
          workers: Math.floor(options.workers ?? 2),
          ...(options.port !== undefined ? { port: options.port } : {}),
          ...(options.host !== undefined ? { host: options.host } : {}),
          ...(options.allowedHost !== undefined ? { allowedHosts: options.allowedHost } : {}),
          ...(token !== undefined ? { token } : {}),
        }, context);
      }),
    );

  addLedgerCommands(program, perform);

  return program;
}

type Perform = (command: Command, fn: (context: CliContext) => Promise<ExitCode>) => Promise<void>;

/** The operator's commands: they open the ledger file alone, never a host, so they start no workers. */
function addLedgerCommands(program: Command, perform: Perform): void {
  program
    .command("audit")
    .description("show the ledger: each source's calls, strikes and state, most trouble first; or one source in detail")
    .argument("[source]", "one source (plugin:<path>, agent:<id>, host:<name> or code:<caller id>) to report in detail")
    .option("--json", "print the summary (or the source's report) as JSON")
    .option("--events <n>", `how many recent changes of state one source's report lists (default ${LEDGER_DEFAULTS.recentEvents})`, parseCount)
    .option("--strikes <n>", `how many recent strikes one source's report lists (default and at most ${LEDGER_DEFAULTS.recentStrikes}, as many as the ledger keeps)`, parseCount)
    .addHelpText(
      "after",
      `
Reads the ledger file directly (--ledger, default ${DEFAULT_LEDGER_FILE}), the one a running
host writes; exits 1 if it does not exist, or if the source has no record in it.
Counts per source and tool: CALLS = OK + TOOL ERR + INVALID + TIMEOUT + MEMORY + CRASH + OTHER.
Timeouts, memory and crashes are strikes; enough of them quarantine the source.
One source's report also shows Code Mode's part: for code:<caller id>, the tools its
scripts called (tool, its source, calls, strikes, outcomes); for any other source, the
script sources that called its tools.`,
    )
    .action(async (source: string | undefined, options: { json?: boolean; events?: number; strikes?: number }, command: Command) =>
      perform(command, (context) => auditCommand(source, { ...options, json: options.json === true }, context)),
    );

  program
    .command("quarantine")
    .description("quarantine a source: hosts on the same ledger refuse its tools from their next call")
    .argument("<source>", "plugin:<path>, agent:<id>, host:<name> or code:<caller id>")
    .option("--reason <text>", "why, recorded in the ledger (default: \"quarantined by an operator\")", parseNonEmpty("a reason"))
    .option("--until <time>", "when it ends: a duration (30m, 2h, 1d) or an ISO time (default: until released)", (text: string) => parseUntil(text))
    .option("--actor <name>", "who, recorded in the ledger (default: cli:<your user name>)", parseNonEmpty("a name"))
    .option("--json", "print the resulting state and events as JSON")
    .action(async (source: string, options: { reason?: string; until?: number; actor?: string; json?: boolean }, command: Command) =>
      perform(command, (context) =>
        quarantineCommand(source, { reason: options.reason, untilMs: options.until ?? null, actor: options.actor, json: options.json === true }, context),
      ),
    );

  program
    .command("dashboard")
    .description("serve a web page of the ledger on 127.0.0.1: sources by trouble, strike timelines, quarantine and release")
    .option("--port <n>", "the port (default: any free one, printed)", parsePort)
    .option("--token <token>", "the token the page and API require (default: $CORRAL_DASHBOARD_TOKEN, else a random one, printed)")
    .addHelpText(
      "after",
      `
Reads and writes the ledger (--ledger: the SQLite file, default ${DEFAULT_LEDGER_FILE}, or the
postgres:// URL hosts record in); exits 1 if it does not exist or is not a ledger. Quarantines made
on the page are recorded under dashboard:<your user name>, and hosts sharing the ledger obey them
from their next call.`,
    )
    .action(async (options: { port?: number; token?: string }, command: Command) => perform(command, (context) => dashboardCommand(options, context)));

  program
    .command("release")
    .description("release a quarantined source; its strikes so far are forgiven")
    .argument("<source>", "plugin:<path>, agent:<id>, host:<name> or code:<caller id>")
    .option("--reason <text>", "why, recorded in the ledger (default: \"released by <actor>\")", parseNonEmpty("a reason"))
    .option("--actor <name>", "who, recorded in the ledger (default: cli:<your user name>)", parseNonEmpty("a name"))
    .option("--json", "print the resulting state and events as JSON")
    .action(async (source: string, options: { reason?: string; actor?: string; json?: boolean }, command: Command) =>
      perform(command, (context) => releaseCommand(source, { reason: options.reason, actor: options.actor, json: options.json === true }, context)),
    );
}

type RunCliOptions = { input: unknown; tool?: string; json?: boolean; timeout?: number; memory?: number };

function toRunOptions(options: RunCliOptions): RunOptions {
  const run: RunOptions = { input: options.input, json: options.json === true };
  if (options.tool !== undefined) run.tool = options.tool;
  if (options.timeout !== undefined) run.timeoutMs = options.timeout;
  if (options.memory !== undefined) run.memoryMb = options.memory;
  return run;
}

function contextFor(command: Command, io: CliIo): CliContext {
  const globals = command.optsWithGlobals<GlobalOptions>();
  return {
    io,
    logger: createCliLogger({ verbose: globals.verbose === true, envLevel: process.env.CORRAL_LOG }),
    cacheDir: globals.cacheDir,
    ledgerFile: globals.ledger,
    progress: (step) => void io.stderr.write(`corral: ${step} …\n`),
  };
}

function parseJsonInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(`it is not valid JSON (${(error as Error).message}).`);
  }
}

function parsePort(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value > 65_535) throw new InvalidArgumentError("expected a port, 0 to 65535.");
  return value;
}

function parseCount(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) throw new InvalidArgumentError("expected a whole number, 0 or more.");
  return value;
}

function parseNonEmpty(what: string): (text: string) => string {
  return (text) => {
    if (text.trim() === "") throw new InvalidArgumentError(`expected ${what}, not an empty string.`);
    return text;
  };
}

function parsePositive(unit: string): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value) || value <= 0) {
      throw new InvalidArgumentError(`expected a positive number of ${unit}.`);
    }
    return value;
  };
}
