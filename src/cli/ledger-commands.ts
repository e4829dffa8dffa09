/**
 * @module src/cli/ledger-commands
 * The operator's commands (audit, quarantine, dashboard, release) as
 * commander wires them: their options, help and actions. They open the
 * ledger alone, never a host, so they start no workers. main.ts builds the
 * program and adds them.
 */
import type { Command } from "commander";
import { LEDGER_DEFAULTS } from "../ledger/index.js";
import { auditCommand, dashboardCommand, parseUntil, quarantineCommand, releaseCommand, toolChangeCommand, toolsCommand, toolVersionsCommand } from "./commands/index.js";
import type { CliContext, ExitCode } from "./context.js";
import { InvalidArgumentError } from "commander";
import { DEFAULT_LEDGER_FILE, parseCount, parseNonEmpty, parsePort } from "./option-parsers.js";

export type Perform = (command: Command, fn: (context: CliContext) => Promise<ExitCode>) => Promise<void>;

/** The operator's commands: they open the ledger file alone, never a host, so they start no workers. */
export function addLedgerCommands(program: Command, perform: Perform): void {
  program
    .command("audit")
    .description("show the ledger: each source's calls, errors, strikes and state, most trouble first; or one source in detail")
    .argument("[source]", "one source (plugin:<path>, agent:<id>, host:<name> or code:<caller id>) to report in detail")
    .option("--json", "print the summary (or the source's report) as JSON")
    .option("--events <n>", `how many recent changes of state one source's report lists (default ${LEDGER_DEFAULTS.recentEvents})`, parseCount)
    .option("--strikes <n>", `how many recent strikes one source's report lists (default and at most ${LEDGER_DEFAULTS.recentStrikes}, as many as the ledger keeps)`, parseCount)
    .addHelpText(
      "after",
      `
Reads the ledger file directly (--ledger, else corral.json's ledger.store, else ${DEFAULT_LEDGER_FILE}
beside the config or here), the one a running host writes; exits 1 if it does not exist, or if the source has no record in it.
Counts per source and tool: CALLS = OK + TOOL ERR + INVALID + BLOCKED + CANCELLED + BUSY + TIMEOUT + MEMORY + CRASH + OTHER;
ERROR % is the calls that were not ok. Timeouts, memory and crashes are strikes; enough of them quarantine the source.
Most trouble first: quarantined, then most strikes, then highest error rate.
One source's report also shows its calls per version, each tool's latest errors with their messages,
and its capability uses.
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
    .option("--port <n>", "the port (default: corral.json's dashboard.port, else any free one, printed)", parsePort)
    .option("--token <token>", "the token the page and API require (default: $CORRAL_DASHBOARD_TOKEN, else a random one, printed)")
    .addHelpText(
      "after",
      `
Reads and writes the ledger (--ledger, else corral.json's ledger.store: the SQLite file, default
${DEFAULT_LEDGER_FILE}, or the postgres:// URL hosts record in); the port: --port, else dashboard.port; exits 1 if it does not exist or is not a ledger. Quarantines made
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

  addToolsCommands(program, perform);
}

function parseVersion(text: string): number {
  const version = Number(text.replace(/^v/, ""));
  if (!Number.isInteger(version) || version < 1) throw new InvalidArgumentError("expected a version number: 1, 2, … (or v1, v2, …).");
  return version;
}

/** `corral tools`: the library of agent-written tools beside the ledger. */
function addToolsCommands(program: Command, perform: Perform): void {
  const tools = program
    .command("tools")
    .description("list the library of agent-written tools beside the ledger: each tool's current version, versions and state")
    .option("--agent <id>", "only this agent's tools")
    .option("--json", "print the tools as JSON")
    .addHelpText(
      "after",
      `
Reads the library in the ledger (--ledger, else corral.json's ledger.store, else ${DEFAULT_LEDGER_FILE}); hosts on the same
ledger serve its live tools. Subcommands change it for every host of the ledger at once.`,
    )
    .action(async (options: { agent?: string; json?: boolean }, command: Command) => perform(command, (context) => toolsCommand({ ...options, json: options.json === true }, context)));
  tools
    .command("versions")
    .description("one tool's versions, newest first (* marks the current one)")
    .argument("<name>", "the tool's name")
    .option("--json", "print the tool and its versions as JSON")
    .action(async (name: string, options: { json?: boolean }, command: Command) => perform(command, (context) => toolVersionsCommand(name, { json: options.json === true }, context)));
  tools
    .command("rollback")
    .description("make an earlier version current again, on every host of the ledger (a retired tool becomes live)")
    .argument("<name>", "the tool's name")
    .argument("<version>", "the version to make current (corral tools versions <name> lists them)", parseVersion)
    .option("--json", "print the tool as it is after as JSON")
    .action(async (name: string, version: number, options: { json?: boolean }, command: Command) =>
      perform(command, (context) => toolChangeCommand({ rollback: version }, name, { json: options.json === true }, context)),
    );
  tools
    .command("retire")
    .description("retire a tool: no host of the ledger offers or runs it any more; its versions and record stay")
    .argument("<name>", "the tool's name")
    .option("--json", "print the tool as it is after as JSON")
    .action(async (name: string, options: { json?: boolean }, command: Command) => perform(command, (context) => toolChangeCommand("retire", name, { json: options.json === true }, context)));
}
