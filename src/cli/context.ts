/**
 * @module src/cli/context
 * What every command is handed: where to print, the logger, the cache folder,
 * the ledger file, a progress line for slow steps, and the host or ledger it
 * opens and always closes. Also the exit codes, UsageError (the throw that
 * main turns into 2) and CliFailure (the throw it turns into 1).
 */
import { existsSync, statSync } from "node:fs";
import type { Logger } from "pino";
import type { ConfigHostOptions, LoadedConfig } from "../config/index.js";
import { CorralError, createHost, Ledger, PostgresLedgerStore, type Host, type HostOptions } from "../index.js";
import { POSTGRES_URL } from "../ledger/postgres/index.js";

/** The CLI's whole contract with its caller: 0 ok, 1 a tool or load failed, 2 misuse. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Enough of a stream to print to; tests may pass plain objects. `columns`: a terminal's width. */
export type OutputStream = { write(text: string): unknown; isTTY?: boolean; columns?: number };
export type CliIo = { stdout: OutputStream; stderr: OutputStream };

export const PROCESS_IO: CliIo = { stdout: process.stdout, stderr: process.stderr };

/** The user asked for something that cannot mean anything: bad argument, bad JSON, no such tool. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Well-formed, but it could not be done: no ledger at that path, a source the ledger never saw. */
export class CliFailure extends Error {
  override name = "CliFailure";
}

export type CliContext = {
  io: CliIo;
  /** Aborted when stdout was closed under the command (EPIPE: `corral list | head -1`); long commands stop then. */
  closed: AbortSignal;
  logger: Logger;
  /** The corral.json in force, checked; undefined with --no-config or when none was found. */
  config: LoadedConfig | undefined;
  /** createHost's options from the config ({} without one); each command adds its own and the flags'. */
  hostOptions: ConfigHostOptions;
  /** @default ".corral/cache" in the config's folder, else the working directory; false: no cache */
  cacheDir: string | false;
  /**
   * The SQLite file, the postgres:// URL of a ledger several hosts share, or
   * ":memory:" (a config's `ledger.store: false`).
   * @default ".corral/ledger.db" in the config's folder, else the working directory
   */
  ledgerFile: string;
  /**
   * Announces a step that may take a second. It goes to stderr, always, so
   * that stdout holds only the command's answer (`--json` stays parseable).
   */
  progress(step: string): void;
};

export function writeLines(stream: OutputStream, lines: readonly string[]): void {
  if (lines.length > 0) stream.write(`${lines.join("\n")}\n`);
}

/**
 * Runs `fn` with a fresh host and closes it however `fn` ends: an open host
 * keeps sandbox worker processes alive, and the CLI would then never exit.
 */
export async function withCliHost<T>(
  context: CliContext,
  workers: number,
  fn: (host: Host) => Promise<T>,
  /** The demo keeps its record in memory: run after run, it must show the same thing. */
  ledgerStore: string | false = context.ledgerFile,
  /** More host options (the demo grants its plugins a network origin and turns Code Mode on). */
  extra: Partial<Pick<HostOptions, "effects" | "capabilities" | "codeMode">> = {},
): Promise<T> {
  const host = createHost({
    ...context.hostOptions,
    workers,
    cacheDir: context.cacheDir,
    logger: context.logger,
    ledger: { ...context.hostOptions.ledger, store: ledgerStore },
    ...extra,
  });
  try {
    return await fn(host);
  } finally {
    await host.close();
  }
}

/**
 * Runs `fn` with the ledger file opened directly (no host, no workers) and
 * closes it however `fn` ends. The file must exist: opening a SQLite path
 * creates it, so a mistyped --ledger would otherwise show an empty, healthy
 * ledger, or quarantine a source in a file no host reads.
 */
export async function withCliLedger<T>(context: CliContext, fn: (ledger: Ledger) => Promise<T>): Promise<T> {
  const file = context.ledgerFile;
  if (file === ":memory:") throw new CliFailure(`the config ${context.config?.file ?? ""} keeps the ledger in memory (ledger.store: false); there is nothing to read: pass the ledger a host records in with --ledger <file|url>`);
  if (POSTGRES_URL.test(file)) return withLedger(() => new Ledger({ store: new PostgresLedgerStore({ url: file, createSchema: false }) }), fn);
  if (!existsSync(file)) {
    throw new CliFailure(`there is no ledger at ${file}; a host creates it when it starts, or pass the one it uses with --ledger <file>`);
  }
  if (!statSync(file).isFile()) throw new CliFailure(`${file} is not a file; --ledger takes the SQLite file a host records in`);
  return withLedger(() => new Ledger({ store: file }), fn);
}

/** Opens the ledger, runs `fn`, closes it; an empty PostgreSQL schema is refused as a missing file is (createSchema: false). */
async function withLedger<T>(open: () => Ledger, fn: (ledger: Ledger) => Promise<T>): Promise<T> {
  let ledger: Ledger;
  try {
    ledger = open();
  } catch (error) {
    throw asFailure(error);
  }
  try {
    return await fn(ledger);
  } catch (error) {
    throw asFailure(error);
  } finally {
    await ledger.close();
  }
}

/** A store that cannot be read (not SQLite, locked, a newer schema) is no misuse of the command line: exit 1, not 2. */
function asFailure(error: unknown): unknown {
  return error instanceof CorralError && error.code === "ledger_unavailable" ? new CliFailure(error.message) : error;
}

/** The ledger as messages name it: a URL without its password. */
export function ledgerLabel(ledger: string): string {
  if (!POSTGRES_URL.test(ledger)) return ledger;
  try {
    const url = new URL(ledger);
    url.password = "";
    return url.toString();
  } catch {
    return "the PostgreSQL ledger";
  }
}
