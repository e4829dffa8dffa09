/**
 * @module src/cli/commands/tools
 * `corral tools`: the library of agent-written tools kept beside the ledger
 * (its SQLite file or PostgreSQL schema), read and changed directly, with no
 * host and no workers. A rollback or a retirement reaches the hosts on the
 * same store within a second (PostgreSQL: at once, by NOTIFY; SQLite: at
 * their next look at the file, every 250 ms).
 *
 *   corral tools [--agent <id>]         the tools: current version, versions, state
 *   corral tools versions <name>        one tool's versions, newest first
 *   corral tools rollback <name> <n>    make version n current again
 *   corral tools retire <name>          no longer offered nor callable
 */
import { existsSync } from "node:fs";
import { PostgresLibraryStore, SqliteLibraryStore, type LibraryStore, type StoredTool } from "../../library/index.js";
import type { Change } from "../../library/types.js";
import { POSTGRES_URL } from "../../ledger/postgres/index.js";
import { CorralError } from "../../errors.js";
import { CliFailure, EXIT, writeLines, type CliContext, type ExitCode } from "../context.js";
import { toJson } from "../format.js";
import { alignedTable, isoTime, PIPE_LINE_CHARS } from "../format-audit.js";

export type ToolsOptions = { agent?: string; json: boolean };

/** Opens the library beside the ledger the context names; it must exist (a host made it). */
async function withCliLibrary<T>(context: CliContext, fn: (store: LibraryStore) => Promise<T>): Promise<T> {
  const file = context.ledgerFile;
  if (file === ":memory:") throw new CliFailure("the config keeps the ledger in memory (ledger.store: false), and the tool library with it; pass the ledger a host uses with --ledger <file|url>");
  if (!POSTGRES_URL.test(file) && !existsSync(file)) throw new CliFailure(`there is no ledger at ${file}; a host creates it (and the tool library in it) when it starts, or pass the one it uses with --ledger <file|url>`);
  let store: LibraryStore;
  try {
    store = POSTGRES_URL.test(file) ? new PostgresLibraryStore(file, { createSchema: false }) : new SqliteLibraryStore(file);
  } catch (error) {
    throw error instanceof CorralError ? new CliFailure(error.message) : error;
  }
  try {
    return await fn(store);
  } catch (error) {
    throw error instanceof CorralError && error.code === "ledger_unavailable" ? new CliFailure(error.message) : error;
  } finally {
    await store.close();
  }
}

const lineChars = ({ io: { stdout } }: CliContext) => (stdout.isTTY === true && stdout.columns !== undefined ? stdout.columns : PIPE_LINE_CHARS);

function toolRow(tool: StoredTool): string[] {
  return [tool.name, `agent:${tool.agent}`, `v${tool.current}`, String(tool.versions), tool.retiredAt === null ? "live" : `retired ${isoTime(tool.retiredAt)}`, isoTime(tool.updatedAt)];
}

export async function toolsCommand(options: ToolsOptions, context: CliContext): Promise<ExitCode> {
  return withCliLibrary(context, async (store) => {
    const tools = await store.tools(options.agent);
    if (options.json) {
      context.io.stdout.write(toJson(tools));
      return EXIT.ok;
    }
    if (tools.length === 0) {
      writeLines(context.io.stdout, [options.agent === undefined ? "the library has no tools yet: agents add them with create_tool (or host.author)" : `agent:${options.agent} has no tools in the library`]);
      return EXIT.ok;
    }
    const rows = [["TOOL", "SOURCE", "CURRENT", "VERSIONS", "STATE", "UPDATED"], ...tools.map(toolRow)];
    writeLines(context.io.stdout, alignedTable(rows, ["left", "left", "right", "right", "left", "left"], lineChars(context)));
    return EXIT.ok;
  });
}

export async function toolVersionsCommand(name: string, options: { json: boolean }, context: CliContext): Promise<ExitCode> {
  return withCliLibrary(context, async (store) => {
    const [versions, tools] = await Promise.all([store.versions(name), store.tools()]);
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool === undefined) throw new CliFailure(`the library has no tool named "${name}" (corral tools lists them)`);
    if (options.json) {
      context.io.stdout.write(toJson({ tool, versions }));
      return EXIT.ok;
    }
    const rows = [["", "VERSION", "CREATED", "BY", "CONTENT HASH", "DESCRIPTION"]];
    for (const version of versions) {
      const description = (() => {
        try {
          return String((JSON.parse(version.manifestJson) as { description?: unknown }).description ?? "");
        } catch {
          return "(unreadable manifest)";
        }
      })();
      rows.push([version.version === tool.current ? "*" : "", `v${version.version}`, isoTime(version.createdAt), version.caller ?? "program", version.hash.slice(0, 12), description.split("\n")[0] ?? ""]);
    }
    writeLines(context.io.stdout, [`${name} (agent:${tool.agent}, ${tool.retiredAt === null ? "live" : "retired"}; * current)`, ...alignedTable(rows, ["left", "right", "left", "left", "left", "left"], lineChars(context))]);
    return EXIT.ok;
  });
}

export async function toolChangeCommand(change: { rollback: number } | "retire", name: string, options: { json: boolean }, context: CliContext): Promise<ExitCode> {
  return withCliLibrary(context, async (store) => {
    const at = Date.now();
    const answer: Change = change === "retire" ? await store.retire(name, { at }) : await store.setCurrent(name, change.rollback, { at });
    if (!answer.ok) throw new CliFailure(`${answer.message} (corral tools lists them; corral tools versions <name> lists a tool's versions)`);
    if (options.json) context.io.stdout.write(toJson(answer.tool));
    else writeLines(context.io.stdout, [change === "retire" ? `${name} is retired: hosts on this ledger no longer offer it; its versions and record stay` : `${name} is at v${answer.tool.current} on every host of this ledger`]);
    return EXIT.ok;
  });
}
