/**
 * @module src/cli/main
 * The `corral` command line: commander wiring, global options, and the one
 * place that turns what happened into an exit code. The operator's ledger
 * commands are wired in ledger-commands.ts; option values are read by
 * option-parsers.ts.
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
import { Command, CommanderError, Option } from "commander";
import { CorralError } from "../index.js";
import { checkCommand, demoCommand, initCommand, listCommand, MCP_DEFAULT_WORKERS, MCP_TOKEN_ENV, mcpOptionsOf, runCommand, type McpFlags, type RunOptions } from "./commands/index.js";
import { CliFailure, EXIT, PROCESS_IO, UsageError, type CliContext, type CliIo, type ExitCode } from "./context.js";
import { addLedgerCommands, type Perform } from "./ledger-commands.js";
import { outputClosedSignal } from "./closed-output.js";
import { buildContext, type GlobalOptions } from "./context-for.js";
import { packageVersion } from "./plugins-dir.js";
import { DEFAULT_CACHE_DIR, DEFAULT_LEDGER_FILE, parseCount, parseJsonInput, parseNonEmpty, parsePositive } from "./option-parsers.js";

export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  let exitCode: ExitCode = EXIT.ok;
  // Only the process's own streams can be closed under it; a test's plain objects cannot.
  const closed = io === PROCESS_IO ? outputClosedSignal() : new AbortController().signal;
  const program = buildProgram(io, closed, (code) => {
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

function buildProgram(io: CliIo, closed: AbortSignal, setExitCode: (code: ExitCode) => void): Command {
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
    .option("--config <file>", "the corral.json to use (default: the nearest one in the working folder or a folder above it)", parseNonEmpty("a file"))
    .option("--no-config", "use no corral.json, even if one is found")
    .option("--cache-dir <dir>", `where compiled bundles and their checked manifests are cached (default: the config's cacheDir, else ${DEFAULT_CACHE_DIR} beside the config or in the working folder)`)
    .option("--ledger <file|url>", `the ledger hosts record calls in, and audit, quarantine and release read: a SQLite file, or a postgres:// URL several hosts share (default: the config's ledger.store, else ${DEFAULT_LEDGER_FILE} beside the config or in the working folder)`, parseNonEmpty("a file path or a postgres:// URL"))
    .addHelpText(
      "after",
      `
Exit codes: 0 ok, 1 a tool or a load failed (or no ledger, an unknown source), 2 usage error or a bad corral.json.
Config: corral.json (JSON with comments) in the working folder or a folder above it, or --config;
flags override it. \`corral init\` writes one. Every key: docs/config.md.
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
    setExitCode(await fn(buildContext(command.optsWithGlobals<GlobalOptions>(), io, closed)));
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
    .argument("[file|dir]", "a tool file, a plugin folder, or a folder of plugins (default: corral.json's tools)")
    .option("--json", "print the LoadResult (an array of them for a folder of plugins or the config's tools) as JSON")
    .action(async (target: string | undefined, options: { json?: boolean }, command: Command) =>
      perform(command, (context) => checkCommand(target, { json: options.json === true }, context)),
    );

  program
    .command("list")
    .description("list the tools of a folder of plugins, of corral.json's tools, or of the bundled plugins")
    .argument("[dir]", "a folder of plugins (default: corral.json's tools, else the bundled plugins)")
    .option("--json", "print { tools, failures } as JSON")
    .action(async (dir: string | undefined, options: { json?: boolean }, command: Command) =>
      perform(command, (context) => listCommand(dir, { json: options.json === true }, context)),
    );

  program
    .command("init")
    .description("start a project: write a commented corral.json and a sample tool, print the MCP client snippets")
    .argument("[dir]", "the project folder (default: the working folder)")
    // init reads no config: a broken corral.json above must not stop it from writing a new one.
    .action(async (dir: string | undefined, _options: unknown, command: Command) =>
      setExitCode(await initCommand(dir, buildContext({ ...command.optsWithGlobals<GlobalOptions>(), config: false }, io, closed))),
    );

  program
    .command("demo")
    .description("run the bundled plugins and two runaway agent-written tools through one host (npm start)")
    .action(async (_options: unknown, command: Command) => perform(command, (context) => demoCommand(context)));

  program
    .command("mcp")
    .description("serve tools to MCP clients (desktop and IDE agents) over stdio, or Streamable HTTP with --http")
    .argument("[paths...]", "tool files, plugin folders or folders of plugins (default: corral.json's tools, else the bundled plugins)")
    .addOption(new Option("--http", "serve Streamable HTTP at /mcp instead of stdio (corral.json: mcp.transport)").conflicts("stdio"))
    .option("--stdio", "serve stdio even if corral.json says mcp.transport: \"http\"")
    .option("--port <n>", "the HTTP port (default: corral.json's mcp.port, else any free one, printed)", parseCount)
    .option("--host <address>", "the HTTP address to bind (default: corral.json's mcp.host, else 127.0.0.1; anything else exposes the tools to the network)", parseNonEmpty("an address"))
    .option("--token <token>", `the bearer token HTTP clients must send (default: $${MCP_TOKEN_ENV}, else a random one, printed)`, parseNonEmpty("a token"))
    .option("--allowed-host <name>", "a name clients reach the server by (its DNS name, a proxy's), as name or name:port; repeat for more (replaces corral.json's mcp.allowedHosts)", (name: string, previous: string[] = []) => [...previous, name])
    .option("--allowed-origin <origin>", "a browser origin allowed to call the server (a web client such as the MCP Inspector: http://localhost:6274); repeat for more (replaces corral.json's mcp.allowedOrigins)", (origin: string, previous: string[] = []) => [...previous, origin])
    .option("--no-token", "serve HTTP without any token, for a client that cannot send one (only on a loopback address: any process of this machine may then call the tools)")
    .option("--oauth-issuer <url>", "accept the bearer JWTs of this OAuth authorization server instead of a static token (corral.json: mcp.oauth.issuer)", parseNonEmpty("an issuer URL"))
    .option("--oauth-audience <aud>", "the audience a token must name (default: the server's URL; corral.json: mcp.oauth.audience)", parseNonEmpty("an audience"))
    .option("--workers <n>", `sandbox worker processes (default: corral.json's workers, else ${MCP_DEFAULT_WORKERS})`, parsePositive("workers"))
    .addHelpText(
      "after",
      `
Over stdio, stdout carries only MCP messages; logs and progress go to stderr.
Over HTTP, requests need "Authorization: Bearer <token>" and a Host (and Origin, if any)
naming this server: the address the client connected to, localhost from this machine, or
a name given with --allowed-host (DNS rebinding protection). With --oauth-issuer the
token is one the issuer signed for this server (docs/mcp.md, OAuth).`,
    )
    .action(async (paths: string[], flags: McpFlags, command: Command) =>
      perform(command, async (context) => {
        // Loaded here: the MCP SDK would slow every other command's start.
        const { mcpCommand } = await import("./commands/mcp.js");
        return mcpCommand(paths, mcpOptionsOf(flags, context), context);
      }),
    );

  addLedgerCommands(program, perform);

  return program;
}

type RunCliOptions = { input: unknown; tool?: string; json?: boolean; timeout?: number; memory?: number };

function toRunOptions(options: RunCliOptions): RunOptions {
  const run: RunOptions = { input: options.input, json: options.json === true };
  if (options.tool !== undefined) run.tool = options.tool;
  if (options.timeout !== undefined) run.timeoutMs = options.timeout;
  if (options.memory !== undefined) run.memoryMb = options.memory;
  return run;
}
